"""Scoring completions with a verifier: one at a time or concurrently, never raising.

Every function here turns verifier exceptions (and wrong return types) into a
:class:`~rlenv.types.RewardResult` with status ``error``, so one bad sample never sinks a batch.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from rlenv.types import RewardResult, Task, Verifier

logger = logging.getLogger(__name__)

#: Accepted names for the built-in executors (``ray``: :mod:`rlenv.ray_executor`, imported when used).
EXECUTORS = ("serial", "thread", "process", "ray")


def verifier_identity(verifier: Any) -> tuple[str, str]:
    """``(name, version)`` of a verifier, falling back to its class name and ``"0"``."""
    return str(getattr(verifier, "name", type(verifier).__name__)), str(getattr(verifier, "version", "0"))


def verify_safely(verifier: Verifier, task: Task, completion: str) -> RewardResult:
    """Call ``verifier(task, completion)``; exceptions become status ``error`` results."""
    try:
        result = verifier(task, completion)
    except Exception as exc:  # a verifier failure is data, not a crash
        logger.debug("verifier %r failed on task %s", verifier, task.id, exc_info=True)
        return RewardResult.error(exc, *verifier_identity(verifier))
    if not isinstance(result, RewardResult):
        return RewardResult.error(
            f"verifier returned {type(result).__name__}, expected RewardResult", *verifier_identity(verifier)
        )
    return result


def _score_batch_safely(verifier: Any, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
    try:
        results = list(verifier.score_batch(list(tasks), list(completions)))
    except Exception as exc:
        logger.warning("score_batch of %r failed: %s", verifier, exc)
        return [RewardResult.error(exc, *verifier_identity(verifier)) for _ in tasks]
    if len(results) != len(tasks) or not all(isinstance(r, RewardResult) for r in results):
        text = f"score_batch returned {len(results)} items for {len(tasks)} inputs (expected that many RewardResult)"
        return [RewardResult.error(text, *verifier_identity(verifier)) for _ in tasks]
    return results


def make_executor(executor: Any, max_workers: int | None = None) -> Any:
    """Build the executor named by ``executor`` (``None`` for ``"serial"``; ``"ray"``: the process's
    shared :class:`~rlenv.ray_executor.RayExecutor`, joining ``$RAY_ADDRESS`` or a local cluster); an
    executor object is returned as it is."""
    if isinstance(executor, cf.Executor) or hasattr(executor, "score"):
        return executor
    if executor == "serial":
        return None
    if executor == "ray":
        from rlenv.ray_executor import shared_ray_executor

        return shared_ray_executor()
    if executor == "thread":
        return cf.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="rlenv-score")
    if executor == "process":
        return cf.ProcessPoolExecutor(max_workers=max_workers)
    raise ValueError(f"unknown executor {executor!r}: expected one of {EXECUTORS} or a concurrent.futures.Executor")


def score_tasks(
    verifier: Verifier,
    tasks: Sequence[Task],
    completions: Sequence[str],
    executor: Any = "thread",
    max_workers: int | None = None,
    progress: bool = False,
) -> list[RewardResult]:
    """Score ``completions[i]`` against ``tasks[i]``; results come back in input order.

    Uses ``verifier.score_batch`` when the verifier has one (one call for the whole batch).
    Otherwise calls the verifier per item on ``executor``: ``"serial"``, ``"thread"`` (default),
    ``"process"`` (the verifier must be picklable; best for CPU-bound verifiers) or an existing
    ``concurrent.futures.Executor`` (not shut down here). ``"ray"`` or a
    :class:`~rlenv.ray_executor.RayExecutor` spreads the batch over a Ray cluster in chunks (each
    chunk scored by this function on a node, ``score_batch`` included).
    """
    if len(tasks) != len(completions):
        raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
    if executor == "ray" or hasattr(executor, "score"):
        return make_executor(executor).score(verifier, tasks, completions, progress=progress)
    if hasattr(verifier, "score_batch"):
        return _score_batch_safely(verifier, tasks, completions)
    pool = make_executor(executor or "serial", max_workers)
    bar = tqdm(total=len(tasks), desc="scoring", unit="sample", disable=None if progress else True, leave=False)
    try:
        if pool is None:
            results = []
            for task, completion in zip(tasks, completions):
                results.append(verify_safely(verifier, task, completion))
                bar.update()
            return results
        futures = [pool.submit(verify_safely, verifier, t, c) for t, c in zip(tasks, completions)]
        for _ in cf.as_completed(futures):
            bar.update()
        return [_result_of(f, verifier) for f in futures]
    finally:
        bar.close()
        if pool is not None and pool is not executor:
            pool.shutdown(wait=True)


def _result_of(future: cf.Future, verifier: Any) -> RewardResult:
    try:
        return future.result()
    except Exception as exc:  # e.g. a process pool worker died or the verifier did not pickle
        return RewardResult.error(exc, *verifier_identity(verifier))


def resolve_samples(env: Any, samples: Any) -> tuple[list[Task], list[str]]:
    """The tasks and completions named by offline ``samples`` of ``env`` (possibly wrapped).

    Each sample is a dict with a ``completion`` (str) and either ``task_id`` or ``index``; a bad
    sample is an error naming its position.
    """
    base = env.unwrapped
    tasks, completions = [], []
    for n, sample in enumerate(samples):
        if not isinstance(sample, dict) or "completion" not in sample:
            raise ValueError(f"sample {n} must be a dict with a 'completion' key, got {sample!r:.120}")
        if "task_id" in sample:
            index = base.resolve_index({"task_id": sample["task_id"]})
        elif "index" in sample:
            index = base.resolve_index({"index": sample["index"]})
        else:
            raise ValueError(f"sample {n} names no task: add 'task_id' or 'index' ({sample!r:.120})")
        if not isinstance(sample["completion"], str):
            raise TypeError(f"sample {n}: completion must be a str, got {type(sample['completion']).__name__}")
        tasks.append(base.source[index])
        completions.append(sample["completion"])
    return tasks, completions
