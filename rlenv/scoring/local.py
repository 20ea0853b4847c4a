"""Local scoring: a verifier run in this process, serially or on a ``concurrent.futures`` pool, never raising.

Every function here turns verifier exceptions (and wrong return types) into a
:class:`~rlenv.types.RewardResult` with status ``error``, so one bad sample never sinks a batch.
The other backends (:mod:`rlenv.scoring.ray_backend`) score each of their chunks with
:func:`score_locally`, so their results are the local ones.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from rlenv.errors import check_choice
from rlenv.types import RewardResult, Task, Verifier

logger = logging.getLogger(__name__)

#: The local pools: none, threads, processes.
LOCAL_EXECUTORS = ("serial", "thread", "process")
#: Where a verifier must run (its ``placement`` attribute; ``"cpu"`` when it has none): anywhere,
#: on a machine with a Docker engine (sandboxed code), or in a process holding its model (with a
#: GPU when the machine has one). Distributed executors place the work by it.
PLACEMENTS = ("cpu", "docker", "model")


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


def local_pool(executor: str, max_workers: int | None = None) -> cf.Executor | None:
    """The pool named by ``executor`` (one of :data:`LOCAL_EXECUTORS`; None for ``"serial"``)."""
    check_choice("executor", executor, LOCAL_EXECUTORS)
    if executor == "thread":
        return cf.ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="rlenv-score")
    if executor == "process":
        return cf.ProcessPoolExecutor(max_workers=max_workers)
    return None


def score_locally(
    verifier: Verifier,
    tasks: Sequence[Task],
    completions: Sequence[str],
    executor: str | cf.Executor = "thread",
    max_workers: int | None = None,
    progress: bool = False,
) -> list[RewardResult]:
    """Score ``completions[i]`` against ``tasks[i]`` in this process; results in input order.

    ``verifier.score_batch`` is used when the verifier has one (one call for the whole batch),
    else the verifier is called per item on ``executor``: ``"serial"``, ``"thread"``,
    ``"process"`` (the verifier must be picklable; best for CPU-bound verifiers) or an existing
    ``concurrent.futures.Executor`` (not shut down here).
    """
    if hasattr(verifier, "score_batch"):
        return _score_batch_safely(verifier, tasks, completions)
    pool = executor if isinstance(executor, cf.Executor) else local_pool(executor, max_workers)
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
