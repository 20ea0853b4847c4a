"""The runner's main loop, PID 1 of the container: start-up, then per job from the host stream its
candidate processes forked, its grader part handed to the grader with a fresh nonce, the report
checked, every process swept and every writable place wiped, one JSON line back to the host."""

from __future__ import annotations

import base64
import ctypes
import gc
import importlib
import json
import os
import resource
import signal
import socket
import sys
import time
from _operator import _compare_digest  # hmac's own; importing hmac would load libcrypto into every fork
from typing import Any

from rlenv.sandbox.protocol import JobStatus, TestStatus, read_exact, read_frame_length
from rlenv.sandbox.runner.child import Child, output_text
from rlenv.sandbox.runner.confinement import GRADER_UID, JOB_UID, own_state, set_dumpable, set_limit
from rlenv.sandbox.runner.faults import EXIT_MEMORY, SandboxFault, exception_text
from rlenv.sandbox.runner.forkserver import ForkServer, code_file, set_up, spawn
from rlenv.sandbox.runner.grader import Grader
from rlenv.sandbox.runner.procfs import oom_kills
from rlenv.sandbox.runner.scrub import kernel_held, only_helpers, scrub, settled_drift, sweep
from rlenv.sandbox.runner.seccomp import install_seccomp, seccomp_program
from rlenv.sandbox.runner.verdict import grade_program

RUNNER_VERSION = "3"
#: Root of the per-job work directories (the container's tmpfs).
WORK_ROOT = "/tmp"
#: The work directories made since the last scrub (it removes them first).
_MADE: list[str] = []
#: The grader is replaced after this many jobs, so trusted test code cannot accumulate state.
GRADER_JOBS = 256
#: Modules imported once by the runner so that forked jobs do not pay for them. Not ``random``:
#: it reseeds in every forked process (~0.1 ms per job, whether or not the job uses it).
PRELOAD = ("collections", "itertools", "functools", "heapq", "bisect", "string", "re", "typing", "copy")


def _write_line(message: dict) -> None:
    data = (json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode()
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def _read_grader_part() -> bytearray:
    """Read the grader frame into a buffer the caller zeroes after use."""
    size = read_frame_length(0)
    if size is None:
        raise EOFError("stream ended before the grader frame")
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        n = os.readv(0, [view[got:]])
        if n == 0:
            raise EOFError("stream ended inside the grader frame")
        got += n
    return buffer


def _connect_job_channel() -> str:
    """Take jobs from the host's job channel (see ``rlenv.sandbox.channel``) when it offers one:
    connect, send its token, and make the connection descriptors 0 and 1. Returns how jobs travel:
    ``"socket"``, or ``"attach"`` (with why, when the channel could not be reached). The channel's
    variables leave the environment before any other process exists."""
    path, token = os.environ.pop("RLENV_CHANNEL", None), os.environ.pop("RLENV_CHANNEL_TOKEN", "")
    if not path:
        return "attach"
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        connection.sendall(token.encode() + b"\n")
    except OSError as exc:
        connection.close()
        return f"attach: could not reach the job channel {path}: {exception_text(exc)}"
    os.dup2(connection.fileno(), 0)
    os.dup2(connection.fileno(), 1)
    connection.close()
    return "socket"


def _write_files(workdir: str, files: dict) -> None:
    for relative, encoded in files.items():
        parts = relative.split("/")
        if relative.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"bad file path {relative!r}: expected a relative path without '..'")
        for depth in range(1, len(parts)):
            folder = os.path.join(workdir, *parts[:depth])
            if not os.path.isdir(folder):
                os.mkdir(folder, 0o700)
                os.chown(folder, JOB_UID, JOB_UID)
        path = os.path.join(workdir, *parts)
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(encoded))
        os.chown(path, JOB_UID, JOB_UID)


def _work_directory(files: dict) -> str:
    """A new work directory holding ``files``, owned by the job user."""
    workdir = os.path.join(WORK_ROOT, "job-" + os.urandom(6).hex())
    os.mkdir(workdir, 0o700)
    _MADE.append(workdir)
    os.chown(workdir, JOB_UID, JOB_UID)
    _write_files(workdir, files)
    return workdir


def _run_cases(header: dict, candidate: dict, code_fd: int, server: ForkServer, grader: Grader,
               oom_before: int) -> list:
    """Run the program once per stdin (the runner is the parent, pumping each run). Each run
    starts from nothing an earlier run touched: its processes are killed, the writable places
    wiped, and the run gets a new work directory with the job's files and only its own stdin."""
    limits, keep = header["limits"], int(header.get("keep_output_bytes", 4096))
    job_deadline = time.monotonic() + float(limits["timeout_s"])
    runs: list[dict[str, Any]] = []
    for stdin in candidate["stdins"]:
        if runs:
            if not swept(grader, server):
                raise SandboxFault("processes of an earlier run survived the sweep")
            left = _scrub()
            if left:
                raise SandboxFault(f"files of an earlier run survived the scrub: {left[:5]}")
        began = time.monotonic()
        if began >= job_deadline:
            runs.append({"status": TestStatus.NOT_RUN, "error": "not run: the job's time limit was reached", "time_s": 0.0,
                         "exit_code": None, "stdout": b"", "stderr": ""})
            continue
        pid, fds = spawn(server, limits, _work_directory(candidate.get("files", {})), "program", code_fd)
        child = Child(pid, fds["pidfd"], fds["out"], fds["err"], int(limits["max_output_bytes"]), server.exit_status,
                      oom_before=oom_before, in_fd=fds["in"], in_data=stdin.encode("utf-8", "surrogateescape"),
                      host_fd=0)
        why = child.pump(min(job_deadline, began + float(limits["test_timeout_s"])))
        child.close()
        if not set_up(fds["ready"]) and why != "timeout":  # unfinished at the deadline: a loaded machine, a timeout
            raise SandboxFault(f"a candidate process's set-up failed: {output_text(child.output(child.err_fd), 2000)}")
        run: dict[str, Any] = {"status": "ran", "error": None, "time_s": round(child.elapsed(), 6), "exit_code": child.exit_code(),
               "stdout": child.output(child.out_fd), "stderr": output_text(child.output(child.err_fd), keep)}
        if why == "timeout":
            run.update(status=TestStatus.TIMEOUT, error="time limit exceeded")
        elif why == "output_limit":
            run.update(status=TestStatus.OUTPUT_LIMIT, error=f"output exceeded {child.cap} bytes")
        elif child.exit_code() == EXIT_MEMORY or (child.exit_code() == -signal.SIGKILL and child.out_of_memory()):
            run.update(status=TestStatus.MEMORY, error="the program ran out of memory")
        elif child.exit_code() != 0:
            run.update(status=TestStatus.FAILED, error=f"exit status {child.exit_code()}")
        runs.append(run)
    return runs


def _scrub(idle: dict | None = None) -> list[str]:
    """:func:`~rlenv.sandbox.runner.scrub.scrub`, given the work directories made since the last one."""
    try:
        return scrub(idle, _MADE)
    finally:
        _MADE.clear()


def helpers(grader: Grader, server: ForkServer) -> frozenset:
    """The pids of the processes a sweep keeps: the grader, the fork server and its spare."""
    return frozenset([grader.pid, server.pid, server.spare_pid()])


def swept(grader: Grader, server: ForkServer) -> bool:
    """Every process but the runner's helpers killed and reaped (False if some survive); no
    listing of ``/proc`` when the container's task count shows that only the helpers exist."""
    pidfds = server.pidfds()
    if pidfds is not None and grader.sock is not None and only_helpers([grader.pidfd, *pidfds]):
        return True
    return sweep(helpers(grader, server))


def run_job(header: dict, candidate: dict, grader: Grader, server: ForkServer) -> dict:
    """Run one job: have the fork server fork its candidate process(es), then read the grader
    part. A ``program`` job's runs have all exited by then and the runner compares their outputs
    (no test code runs); a ``function`` job's grader part goes to the grader with a fresh nonce,
    and the nonce is checked on the report. The caller sweeps."""
    began = time.monotonic()
    oom_before = oom_kills()
    runs, fds, ready, code_fd, meta = [], [], None, None, {}
    server.statuses.clear()  # of earlier jobs' processes, never asked for
    try:
        limits, keep = header["limits"], int(header.get("keep_output_bytes", 4096))
        code_fd = code_file(candidate["code"])
        if header["mode"] == "program":
            runs = _run_cases(header, candidate, code_fd, server, grader, oom_before)
        elif header["mode"] == "function":
            pid, parts = spawn(server, limits, _work_directory(candidate.get("files", {})), "function", code_fd)
            fds, ready = [parts["request"], parts["reply"], parts["out"], parts["err"], parts["pidfd"]], parts["ready"]
            meta = {"mode": "function", "pid": pid, "started": began, "limits": limits, "keep_output_bytes": keep,
                    "oom_before": oom_before}
        else:
            raise ValueError(f"unknown job mode {header['mode']!r}")
    except BaseException:
        _read_grader_part()[:] = b""  # keep the stream in step
        raise
    finally:
        if code_fd is not None:
            os.close(code_fd)
    # Only now, after every candidate process is forked, does the grader part exist here.
    payload = _read_grader_part()
    try:
        if header["mode"] == "program":
            result = grade_program(runs, json.loads(payload))
        else:
            result = _grade_function(grader, meta, payload, fds, began + float(limits["timeout_s"]) + 2.0)
    finally:
        payload[:] = bytes(len(payload))
        for fd in fds:
            os.close(fd)
    # A set-up still unfinished when the job ran out of time is a timeout (a loaded machine), not a fault.
    if ready is not None and not set_up(ready) and result.get("status") not in (JobStatus.OK, JobStatus.TIMEOUT):
        raise SandboxFault(f"the candidate process's set-up failed: {result.get('error')}")
    for test, run in zip(result.get("tests", []), runs, strict=False):
        test.update(time_s=run["time_s"], exit_code=run["exit_code"], stdout=output_text(run["stdout"], keep),
                    stderr=run["stderr"])
    result["job_s"] = round(time.monotonic() - began, 6)
    return result


def _grade_function(grader: Grader, meta: dict, payload: bytearray, fds: list, deadline: float) -> dict:
    """The grader's report on a ``function`` job if it carries the fresh nonce sent with the job, else
    why there is none; a grader that is dead, wedged, forged or grown too big is replaced."""
    nonce = meta["nonce"] = os.urandom(16).hex()
    report, reason, exit_status = grader.exchange(meta, payload, fds, deadline)
    result = _verdict(report, reason, exit_status, nonce, meta["oom_before"])
    retire = result.pop("retire", False)
    if result.pop("nonce", None) is None or reason != "ok" or retire:
        grader.stop()
    return result


def _verdict(report_bytes: bytes, reason: str, exit_status: int | None, nonce: str, oom_before: int) -> dict:
    """The grader's report if it carries this job's nonce (the nonce is kept in the result),
    else why there is none."""
    if reason == "timeout":
        return {"status": JobStatus.TIMEOUT, "tests": [], "error": "the job ran past its time limit"}
    if reason == "exited" and exit_status is not None:
        code = os.waitstatus_to_exitcode(exit_status)
        if oom_kills() > oom_before:
            return {"status": JobStatus.MEMORY, "tests": [], "error": "the job ran out of memory (the grader was OOM-killed)"}
        how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": f"the grader process {how}", "fatal": f"the grader {how}"}
    try:
        report = json.loads(report_bytes)
    except ValueError:
        report = None
    if type(report) is not dict or not _compare_digest(str(report.get("nonce", "")), nonce):
        return {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": "the grader report failed the nonce check"}
    return report


def main() -> int:
    """Serve jobs from the job stream (the job channel, else stdin) until it closes; one JSON line
    per job back on it."""
    if os.getpid() != 1:
        sys.stderr.write("the sandbox runner must be PID 1 of its container (it kills every other process)\n")
        return 2
    if os.geteuid() != 0 or 0 in (JOB_UID, GRADER_UID) or JOB_UID == GRADER_UID:
        sys.stderr.write(f"the sandbox runner must start as root (with CAP_SETUID/CAP_SETGID) to run jobs as uid "
                         f"{JOB_UID} and the grader as uid {GRADER_UID}, two different non-root users; it runs as "
                         f"uid {os.geteuid()}\n")
        return 2
    channel = _connect_job_channel()
    os.chdir("/")  # nothing a job can write is the runner's or the grader's working directory
    os.setgroups([])  # root's supplementary groups: no process of the container keeps any
    install_seccomp(seccomp_program(os.uname().machine))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # PID 1: nothing inside the container may stop it
    if set_dumpable(0) != 0:
        sys.stderr.write("could not make the runner non-dumpable\n")
        return 2
    for name in PRELOAD:
        importlib.import_module(name)
    # Set once here rather than in every job: what a forked job inherits costs it nothing.
    set_limit(resource.RLIMIT_CORE, 0)
    sys.argv = ["solution.py"]
    compile("", "<warm-up>", "exec")  # builds the AST types once here, not in every job (~0.8 ms each)
    gc.collect()
    gc.freeze()  # forked jobs then never traverse (and copy-on-write) the runner's objects
    ctypes.CDLL(None).malloc_trim(0)  # free heap pages (start-up garbage) are not copied into every fork
    server = ForkServer()
    server.start()  # before the first job: no candidate process inherits memory that held a job's data
    grader = Grader()
    grader.start()
    state = own_state()
    idle = kernel_held()
    _write_line({"ready": True, "runner": RUNNER_VERSION, "python": sys.version.split()[0], "uid": os.getuid(),
                 "job_uid": JOB_UID, "grader_uid": GRADER_UID, "channel": channel})
    while True:
        size = read_frame_length(0)
        if size is None:
            grader.stop()
            return 0
        header = json.loads(read_exact(0, size) or b"{}")
        candidate = json.loads(read_exact(0, read_frame_length(0) or 0) or b"{}")
        try:
            if own_state() != state:
                raise SandboxFault("the runner's limits or scheduling changed")
            result = run_job(header, candidate, grader, server)
        except (OSError, ValueError, KeyError, TypeError, EOFError, SandboxFault) as exc:
            error = f"runner: {exception_text(exc)}"
            result = {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": error, "fatal": error}
            grader.stop()
        del candidate
        result["id"] = header.get("id")
        if not swept(grader, server):
            _write_line(dict(result, fatal="processes survived the sweep"))
            return 1
        leftovers = _scrub(idle)
        if leftovers:
            result["fatal"] = f"files survived the scrub: {leftovers[:5]}"
        if grader.sock is not None:
            os.kill(grader.pid, signal.SIGCONT)  # a candidate may have stopped it
        if not grader.alive or grader.jobs >= GRADER_JOBS:
            grader.stop()
        if grader.sock is None:
            grader.start()
        left_in_kernel = settled_drift(idle)
        if left_in_kernel:
            leftovers.append("the container did not return to idle")
            result["fatal"] = f"the container did not return to idle: {left_in_kernel}"
        _write_line(result)
        if leftovers:
            return 1


if __name__ == "__main__":
    sys.exit(main())
