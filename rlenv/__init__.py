"""rlenv: verifiers and reward models as Gymnasium environments for RL of language models.

Quick use::

    import rlenv
    env = rlenv.make("rlenv/GSM8K-v0")
    prompt, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(completion)

``import rlenv`` never imports torch.
"""

from __future__ import annotations

import warnings
from typing import Any

import rlenv.wrappers  # noqa: F401  (so that rlenv.wrappers.X works after ``import rlenv``)
from rlenv import builtin as _builtin  # noqa: F401  (registers the shipped environments)
from rlenv.checker import EnvCheckError, check_env
from rlenv.env import TextEnv
from rlenv.registry import EnvSpec, list_envs, load_builtin_families, load_plugins, make, register, spec
from rlenv.scoring import resolve_samples, score_tasks, verify_safely
from rlenv.sources import DatasetSource, ProceduralSource, TaskSource
from rlenv.spaces import ChatSpace, TextSpace
from rlenv.splits import PromptFilteredSource, disjoint_split, distinct_prompt_indices
from rlenv.types import Completion, RewardResult, Status, StepReward, Task, Verifier
from rlenv.vector import TextVectorEnv

__version__ = "0.1.0"

load_builtin_families()


def make_vec(
    id: str,
    num_tasks: int,
    group_size: int = 1,
    executor: Any = "thread",
    max_workers: int | None = None,
    wrappers: Any = (),
    **overrides: Any,
) -> TextVectorEnv:
    """Build a :class:`TextVectorEnv` of ``num_tasks * group_size`` episodes for env ``id``.

    ``wrappers`` is a sequence of callables ``env -> wrapped env`` applied in order (e.g. reward
    wrappers); ``overrides`` go to :func:`make`.
    """
    env = make(id, **overrides)
    for wrap in wrappers:
        env = wrap(env)
    return TextVectorEnv(env, num_tasks=num_tasks, group_size=group_size, executor=executor, max_workers=max_workers)


def score(
    env_or_id: Any,
    samples: Any,
    executor: Any = "thread",
    max_workers: int | None = None,
    progress: bool = False,
) -> list[RewardResult]:
    """Score existing completions offline.

    Args:
        env_or_id: A TextEnv (possibly wrapped) or a registered id.
        samples: An iterable of dicts with ``completion`` and either ``task_id`` or ``index``.
        executor, max_workers: See :func:`rlenv.scoring.score_tasks` (``executor="ray"`` scores on a Ray cluster).
        progress: Show a progress bar on stderr.

    Returns:
        One :class:`RewardResult` per sample, in input order.
    """
    env = make(env_or_id) if isinstance(env_or_id, str) else env_or_id
    base = env.unwrapped
    tasks, completions = resolve_samples(env, samples)
    return score_tasks(base.verifier, tasks, completions, executor=executor, max_workers=max_workers,
                       progress=progress)


__all__ = [
    "ChatSpace", "Completion", "DatasetSource", "EnvCheckError", "EnvSpec", "ProceduralSource",
    "PromptFilteredSource", "RewardResult", "Status", "StepReward", "Task", "TaskSource", "TextEnv", "TextSpace",
    "TextVectorEnv", "Verifier", "check_env", "disjoint_split", "distinct_prompt_indices", "list_envs",
    "load_plugins", "make", "make_vec", "register", "score", "score_tasks", "spec", "verify_safely",
]


def __getattr__(name: str) -> Any:
    """Deprecated aliases (for one release): ``rlenv.RemoteVerifier`` is ``rlenv.service.RemoteVerifier``
    (the core does not import the service layer)."""
    if name == "RemoteVerifier":
        warnings.warn("rlenv.RemoteVerifier is deprecated: use rlenv.service.RemoteVerifier", DeprecationWarning,
                      stacklevel=2)
        from rlenv.service import RemoteVerifier

        return RemoteVerifier
    raise AttributeError(f"module 'rlenv' has no attribute {name!r}")
