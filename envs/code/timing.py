"""Per-task time limits derived from the reference solution, as EvalPlus does.

A fixed per-test limit fails correct solutions of tasks whose reference itself is slow. Instead,
run each task's known-correct completion (``Task.gold_completion``) in the sandbox once, take
its slowest test, and give the task ``max(floor_s, factor * slowest)`` seconds per test; the
limit is stored in the task's tests (``time_limit_s``), so it travels with the task.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from rlenv.envs.code.formats import AssertTests, HumanEvalTests, IOTests
from rlenv.envs.code.verifier import CodeVerifier
from rlenv.sandbox import SandboxPool
from rlenv.types import Status, Task

logger = logging.getLogger(__name__)


def calibrate_time_limits(tasks: Sequence[Task], *, factor: float = 4.0, floor_s: float = 1.0,
                          measure_limit_s: float = 60.0, pool: SandboxPool | None = None) -> list[Task]:
    """Tasks whose tests carry a per-test time limit measured from their reference solution.

    Args:
        tasks: Code tasks (``reference`` is HumanEvalTests, AssertTests or IOTests) with a
            ``gold_completion``.
        factor: Multiple of the reference's slowest test time.
        floor_s: Smallest limit given, seconds (process start-up and machine noise).
        measure_limit_s: Per-test limit while measuring the reference, seconds.
        pool: Sandbox pool (default: the shared pool).

    Returns:
        The tasks, in order, with ``reference.time_limit_s`` set. A task without a gold
        completion, or whose reference does not pass, keeps its reference unchanged (logged as
        a warning naming the task).

    Raises:
        ValueError: ``factor`` < 1 or ``floor_s`` <= 0.
    """
    if not factor >= 1 or not floor_s > 0:
        raise ValueError(f"need factor >= 1 and floor_s > 0, got factor={factor!r}, floor_s={floor_s!r}")
    verifier = CodeVerifier(test_timeout_s=measure_limit_s, max_timeout_s=measure_limit_s * 100, pool=pool)
    golds = [(task, task.gold_completion) for task in tasks if task.gold_completion is not None]
    measured = [task for task, _ in golds]
    results = verifier.score_batch(measured, [gold for _, gold in golds])
    limits = {}
    for task, result in zip(measured, results, strict=True):
        if result.status is not Status.CORRECT:
            logger.warning("task %s: its reference solution scored %s (%s); its time limit is left as it is",
                           task.id, result.status.value, result.details.get("error"))
            continue
        slowest = max((test["time_s"] or 0.0 for test in result.details["tests"]), default=0.0)
        limits[task.id] = max(floor_s, factor * slowest)
    calibrated = []
    for task in tasks:
        if task.id not in limits:
            if task.gold_completion is None:
                logger.warning("task %s has no reference solution; its time limit is left as it is", task.id)
            calibrated.append(task)
            continue
        if not isinstance(task.reference, (AssertTests, HumanEvalTests, IOTests)):
            raise TypeError(f"task {task.id!r}: not a code task (reference is {type(task.reference).__name__})")
        reference = dataclasses.replace(task.reference, time_limit_s=round(limits[task.id], 3))
        calibrated.append(dataclasses.replace(task, reference=reference))
    return calibrated
