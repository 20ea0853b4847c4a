"""The stateful Python session (``rlenv.sandbox.session``) on the real Docker sandbox."""

import types

import pytest

from rlenv.sandbox import Limits
from rlenv.sandbox.session import PythonSession

pytestmark = pytest.mark.docker
FAST = Limits(timeout_s=6.0, test_timeout_s=2.0, memory_mb=256, max_output_bytes=4096)


def test_variables_functions_imports_and_files_last_between_calls(solo):
    session = PythonSession(solo, limits=FAST)
    outputs = [session.run(code) for code in (
        "x = 21", "x * 2", "import math\ndef f(n):\n    return math.factorial(n)", "f(5) + x",
        "open('notes.txt', 'w').write('kept')", "print(open('notes.txt').read())", "None")]
    assert [o.status for o in outputs] == ["ok"] * 7
    assert [o.output for o in outputs] == ["", "42\n", "", "141\n", "4\n", "kept\n", ""]


def test_an_exception_is_shown_and_what_ran_before_it_stays(solo):
    session = PythonSession(solo, limits=FAST)
    failed = session.run("y = 5\nprint('before')\n1 / 0")
    assert failed.status == "error" and failed.output.startswith("before\n") and "ZeroDivisionError" in failed.output
    assert session.run("y").output == "5\n"


def test_per_call_limits_and_a_cell_past_them_is_not_replayed(solo):
    session = PythonSession(solo, limits=FAST)
    session.run("z = 1")
    slow = session.run("while True:\n    pass")
    assert slow.status == "timeout" and "time limit" in slow.output
    assert session.run("big = bytearray(1 << 30)").status == "memory"
    assert session.run("print('x' * 100000)").status == "output_limit"
    after = session.run("z + 1")
    assert after.status == "ok" and after.output == "2\n" and after.seconds < 1.5  # nothing past a limit replayed


def test_the_episode_budget_refuses_calls_once_spent(solo):
    session = PythonSession(solo, limits=FAST, max_calls=2)
    assert [session.run("1").status for _ in range(3)] == ["ok", "ok", "budget"]
    timed = PythonSession(solo, limits=FAST, max_total_s=1.0)
    assert timed.run("while True:\n    pass").status == "timeout"
    refused = timed.run("1")
    assert refused.status == "budget" and "1 s of execution are used up" in refused.output
    timed.close()
    assert timed.run("1").output == "Error: the Python session is closed"


def test_two_sessions_share_nothing(solo):
    first, second = PythonSession(solo, limits=FAST), PythonSession(solo, limits=FAST)
    first.run("secret = 'alpha'; open('/tmp/secret', 'w').write(secret)")
    seen = second.run("import os\nprint('secret' in globals(), os.path.exists('/tmp/secret'))")
    assert seen.output == "False False\n"


@pytest.mark.parametrize("bad, message", [
    ({"max_calls": 0}, "max_calls must be a positive int, got 0"),
    ({"max_total_s": 0}, "max_total_s must be positive, got 0"),
])
def test_bad_budgets_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        PythonSession(types.SimpleNamespace(run=None), **bad)
