"""Correct MBPP-style programs pass (original MBPP formats: set-up code building the candidate's
objects, functions named like builtins, test imports) and slow correct references get time limits
derived from their own running time."""

import json
import textwrap
import time

import pytest

import rlenv
from rlenv import Status, Task
from rlenv.envs.code import AssertTests, CodeVerifier, calibrate_time_limits
from rlenv.sandbox import SandboxPool
from tests.waiting import scaled

pytestmark = pytest.mark.docker

NODE = textwrap.dedent("""
    class Node:
        def __init__(self, data):
            self.data = data
            self.left = None
            self.right = None
    def max_height(node):
        if node is None:
            return 0
        return max(max_height(node.left), max_height(node.right)) + 1
    """)

ROWS = [
    {"task_id": 1, "text": "Height of a binary tree.", "code": NODE,
     "test_setup_code": "root = Node(1)\nroot.left = Node(2)\nroot.right = Node(3)\nroot.left.left = Node(4)\n"
                        "root1 = Node(1)\nroot1.left = Node(2)",
     "test_list": ["assert max_height(root) == 3", "assert max_height(root1) == 2"]},
    {"task_id": 2, "text": "Write a function sum that adds the digits of a number.",
     "code": "def sum(n):\n    return 0 if n == 0 else n % 10 + sum(n // 10)",
     "test_list": ["assert sum(123) == 6", "assert sum(0) == 0"], "test_setup_code": ""},
    {"task_id": 3, "text": "Count characters.", "code": "from collections import Counter\ndef freq(s):\n    return Counter(s)",
     "test_list": ["assert freq('aab') == {'a': 2, 'b': 1}"], "test_setup_code": ""},
    {"task_id": 4, "text": "Mean.", "code": "def mean(xs):\n    return sum(xs) / len(xs)",
     "test_list": ["assert math.isclose(mean([1, 2]), 1.5)"], "test_setup_code": "", "test_imports": ["import math"]},
    {"task_id": 5, "text": "Similar elements.", "code": "def similar(a, b):\n    return tuple(set(a) & set(b))",
     "test_list": ["assert set(similar((3, 4, 5), (5, 7, 4))) == set((4, 5))"], "test_setup_code": ""},
]


@pytest.fixture(scope="module")
def mbpp(tmp_path_factory):
    path = tmp_path_factory.mktemp("mbpp") / "mbpp.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    env = rlenv.make("rlenv/MBPP-v0", data_files=str(path))
    source = env.unwrapped.source
    return env, {task.id: task for task in (source[i] for i in range(source.size))}


def verify(env, task, code: str):
    return env.unwrapped.verify(task, f"```python\n{textwrap.dedent(code)}\n```")


def test_reference_solutions_pass(docker_ready, mbpp):
    env, tasks = mbpp
    results = {task_id: env.unwrapped.verify(task, task.gold_completion) for task_id, task in tasks.items()}
    assert {task_id: r.status for task_id, r in results.items()} == dict.fromkeys(tasks, Status.CORRECT), results


def test_set_up_builds_the_candidates_objects_and_tests_still_judge(docker_ready, mbpp):
    env, tasks = mbpp
    off_by_one = NODE.replace(") + 1", ") + 2")
    assert verify(env, tasks["1"], off_by_one).status is Status.INCORRECT


def test_a_function_named_like_a_builtin_is_the_candidates(docker_ready, mbpp):
    env, tasks = mbpp
    assert tasks["2"].reference.entry_points == ("sum",)
    assert verify(env, tasks["2"], "def sum(n):\n    return 6 if n else 0").correct  # what the tests call
    assert verify(env, tasks["2"], "def sum(n):\n    return 7").status is Status.INCORRECT


def test_shadowing_a_builtin_the_tests_use_does_not_forge_a_pass(docker_ready, mbpp):
    env, tasks = mbpp
    assert tasks["5"].reference.entry_points == ("similar",)
    forged = "def set(*args):\n    return 1\ndef similar(a, b):\n    return ()"
    assert verify(env, tasks["5"], forged).status is Status.INCORRECT


def test_counter_return_and_test_imports(docker_ready, mbpp):
    env, tasks = mbpp
    assert verify(env, tasks["3"], "def freq(s):\n    return {c: s.count(c) for c in s}").correct
    assert verify(env, tasks["3"], "from collections import Counter\ndef freq(s):\n    return Counter(s + 'a')").status \
        is Status.INCORRECT
    assert verify(env, tasks["4"], "def mean(xs):\n    return 1.5000001").status is Status.INCORRECT


SLOW_REFERENCE = textwrap.dedent("""
    import time
    def slow(x):
        end = time.process_time() + 3.5
        while time.process_time() < end:
            pass
        return x + 1
    """)


def test_a_slow_correct_reference_passes_with_its_calibrated_limit(docker_ready):
    """A ~3.5 s (CPU) reference, two jobs at once: the verifier's default 3 s limit fails it; the
    limit measured from the reference itself (EvalPlus: factor x reference time, floor) passes it."""
    tasks = [Task(f"slow-{i}", "p", AssertTests(("assert slow(1) == 2",)), f"```python\n{SLOW_REFERENCE}\n```")
             for i in range(2)]
    with SandboxPool(2) as pool:
        default = CodeVerifier(pool=pool).score_batch(tasks, [t.gold_completion for t in tasks])
        assert {r.status for r in default} == {Status.TIMEOUT}
        began = time.monotonic()
        calibrated = calibrate_time_limits(tasks, factor=3.0, floor_s=1.0, pool=pool)
        assert time.monotonic() - began < scaled(30)
        assert all(t.reference.time_limit_s >= 10.0 for t in calibrated)
        verifier = CodeVerifier(pool=pool)
        assert [r.status for r in verifier.score_batch(calibrated, [t.gold_completion for t in calibrated])] == \
            [Status.CORRECT] * 2
        never_ends = "```python\ndef slow(x):\n    while True:\n        pass\n```"
        assert verifier(calibrated[0], never_ends).status is Status.TIMEOUT


def test_task_time_limits_are_validated():
    for bad in (0, -1, float("nan"), "3", True, 1e9):
        with pytest.raises(ValueError, match="time_limit_s"):
            AssertTests(("assert True",), time_limit_s=bad)
    with pytest.raises(ValueError, match="factor"):
        calibrate_time_limits([], factor=0.5)
