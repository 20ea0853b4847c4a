"""``CodeVerifier``: runs a completion's code against a task's hidden tests in the sandbox."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

from rlenv.envs.code import differential as diff
from rlenv.envs.code.extraction import BLOCK_CHOICES
from rlenv.envs.code.formats import AssertTests, HumanEvalTests, IOTests
from rlenv.errors import check_choice
from rlenv.sandbox import FunctionJob, JobResult, JobStatus, Limits, SandboxPool, shared_pool
from rlenv.types import RewardResult, Status, Task

logger = logging.getLogger(__name__)

#: Accepted ``reward`` modes.
REWARD_MODES = ("all", "fraction")
#: Accepted ``differential`` modes.
DIFFERENTIAL_MODES = ("off", "flag", "withhold")
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
        differential: Differential tests on fresh inputs (:mod:`rlenv.envs.code.differential`) for
            completions that pass every hidden test of a task with a reference solution (MBPP,
            HumanEval): ``"off"`` (default), ``"flag"`` (run them and record the outcome in
            ``details["differential"]``, which the ``code_tampering`` detector reports) or
            ``"withhold"`` (also score 0 when a fresh test fails: special-casing the visible tests is
            not paid). Costs one sandbox job per such completion, plus one per task, cached, to
            compute the reference's outputs.
        fresh_inputs: How many fresh inputs to derive per task (fewer remain where the reference
            rejects some).

    Statuses: ``correct`` (all tests pass), ``incorrect`` (a test failed, ran out of memory or
    printed too much), ``timeout``, ``unparsable`` (no code) and ``error`` (the sandbox failed).
    ``details`` holds the sandbox ``job_status``, ``tests`` (one ``{"status", "time_s",
    "error"}`` per test), ``passed``/``total``, ``error``, ``candidate_exited`` (the candidate
    left before or during its tests: a structured fact for detectors) and ``timings``; with
    differential tests, ``differential``: ``{"fresh_tests", "failed", "first_failure"}`` (and
    ``"withheld": True`` where that zeroed the reward).
    """

    #: Scored on a node whose Docker engine has the sandbox image (see :mod:`rlenv.scoring.ray_backend`).
    placement = "docker"

    name = "code"
    version = "1"

    def __init__(self, *, reward: str = "all", test_timeout_s: float = 3.0, max_timeout_s: float = 60.0,
                 memory_mb: int = 512, block: str = "last", pool: SandboxPool | None = None,
                 differential: str = "off", fresh_inputs: int = 8):
        check_choice("reward", reward, REWARD_MODES)
        check_choice("differential", differential, DIFFERENTIAL_MODES)
        if isinstance(fresh_inputs, bool) or not isinstance(fresh_inputs, int) or fresh_inputs < 1:
            raise ValueError(f"fresh_inputs must be a positive int, got {fresh_inputs!r}")
        check_choice("block", block, BLOCK_CHOICES)
        if not test_timeout_s > 0 or not max_timeout_s >= test_timeout_s:
            raise ValueError(f"need 0 < test_timeout_s <= max_timeout_s, got {test_timeout_s} and {max_timeout_s}")
        Limits(memory_mb=memory_mb)  # validates
        self.reward, self.test_timeout_s, self.max_timeout_s = reward, test_timeout_s, max_timeout_s
        self.memory_mb, self.block, self.pool = memory_mb, block, pool
        self.differential, self.fresh_inputs = differential, fresh_inputs
        self._fresh_tests: dict[tuple[str, int], tuple[str, ...]] = {}

    @staticmethod
    def node_problems() -> list[str]:
        """What keeps this machine from running the sandbox (Docker engine, sandbox image); empty when
        it can. The Ray executor asks each node before it places code there."""
        from rlenv.sandbox.doctor import diagnose

        return [c.detail for c in diagnose(run_job=False) if c.name in ("engine", "image") and c.ok is False]

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
        if self.differential != "off":
            return self.score_batch([task], [completion])[0]
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
        results = [item if isinstance(item, RewardResult) else self.result(item.result()) for item in submitted]
        return self._check_fresh_inputs(tasks, completions, results) if self.differential != "off" else results

    def fresh_tests(self, tasks: Sequence[Task]) -> list[tuple[str, ...]]:
        """Each task's differential tests (empty without a reference or a probe), computing the
        reference's outputs in the sandbox for the tasks not seen before (cached per task)."""
        pool = self.pool or shared_pool()
        pending: dict[tuple[str, int], tuple[list, cf.Future]] = {}
        for task in tasks:
            key = _fresh_key(task)
            tests = self._tests(task)
            if key in self._fresh_tests or key in pending:
                continue
            try:
                found = diff.plan(tests, task.gold_completion) if isinstance(tests, (AssertTests, HumanEvalTests)) else None
                calls = found.calls(3 * self.fresh_inputs, task.id) if found else []
            except Exception:  # one task's unusual tests must not sink the batch: it gets no fresh tests
                logger.warning("task %r: no differential tests (deriving fresh inputs failed)", task.id, exc_info=True)
                found, calls = None, []
            if found is None or not calls:
                self._fresh_tests[key] = ()
                continue
            names = [(found.functions[probe.function], args) for probe, args in calls]
            per_run = len(calls) * diff.CALL_TIMEOUT_S + self.test_timeout_s
            limits = Limits(timeout_s=2 * per_run + self.test_timeout_s, test_timeout_s=per_run, memory_mb=self.memory_mb)
            pending[key] = (calls, pool.submit(diff.oracle_job(found.program, names, limits)))
        for key, (calls, future) in pending.items():
            outputs = diff.oracle_outputs(future.result(), len(calls))
            known = [(call, output) for call, output in zip(calls, outputs, strict=True) if output is not None]
            try:
                self._fresh_tests[key] = tuple(diff.fresh_test(probe, args, output)
                                               for (probe, args), output in diff.diverse(known, self.fresh_inputs))
            except (SyntaxError, ValueError, RecursionError):
                logger.warning("task %r: no differential tests (a reference output is not a readable literal)",
                               key[0], exc_info=True)
                self._fresh_tests[key] = ()
        return [self._fresh_tests[_fresh_key(task)] for task in tasks]

    def _check_fresh_inputs(self, tasks: Sequence[Task], completions: Sequence[str],
                            results: list[RewardResult]) -> list[RewardResult]:
        """``results`` with the differential tests' outcome added to each completion that passed every
        hidden test (and its reward withheld when one failed, in ``"withhold"`` mode)."""
        passed = [i for i, r in enumerate(results) if r.status is Status.CORRECT]
        fresh = dict(zip(passed, self.fresh_tests([tasks[i] for i in passed]), strict=True))
        pool = self.pool or shared_pool()
        futures = {}
        for i, snippets in fresh.items():
            tests = self._tests(tasks[i])
            job = tests.job(completions[i], self.limits(len(snippets), tests.time_limit_s), self.block)
            if snippets and isinstance(job, FunctionJob):  # fresh tests are function calls
                futures[i] = pool.submit(dataclasses.replace(job, tests=snippets, setup=f"{job.setup}\n{diff.SAME_OUTPUT}"))
        out = list(results)
        for i, future in futures.items():
            job = future.result()
            failed = [t for t in job.tests if not t.passed] if job.tests else []
            record: dict[str, Any] = {"fresh_tests": len(fresh[i]), "failed": len(failed) if job.tests else None,
                                      "first_failure": (failed[0].error if failed else None) or job.error}
            withheld = self.differential == "withhold" and bool(failed)
            if withheld:
                record["withheld"] = True
            result = out[i]
            out[i] = dataclasses.replace(
                result, value=0.0 if withheld else result.value, status=Status.INCORRECT if withheld else result.status,
                details={**(result.details or {}), "differential": record})
        return out


def _fresh_key(task: Task) -> tuple[str, int]:
    """A task's key in the differential-test cache: its id and what its fresh tests derive from."""
    return task.id, hash((task.reference, task.gold_completion))


def default_verifier(verifier: CodeVerifier | None, differential: str | None) -> CodeVerifier:
    """The verifier of a code env with reference solutions: ``verifier`` as given, else a
    :class:`CodeVerifier` running differential tests in mode ``differential`` (default ``"flag"``)."""
    if verifier is not None and differential is not None:
        raise ValueError("differential= configures the env's default verifier: with verifier=, set it on that "
                         f"verifier instead (CodeVerifier(differential={differential!r}))")
    return verifier if verifier is not None else CodeVerifier(differential=differential or "flag")
