"""rlenv/HumanEval-v0 through the real sandbox: the acceptance numbers and the episode API."""

import pytest

import rlenv
from rlenv import Status

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def env(docker_ready):
    return rlenv.make("rlenv/HumanEval-v0")


@pytest.fixture(scope="module")
def tasks(env):
    source = env.unwrapped.source
    return [source[i] for i in range(source.size)]


def test_all_164_canonical_solutions_pass(env, tasks):
    assert len(tasks) == 164
    results = env.unwrapped.verifier.score_batch(tasks, [t.gold_completion for t in tasks])
    failures = {t.id: (r.status.value, r.details.get("error")) for t, r in zip(tasks, results, strict=True) if not r.correct}
    assert failures == {}
    assert all(r.value == 1.0 and r.details["passed"] == r.details["total"] > 0 for r in results)


def test_prompt_plus_pass_passes_none(env, tasks):
    results = env.unwrapped.verifier.score_batch(tasks, ["    pass"] * len(tasks))
    assert [t.id for t, r in zip(tasks, results, strict=True) if r.correct or r.value > 0] == []
    assert {r.status for r in results} == {Status.INCORRECT}


def test_a_chat_style_full_function_passes(env):
    prompt, info = env.reset(options={"task_id": "HumanEval/2"})
    completion = ("Here is the function:\n\n```python\ndef truncate_number(number: float) -> float:\n"
                  "    return number - int(number)\n```\n")
    _, reward, terminated, truncated, info = env.step(completion)
    assert reward == 1.0 and terminated and not truncated and info["status"] == "correct"
    details = info["reward"].details
    assert details["total"] == 3 and [t["status"] for t in details["tests"]] == ["passed"] * 3


def test_per_test_results_and_pass_fraction(docker_ready):
    env = rlenv.make("rlenv/HumanEval-v0")
    env.unwrapped.verifier.reward = "fraction"
    env.reset(options={"task_id": "HumanEval/0"})  # has_close_elements: 7 asserts
    wrong_when_close = "    return False\n"  # right only on the cases that have no close pair
    _, reward, _, _, info = env.step(wrong_when_close)
    details = info["reward"].details
    statuses = [t["status"] for t in details["tests"]]
    assert len(statuses) == 7 and 0 < statuses.count("passed") < 7
    assert reward == pytest.approx(statuses.count("passed") / 7) and info["status"] == "incorrect"
    assert info["components"]["pass_fraction"] == pytest.approx(reward) and info["components"]["all_passed"] == 0.0


def test_entry_point_called_by_name_in_the_tests(env, tasks):
    task = next(t for t in tasks if t.id == "HumanEval/33")  # its check() calls sort_third(...) directly
    assert env.unwrapped.verify(task, task.gold_completion).correct
    assert not env.unwrapped.verify(task, "    return l\n").correct


def test_timeouts_and_missing_code_have_their_own_status(env, tasks):
    task = tasks[0]
    looping = env.unwrapped.verify(task, "    while True:\n        pass\n")
    assert looping.status is Status.TIMEOUT and looping.value == 0.0
    empty = env.unwrapped.verify(task, "")
    assert empty.status is Status.UNPARSABLE and empty.details["reason"] == "no code in the completion"


def test_vector_env_scores_a_group_concurrently(docker_ready):
    vec = rlenv.make_vec("rlenv/HumanEval-v0", num_tasks=3, group_size=2)
    vec.reset(seed=0)
    completions = []
    for task in vec.tasks[::2]:
        completions += [task.gold_completion, "    return None\n"]
    _, rewards, terminated, _, infos = vec.step(completions)
    assert list(rewards) == [1.0, 0.0] * 3 and all(terminated)


def test_check_env_passes(env):
    assert rlenv.check_env(env) == {"gymnasium": True, "seeded_reset": True, "picklable_verifier": True, "gold": True}
