"""Scoring completions with a verifier: one at a time or concurrently, never raising.

Every function here turns verifier exceptions (and wrong return types) into a
:class:`~rlenv.types.RewardResult` with status ``error``, so one bad sample never sinks a batch.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from tqdm.auto import tqdm

from rlenv.types import RewardResult, Task, Verifier

logger = logging.getLogger(__name__)

#: Accepted executor names: the local pools, and ``"ray"`` (:mod:`rlenv.ray_executor`, the optional ``ray`` extra).
EXECUTORS = ("serial", "thread", "process", "ray")
#: Where a verifier must run (its ``placement`` attribute; ``"cpu"`` when it has none): anywhere,
#: on a machine with a Docker engine (sandboxed code), or in a process holding its model (with a
#: GPU when the machine has one). Distributed executors place the work by it.
PLACEMENTS = ("cpu", "docker", "model")


@runtime_checkable
class BatchExecutor(Protocol):
    """An executor that scores whole batches itself (e.g. spread over a cluster), not item by item.

    :func:`score_tasks` hands it the batch, whatever the verifier; it returns one result per item
    in input order and never raises for a verifier failure.
    """

    shared: bool

    def score(self, verifier: Verifier, tasks: Sequence[Task], completions: Sequence[str],
              max_workers: int | None = None, progress: bool = False) -> list[RewardResult]: ...

    def shutdown(self, wait: bool = True) -> None: ...


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


def verifier_placement(verifier: Any) -> str:
    """The verifier's ``placement`` (one of :data:`PLACEMENTS`; ``"cpu"`` when it declares none)."""
    placement = getattr(verifier, "placement", "cpu")
    if placement not in PLACEMENTS:
        raise ValueError(f"{type(verifier).__name__}.placement must be one of {PLACEMENTS}, got {placement!r}")
    return placement


def node_problems(verifier: Any) -> list[str]:
    """What keeps this machine from running ``verifier``, from its own ``node_problems()`` (e.g. the
    code verifier: no Docker engine, no sandbox image); empty when it can run here or says nothing.
    Distributed executors call it on each node to choose where a placement's actors go."""
    check = getattr(verifier, "node_problems", None)
    return [str(p) for p in check()] if callable(check) else []


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


Executor = str | cf.Executor | BatchExecutor


def make_executor(executor: Executor, max_workers: int | None = None) -> cf.Executor | BatchExecutor | None:
    """The executor named by ``executor`` (``None`` for ``"serial"``); an executor object is returned as is.

    ``"ray"`` is the process's shared :class:`~rlenv.ray_executor.RayExecutor` on the Ray cluster
    this process is connected to (connecting as ``ray.init()`` does when it is not); Ray is
    imported only then.
    """
    if isinstance(executor, (cf.Executor, BatchExecutor)):
        return executor
    if executor == "serial":
        return None
    if executor == "thread":
        return cf.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="rlenv-score")
    if executor == "process":
        return cf.ProcessPoolExecutor(max_workers=max_workers)
    if executor == "ray":
        from rlenv.ray_executor import shared_executor

        return shared_executor()
    raise ValueError(f"unknown executor {executor!r}: expected one of {EXECUTORS}, a concurrent.futures.Executor "
                     "or a rlenv.scoring.BatchExecutor")


def release_executor(pool: cf.Executor | BatchExecutor | None, executor: Executor) -> None:
    """Shut ``pool`` down when :func:`make_executor` built it for this caller (not the caller's own, not a shared one)."""
    if pool is not None and pool is not executor and not getattr(pool, "shared", False):
        pool.shutdown(wait=True)


def score_tasks(
    verifier: Verifier,
    tasks: Sequence[Task],
    completions: Sequence[str],
    executor: Executor | None = "thread",
    max_workers: int | None = None,
    progress: bool = False,
) -> list[RewardResult]:
    """Score ``completions[i]`` against ``tasks[i]``; results come back in input order.

    With ``executor="ray"`` (or any :class:`BatchExecutor`) the whole batch goes to that executor:
    spread over a Ray cluster by the verifier's :func:`placement <verifier_placement>`, scored
    there as below, with the same results (``max_workers`` caps the scoring actors). Otherwise
    ``verifier.score_batch`` is used when the verifier has one (one call for the whole batch),
    else the verifier is called per item on ``executor``: ``"serial"``, ``"thread"`` (default),
    ``"process"`` (the verifier must be picklable; best for CPU-bound verifiers) or an existing
    ``concurrent.futures.Executor`` (not shut down here).
    """
    if len(tasks) != len(completions):
        raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
    if executor == "ray" or isinstance(executor, BatchExecutor):
        batch_executor = make_executor(executor)
        try:
            return batch_executor.score(verifier, tasks, completions, max_workers=max_workers, progress=progress)
        finally:
            release_executor(batch_executor, executor)
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
        release_executor(pool, executor)


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
