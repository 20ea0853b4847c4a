"""The grader: a persistent process, another unprivileged user, that holds a ``function`` job's tests,
runs the trusted test code against the candidate process and reports per-test results with the
job's nonce (:func:`grader_loop`); :class:`Grader` is the runner's handle on it. (A ``program``
job runs no test code: the runner compares its outputs, :func:`~rlenv.sandbox.runner.verdict.grade_program`.)"""

from __future__ import annotations

import ast
import builtins
import importlib
import json
import os
import resource
import select
import signal
import socket
import time
from types import CodeType, FrameType
from typing import Any, NoReturn

from rlenv.sandbox.protocol import JobStatus, TestStatus
from rlenv.sandbox.runner.child import HANG_UP, POLL_IN, Child, output_text
from rlenv.sandbox.runner.confinement import CAP_KILL, GRADER_UID, become, install_fds, own_state
from rlenv.sandbox.runner.faults import EXIT_SETUP, SandboxFault, exception_text
from rlenv.sandbox.runner.messages import MESSAGE, serve
from rlenv.sandbox.runner.remote import CandidateFault, GraderTimeout, RemoteCandidate, RemoteObject
from rlenv.sandbox.runner.scrub import host_gone
from rlenv.sandbox.runner.verdict import job_status

#: The grader asks to be replaced as soon as its peak resident memory passes this many KiB (values of
#: earlier jobs; the runner also replaces it after :data:`~rlenv.sandbox.runner.main.GRADER_JOBS` jobs).
GRADER_MAX_RSS_KB = 192 << 10


def _alarm(signum: int, frame: FrameType | None) -> NoReturn:
    raise GraderTimeout("the grader's work on this test ran past the time limit")


def _run_function(child: Child, grader: dict, job_deadline: float, test_timeout: float) -> dict:
    rpc = RemoteCandidate(child)
    results: list[dict[str, Any]] = [{"status": TestStatus.NOT_RUN, "time_s": 0.0, "error": None} for _ in grader["tests"]]
    try:
        trees = [ast.parse(source, f"<test {i}>") for i, source in enumerate(grader["tests"])]
        compiled = [compile(tree, f"<test {i}>", "exec") for i, tree in enumerate(trees)]
        compiled_setup = compile(grader["setup"], "<grader setup>", "exec")
    except SyntaxError as exc:
        return {"status": JobStatus.SANDBOX_ERROR, "tests": results, "error": f"test code does not compile: {exception_text(exc)}"}
    began = time.monotonic()
    rpc.test_index, rpc.deadline = 0, min(job_deadline, began + test_timeout)
    load_status, load_error = TestStatus.FAILED, None
    try:
        loaded = rpc.receive()
        if not loaded["ok"]:
            load_status = TestStatus.MEMORY if loaded.get("type") == "MemoryError" else TestStatus.FAILED
            load_error = f"the candidate code raised during import: {loaded.get('message')}"
            rpc.exited = loaded.get("base") == "BaseException"
    except CandidateFault as fault:
        load_status, load_error = fault.status, f"loading the candidate code: {fault}"
    load_s = round(time.monotonic() - began, 6)
    namespace = {"__name__": "__grader__", "__builtins__": builtins}
    if load_error is None:
        try:
            exec(compiled_setup, namespace)
        except BaseException as exc:
            return {"status": JobStatus.SANDBOX_ERROR, "tests": results, "load_s": load_s,
                    "error": f"grader setup raised: {exception_text(exc)}"}
        names = loaded["names"] if type(loaded.get("names")) is dict else {}
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, max(0.001, job_deadline - time.monotonic()))
        try:  # whatever goes wrong with the names the candidate reported is the candidate's failure
            load_error = _bind(namespace, names, grader, names_used(trees), rpc)
        except GraderTimeout:
            load_status, load_error = TestStatus.TIMEOUT, "binding the candidate's names ran past the time limit"
        except BaseException as exc:
            load_error = f"binding the candidate's names: {exception_text(exc)}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if load_error is not None:
        for i, test in enumerate(results):
            test.update(status=load_status if i == 0 else TestStatus.FAILED, error=load_error)
        return {"status": load_status, "tests": results, "error": load_error, "load_s": load_s,
                "candidate_exited": rpc.exited}
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for i, code_object in enumerate(compiled):
            results[i].update(_run_test(i, code_object, namespace, rpc, job_deadline, test_timeout))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return {"status": job_status(results), "tests": results, "error": None, "load_s": load_s,
            "candidate_exited": rpc.exited}


def _run_test(i: int, code_object: CodeType, namespace: dict, rpc: RemoteCandidate, job_deadline: float,
              test_timeout: float) -> dict:
    """Run test snippet ``i`` in the grader; returns its result fields."""
    if rpc.fault:
        return {"error": f"not run: the candidate process ended at test {rpc.fault_test}"}
    began = time.monotonic()
    if began >= job_deadline:
        return {"error": "not run: the job's time limit was reached"}
    rpc.test_index, rpc.deadline = i, min(job_deadline, began + test_timeout)
    signal.setitimer(signal.ITIMER_REAL, max(0.001, rpc.deadline - began) + 0.5)
    status: TestStatus = TestStatus.PASSED
    error: str | None = None
    try:
        exec(code_object, namespace)
    except GraderTimeout:
        status, error = TestStatus.TIMEOUT, "time limit exceeded"
        if rpc.busy:  # the alarm hit while a call was in flight: its late reply must not be read
            rpc.fault, rpc.fault_test, rpc.fault_message = status, i, error
            rpc.child.kill()
    except CandidateFault as fault:
        status, error = fault.status, str(fault)
    except BaseException as exc:
        status, error = TestStatus.FAILED, exception_text(exc) or type(exc).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if rpc.fault is not None and rpc.fault_test == i:  # even swallowed by test code, the fault decides the verdict
        status, error = rpc.fault, rpc.fault_message
    elif status != TestStatus.PASSED and rpc.memory_test == i:
        status = TestStatus.MEMORY
    return {"status": status, "error": error, "time_s": round(time.monotonic() - began, 6)}


#: Standard-library modules a candidate's ``import`` makes visible to the tests (in plain Python
#: the tests run in the candidate's module and see them). The grader imports only these, by these
#: fixed names: which of them a candidate asks for runs none of its code, and any other module
#: name (a package's ``__main__``, a file it wrote) is never imported.
BINDABLE_MODULES = frozenset((
    "array", "base64", "binascii", "bisect", "calendar", "cmath", "collections", "collections.abc", "copy",
    "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions", "functools", "hashlib", "heapq",
    "itertools", "json", "math", "numbers", "operator", "os", "os.path", "pprint", "queue", "random", "re",
    "statistics", "string", "struct", "sys", "textwrap", "time", "types", "typing", "unicodedata", "zlib"))


def names_used(trees: list) -> tuple[frozenset, frozenset]:
    """``(every name, names used as a module)`` of the tests' syntax trees: a name is used as a
    module when the tests read an attribute of it (``math.isclose``, ``sys.getsizeof``)."""
    names, modules = set(), set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                modules.add(node.value.id)
    return frozenset(names), frozenset(modules)


def _bind(namespace: dict, names: dict, grader: dict, used: tuple, rpc: RemoteCandidate) -> str | None:
    """Bind what the tests name (``used``, from :func:`names_used`) into their namespace;
    returns an error or None.

    In this order, each step never replacing what an earlier one bound: the grader's setup
    (trusted code, run before); a name the tests use as a module that is one of
    :data:`BINDABLE_MODULES` is the grader's own module, whatever the candidate holds under that
    name; then, with ``import_names``, each candidate global the tests name (never a builtin): a
    module the candidate imported only if it is one of :data:`BINDABLE_MODULES`, imported here by
    that fixed name, anything else a handle on the candidate's object. ``bind`` comes last and
    wins (a task whose entry point is called ``sum`` calls the candidate's ``sum``).
    """
    used, as_modules = used
    for name in sorted(as_modules & BINDABLE_MODULES):
        namespace.setdefault(name, importlib.import_module(name))
    if grader.get("import_names", True):
        for name, entry in names.items():
            if type(name) is not str or name not in used or name in namespace or hasattr(builtins, name):
                continue
            if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not str or type(entry[1]) is not str:
                continue
            kind, detail = entry
            if kind == "module":
                if detail in BINDABLE_MODULES:
                    namespace[name] = importlib.import_module(detail)
            else:
                namespace[name] = RemoteObject(rpc, f"g:{name}", f"{detail:.80} {name!r:.80}")
    for alias, target in grader.get("bind", {}).items():
        if target not in names:
            return f"the candidate code does not define {target!r}"
        namespace[alias] = RemoteObject(rpc, f"g:{target}", f"{str(names[target][1]):.80} {target!r}")
    return None


def grade_function(meta: dict, grader: dict, fds: list) -> dict:
    """Grade a ``function`` job whose candidate process the runner forked: ``fds`` are its
    request pipe, reply pipe, stdout, stderr and pidfd."""
    limits = meta["limits"]
    request_fd, reply_fd, out_fd, err_fd, pidfd = fds
    child = Child(meta["pid"], pidfd, out_fd, err_fd, int(limits["max_output_bytes"]), exit_status=None,
                  oom_before=meta["oom_before"], request_fd=request_fd, reply_fd=reply_fd)
    try:
        report = _run_function(child, grader, meta["started"] + float(limits["timeout_s"]),
                               float(limits["test_timeout_s"]))
    finally:
        child.close()
    keep = int(meta["keep_output_bytes"])
    report.update(stdout=output_text(child.output(out_fd), keep), stderr=output_text(child.output(err_fd), keep))
    return report


def grader_loop(sock: socket.socket) -> None:
    """Body of the grader process: grade one job per message and answer with the report,
    which carries the job's nonce. Never forks. Before each job it checks that its own limits and
    scheduling are as they were; after each, it asks to be retired once it has grown too big."""
    state = own_state()

    def grade(meta: dict, payload: bytes, fds: list) -> dict:
        try:
            if own_state() != state:
                raise SandboxFault("the grader's limits or scheduling changed")
            grader = json.loads(payload)
            if meta["mode"] != "function":
                raise ValueError(f"the grader grades function jobs, not {meta['mode']!r} (the runner compares outputs)")
            report = grade_function(meta, grader, fds)
        except BaseException as exc:
            report = {"status": JobStatus.SANDBOX_ERROR, "tests": [], "error": f"grader error: {exception_text(exc)}",
                      "fatal": f"grader error: {exception_text(exc)}"}
        if resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > GRADER_MAX_RSS_KB:
            report["retire"] = True
        report["nonce"] = meta["nonce"]
        return report

    serve(sock, grade)


class Grader:
    """The runner's handle on the persistent grader process."""

    def __init__(self) -> None:
        self.pid = 0
        self.pidfd = -1
        self.sock: socket.socket | None = None
        self.jobs = 0

    def start(self) -> None:
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                null = os.open(os.devnull, os.O_RDWR)
                install_fds({0: null, 1: null, 2: null, 3: theirs.fileno()})
                become(GRADER_UID, keep_caps=CAP_KILL)  # it kills the candidate processes it talks to
                grader_loop(socket.socket(fileno=3))
            finally:
                os._exit(EXIT_SETUP)
        theirs.close()
        ours.setblocking(False)
        self.pid, self.pidfd, self.sock, self.jobs = pid, os.pidfd_open(pid), ours, 0

    @property
    def alive(self) -> bool:
        return self.sock is not None and not select.select([self.pidfd], [], [], 0)[0]

    def stop(self) -> None:
        if self.sock is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        select.select([self.pidfd], [], [], 5.0)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:  # already reaped by a sweep
            pass
        self.sock.close()
        os.close(self.pidfd)
        self.sock, self.pid, self.pidfd = None, 0, -1

    def exchange(self, meta: dict, payload: bytearray, fds: list, deadline: float) -> tuple[bytes, str, int | None]:
        """Send one job, wait for its report; returns ``(report_bytes, reason, exit_status)``.

        reason: ``"ok"``, ``"timeout"`` (no report by ``deadline``) or ``"exited"`` (the
        grader died; exit_status is its wait status).
        """
        self.jobs += 1
        data = json.dumps(meta, ensure_ascii=True, allow_nan=False).encode()
        # One buffer, one send (one wake-up of the grader); zeroed afterwards since it holds the grader part.
        message = bytearray(MESSAGE.size + len(data) + len(payload))
        message[:MESSAGE.size + len(data)] = MESSAGE.pack(len(data), len(payload)) + data
        message[MESSAGE.size + len(data):] = payload
        try:
            return self._exchange(memoryview(message), fds, deadline)
        finally:
            message[:] = bytes(len(message))

    def _exchange(self, message: memoryview, fds: list, deadline: float) -> tuple[bytes, str, int | None]:
        sock = self.sock
        if sock is None:
            raise SandboxFault("the grader was not started")
        poll = select.poll()
        poll.register(sock, select.POLLOUT | POLL_IN)
        poll.register(self.pidfd, POLL_IN)
        poll.register(0, HANG_UP)  # the host hung up: stop everything
        outgoing = [message]
        received = bytearray()
        while True:
            if len(received) >= MESSAGE.size:
                size = sum(MESSAGE.unpack(received[:MESSAGE.size]))
                if len(received) >= MESSAGE.size + size:
                    return bytes(received[MESSAGE.size:MESSAGE.size + size]), "ok", None
            left = deadline - time.monotonic()
            if left <= 0:
                return b"", "timeout", None
            for fd, event in poll.poll(max(1, int(left * 1000) + 1)):
                if fd == self.pidfd:
                    return b"", "exited", os.waitpid(self.pid, 0)[1]
                if fd == 0 and event & (select.POLLHUP | select.POLLERR):
                    host_gone()
                if event & select.POLLOUT and outgoing:
                    try:
                        if fds:
                            sent = socket.send_fds(sock, [outgoing[0]], fds)
                            fds = []
                        else:
                            sent = sock.send(outgoing[0])
                    except BlockingIOError:
                        continue
                    outgoing[0] = outgoing[0][sent:]
                    while outgoing and not len(outgoing[0]):
                        outgoing.pop(0)
                    if not outgoing:
                        poll.modify(sock, POLL_IN)
                if event & POLL_IN and fd != self.pidfd:
                    try:
                        chunk = sock.recv(1 << 16)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        select.select([self.pidfd], [], [], 1.0)
                        return b"", "exited", os.waitpid(self.pid, 0)[1]
                    received += chunk
