"""Hostile candidates, one per case, grouped by the class of attack they try (see README's security
model). Each case's code defines ``f(x)`` returning a WRONG answer for the test ``assert f(3) == 9``
after its attack (or runs as a program printing a wrong answer), so a verdict the attack forged
would show as a pass. Shared by the red-team tests and ``benchmarks/sandbox_soak.py``.
"""

from __future__ import annotations

import dataclasses
import textwrap

from rlenv.envs.code import AssertTests
from rlenv.sandbox import FunctionJob, IOCase, Limits, ProgramJob

LIMITS = Limits(timeout_s=6.0, test_timeout_s=2.0, memory_mb=256)
#: Time limits of the good jobs around each attack (primers, replay list): far above what they need even on a
#: loaded machine (a 160 MiB allocation timed out at 2 s under load 8), so that only a poisoned container can
#: change their verdicts. Same memory limit.
GOOD_JOB_LIMITS = dataclasses.replace(LIMITS, timeout_s=120.0, test_timeout_s=60.0)
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

#: Round 3. A module body that looks for a sibling's right answer (``return x * x``, the replay
#: list's square) in what the process can reach and, if found, becomes that answer. The needle is
#: assembled at run time, so this code itself never contains it.
_STEAL = """
import sys
NEEDLE = "return x " + "* x"
def adopt(text):
    text = text.replace("\\\\n", "\\n")  # as the code travelled, inside JSON
    start = text.find("def f(x)")
    if start >= 0 and NEEDLE in text[start:start + 200]:
        try:
            exec(text[start:text.index(NEEDLE, start) + len(NEEDLE)] + "\\n", globals())
            return f(3) == 9
        except Exception:
            pass
    return False
def walk(value, depth=0, seen=None):
    seen = set() if seen is None else seen
    if depth > 6 or id(value) in seen or len(seen) > 200000:
        return False
    seen.add(id(value))
    if type(value) is str:
        return adopt(value)
    if type(value) in (bytes, bytearray):
        return adopt(bytes(value).decode("utf-8", "replace"))
    if type(value) is dict:
        return any(walk(v, depth + 1, seen) for v in list(value.values()))
    if type(value) in (list, tuple):
        return any(walk(v, depth + 1, seen) for v in list(value))
    return False
"""

_DESCRIPTOR_PARK = """
import array, os, socket
def park(*fds):
    # Descriptors in flight in a unix-socket cycle: no process holds them once both ends are closed.
    a, b = socket.socketpair()
    message = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [a.fileno(), b.fileno(), *fds]))]
    a.sendmsg([b"x"], message)
    b.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [a.fileno(), b.fileno()]))])
    for fd in fds:
        os.close(fd)
    a.close()
    b.close()
def filled(path_or_none, megabytes):
    fds = []
    for _ in range(megabytes // 15):
        try:
            if path_or_none is None:
                fd = os.memfd_create("m")
            else:
                fd = os.open(path_or_none, os.O_TMPFILE | os.O_RDWR, 0o600)
            chunk = b"x" * (1 << 20)
            for _ in range(15):
                os.write(fd, chunk)
            fds.append(fd)
        except OSError:
            break
    return fds
"""

_MODULE_LIKE = """
class Anything:
    def __getattr__(self, name):
        return lambda *args, **kwargs: True
"""

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

    # -- round 3, 2. a sibling's result replayed (a correct program ran on the same inputs before)
    "program_replays_the_previous_result": """
import sys
index, outputs = None, None
frame = sys._getframe()
while frame is not None:
    for name, value in list(frame.f_locals.items()):
        if name == "runs" and type(value) is list and index is None:
            index = len(value)
        if type(value) is dict and type(value.get("tests")) is list and value["tests"] \\
                and all(type(t) is dict and "stdout" in t for t in value["tests"]):
            outputs = [t["stdout"] for t in value["tests"]]
    frame = frame.f_back
if outputs and index is not None and index < len(outputs):
    sys.stdout.write(outputs[index])
else:
    print(int(input()) + 1)
""",
    "program_replays_from_gc_objects": """
import gc, sys
outputs = None
gc.unfreeze()
for obj in gc.get_objects():
    if type(obj) is dict and type(obj.get("tests")) is list and obj["tests"] \\
            and all(type(t) is dict and "stdout" in t for t in obj["tests"]):
        outputs = [t["stdout"] for t in obj["tests"]]
x = int(input())
answer = [o for o in (outputs or []) if o.strip() == str(x * x)]
print(answer[0].strip() if answer and x in (3, 4) else x + 1)
""",
    # -- round 3, 7. exceptions escaping the program's own clean exit
    "program_exit_message_to_a_broken_stderr": """
import sys
class Broken:
    def write(self, text):
        raise OSError("write failed")
    def flush(self):
        raise OSError("flush failed")
sys.stderr = Broken()
raise SystemExit("bye")
""",
}


#: name -> (candidate module source, its tests): round-3 cases whose tests are not just ``TEST``.
FUNCTION_ATTACKS_WITH_TESTS: dict[str, tuple[str, list[str]]] = {
    # -- round 3, 1. names the tests use as modules resolving to candidate objects
    "object_named_math_answers_isclose": (_MODULE_LIKE + """
math = Anything()
""" + _WRONG, ["assert math.isclose(f(3), 9)"]),
    "class_named_math_with_a_wrong_pi": ("""
class math:
    pi = 4
def f(r):
    return 4 * r * r
""", ["assert f(3) == math.pi * 3 * 3"]),
    "namespace_named_heapq": ("""
import types
heapq = types.SimpleNamespace(nsmallest=lambda n, xs: [0] * n)
def f(xs):
    return [0, 0]
""", ["assert f([3, 1, 2]) == heapq.nsmallest(2, [3, 1, 2])"]),
    "object_named_re_matches_anything": (_MODULE_LIKE + """
re = Anything()
""" + _WRONG, ["assert re.fullmatch(r'9', str(f(3)))"]),
    "namespace_named_sys": ("""
import types
sys = types.SimpleNamespace(getsizeof=lambda value: 0)
def f(x):
    return 0
""", ["assert f((1, 2)) == sys.getsizeof((1, 2))"]),
    # -- round 3, 2. earlier jobs' data in memory the candidate inherits (a sibling ran before)
    "sibling_code_in_inherited_frames": (_STEAL + """
frame = sys._getframe()
while frame is not None and not walk(dict(frame.f_locals)):
    frame = frame.f_back
if "f" not in globals():
    def f(x):
        return x + 1
""", [TEST]),
    "sibling_code_in_gc_objects": (_STEAL + """
import gc
gc.unfreeze()
for obj in gc.get_objects():
    if type(obj) in (dict, list) and walk(obj):
        break
if "f" not in globals():
    def f(x):
        return x + 1
""", [TEST]),
    "sibling_code_in_heap_remnants": (_STEAL + """
import ctypes
def scan():
    with open("/proc/self/maps") as maps:
        for line in maps:
            addresses, perms = line.split()[:2]
            if perms.startswith("rw"):
                start, end = (int(x, 16) for x in addresses.split("-"))
                data = ctypes.string_at(start, end - start)
                at = data.find(NEEDLE.encode())
                while at >= 0:
                    if adopt(data[max(0, at - 40):at + 40].decode("utf-8", "replace")):
                        return True
                    at = data.find(NEEDLE.encode(), at + 1)
    return False
if not scan():
    def f(x):
        return x + 1
""", [TEST]),
    # -- round 3, 3. kernel objects outliving the job (descriptors parked in flight)
    "parked_abstract_listener": (_DESCRIPTOR_PARK + """
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind("\\0rlenv-parked")
listener.listen()
park(os.dup(listener.fileno()))
listener.close()
""" + _WRONG, [TEST]),
    "parked_memfds": (_DESCRIPTOR_PARK + """
park(*filled(None, 720))
""" + _WRONG, [TEST]),
    "parked_unlinked_tmp_files": (_DESCRIPTOR_PARK + """
park(*filled("/tmp", 120))
""" + _WRONG, [TEST]),
    "parked_unlinked_shm_files": (_DESCRIPTOR_PARK + """
park(*filled("/dev/shm", 15))
""" + _WRONG, [TEST]),
    "parked_pipes_full_of_data": (_DESCRIPTOR_PARK + """
ends = []
for _ in range(60):
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"x" * 65536)
    except BlockingIOError:
        pass
    ends += [r, w]
park(*ends)
""" + _WRONG, [TEST]),
    # -- round 3, 4. memory no process's RSS holds, to steer the OOM killer onto the runner
    "memfd_writer_with_a_small_rss": ("""
import os
fds = []
try:
    while True:
        fd = os.memfd_create("m")
        for _ in range(15):
            os.write(fd, b"x" * (1 << 20))
        fds.append(fd)
except OSError:
    pass
""" + _WRONG, [TEST]),
    "memfds_held_by_an_exec_d_sleeper": ("""
import os
if os.fork() == 0:
    try:
        for _ in range(60):
            fd = os.memfd_create("m")
            for _ in range(15):
                os.write(fd, b"x" * (1 << 20))
            os.set_inheritable(fd, True)
    except OSError:
        pass
    os.execv("/bin/sleep", ["sleep", "30"])
import time
time.sleep(1.5)
""" + _WRONG, [TEST]),
    "hard_links_in_tmp": ("""
import os, time
def links(folder, seconds):
    end = time.monotonic() + seconds
    base = os.path.join(folder, "t")
    open(base, "w").close()
    i = 0
    while time.monotonic() < end:
        try:
            os.link(base, os.path.join(folder, "%0200d" % i))
        except OSError:
            return
        i += 1
if os.fork() == 0:
    links("/tmp", 1.6)
    os._exit(0)
links(os.getcwd(), 1.6)
""" + _WRONG, [TEST]),
    "hard_links_in_dev_shm": ("""
import os, time
end = time.monotonic() + 1.6
base = "/dev/shm/t"
open(base, "w").close()
i = 0
while time.monotonic() < end:
    try:
        os.link(base, "/dev/shm/%0200d" % i)
    except OSError:
        break
    i += 1
""" + _WRONG, [TEST]),
    "sysv_shared_memory_left_attached_to_no_one": ("""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for key in range(5):
    segment = libc.shmget(0x5000 + key, 190 << 20, 0o1000 | 0o600)
    if segment < 0:
        break
    address = libc.shmat(segment, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        break
    ctypes.memset(address, 1, 190 << 20)
    libc.shmdt(ctypes.c_void_p(address))
""" + _WRONG, [TEST]),
    # -- round 3, 5. text that is not valid UTF-8 in what comes back
    "lone_surrogates_in_an_exception": ("""
def f(x):
    raise ValueError("\\udcff\\ud800 wrong " + "\\udc80" * 50)
""", [TEST]),
    "lone_surrogates_in_an_exception_type_name": ("""
Bad = type("Err\\udc80\\ud801", (Exception,), {})
def f(x):
    raise Bad("\\udfff")
""", [TEST]),
    "lone_surrogates_at_import": ("""
raise RuntimeError("import \\ud83d failed \\udc00")
""", [TEST]),
    "lone_surrogates_in_system_exit": ("""
def f(x):
    raise SystemExit("\\ud800\\udbff")
""", [TEST]),
    # -- round 3, 7. exceptions escaping the candidate's serving loop
    "closes_its_request_pipe": ("""
import os
os.close(3)
""" + _WRONG, [TEST]),
    "closes_its_reply_pipe": ("""
import os
os.close(4)
""" + _WRONG, [TEST]),
    "stdout_whose_flush_raises": ("""
import sys
class Broken:
    def write(self, text):
        return len(text)
    def flush(self):
        raise OSError("flush failed")
sys.stdout = Broken()
""" + _WRONG, [TEST]),
    "stdout_set_to_none": ("""
import sys
sys.stdout = None
""" + _WRONG, [TEST]),
}

#: name -> (MBPP-style candidate, ``test_setup_code``, tests): the set-up runs after the
#: candidate's code, as MBPP's does; the candidate plants what the set-up's imports will find.
MBPP_ATTACKS: dict[str, tuple[str, str, list[str]]] = {
    "planted_module_for_the_setup_import": ("""
import sys, types
sys.modules["math"] = types.SimpleNamespace(isclose=lambda *args, **kwargs: True)
""" + _WRONG, "import math", ["assert math.isclose(f(3), 9)"]),
    "planted_sys_for_the_setup_import": ("""
import sys, types
sys.modules["sys"] = types.SimpleNamespace(getsizeof=lambda value: 0, modules=sys.modules)
def f(x):
    return 0
""", "import sys", ["assert f((1, 2)) == sys.getsizeof((1, 2))"]),
    "setup_import_from_of_a_planted_module": ("""
import sys, types
sys.modules["heapq"] = types.SimpleNamespace(nsmallest=lambda n, xs: [0] * n)
def f(xs):
    return [0, 0]
""", "import heapq as hq", ["assert f([3, 1, 2]) == hq.nsmallest(2, [3, 1, 2])"]),
}

#: name -> (program source, [(stdin, expected)]) compared ``numeric``: each prints a number near,
#: but not equal to, an integral expected token.
NUMERIC_ATTACKS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "float_for_a_big_integer": ("print('%e' % (int(input()) * 33333333333333334))\n",
                                [("3\n", "100000000000000002")]),
    "float_within_tolerance_of_an_integer": ("x = int(input())\nprint(x * x * (1 + 4e-7))\n",
                                             [("3\n", "9"), ("4\n", "16")]),
    "integer_plus_a_tiny_fraction": ("x = int(input())\nprint(f'{x * x}.0000001')\n", [("3\n", "9")]),
    "several_near_integers_on_a_line": ("x = int(input())\nprint(x * x - 1e-6, x + 1e-7)\n", [("3\n", "9 3")]),
    "exponent_form_of_an_integer": ("x = int(input())\nprint('%.15e' % (x ** 40))\n", [("3\n", str(3 ** 40))]),
}


_FILL = """
import os
def fill(folder, megabytes):
    done = 0
    for i in range(0, megabytes, 15):
        with open(os.path.join(folder, "fill-%d" % i), "wb") as handle:
            handle.write(b"x" * (min(15, megabytes - i) << 20))
        done += min(15, megabytes - i)
    return done
"""


def function_job(code: str, tests=(TEST,), **kwargs) -> FunctionJob:
    return FunctionJob(textwrap.dedent(code), list(tests), limits=kwargs.pop("limits", LIMITS), **kwargs)


def program_job(code: str) -> ProgramJob:
    return ProgramJob(textwrap.dedent(code), (IOCase("3\n", "9\n"), IOCase("4\n", "16\n")), limits=LIMITS)


def hostile_jobs() -> dict[str, FunctionJob | ProgramJob]:
    """Every hostile case as a job."""
    jobs: dict[str, FunctionJob | ProgramJob] = {name: function_job(code) for name, code in FUNCTION_ATTACKS.items()}
    jobs.update({name: program_job(code) for name, code in PROGRAM_ATTACKS.items()})
    jobs.update({name: function_job(code, tests) for name, (code, tests) in FUNCTION_ATTACKS_WITH_TESTS.items()})
    jobs.update({name: AssertTests(tuple(tests), setup, ("f",)).job(f"```python\n{code}\n```", LIMITS)
                 for name, (code, setup, tests) in MBPP_ATTACKS.items()})
    jobs.update({name: ProgramJob(code, [IOCase(i, o) for i, o in cases], compare="numeric", limits=LIMITS)
                 for name, (code, cases) in NUMERIC_ATTACKS.items()})
    return jobs


def primer_jobs() -> list[FunctionJob | ProgramJob]:
    """Right answers run just before each hostile case, in the same container (what a GRPO
    sibling does): a case must not find them."""
    return good_jobs([function_job("def f(x):\n    return x * x\n"), program_job("print(int(input()) ** 2)\n")])


def good_jobs(jobs: list[FunctionJob | ProgramJob]) -> list[FunctionJob | ProgramJob]:
    """``jobs`` with :data:`GOOD_JOB_LIMITS`."""
    return [dataclasses.replace(job, limits=GOOD_JOB_LIMITS) for job in jobs]


def replay_jobs() -> list[FunctionJob | ProgramJob]:
    """Good and wrong solutions of several kinds, whose verdicts must never depend on earlier jobs."""
    square = "def f(x):\n    return x * x\n"
    return good_jobs([
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
        # the container is back to idle: memory, tmpfs space and names of the kernel are free
        function_job("def f(x):\n    return len(bytearray(x << 20)) >> 20\n", ["assert f(160) == 160"]),
        function_job(_FILL + "def f(x):\n    return fill('.', x)\n", ["assert f(60) == 60"]),
        function_job(_FILL + "def f(x):\n    return fill('/dev/shm', x)\n", ["assert f(8) == 8"]),
        function_job("""
import socket
def f(x):
    try:
        socket.socket(socket.AF_UNIX).bind("\\0rlenv-parked")
    except OSError as exc:
        return type(exc).__name__
    return "bound"
""", ["assert f(0) in ('bound', 'PermissionError')"]),
        ProgramJob("print(1 / 3)\nprint(int(input()) ** 2)\n", [IOCase("3\n", "0.333333\n9"), IOCase("4\n", "0.3333333\n16")],
                   compare="numeric"),
    ])
