"""Where a batch is scored: the executor dispatch of :func:`score_tasks`.

A local executor (``"serial"``, ``"thread"``, ``"process"`` or a ``concurrent.futures.Executor``)
scores in this process (:mod:`rlenv.scoring.local`); ``"ray"`` or any :class:`BatchExecutor`
gets the whole batch (:mod:`rlenv.scoring.ray_backend`, imported only then, with Ray).
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from rlenv.scoring.local import LOCAL_EXECUTORS, local_pool, score_locally
from rlenv.types import RewardResult, Task, Verifier

logger = logging.getLogger(__name__)

#: Accepted executor names: the local pools, and ``"ray"`` (:mod:`rlenv.scoring.ray_backend`, the optional ``ray`` extra).
EXECUTORS = (*LOCAL_EXECUTORS, "ray")


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


Executor = str | cf.Executor | BatchExecutor


def make_executor(executor: Executor, max_workers: int | None = None) -> cf.Executor | BatchExecutor | None:
    """The executor named by ``executor`` (``None`` for ``"serial"``); an executor object is returned as is.

    ``"ray"`` is the process's shared :class:`~rlenv.scoring.ray_backend.RayExecutor` on the Ray cluster
    this process is connected to (connecting as ``ray.init()`` does when it is not); Ray is
    imported only then.
    """
    if isinstance(executor, (cf.Executor, BatchExecutor)):
        return executor
    if executor == "ray":
        return _ray_executor()
    if executor not in LOCAL_EXECUTORS:
        raise _unknown_executor(executor)
    return local_pool(executor, max_workers)


def _unknown_executor(executor: Any) -> ValueError:
    return ValueError(f"unknown executor {executor!r}: expected one of {EXECUTORS}, a concurrent.futures.Executor "
                      "or a rlenv.scoring.BatchExecutor")


def _ray_executor() -> BatchExecutor:
    from rlenv.scoring.ray_backend import shared_executor

    return shared_executor()


def release_executor(pool: cf.Executor | BatchExecutor | None, executor: Executor | None) -> None:
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
    spread over a Ray cluster by the verifier's :func:`placement <rlenv.scoring.verifier_placement>`,
    scored there as below, with the same results (``max_workers`` caps the scoring actors). Otherwise
    it is scored here (:func:`~rlenv.scoring.local.score_locally`): ``verifier.score_batch`` when the
    verifier has one, else the verifier per item on ``executor``: ``"serial"``, ``"thread"`` (default),
    ``"process"`` (the verifier must be picklable; best for CPU-bound verifiers) or an existing
    ``concurrent.futures.Executor`` (not shut down here).
    """
    if len(tasks) != len(completions):
        raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
    if isinstance(executor, BatchExecutor) or executor == "ray":
        batch_executor = executor if isinstance(executor, BatchExecutor) else _ray_executor()
        try:
            return batch_executor.score(verifier, tasks, completions, max_workers=max_workers, progress=progress)
        finally:
            release_executor(batch_executor, executor)
    if executor is not None and not isinstance(executor, cf.Executor) and executor not in LOCAL_EXECUTORS:
        raise _unknown_executor(executor)
    return score_locally(verifier, tasks, completions, executor or "serial", max_workers, progress)


def resolve_samples(env: Any, samples: Any) -> tuple[list[Task], list[str]]:
    """The tasks and completions named by offline ``samples`` of ``env`` (possibly wrapped).

    Each sample is a dict with a ``completion`` (str) and either ``task_id`` or ``index``; a bad
    sample is an error naming its row, counted from 1 (the line of a JSONL file without blank
    lines), and for an unknown task a valid id.
    """
    base = env.unwrapped
    tasks, completions = [], []
    for n, sample in enumerate(samples, start=1):
        if not isinstance(sample, dict) or "completion" not in sample:
            raise ValueError(f"row {n}: a sample must be a dict with a 'completion' key, got {sample!r:.120}")
        if "task_id" not in sample and "index" not in sample:
            raise ValueError(f"row {n} names no task: add 'task_id' or 'index' ({sample!r:.120})")
        try:
            index = base.resolve_index({"task_id": sample["task_id"]} if "task_id" in sample else
                                       {"index": sample["index"]})
        except (KeyError, IndexError, ValueError) as exc:
            example = f"; e.g. {base.source[0].id!r}" if base.source.size != 0 else ""
            raise type(exc)(f"row {n}: {exc.args[0] if exc.args else exc}{example}") from None
        if not isinstance(sample["completion"], str):
            raise TypeError(f"row {n}: completion must be a str, got {type(sample['completion']).__name__}")
        tasks.append(base.source[index])
        completions.append(sample["completion"])
    return tasks, completions
