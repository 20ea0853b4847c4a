"""The candidate process, from its fork to its exit: waiting for its job, its sandbox set-up
(:func:`child_setup`), then the program run as ``__main__`` (:func:`program_main`) or the
candidate's module serving the grader's calls (:func:`function_main`). Whatever happens, it
hard-exits: no code of the fork server or the runner ever runs as the candidate."""

from __future__ import annotations

import _signal  # signal.signal's enum wrapping costs a forked job ~0.1 ms of copy-on-write faults
import builtins
import gc
import json
import os
import signal
import socket
import sys
import traceback
import types
from typing import Any

from rlenv.sandbox.protocol import decode_value, encode_value
from rlenv.sandbox.runner.confinement import CANDIDATE_RLIMITS, JOB_UID, become, install_fds, set_limit
from rlenv.sandbox.runner.faults import EXIT_MEMORY, EXIT_SETUP, exception_text
from rlenv.sandbox.runner.records import CANDIDATE_JOB, JOB_SOCKET_FD, MAX_JOB_FDS, MAX_WORKDIR, recv_record


def _read_code(fd: int) -> str:
    """The code in the sealed file at ``fd`` (see :func:`~rlenv.sandbox.runner.forkserver.code_file`); closes ``fd``."""
    size, chunks, got = os.fstat(fd).st_size, [], 0
    while got < size:
        chunk = os.pread(fd, size - got, got)
        if not chunk:
            raise EOFError(f"the code file ended after {got} of {size} bytes")
        chunks.append(chunk)
        got += len(chunk)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "surrogatepass")


def _flush_and_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code)


def _report_setup_failure() -> None:
    """Exit with :data:`~rlenv.sandbox.runner.faults.EXIT_SETUP`, the traceback on fd 2 (the job's stderr
    once it is set up)."""
    try:
        os.write(2, traceback.format_exc().encode()[-4000:])
    finally:
        os._exit(EXIT_SETUP)


def child_setup(rlimits: tuple, workdir: str, fds: list) -> str:
    """Turn a freshly forked process into a candidate process: own session, exactly ``fds`` as its
    descriptors 0, 1, 2, ... (moved there unless they are there already, as :func:`run_candidate`
    has them arrive), default signals, the work directory, ``rlimits`` (values of
    :data:`~rlenv.sandbox.runner.confinement.CANDIDATE_RLIMITS`, in order), first in line for the OOM
    killer, the job user with no capabilities (the seccomp filters, no core dumps and ``sys.argv``
    come from :func:`~rlenv.sandbox.runner.main.main` and the fork server). Returns the job's code,
    read from the descriptor just below the last one (see :func:`~rlenv.sandbox.runner.forkserver.spawn`)."""
    gc.freeze()  # the job's collections never traverse (and copy) the objects it inherited
    os.setsid()
    ready = len(fds) - 1  # the last descriptor; the code is just below it
    if fds == list(range(ready + 1)):
        os.closerange(ready + 1, 1 << 20)  # one close_range: every descriptor but the job's
    else:
        install_fds(dict(enumerate(fds)))
    code = _read_code(ready - 1)
    _signal.signal(signal.SIGINT, signal.default_int_handler)  # the runner ignores it; a program expects Python's
    os.chdir(workdir)
    os.umask(0o077)
    adjust = os.open("/proc/self/oom_score_adj", os.O_WRONLY)  # os-level: io.open's layers cost a job ~0.3 ms
    try:
        os.write(adjust, b"1000")  # while a candidate process lives, the OOM killer chooses one, never the runner or grader
    finally:
        os.close(adjust)
    for kind, value in zip(CANDIDATE_RLIMITS, rlimits, strict=True):
        set_limit(kind, value)
    become(JOB_UID)
    os.write(ready, b"1")  # set-up done: from here on, what happens is the candidate's doing
    os.close(ready)
    return code


def program_main(code: str) -> None:
    """Run ``code`` as ``__main__`` like ``python3 solution.py`` would, then exit."""
    module = types.ModuleType("__main__")
    module.__file__ = "solution.py"
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    status = 0
    try:
        exec(compile(code, "solution.py", "exec"), module.__dict__)
    except SystemExit as exc:
        if exc.code is None:
            status = 0
        elif isinstance(exc.code, int):
            status = exc.code & 0xFF
        else:
            print(exc.code, file=sys.stderr)
            status = 1
    except MemoryError:
        status = EXIT_MEMORY
    except BaseException:
        try:
            traceback.print_exc()
        except BaseException:
            pass
        status = 1
    _flush_and_exit(status)


_VALUE_FIELDS = ("args", "kwargs", "key")


def function_main(code: str) -> None:
    """Load ``code`` as module ``solution``, report its globals, then serve calls from the
    grader: one JSON request line on fd 3, one JSON reply line on fd 4."""
    module = types.ModuleType("solution")
    module.__file__ = "solution.py"
    sys.modules["solution"] = module
    requests = open(3, "rb", buffering=1 << 16)
    handles: list = []

    def reply(message: dict) -> None:
        data = (json.dumps(message, ensure_ascii=True, allow_nan=False) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(4, view):]

    def ref_of(value: object) -> str:
        handles.append(value)
        return f"h:{len(handles) - 1}"

    def resolve(ref: str, _type: str) -> Any:
        space, _, key = ref.partition(":")
        if space == "h":
            return handles[int(key)]
        return getattr(module, key)

    def failure(exc: BaseException) -> dict:
        return {"ok": False, "type": type(exc).__name__,
                "base": "Exception" if isinstance(exc, Exception) else "BaseException", "message": exception_text(exc)}

    try:
        exec(compile(code, "solution.py", "exec"), module.__dict__)
    except BaseException as exc:
        reply(failure(exc))
        _flush_and_exit(0)
    names = {}
    for name, value in list(module.__dict__.items()):
        if name.startswith("__"):
            continue
        names[name] = ["module", value.__name__] if isinstance(value, types.ModuleType) else \
            ["object", type(value).__name__]
    reply({"ok": True, "names": names})
    operations = {
        "call": lambda target, req: target(*req["args"], **dict(req["kwargs"])),
        "getattr": lambda target, req: getattr(target, req["name"]),
        "iter": lambda target, req: list(target),
        "len": lambda target, req: len(target),
        "getitem": lambda target, req: target[req["key"]],
        "bool": lambda target, req: bool(target),
    }
    for line in requests:
        try:
            raw = json.loads(line)
            request = {k: decode_value(v, resolve) if k in _VALUE_FIELDS else v for k, v in raw.items()}
            result = operations[request["op"]](resolve(request["ref"], ""), request)
            message = {"ok": True, "value": encode_value(result, ref_of)}
        except BaseException as exc:
            message = failure(exc)
        sys.stdout.flush()
        reply(message)
    _flush_and_exit(0)


def run_candidate(sock_fd: int) -> None:
    """Body of a candidate process forked with its socket at ``sock_fd`` (a process of the fork
    server's, with its descriptors): keep only that socket, at
    :data:`~rlenv.sandbox.runner.records.JOB_SOCKET_FD`, wait there for the job (a
    :data:`~rlenv.sandbox.runner.records.CANDIDATE_JOB` record, the work directory and descriptors: see
    :func:`~rlenv.sandbox.runner.forkserver.spawn`), :func:`child_setup`, then the program or the
    function server. Never returns: whatever escapes the candidate's code
    ends the process, so no code of the fork server ever runs as the candidate."""
    try:
        if sock_fd != JOB_SOCKET_FD:
            os.dup2(sock_fd, JOB_SOCKET_FD)
        os.closerange(0, JOB_SOCKET_FD)
        os.closerange(JOB_SOCKET_FD + 1, 1 << 20)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, JOB_SOCKET_FD)
        job, fds = recv_record(sock, CANDIDATE_JOB.size + MAX_WORKDIR, MAX_JOB_FDS)
        if not job:
            os._exit(0)  # the runner stopped before it had a job for this process
        sock.close()
        program, *rlimits = CANDIDATE_JOB.unpack_from(job)
        code = child_setup(tuple(rlimits), job[CANDIDATE_JOB.size:].decode(), fds)
    except BaseException:
        _report_setup_failure()
    try:
        (program_main if program else function_main)(code)
    finally:
        os._exit(1)
