"""``CodeVerifier``: runs a completion's code against a task's hidden tests in the sandbox."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Sequence
from typing import Any

from rlenv.envs.code.extraction import BLOCK_CHOICES
from rlenv.envs.code.formats import AssertTests, HumanEvalTests, IOTests
from rlenv.sandbox import JobResult, JobStatus, Limits, SandboxPool, shared_pool
from rlenv.types import RewardResult, Status, Task

#: Accepted ``reward`` modes.
REWARD_MODES = ("all", "fraction")
_STATUS = {JobStatus.OK: Status.CORRECT, JobStatus.FAILED: Status.INCORRECT, JobStatus.MEMORY: Status.INCORRECT,
           JobStatus.OUTPUT_LIMIT: Status.INCORRECT, JobStatus.TIMEOUT: Status.TIMEOUT,
           JobStatus.SANDBOX_ERROR: Status.ERROR}


class CodeVerifier:
    """Scores a completion by running its code against ``task.reference`` (an
    :class:`~rlenv.envs.code.formats.HumanEvalTests`, :class:`~rlenv.envs.code.formats.AssertTests` or
    :class:`~rlenv.envs.code.formats.IOTests`) in the Docker sandbox.

    Args:
        reward: ``"all"`` (default): 1.0 when every test passes, else 0.0; ``"fraction"``: the
            fraction of tests passed.
        test_timeout_s: Wall-clock limit of one test, seconds, for tasks that carry no limit of
            their own (``time_limit_s`` of the task's tests, e.g. from
            :func:`rlenv.envs.code.timing.calibrate_time_limits`).
        max_timeout_s: Cap on the whole job's time limit (``test_timeout_s * (tests + 1)``); a
            task's own limit is not capped.
        memory_mb: Address-space limit of the candidate's processes, MiB.
        block: Which fenced code block to run when there are several (``"last"``, ``"first"``,
            ``"longest"``).
        pool: The :class:`~rlenv.sandbox.SandboxPool` to use (default: the process's shared pool,
            started on first use). Not pickled: a copy uses its process's shared pool.

    Statuses: ``correct`` (all tests pass), ``incorrect`` (a test failed, ran out of memory or
    printed too much), ``timeout``, ``unparsable`` (no code) and ``error`` (the sandbox failed).
    ``details`` holds the sandbox ``job_status``, ``tests`` (one ``{"status", "time_s",
    "error"}`` per test), ``passed``/``total``, ``error``, ``candidate_exited`` (the candidate
    left before or during its tests: a structured fact for detectors) and ``timings``.
    """

    #: Scored on a node whose Docker engine has the sandbox image (see :mod:`rlenv.ray_executor`).
    placement = "docker"

    @staticmethod
    def node_ready() -> bool:
        """Whether this machine can run the sandbox: Docker answers and has the sandbox image."""
        from rlenv.sandbox.doctor import problems

        try:
            return not problems()
        except Exception:  # no docker SDK or no engine socket: this node cannot run code
            return False

    name = "code"
    version = "1"

    def __init__(self, *, reward: str = "all", test_timeout_s: float = 3.0, max_timeout_s: float = 60.0,
                 memory_mb: int = 512, block: str = "last", pool: SandboxPool | None = None):
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if block not in BLOCK_CHOICES:
            raise ValueError(f"block must be one of {BLOCK_CHOICES}, got {block!r}")
        if not test_timeout_s > 0 or not max_timeout_s >= test_timeout_s:
            raise ValueError(f"need 0 < test_timeout_s <= max_timeout_s, got {test_timeout_s} and {max_timeout_s}")
        Limits(memory_mb=memory_mb)  # validates
        self.reward, self.test_timeout_s, self.max_timeout_s = reward, test_timeout_s, max_timeout_s
        self.memory_mb, self.block, self.pool = memory_mb, block, pool

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__, pool=None)

    def limits(self, num_tests: int, time_limit_s: float | None = None) -> Limits:
        """The sandbox limits of a job with ``num_tests`` tests; ``time_limit_s`` is the task's
        own per-test limit (it replaces ``test_timeout_s``, and the job's limit grows with it)."""
        per_test = time_limit_s or self.test_timeout_s
        job = per_test * (num_tests + 1)
        return Limits(timeout_s=job if time_limit_s else min(self.max_timeout_s, job), test_timeout_s=per_test,
                      memory_mb=self.memory_mb)

    def _tests(self, task: Task) -> HumanEvalTests | AssertTests | IOTests:
        if not isinstance(task.reference, (HumanEvalTests, AssertTests, IOTests)):
            raise TypeError(f"task {task.id!r}: CodeVerifier needs task.reference to be HumanEvalTests, AssertTests or "
                            f"IOTests, got {type(task.reference).__name__}")
        return task.reference

    def _submit(self, task: Task, completion: str) -> cf.Future | RewardResult:
        tests = self._tests(task)
        job = tests.job(completion, self.limits(tests.num_tests, tests.time_limit_s), self.block)
        if job is None:
            return RewardResult(0.0, Status.UNPARSABLE, {"pass_fraction": 0.0}, verifier=self.name,
                                verifier_version=self.version, details={"reason": "no code in the completion",
                                                                        "total": tests.num_tests})
        return (self.pool or shared_pool()).submit(job)

    def result(self, job: JobResult) -> RewardResult:
        """Turn a sandbox job result into the reward."""
        total = len(job.tests)
        fraction = job.pass_fraction
        value = float(job.ok) if self.reward == "all" else fraction
        details = {"job_status": job.status.value, "passed": job.num_passed, "total": total, "error": job.error,
                   "tests": [{"status": t.status.value, "time_s": t.time_s, "error": t.error} for t in job.tests],
                   "candidate_exited": job.candidate_exited, "timings": dict(job.timings)}
        return RewardResult(value, _STATUS[job.status], {"pass_fraction": fraction, "all_passed": float(job.ok)},
                            verifier=self.name, verifier_version=self.version, details=details)

    def __call__(self, task: Task, completion: str) -> RewardResult:
        submitted = self._submit(task, completion)
        return submitted if isinstance(submitted, RewardResult) else self.result(submitted.result())

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """Score many completions concurrently on the sandbox pool (results in input order)."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        submitted = []
        for task, completion in zip(tasks, completions, strict=True):
            try:
                submitted.append(self._submit(task, completion))
            except Exception as exc:  # one bad task must not sink the batch
                submitted.append(RewardResult.error(exc, self.name, self.version))
        return [item if isinstance(item, RewardResult) else self.result(item.result()) for item in submitted]
