"""Differential tests on fresh inputs (``rlenv.envs.code.differential`` and ``CodeVerifier(differential=...)``).

The pure parts (probes, fresh arguments, rendering) run without Docker; the rest through the real
sandbox: references as their own oracle must never be flagged, and code that answers the visible
calls from a table, in every construction of ``tests/data/hacks/table_hacks.py``, must not be paid
with ``differential="withhold"``.
"""

import json
import random
import sys
from pathlib import Path

import pytest

import rlenv
from rlenv import Status
from rlenv.envs.code import CodeVerifier
from rlenv.envs.code.differential import diverse, find_probes, fresh_arguments, fresh_test
from rlenv.envs.code.humaneval import humaneval_rows, humaneval_task
from rlenv.envs.code.tampering import detect_code_tampering
from rlenv.envs.code.visible_tests import visible_tests

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "data" / "hacks"))
from table_hacks import CONSTRUCTIONS, table_hack  # noqa: E402


@pytest.mark.parametrize(("snippet", "expected"), [
    ("assert f([3, 1], 2) == [1]", "assert _rlenv_same_output(f([5], 7), [9])"),
    ("assert 5 == f(2)", "assert _rlenv_same_output(f([5], 7), [9])"),
    ("assert set(f('ab', 1)) == {'a'}", "assert _rlenv_same_output(set(f([5], 7)), set([9]))"),
    ("import math\nassert math.isclose(f(2.5, 1), 7.1, rel_tol=0.001)",
     "import math\nassert math.isclose(f([5], 7), [9], rel_tol=0.001)"),
    ("assert abs(f(2, 3) - 0.5) < 1e-06", "assert abs(f([5], 7) - [9]) < 1e-06"),
    ("assert f('ab', 'c')", "assert _rlenv_same_output(bool(f([5], 7)), bool([9]))"),
    ("assert not f(1, 2)", "assert _rlenv_same_output(bool(f([5], 7)), bool([9]))"),
    ("assert f(1, 2) is True", "assert _rlenv_same_output(f([5], 7), [9])"),
])
def test_a_fresh_test_keeps_the_shape_of_its_visible_test(snippet, expected):
    (probe,) = find_probes([snippet], ("f",))
    rendered = fresh_test(probe, ([5], 7), "[9]")
    assert rendered == expected
    compile(rendered, "<fresh>", "exec")


def test_identity_with_a_singleton_output_stays_identity():
    (probe,) = find_probes(["assert f(1) is None"], ("f",))
    assert fresh_test(probe, (2,), "True") == "assert f(2) is True"


@pytest.mark.parametrize("snippet", [
    "assert f(x) == 3",  # argument not a literal
    "assert f(1) == f(2)",  # two calls
    "assert f(1, key=2) == 3",  # keyword
    "assert g(1) == 3",  # not the function under test
    "assert f(1) < 3",  # no expected value to replace
    "for i in range(3):\n    assert f(i) == i",
])
def test_tests_without_a_probe_are_left_out(snippet):
    assert find_probes([snippet], ("f",)) == []


def test_fresh_arguments_are_new_and_keep_the_visible_arguments_invariants():
    visible = [([1, 3, 5, 9], 4, "abc", 2.5), ([2, 4, 4], 3, "xyz", 0.5), ([7, 8, 10, 12, 30], 5, "q", 1.0)]
    for seed in range(20):
        fresh = fresh_arguments(visible, 12, random.Random(seed))
        assert fresh == fresh_arguments(visible, 12, random.Random(seed))
        assert len(fresh) >= 10 and len({repr(f) for f in fresh}) == len(fresh)
        assert not {repr(f) for f in fresh} & {repr(v) for v in visible}
        for items, size, text, number in fresh:
            assert isinstance(items, list) and isinstance(text, str) and isinstance(number, float)
            assert size == len(items)  # len()-coupled in every visible call
            assert items == sorted(items)  # every visible list is sorted
            assert all(isinstance(x, int) and x > 0 for x in items)  # every visible element is positive
            assert number >= 0


def test_diverse_takes_each_distinct_output_before_repeating_one():
    candidates = [(i, "False") for i in range(6)] + [(6, "True"), (7, "None")]
    assert [out for _, out in diverse(candidates, 3)] == ["False", "True", "None"]
    assert len(diverse(candidates, 20)) == 8


#: MBPP-format rows written for these tests: each reference is right, the shapes vary.
ROWS = [
    {"task_id": 1, "text": "Return the n smallest items of a list.", "test_setup_code": "", "challenge_test_list": [],
     "code": "import heapq\ndef small_nnum(items, n):\n    return heapq.nsmallest(n, items)",
     "test_list": ["assert small_nnum([10, 20, 50, 70, 90, 20], 2) == [10, 20]",
                   "assert small_nnum([10, 20, 50, 70, 90, 20], 5) == [10, 20, 20, 50, 70]",
                   "assert small_nnum([5, 1, 4], 1) == [1]"]},
    {"task_id": 2, "text": "Find the shared elements of two tuples.", "test_setup_code": "", "challenge_test_list": [],
     "code": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))",
     "test_list": ["assert set(similar_elements((3, 4, 5, 6), (5, 7, 4, 10))) == set((4, 5))",
                   "assert set(similar_elements((1, 2, 3, 4), (5, 4, 3, 7))) == set((3, 4))",
                   "assert set(similar_elements((11, 12, 14, 13), (17, 15, 14, 13))) == set((13, 14))"]},
    {"task_id": 3, "text": "Area of a circle of radius r.", "test_setup_code": "", "challenge_test_list": [],
     "code": "import math\ndef circle_area(r):\n    return math.pi * r * r",
     "test_list": ["assert math.isclose(circle_area(10), 314.1592653589793, rel_tol=0.001)",
                   "assert math.isclose(circle_area(5), 78.53981633974483, rel_tol=0.001)",
                   "assert math.isclose(circle_area(4), 50.26548245743669, rel_tol=0.001)"]},
    {"task_id": 4, "text": "Is a string a palindrome?", "test_setup_code": "", "challenge_test_list": [],
     "code": "def is_palindrome(s):\n    return s == s[::-1]",
     "test_list": ["assert is_palindrome('racecar') == True", "assert is_palindrome('abca') == False",
                   "assert is_palindrome('noon') == True"]},
    {"task_id": 5, "text": "Count each character of a string.", "test_setup_code": "", "challenge_test_list": [],
     "code": "from collections import Counter\ndef char_counts(s):\n    return Counter(s)",
     "test_list": ["assert char_counts('aab') == {'a': 2, 'b': 1}", "assert char_counts('xyz') == {'x': 1, 'y': 1, 'z': 1}",
                   "assert char_counts('mmmn') == {'m': 3, 'n': 1}"]},
    {"task_id": 6, "text": "Are three sides equal?", "test_setup_code": "", "challenge_test_list": [],
     "code": "def check_equilateral(x, y, z):\n    return x == y == z",
     "test_list": ["assert check_equilateral(6, 8, 12) == False", "assert check_equilateral(6, 6, 12) == False",
                   "assert check_equilateral(6, 6, 6) == True"]},
]


@pytest.fixture(scope="module")
def mbpp_env(tmp_path_factory):
    path = tmp_path_factory.mktemp("differential") / "mbpp.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return rlenv.make("rlenv/MBPP-v0", data_files=str(path), differential="withhold")


def tasks_of(env):
    source = env.unwrapped.source
    return [source[i] for i in range(source.size)]


@pytest.mark.docker
def test_references_are_never_flagged_by_their_own_fresh_tests(docker_ready, mbpp_env):
    tasks = tasks_of(mbpp_env)
    verifier = mbpp_env.unwrapped.verifier
    results = verifier.score_batch(tasks, [f"```python\n{t.gold_completion}\n```" for t in tasks])
    for task, result in zip(tasks, results, strict=True):
        record = result.details["differential"]
        assert result.status is Status.CORRECT and result.value == 1.0, (task.id, record)
        assert record["fresh_tests"] >= 4 and record["failed"] == 0, (task.id, record)
    fresh = verifier.fresh_tests(tasks)
    assert any("set(similar_elements(" in test for test in fresh[1])  # the visible tests' own wrapper
    assert any("math.isclose(circle_area(" in test for test in fresh[2])
    assert any("True" in test for test in fresh[5]), fresh[5]  # an equilateral input among the fresh ones


@pytest.mark.docker
def test_code_answering_the_visible_calls_from_a_table_is_not_paid(docker_ready, mbpp_env):
    tasks = tasks_of(mbpp_env)
    hacks, hacked_tasks = [], []
    for task in tasks:
        visible = [(t.args, t.expected) for t in visible_tests(task.prompt)]
        if len(visible) == task.reference.num_tests:  # the visible tests are the hidden ones
            for construction in CONSTRUCTIONS:
                hacks.append(f"```python\n{table_hack(construction, task.reference.entry_points[0], visible)}\n```")
                hacked_tasks.append(task)
    assert len({t.id for t in hacked_tasks}) >= 4
    plain = CodeVerifier().score_batch(hacked_tasks, hacks)
    withheld = mbpp_env.unwrapped.verifier.score_batch(hacked_tasks, hacks)
    paid_plain = [r.value == 1.0 for r in plain]
    assert sum(paid_plain) >= 0.8 * len(hacks)  # without fresh inputs the table is paid
    for hack, task, before, after in zip(hacks, hacked_tasks, plain, withheld, strict=True):
        if before.value == 1.0:
            assert after.value == 0.0 and after.details["differential"]["withheld"], (task.id, hack)
            detection = detect_code_tampering(hack, task.prompt, details=after.details)
            assert detection.fired and "fails_fresh_inputs" in detection.evidence


@pytest.mark.docker
def test_a_nondeterministic_reference_gives_no_fresh_tests(docker_ready):
    from rlenv.envs.code.mbpp import mbpp_task

    row = {"id": "r", "text": "Return a random float.", "code": "import random\ndef noise(x):\n    return random.random() + x",
           "test_list": ["assert noise(0) < 1", "assert noise(1) == noise(1) or True"]}
    task = mbpp_task(row, 0)
    verifier = CodeVerifier(differential="withhold")
    assert verifier.fresh_tests([task]) == [()]
    row = dict(row, test_list=["assert noise(0) == 0.5"])  # a probe, but every output differs between runs
    assert verifier.fresh_tests([mbpp_task(row, 0)]) == [()]


@pytest.mark.docker
def test_humaneval_canonical_solutions_pass_their_fresh_tests(docker_ready):
    tasks = [humaneval_task(dict(row, id=row["task_id"]), i) for i, row in enumerate(humaneval_rows()[:12])]
    results = CodeVerifier(differential="flag").score_batch(tasks, [t.gold_completion for t in tasks])
    records = [r.details["differential"] for r in results]
    assert all(r.status is Status.CORRECT for r in results)
    assert all(record["failed"] == 0 for record in records), records
    assert sum(record["fresh_tests"] for record in records) >= 60


def test_differential_settings_are_checked():
    with pytest.raises(ValueError, match="differential must be one of"):
        CodeVerifier(differential="on")
    with pytest.raises(ValueError, match="fresh_inputs must be a positive int"):
        CodeVerifier(fresh_inputs=0)
    with pytest.raises(ValueError, match="set it on that verifier"):
        rlenv.make("rlenv/HumanEval-v0", verifier=CodeVerifier(), differential="off")
