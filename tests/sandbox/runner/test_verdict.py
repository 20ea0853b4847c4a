"""Verdicts: a job's status from its tests, and a program job's runs compared with their expected outputs
(the runner's work, on the host here)."""

import pytest

from rlenv.sandbox.runner.verdict import grade_program, job_status

COMPARE = {"mode": "tokens", "rel_tol": 1e-6, "abs_tol": 0.0}


def test_job_status_is_the_first_failure():
    assert job_status([{"status": "passed"}, {"status": "passed"}]) == "ok"
    assert job_status([{"status": "passed"}, {"status": "memory"}, {"status": "timeout"}]) == "memory"
    assert job_status([{"status": "passed"}, {"status": "not_run"}]) == "timeout"


def _run(stdout: bytes, status: str = "ran", error: str | None = None) -> dict:
    return {"status": status, "error": error, "stdout": stdout}


def test_grade_program_compares_each_run_that_ran_with_its_expected_output():
    runs = [_run(b"1 2\n"), _run(b"3\n"), _run(b"", "timeout", "time limit exceeded"), _run(b"x"), _run(b"\xff4\n")]
    report = grade_program(runs, {"expected": ["1  2", "4", "5", None, "4"], "compare": COMPARE})
    assert report == {"status": "failed", "error": None, "tests": [
        {"status": "passed", "error": None}, {"status": "failed", "error": "wrong output"},
        {"status": "timeout", "error": "time limit exceeded"}, {"status": "passed", "error": None},
        {"status": "failed", "error": "wrong output"}]}


def test_grade_program_applies_the_jobs_compare_mode_and_tolerances():
    numeric = {"mode": "numeric", "rel_tol": 1e-3, "abs_tol": 0.0}
    near, far, integer = _run(b"3.1416\n"), _run(b"3.2\n"), _run(b"1e+17\n")
    report = grade_program([near, far, integer], {"expected": ["3.14159", "3.14159", "100000000000000002"],
                                                   "compare": numeric})
    assert [test["status"] for test in report["tests"]] == ["passed", "failed", "failed"]
    assert grade_program([near], {"expected": ["3.14159"], "compare": COMPARE})["status"] == "failed"


def test_grade_program_refuses_runs_and_expected_outputs_that_do_not_pair_up():
    with pytest.raises(ValueError):
        grade_program([_run(b"1")], {"expected": ["1", "2"], "compare": COMPARE})
