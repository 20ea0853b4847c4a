"""The grader, on the host: the grader process serving real jobs over its socket (function mode against a
real candidate process; program mode refused), each report with its job's nonce.
The runner's side (its handle, which watches the host stream) runs only in containers."""

import json
import os
import socket
import time

import pytest

from rlenv.sandbox.runner.grader import grader_loop, names_used
from rlenv.sandbox.runner.messages import MESSAGE, recv_message
from tests.sandbox.runner.forked import fork_running, start_candidate

COMPARE = {"mode": "tokens", "rel_tol": 1e-6, "abs_tol": 0.0}


def test_names_used_tells_names_from_names_used_as_modules():
    import ast

    trees = [ast.parse("assert math.isclose(f(x), 1)"), ast.parse("y = sys.getsizeof(g)")]
    names, modules = names_used(trees)
    assert names == {"math", "f", "x", "y", "sys", "g"} and modules == {"math", "sys"}


@pytest.fixture
def grader():
    """A grader process (forked, running :func:`grader_loop`) and our end of its socket."""
    ours, theirs = socket.socketpair()
    pid = fork_running(lambda: (ours.close(), grader_loop(theirs)))
    theirs.close()
    yield ours
    ours.close()
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0  # it exits at the end of its stream


def _exchange(sock: socket.socket, meta: dict, grader_part: bytes, fds: list[int] = ()) -> dict:
    data = json.dumps(meta).encode()
    message = MESSAGE.pack(len(data), len(grader_part)) + data + grader_part
    sent = socket.send_fds(sock, [message], list(fds)) if fds else 0
    sock.sendall(message[sent:])
    report, _payload, _fds = recv_message(sock)
    return report


def test_the_grader_process_reports_each_job_with_its_nonce_and_grades_function_jobs_only(grader):
    """A program job's outputs are the runner's to compare (:mod:`rlenv.sandbox.runner.verdict`): one sent
    here is a fault, reported with its nonce like a grader part that is not JSON."""
    program = {"mode": "program", "nonce": "n-1"}
    refused = _exchange(grader, program, json.dumps({"expected": ["42"], "compare": COMPARE}).encode())
    assert refused["status"] == "sandbox_error" and refused["nonce"] == "n-1"
    assert refused["error"] == "grader error: ValueError: the grader grades function jobs, not 'program' (the runner compares outputs)"
    broken = _exchange(grader, {"mode": "function", "nonce": "n-2"}, b"{not json")
    assert broken["status"] == "sandbox_error" and broken["nonce"] == "n-2"
    assert broken["error"].startswith("grader error: json.decoder.JSONDecodeError: Expecting property name")
    assert broken["fatal"] == broken["error"]


def test_the_grader_runs_the_tests_against_a_real_candidate_process(grader, tmp_path):
    """Function mode end to end, without Docker: the candidate's objects stay in its process, and an
    object whose ``__eq__`` always says yes passes no test."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    code = ("class Liar:\n    def __eq__(self, other):\n        return True\n\n"
            "def add(a, b):\n    print('adding')\n    return a + b\n\ndef liar():\n    return Liar()\n")
    pid, ready_r = start_candidate(str(tmp_path), False, code, [null, out_w, err_w, req_r, rep_w])
    pidfd = os.pidfd_open(pid)
    limits = {"timeout_s": 10, "test_timeout_s": 5, "max_output_bytes": 4096}
    meta = {"mode": "function", "pid": pid, "started": time.monotonic(), "limits": limits, "keep_output_bytes": 100,
            "oom_before": 0, "nonce": "n-3"}
    tests = ["assert add(2, 3) == 5", "assert liar() == 7", "assert add(1, 1) == 3", "assert missing() == 1"]
    grader_part = json.dumps({"setup": "", "tests": tests, "bind": {}, "import_names": True}).encode()
    report = _exchange(grader, meta, grader_part, [req_w, rep_r, out_r, err_r, pidfd])
    for fd in (req_w, rep_r, out_r, err_r, pidfd, ready_r):
        os.close(fd)
    os.waitpid(pid, 0)
    assert [t["status"] for t in report["tests"]] == ["passed", "failed", "failed", "failed"]
    assert report["tests"][3]["error"] == "NameError: name 'missing' is not defined"
    assert report["status"] == "failed" and report["nonce"] == "n-3" and report["stdout"] == "adding\nadding\n"
