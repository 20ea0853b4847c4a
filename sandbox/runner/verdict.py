"""Verdicts from per-test results: a job's status (:func:`job_status`), and a ``program`` job's report,
its runs' outputs compared with the expected ones (:func:`grade_program`, done by the runner: it runs
no test code)."""

from __future__ import annotations

from rlenv.sandbox.protocol import JobStatus, TestStatus, compare_output


def job_status(tests: list) -> JobStatus:
    """A job's status: ``ok`` when every test passed, else the status of the first test that
    did not (a test not run because time ran out counts as ``timeout``)."""
    for test in tests:
        if test["status"] == TestStatus.NOT_RUN:
            return JobStatus.TIMEOUT
        if test["status"] != TestStatus.PASSED:
            return JobStatus(test["status"])
    return JobStatus.OK


def grade_program(runs: list, grader: dict) -> dict:
    """The report of a ``program`` job: the stdout (bytes) of each run that ran (status ``ran``: it
    exited 0 in time) compared with its expected output in the job's grader part (``expected``, one
    per run, None for any output; ``compare``: the mode and tolerances of
    :func:`~rlenv.sandbox.protocol.compare_output`). Raises ValueError when the runs and the expected
    outputs do not pair up."""
    compare = grader["compare"]
    tests = []
    for run, want in zip(runs, grader["expected"], strict=True):
        if run["status"] != "ran":
            tests.append({"status": run["status"], "error": run["error"]})
        elif want is None or compare_output(run["stdout"].decode("utf-8", "replace"), want, compare["mode"],
                                            float(compare["rel_tol"]), float(compare["abs_tol"])):
            tests.append({"status": TestStatus.PASSED, "error": None})
        else:
            tests.append({"status": TestStatus.FAILED, "error": "wrong output"})
    return {"status": job_status(tests), "tests": tests, "error": None}
