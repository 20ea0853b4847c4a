"""The round loop of the sample-then-update trainers (self-training, online preference optimization),
and the sampling of one round under the verifier-failure policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tqdm.auto import tqdm

from rlenv.inference.policy import GenerateFn
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.rollout import (
    EpisodeEnv,
    FailFast,
    FailureLog,
    FailurePolicy,
    drop_failures,
    run_episodes,
)

RoundCallback = Callable[[int, dict[str, float]], Any]


def run_rounds(count: int, train_round: Callable[[int], dict[str, float]], history: list[dict[str, float]], *,
               desc: str, progress: bool = True, callbacks: tuple[RoundCallback | None, ...] = ()) -> list[dict[str, float]]:
    """Run ``train_round(r)`` for ``r`` in ``range(count)``, appending each round's metrics to
    ``history`` and calling every given ``callback(r + 1, metrics)`` after it; returns ``history``."""
    for r in tqdm(range(count), desc=desc, disable=None if progress else True):  # bars on a terminal only
        metrics = train_round(r)
        history.append(metrics)
        for callback in callbacks:
            if callback is not None:
                callback(r + 1, metrics)
    return history


def sample_round(env: EpisodeEnv, generate_fn: GenerateFn, tokenizer: Any, seed: int, policy: FailurePolicy,
                 fail_fast: FailFast) -> tuple[EpisodeBatch, FailureLog]:
    """One round's episodes with ``policy`` applied (failed episodes re-scored / re-generated and
    left out, or kept at reward 0), after ``fail_fast`` has seen the round's failures."""
    log = FailureLog()
    batch = run_episodes(env, generate_fn, tokenizer, seed=seed, failures=policy, log=log)
    batch = drop_failures(batch, policy, log)
    fail_fast.check(log)
    return batch, log
