"""rlenv: verifiers and reward models as Gymnasium environments for RL of language models.

Quick use::

    import rlenv
    env = rlenv.make("rlenv/GSM8K-v0")
    prompt, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(completion)

``import rlenv`` never imports torch. The root holds the contract (making, registering and checking
environments, the episode and reward types, offline scoring); everything else is reached through its
submodule (``rlenv.sources``, ``rlenv.splits``, ``rlenv.scoring``, ``rlenv.spaces``, ...).
"""

from __future__ import annotations

from typing import Any

import rlenv.wrappers  # noqa: F401  (so that rlenv.wrappers.X works after ``import rlenv``)
from rlenv import builtin as _builtin  # noqa: F401  (registers the shipped environments)
from rlenv.checker import check_env
from rlenv.deprecation import moved_names
from rlenv.env import TextEnv
from rlenv.registry import list_envs, load_builtin_families, make, register, spec
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
    from rlenv.env import text_env
    from rlenv.scoring import resolve_samples, score_tasks

    env = make(env_or_id) if isinstance(env_or_id, str) else env_or_id
    base = text_env(env)
    tasks, completions = resolve_samples(env, samples)
    return score_tasks(base.verifier, tasks, completions, executor=executor, max_workers=max_workers,
                       progress=progress)


__all__ = [
    "Completion", "RewardResult", "Status", "StepReward", "Task", "TextEnv", "TextVectorEnv", "Verifier", "check_env",
    "list_envs", "make", "make_vec", "register", "score", "spec",
]

#: Names the root no longer holds, reached through their submodule (deprecated here for one release).
__getattr__ = moved_names(__name__, {
    "ChatSpace": "rlenv.spaces.ChatSpace",
    "TextSpace": "rlenv.spaces.TextSpace",
    "DatasetSource": "rlenv.sources.DatasetSource",
    "ProceduralSource": "rlenv.sources.ProceduralSource",
    "TaskSource": "rlenv.sources.TaskSource",
    "PromptFilteredSource": "rlenv.splits.PromptFilteredSource",
    "disjoint_split": "rlenv.splits.disjoint_split",
    "distinct_prompt_indices": "rlenv.splits.distinct_prompt_indices",
    "EnvCheckError": "rlenv.checker.EnvCheckError",
    "EnvSpec": "rlenv.registry.EnvSpec",
    "load_plugins": "rlenv.registry.load_plugins",
    "score_tasks": "rlenv.scoring.score_tasks",
    "verify_safely": "rlenv.scoring.verify_safely",
    "RemoteVerifier": "rlenv.service.RemoteVerifier",  # the core does not import the service layer
})
