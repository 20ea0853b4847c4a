"""Sandbox jobs and their results, as the host sees them.

Two kinds of job:

* :class:`ProgramJob` runs a program once per :class:`IOCase` (fresh process, the case's
  stdin) and compares its stdout with the case's expected output in the runner, which reads the
  expected outputs only once every run has exited.
* :class:`FunctionJob` loads code as a module in a candidate process and runs each test snippet
  in the grader process, where the candidate's functions are proxies whose return values arrive
  as plain data. Test outcomes never depend on the candidate's exit status.

Every job returns exactly one :class:`JobResult` whose ``status`` is one of :class:`JobStatus`.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, overload

from rlenv.errors import check_choice
from rlenv.sandbox.protocol import COMPARE_MODES, JobStatus, TestStatus, encode_frame


@dataclasses.dataclass(frozen=True)
class Limits:
    """Resource limits of one job.

    Attributes:
        timeout_s: Wall-clock limit of the whole job, in seconds.
        test_timeout_s: Wall-clock limit of one test (one program run, or one test snippet with
            the candidate calls it makes; loading the candidate code also gets this much), seconds.
        memory_mb: Address-space limit (``RLIMIT_AS``) of each candidate process, in MiB.
        max_output_bytes: Cap on the stdout + stderr bytes of one candidate process, and on the
            size of one return value.
        max_file_bytes: Largest file a candidate process may write (``RLIMIT_FSIZE``), bytes.
        max_open_files: ``RLIMIT_NOFILE`` of candidate processes.
    """

    timeout_s: float = 30.0
    test_timeout_s: float = 10.0
    memory_mb: int = 512
    max_output_bytes: int = 1 << 20
    max_file_bytes: int = 16 << 20
    max_open_files: int = 256

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"Limits.{field.name} must be a positive number, got {value!r}")
        if self.memory_mb < 32:
            raise ValueError(f"Limits.memory_mb must be at least 32 (a Python process needs that much), got {self.memory_mb}")


@dataclasses.dataclass(frozen=True)
class IOCase:
    """One run of a program: its stdin and, optionally, the stdout it must print."""

    stdin: str = ""
    expected: str | None = None


def _check_files(files: Mapping[str, str | bytes]) -> dict[str, str]:
    encoded = {}
    for path, content in files.items():
        parts = str(path).split("/")
        if not isinstance(path, str) or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"file path {path!r} must be relative, without '.', '..' or empty parts")
        if isinstance(content, str):
            content = content.encode()
        if not isinstance(content, (bytes, bytearray)):
            raise TypeError(f"file {path!r}: content must be str or bytes, got {type(content).__name__}")
        encoded[path] = base64.b64encode(bytes(content)).decode("ascii")
    return encoded


def _check_str(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}: {value!r:.80}")


@dataclasses.dataclass(frozen=True)
class ProgramJob:
    """Run ``code`` as a program (``__name__ == "__main__"``) once per case.

    Attributes:
        code: Python source.
        cases: One run per case; a case with ``expected=None`` passes when the run exits 0.
        compare: How stdout is compared with ``expected``: ``"exact"``, ``"tokens"`` or
            ``"numeric"`` (see :func:`rlenv.sandbox.protocol.compare_output`).
        rel_tol, abs_tol: Float tolerances of ``"numeric"``.
        files: Files written into the work directory before the first run (relative path ->
            text or bytes).
        limits: Resource limits.
        keep_output_bytes: How much of each run's stdout/stderr comes back in the result.
    """

    code: str
    cases: Sequence[IOCase] = (IOCase(),)
    compare: str = "tokens"
    rel_tol: float = 1e-6
    abs_tol: float = 1e-6
    files: Mapping[str, str | bytes] = dataclasses.field(default_factory=dict)
    limits: Limits = dataclasses.field(default_factory=Limits)
    keep_output_bytes: int = 4096

    mode = "program"

    def __post_init__(self) -> None:
        _check_str("ProgramJob.code", self.code)
        object.__setattr__(self, "cases", tuple(self.cases))
        if not self.cases:
            raise ValueError("ProgramJob.cases is empty: give at least one IOCase")
        for i, case in enumerate(self.cases):
            if not isinstance(case, IOCase):
                raise TypeError(f"ProgramJob.cases[{i}] must be an IOCase, got {type(case).__name__}")
            _check_str(f"ProgramJob.cases[{i}].stdin", case.stdin)
            if case.expected is not None:
                _check_str(f"ProgramJob.cases[{i}].expected", case.expected)
        check_choice("ProgramJob.compare", self.compare, COMPARE_MODES)
        _check_files(self.files)

    def parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(candidate part, grader part)`` of the wire format."""
        candidate = {"code": self.code, "stdins": [c.stdin for c in self.cases], "files": _check_files(self.files)}
        grader = {"expected": [c.expected for c in self.cases],
                  "compare": {"mode": self.compare, "rel_tol": self.rel_tol, "abs_tol": self.abs_tol}}
        return candidate, grader


@dataclasses.dataclass(frozen=True)
class FunctionJob:
    """Load ``code`` as a module in a candidate process, then run each test snippet in the
    grader process.

    In the grader, ``setup`` runs first (trusted code, e.g. a HumanEval prompt's helpers and
    its test module); then ``bind`` maps names to candidate globals (``{"candidate": "f"}``);
    with ``import_names`` every other global of the candidate is bound too (unless the setup
    defines that name or it is a builtin), standard-library modules the candidate imported
    being re-imported in the grader. A snippet passes when it runs without raising.

    Attributes:
        code: Python source of the candidate module.
        tests: Test snippets (Python source), each one test.
        setup: Trusted grader code run before the tests.
        bind: ``{grader name: candidate global name}``; a missing target fails every test.
        import_names: Bind the candidate's other globals as well.
        files: Files written into the work directory before the candidate code loads.
        limits: Resource limits (``test_timeout_s`` per snippet).
        keep_output_bytes: How much of the candidate's stdout/stderr comes back in the result.
    """

    code: str
    tests: Sequence[str]
    setup: str = ""
    bind: Mapping[str, str] = dataclasses.field(default_factory=dict)
    import_names: bool = True
    files: Mapping[str, str | bytes] = dataclasses.field(default_factory=dict)
    limits: Limits = dataclasses.field(default_factory=Limits)
    keep_output_bytes: int = 4096

    mode = "function"

    def __post_init__(self) -> None:
        _check_str("FunctionJob.code", self.code)
        _check_str("FunctionJob.setup", self.setup)
        if isinstance(self.tests, str):
            raise TypeError("FunctionJob.tests must be a sequence of snippets, got one str")
        object.__setattr__(self, "tests", tuple(self.tests))
        if not self.tests:
            raise ValueError("FunctionJob.tests is empty: give at least one test snippet")
        for i, test in enumerate(self.tests):
            _check_str(f"FunctionJob.tests[{i}]", test)
        for alias, target in self.bind.items():
            if not (isinstance(alias, str) and alias.isidentifier() and isinstance(target, str) and target.isidentifier()):
                raise ValueError(f"FunctionJob.bind entries must map identifiers to identifiers, got {alias!r}: {target!r}")
        _check_files(self.files)

    def parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(candidate part, grader part)`` of the wire format."""
        candidate = {"code": self.code, "files": _check_files(self.files)}
        grader = {"setup": self.setup, "tests": list(self.tests), "bind": dict(self.bind),
                  "import_names": bool(self.import_names)}
        return candidate, grader


Job = ProgramJob | FunctionJob


def encode_job(job: Job, job_id: str) -> bytes:
    """The bytes the runner reads for ``job``: header, candidate part and grader part frames."""
    return encode_header(job, job_id) + encode_parts(job)


def encode_parts(job: Job) -> bytes:
    """The candidate part and grader part frames of ``job`` (the same for every send of it)."""
    if not isinstance(job, (ProgramJob, FunctionJob)):
        raise TypeError(f"expected a ProgramJob or FunctionJob, got {type(job).__name__}")
    return b"".join(_frame(part) for part in job.parts())


def encode_header(job: Job, job_id: str) -> bytes:
    """The header frame of ``job`` sent as ``job_id``."""
    return _frame({"id": job_id, "mode": job.mode, "limits": _limit_values(job.limits),
                   "keep_output_bytes": int(job.keep_output_bytes)})


@functools.lru_cache(maxsize=256)
def _limit_values(limits: Limits) -> dict[str, float]:
    """``limits`` as a dict (frozen and hashable: built once per distinct ``Limits``, not per send;
    only read)."""
    return {field.name: getattr(limits, field.name) for field in dataclasses.fields(limits)}


def _frame(part: dict[str, Any]) -> bytes:
    return encode_frame(json.dumps(part, ensure_ascii=True, allow_nan=False).encode())


@overload
def valid_text(value: str) -> str: ...
@overload
def valid_text(value: Any) -> str | None: ...
def valid_text(value: Any) -> str | None:
    """``value`` (a str, or None) as text that encodes to UTF-8: each lone surrogate (JSON's
    ``\\udcff`` decodes to one) becomes U+FFFD. None stays None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    if value.isascii():
        return value
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


@dataclasses.dataclass(frozen=True)
class TestResult:
    """Result of one test. ``stdout``/``exit_code`` are set for program runs only."""

    __test__ = False  # not a pytest test class

    status: TestStatus
    time_s: float = 0.0
    error: str | None = None
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None

    @property
    def passed(self) -> bool:
        return self.status is TestStatus.PASSED


@dataclasses.dataclass(frozen=True)
class JobResult:
    """Result of one job.

    Attributes:
        status: The job's :class:`JobStatus` (``ok`` only when every test passed).
        tests: Per-test results, in test order (empty when the job never reached its tests).
        error: Why the job did not pass, in words (None when it passed).
        stdout, stderr: The candidate's output (function jobs; program runs carry their own).
        timings: Seconds: ``queued_s`` (waiting for a container), ``run_s`` (host round trip),
            ``job_s`` (inside the container), ``load_s`` (function jobs: loading the code).
        container: Name of the container that ran the job (None if none did).
        candidate_exited: Function jobs: the candidate left before or during its tests (its
            process exited, or it raised ``SystemExit`` / ``KeyboardInterrupt``) — a fact of the
            run, for detectors, that never depends on the wording of an error.
    """

    status: JobStatus
    tests: tuple[TestResult, ...] = ()
    error: str | None = None
    stdout: str = ""
    stderr: str = ""
    timings: Mapping[str, float] = dataclasses.field(default_factory=dict)
    container: str | None = None
    candidate_exited: bool = False

    @property
    def ok(self) -> bool:
        return self.status is JobStatus.OK

    @property
    def num_passed(self) -> int:
        return sum(t.passed for t in self.tests)

    @property
    def pass_fraction(self) -> float:
        """Fraction of tests that passed (0.0 when there are none)."""
        return self.num_passed / len(self.tests) if self.tests else 0.0

    @classmethod
    def sandbox_error(cls, message: str, timings: Mapping[str, float] | None = None,
                      container: str | None = None) -> JobResult:
        return cls(JobStatus.SANDBOX_ERROR, error=message, timings=dict(timings or {}), container=container)

    @classmethod
    def from_report(cls, report: Mapping[str, Any], timings: Mapping[str, float], container: str | None) -> JobResult:
        """Build a result from the runner's JSON report (raises ValueError if malformed). Every
        text in it may come from the candidate: each one is made valid Unicode here, the
        boundary (see :func:`valid_text`)."""
        try:
            tests = tuple(
                TestResult(TestStatus(t["status"]), float(t.get("time_s") or 0.0), valid_text(t.get("error")),
                           valid_text(t.get("stdout", "")), valid_text(t.get("stderr", "")), t.get("exit_code"))
                for t in report.get("tests", ()))
            status = JobStatus(report["status"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed runner report: {exc}: {valid_text(str(report))[:300]}") from exc
        error = valid_text(report.get("error"))
        if error is None and status is not JobStatus.OK:
            first = next((t for t in tests if not t.passed), None)
            error = first.error if first is not None else None
        all_timings = dict(timings)
        for key in ("job_s", "load_s"):
            if isinstance(report.get(key), (int, float)):
                all_timings[key] = float(report[key])
        return cls(status, tests, error, valid_text(report.get("stdout", "")), valid_text(report.get("stderr", "")),
                   all_timings, container, report.get("candidate_exited") is True)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serializable form."""
        out = dataclasses.asdict(self)
        out["status"] = self.status.value
        out["tests"] = [dict(dataclasses.asdict(t), status=t.status.value) for t in self.tests]
        out["timings"] = dict(self.timings)
        return out
