"""rlenv/MBPP-v0, MBPP-Sanitized-v0, CodeContests-v0 and CodeIO-v0 through the real sandbox, and the verifier's contract.

The catalog ids' default data comes from the Hub through ``datasets.load_dataset``, intercepted
here (``fake_hub``): local files in the Hub datasets' exact schemas (``tests/data/hub``).
"""

import json
import pickle

import pytest

import rlenv
from rlenv import Status, Task
from rlenv.envs.code import CodeVerifier, IOTests
from rlenv.sandbox import ContainerSpec, SandboxPool

pytestmark = pytest.mark.docker


def all_tasks(env):
    source = env.unwrapped.source
    return [source[i] for i in range(source.size)]


#: env id -> (Hub id, config, local file in its schema)
CATALOG = {
    "rlenv/MBPP-v0": ("google-research-datasets/mbpp", "full", "mbpp_full.jsonl"),
    "rlenv/MBPP-Sanitized-v0": ("google-research-datasets/mbpp", "sanitized", "mbpp_sanitized.jsonl"),
    "rlenv/CodeContests-v0": ("deepmind/code_contests", None, "code_contests.jsonl"),
}


def catalog_env(fake_hub, hub_data, env_id, **kwargs):
    hub_id, config, file = CATALOG[env_id]
    fake_hub.files[(hub_id, config)] = hub_data / file
    return rlenv.make(env_id, **kwargs)


@pytest.mark.parametrize("env_id", [*CATALOG, "rlenv/CodeIO-v0"])
def test_gold_solutions_pass_and_wrong_ones_fail(docker_ready, fake_hub, hub_data, env_id):
    env = catalog_env(fake_hub, hub_data, env_id) if env_id in CATALOG else rlenv.make(env_id)
    tasks = [t for t in all_tasks(env) if t.gold_completion is not None]
    verifier = env.unwrapped.verifier
    gold = verifier.score_batch(tasks, [t.gold_completion for t in tasks])
    assert [r.status for r in gold] == [Status.CORRECT] * len(tasks)
    wrong = verifier.score_batch(tasks, ["```python\nprint(0)\n```"] * len(tasks))
    assert all(r.status is Status.INCORRECT and r.value == 0.0 for r in wrong)
    assert rlenv.check_env(env)["gold"]


def test_mbpp_from_a_data_file_with_challenge_tests(docker_ready, tmp_path):
    row = {"task_id": 11, "text": "Write a function to return the absolute difference of two numbers.",
           "code": "def absdiff(a, b):\n    return abs(a - b)", "test_list": ["assert absdiff(1, 4) == 3"],
           "test_setup_code": "", "challenge_test_list": ["assert absdiff(-2, 2) == 4"]}
    path = tmp_path / "mbpp.jsonl"
    path.write_text(json.dumps(row) + "\n")
    plain, strict = (rlenv.make("rlenv/MBPP-v0", data_files=str(path), challenge_tests=c) for c in (False, True))
    only_visible = "```python\ndef absdiff(a, b):\n    return 3\n```"
    assert plain.unwrapped.verify(plain.unwrapped.source[0], only_visible).correct
    hidden = strict.unwrapped.verify(strict.unwrapped.source[0], only_visible)
    assert hidden.status is Status.INCORRECT and [t["status"] for t in hidden.details["tests"]] == ["passed", "failed"]


def test_catalog_defaults_load_their_hub_dataset_and_map_its_schema(fake_hub, hub_data):
    full = catalog_env(fake_hub, hub_data, "rlenv/MBPP-v0").unwrapped.source[4]
    sanitized = catalog_env(fake_hub, hub_data, "rlenv/MBPP-Sanitized-v0", split="validation").unwrapped.source[4]
    contests = catalog_env(fake_hub, hub_data, "rlenv/CodeContests-v0").unwrapped.source
    assert fake_hub.calls == [("google-research-datasets/mbpp", "full", "test"),
                              ("google-research-datasets/mbpp", "sanitized", "validation"),
                              ("deepmind/code_contests", None, "test")]
    assert full.id == sanitized.id == "9005" and full.prompt == sanitized.prompt
    assert full.prompt.startswith("You are an expert Python programmer, and here is your task: Write a function to "
                                  "compute the area of a circle") and "assert circle_area(0) == 0" in full.prompt
    assert full.reference.setup == "import math" and sanitized.reference.test_imports == "import math"
    assert full.gold_completion == sanitized.gold_completion and "def circle_area" in full.gold_completion
    first = contests[0]
    assert first.id == "9000_A. Sum of Two" and first.prompt.startswith("Read two integers a and b")
    assert first.reference.cases == (("1 2\n", "3\n"), ("-5 5\n", "0\n"),
                                     ("1000000000000000000 1\n", "1000000000000000001\n"))
    assert first.gold_completion == "```python\na, b = map(int, input().split())\nprint(a + b)\n```"  # first Python 3
    assert first.metadata == {"difficulty": 7, "source": 2, "cf_rating": 800, "cf_tags": ["implementation", "math"],
                              "num_tests": 3, "time_limit_s": 1.0}
    assert contests[1].metadata["time_limit_s"] == 2.5
    assert contests[2].gold_completion is None  # only a Python 2 solution
    generated = catalog_env(fake_hub, hub_data, "rlenv/CodeContests-v0", generated_tests=True).unwrapped.source[0]
    assert generated.reference.cases[-1] == ("7 8\n", "15\n")
    with pytest.raises(ValueError, match="config must be one of"):
        rlenv.make("rlenv/MBPP-v0", config="plus")


def test_mbpp_objects_built_by_the_tests_live_in_the_candidate(docker_ready, hub_data):
    env = rlenv.make("rlenv/MBPP-v0", data_files=str(hub_data / "mbpp_full.jsonl"))
    task = next(t for t in all_tasks(env) if t.id == "9006")  # tests construct Point(...) objects
    assert env.unwrapped.verify(task, task.gold_completion).correct
    nearest = task.gold_completion.replace("max(points", "min(points")
    assert env.unwrapped.verify(task, nearest).status is Status.INCORRECT


@pytest.mark.parametrize("compare,output,correct", [
    ("exact", "3\n", True), ("exact", "3 \n\n", True), ("exact", " 3\n", False),
    ("tokens", "3", True), ("tokens", "3 4", False),
    ("numeric", "3.0000001", False), ("numeric", "3", True), ("numeric", "3.1", False),  # "3" is exact
])
def test_codeio_comparison_modes(docker_ready, compare, output, correct):
    task = Task("t", "add", IOTests((("1 2\n", "3\n"),), compare=compare))
    completion = f"```python\ninput()\nprint({output!r}, end='')\n```"
    assert CodeVerifier()(task, completion).correct is correct


def test_printing_a_prefix_of_the_expected_lines_fails(docker_ready):
    env = rlenv.make("rlenv/CodeIO-v0")
    task = next(t for t in all_tasks(env) if t.id == "io-fib")
    assert env.unwrapped.verify(task, "```python\nprint(1)\n```").status is Status.INCORRECT


def test_fraction_reward_and_per_test_time_limit(docker_ready):
    task = Task("t", "p", IOTests((("1\n", "1"), ("2\n", "2"), ("3\n", "3"))))
    slow_on_three = "```python\nimport time\nn = int(input())\nif n == 3:\n    time.sleep(10)\nprint(n)\n```"
    result = CodeVerifier(reward="fraction", test_timeout_s=1.0)(task, slow_on_three)
    assert result.status is Status.TIMEOUT and result.value == pytest.approx(2 / 3)
    assert [t["status"] for t in result.details["tests"]] == ["passed", "passed", "timeout"]
    assert result.details["tests"][2]["time_s"] < 3


def test_verifier_pickles_without_its_pool_and_reports_sandbox_errors(docker_ready):
    broken = SandboxPool(1, ContainerSpec(image="rlenv-sandbox:missing-for-test"))
    verifier = CodeVerifier(pool=broken, test_timeout_s=2.0)
    task = Task("t", "p", IOTests((("", "1"),)))
    failure = rlenv.scoring.verify_safely(verifier, task, "print(1)")
    assert failure.status is Status.ERROR and "rlenv sandbox build" in failure.details["error"]
    clone = pickle.loads(pickle.dumps(verifier))
    assert clone.pool is None and clone.test_timeout_s == 2.0 and clone(task, "print(1)").correct
    batch = verifier.score_batch([task, task], ["print(1)", ""])
    assert [r.status for r in batch] == [Status.ERROR, Status.UNPARSABLE]


def test_bad_references_and_settings_are_refused(docker_ready):
    with pytest.raises(ValueError, match="reward must be one of"):
        CodeVerifier(reward="best")
    with pytest.raises(TypeError, match="needs task.reference"):
        CodeVerifier()(Task("t", "p", "42"), "print(42)")
    assert rlenv.scoring.verify_safely(CodeVerifier(), Task("t", "p", "42"), "print(42)").status is Status.ERROR


def test_registered_ids(docker_ready):
    assert {"rlenv/HumanEval-v0", "rlenv/MBPP-v0", "rlenv/CodeIO-v0"} <= set(rlenv.list_envs())
    import gymnasium

    env = gymnasium.make("rlenv/CodeIO-v0")
    prompt, info = env.reset(seed=1)
    assert "standard input" in prompt and info["metadata"]["num_tests"] >= 2
