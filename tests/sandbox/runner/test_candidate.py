"""The candidate process, run on the host as the fork server runs it: forked, handed its job record and
descriptors on a ``SOCK_SEQPACKET`` socket, set up (session, descriptors, limits, the job user), then
its program or its function server. The test process runs as root, as the fork server does."""

import json
import os
import resource

import pytest

from rlenv.sandbox.runner.candidate import child_setup, program_main
from rlenv.sandbox.runner.confinement import JOB_UID, candidate_rlimits
from rlenv.sandbox.runner.faults import EXIT_MEMORY, EXIT_SETUP
from rlenv.sandbox.runner.forkserver import code_file, set_up
from tests.sandbox.runner.forked import (
    LIMITS,
    captured_child,
    fork_running,
    read_all,
    standard_streams,
    start_candidate,
)


@pytest.mark.parametrize(("code", "status", "stderr"), [
    ("print('hello')", 0, b""),
    ("raise SystemExit", 0, b""),
    ("raise SystemExit(3)", 3, b""),
    ("raise SystemExit(256 + 7)", 7, b""),
    ("raise SystemExit('bye')", 1, b"bye\n"),
    ("raise MemoryError", EXIT_MEMORY, b""),
    ("raise ValueError('bad input')", 1, b"ValueError: bad input\n"),
    ("import sys; sys.stdout.write('unflushed')", 0, b""),
])
def test_program_main_exits_as_python_would(code, status, stderr):
    exit_code, out, err = captured_child(lambda: program_main(code))
    assert exit_code == status
    assert err.endswith(stderr) and (stderr or not err)
    assert out == {"print('hello')": b"hello\n", "import sys; sys.stdout.write('unflushed')": b"unflushed"}.get(code, b"")


def test_a_program_candidate_runs_as_the_job_user_with_its_limits_and_only_its_descriptors(tmp_path):
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    code = ("import os, resource\n"
            "print(input()[::-1])\n"
            "print(os.getresuid(), os.getgroups(), sorted(int(fd) for fd in os.listdir('/proc/self/fd')))\n"
            "print(resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_AS))\n"
            "print(open('/proc/self/oom_score_adj').read().strip(), os.getsid(0) == os.getpid())\n")
    pid, ready_r = start_candidate(str(tmp_path), True, code, [in_r, out_w, err_w])
    os.write(in_w, b"abc\n")
    os.close(in_w)
    out, err = read_all(out_r), read_all(err_r)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0, err
    assert set_up(ready_r)
    lines = out.decode().splitlines()
    # fds 0-2, and the one listdir opened: the code file and the ready pipe were closed before the program ran
    assert lines == ["cba", f"{(JOB_UID,) * 3} [] [0, 1, 2, 3]", f"{(32, 32)} {(512 << 20, 512 << 20)}", "1000 True"]


def test_a_function_candidate_reports_its_names_then_serves_calls(tmp_path):
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    code = "import math\ndef add(a, b):\n    return a + b\nLIMIT = 3\n"
    pid, ready_r = start_candidate(str(tmp_path), False, code, [null, out_w, err_w, req_r, rep_w])
    replies = os.fdopen(rep_r, "rb")
    loaded = json.loads(replies.readline())
    assert loaded == {"ok": True, "names": {"math": ["module", "math"], "add": ["object", "function"],
                                            "LIMIT": ["object", "int"]}}
    os.write(req_w, json.dumps({"op": "call", "ref": "g:add", "args": [2, 3], "kwargs": []}).encode() + b"\n")
    assert json.loads(replies.readline()) == {"ok": True, "value": 5}
    os.write(req_w, json.dumps({"op": "call", "ref": "g:add", "args": [2, "x"], "kwargs": []}).encode() + b"\n")
    failure = json.loads(replies.readline())
    assert failure["ok"] is False and failure["type"] == "TypeError" and failure["base"] == "Exception"
    os.close(req_w)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert set_up(ready_r)
    replies.close()
    for fd in (out_r, err_r):
        os.close(fd)


def test_a_failed_set_up_exits_with_the_set_up_status_and_never_runs_the_code(tmp_path):
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    pid, ready_r = start_candidate(str(tmp_path / "missing"), True, "print('ran')", [null, out_w, err_w])
    out, err = read_all(out_r), read_all(err_r)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == EXIT_SETUP
    assert out == b"" and b"FileNotFoundError" in err
    assert not set_up(ready_r)
    assert resource.getrlimit(resource.RLIMIT_NOFILE) != (32, 32)  # the limits stayed in the candidate


def test_a_candidate_gets_exactly_its_descriptors_wherever_they_arrive(tmp_path):
    """child_setup moves descriptors that did not arrive at 0, 1, 2, ... (the fork server's spare has
    them arrive there) and closes every other one."""
    out_r, out_w = os.pipe()
    code_fd = code_file("import os\nprint(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))\n")
    ready_r, ready_w = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    extra = os.open(os.devnull, os.O_RDONLY)  # inherited, never the candidate's

    def body() -> None:
        high = [os.dup2(fd, 40 + i) for i, fd in enumerate((null, out_w, out_w, code_fd, ready_w))]
        code = child_setup(candidate_rlimits(LIMITS), str(tmp_path), high)
        standard_streams()
        program_main(code)

    pid = fork_running(body)
    for fd in (out_w, code_fd, ready_w, null, extra):
        os.close(fd)
    out = read_all(out_r)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert set_up(ready_r)
    assert out == b"[0, 1, 2, 3]\n"  # stdin, stdout, stderr and the listing's own; code and ready pipe closed
