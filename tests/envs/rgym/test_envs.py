"""reasoning-gym datasets as rlenv environments: registration, seeding, scoring, corrections, safety."""

import os
import pickle
import subprocess
import sys

import pytest
import reasoning_gym
from reasoning_gym.factory import DATASETS

import rlenv
from rlenv import Status, Task
from rlenv.envs.rgym.env import env_id

pytestmark = pytest.mark.usefixtures("entry_point_path")

ALL = sorted(DATASETS)
#: Datasets whose tasks accept several answers, so another task's answer may be right too.
SEVERAL_SOLUTIONS = {"jugs", "n_queens", "propositional_logic"}
#: Datasets whose entries carry no solution at all (reasoning-gym checks moves by simulation).
NO_GOLD = {"boxnet", "rush_hour"}


def tasks_of(env):
    source = env.unwrapped.source
    return [source[i] for i in range(source.size)]


def run_python(code, entry_point_path, tmp_path):
    paths = [p for p in (entry_point_path, str(rlenv.__file__).rsplit("/rlenv/", 1)[0]) if p]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths + [os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, *code], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)


def test_every_dataset_is_registered_through_the_entry_point():
    ids = [i for i in rlenv.list_envs() if i.startswith("reasoning_gym/")]
    assert ids == sorted(env_id(name) for name in ALL) and len(ids) >= 100
    spec = rlenv.spec("reasoning_gym/chain_sum-v0")
    assert spec.entry_point == "rlenv.envs.rgym.env:make_reasoning_gym_env"
    assert spec.kwargs == {"name": "chain_sum"} and spec.description.startswith("reasoning-gym: Generates simple")


def test_rlenv_list_shows_them_and_builtin_envs_do_not_import_reasoning_gym(entry_point_path, tmp_path):
    listed = run_python(["-m", "rlenv", "list"], entry_point_path, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "reasoning_gym/sudoku-v0" in listed.stdout and "rlenv/GSM8K-v0" in listed.stdout
    lazy = run_python(["-c", "import sys, rlenv; rlenv.make('rlenv/Arithmetic-v0'); "
                             "print('reasoning_gym' in sys.modules); "
                             "print(rlenv.make('reasoning_gym/gcd-v0', size=3).unwrapped.source.size)"],
                      entry_point_path, tmp_path)
    assert lazy.returncode == 0, lazy.stderr
    assert lazy.stdout.split() == ["False", "3"]


@pytest.mark.parametrize("name", ["basic_arithmetic", "chain_sum", "gcd", "lcm", "count_bits", "letter_counting",
                                  "spell_backward", "word_sorting", "sudoku", "countdown", "graph_color",
                                  "propositional_logic"])
def test_check_env_passes(name):
    report = rlenv.check_env(rlenv.make(env_id(name), size=20, seed=1))
    assert report == {"gymnasium": True, "seeded_reset": True, "picklable_verifier": True, "gold": True}


@pytest.mark.parametrize("name", ALL)
def test_every_registered_id_builds_with_its_defaults_and_passes_check_env(name):
    env = rlenv.make(env_id(name))
    report = rlenv.check_env(env)
    assert report["gymnasium"] and report["seeded_reset"] and report["picklable_verifier"]
    assert report.get("gold", name in NO_GOLD)


def test_gold_answers_score_correct_and_wrong_ones_incorrect_on_every_dataset():
    """Every dataset: the gold of each task is ``correct``; a non-answer and another task's answer are not."""
    no_gold, failures = set(), []
    for name in ALL:
        if name == "composite":
            continue
        env = rlenv.make(env_id(name), size=4, seed=1)
        tasks, verifier = tasks_of(env), env.unwrapped.verifier
        golds = [t for t in tasks if t.gold_completion is not None]
        if not golds:
            no_gold.add(name)
        pairs = [(t, t.gold_completion, True) for t in golds]
        pairs += [(t, "<answer>no idea</answer>", False) for t in tasks]
        if name not in SEVERAL_SOLUTIONS:
            pairs += [(t, o.gold_completion, False) for t, o in zip(tasks, tasks[1:] + tasks[:1])
                      if o.gold_completion and o.reference["answer"] != t.reference["answer"]]
        results = verifier.score_batch([p[0] for p in pairs], [p[1] for p in pairs])
        failures += [(name, completion[:60], r.status.value, dict(r.details)) for (_, completion, gold), r
                     in zip(pairs, results) if (r.status is Status.CORRECT) != gold]
    assert failures == []
    assert no_gold == NO_GOLD


def test_tasks_are_reasoning_gyms_items_and_seeded_by_rlenv():
    env = rlenv.make("reasoning_gym/chain_sum-v0", size=6, seed=7, min_terms=2, max_terms=2)
    theirs = reasoning_gym.create_dataset("chain_sum", size=6, seed=7, min_terms=2, max_terms=2)
    tasks = tasks_of(env)
    assert [t.prompt for t in tasks] == [theirs[i]["question"] for i in range(6)]
    assert [t.id for t in tasks[:2]] == ["chain_sum-7-0", "chain_sum-7-1"]
    assert tasks[0].gold_completion == f"<answer>{theirs[0]['answer']}</answer>"
    assert tasks[0].metadata == {"dataset": "chain_sum", "source_index": 0}
    prompt, info = env.reset(seed=3)
    assert env.reset(seed=3) == (prompt, info) and prompt.endswith("between <answer> and </answer> tags.")
    assert "answer" not in str(info["metadata"])
    default = [t.prompt for t in tasks_of(rlenv.make("reasoning_gym/chain_sum-v0", size=4))]
    assert default == [t.prompt for t in tasks_of(rlenv.make("reasoning_gym/chain_sum-v0", size=4, seed=0))]
    assert default != [t.prompt for t in tasks_of(rlenv.make("reasoning_gym/chain_sum-v0", size=4, seed=1))]
    assert rlenv.make("reasoning_gym/chain_sum-v0").unwrapped.source.size == 500  # the config's default size


def test_statuses_partial_credit_and_hedging():
    env = rlenv.make("reasoning_gym/word_sorting-v0", size=3)
    task, verifier = env.unwrapped.source[0], env.unwrapped.verifier
    answer = task.reference["answer"]
    assert verifier(task, f"Sorted: \\boxed{{{answer}}}").correct  # the math envs' formats work too
    assert verifier(task, "I would sort them.").status is Status.UNPARSABLE
    partial = verifier(task, f"<answer>{answer} xx</answer>")
    assert partial.status is Status.INCORRECT and 0 < partial.value < 1 and partial.details["score"] == partial.value
    strict = rlenv.make("reasoning_gym/word_sorting-v0", size=3, partial_credit=False).unwrapped.verifier
    assert strict(task, f"<answer>{answer} xx</answer>").value == 0.0
    hedged = f"<answer>nonsense</answer> or rather <answer>{answer}</answer>"
    assert verifier(task, hedged).status is Status.INCORRECT and verifier(task, hedged).details["scores"][1] == 1.0
    last = rlenv.make("reasoning_gym/word_sorting-v0", size=3, hedging="last").unwrapped.verifier
    assert last(task, hedged).correct
    assert verifier.equivalent(task, f"<answer>{answer}</answer>", f"so \\boxed{{ {answer} }}")
    assert not verifier.equivalent(task, f"<answer>{answer}</answer>", "no answer")
    clone = pickle.loads(pickle.dumps(verifier))
    assert clone(task, task.gold_completion).correct and clone.config_json == verifier.config_json
    assert rlenv.scoring.verify_safely(verifier, Task("t", "p", reference="x"), "<answer>1</answer>").status is Status.ERROR


def test_a_scorer_that_raises_on_the_answer_makes_it_incorrect():
    env = rlenv.make("reasoning_gym/prime_factorization-v0", size=2)
    result = env.unwrapped.verifier(env.unwrapped.source[0], "<answer>x</answer>")
    assert result.status is Status.INCORRECT and result.details["error"].startswith("ValueError: invalid literal")


def test_corrected_scorers():
    halting = rlenv.make("reasoning_gym/game_of_life_halting-v0", size=4)
    for task in tasks_of(halting):
        wrong = {"True": "False", "False": "True"}[task.reference["answer"]]
        assert halting.unwrapped.verifier(task, f"<answer>{wrong}</answer>").status is Status.INCORRECT
        assert halting.unwrapped.verifier(task, task.gold_completion).correct
    puzzle = rlenv.make("reasoning_gym/puzzle24-v0", size=2)
    task = puzzle.unwrapped.source[0]
    assert sorted(task.reference["metadata"]["numbers"]) != [1, 1, 4, 6]
    assert puzzle.unwrapped.verifier(task, "<answer>6*4*1*1</answer>").value == 0.01  # 24, not with its numbers
    assert puzzle.unwrapped.verifier(task, task.gold_completion).correct


def test_code_like_answers_are_refused_and_slow_scorers_time_out(tmp_path):
    env = rlenv.make("reasoning_gym/puzzle24-v0", size=2, timeout=2.0)
    task, verifier = env.unwrapped.source[0], env.unwrapped.verifier
    marker = tmp_path / "ran"
    for answer in (f"__import__('os').system('touch {marker}')", f"open('{marker}', 'w')", "lambda: 24"):
        result = verifier(task, f"<answer>{answer}</answer>")
        assert result.status is Status.INCORRECT and "looks like Python code" in result.details["reason"]
    assert not marker.exists()
    slow = verifier(task, "<answer>9**9**9</answer>")  # sympy computes a 370-million-digit number
    assert slow.status is Status.TIMEOUT and "2 s deadline" in slow.details["reason"]
    assert verifier(task, task.gold_completion).correct  # the pool replaced the killed worker


def test_configs_are_checked_and_composite_mixes_datasets():
    with pytest.raises(ValueError, match="unknown reasoning-gym dataset 'chain_summ'"):
        rlenv.make("reasoning_gym/chain_sum-v0", name="chain_summ")
    with pytest.raises(ValueError, match=r"unknown config field\(s\) \['min_term'\]; chain_sum takes .*'min_terms'"):
        rlenv.make("reasoning_gym/chain_sum-v0", min_term=2)
    with pytest.raises(ValueError, match="reasoning-gym refused the config"):
        rlenv.make("reasoning_gym/chain_sum-v0", min_terms=0)
    with pytest.raises(ValueError, match="reasoning-gym refused the config"):
        rlenv.make("reasoning_gym/composite-v0", datasets=[])
    mixed = rlenv.make("reasoning_gym/composite-v0", size=12, datasets=[
        {"name": "gcd", "weight": 1, "config": {}}, {"name": "game_of_life_halting", "weight": 1, "config": {}}])
    assert rlenv.check_env(mixed)["gold"]
    tasks = tasks_of(mixed)
    assert {t.metadata["dataset"] for t in tasks} == {"gcd", "game_of_life_halting"}
    halting = next(t for t in tasks if t.metadata["dataset"] == "game_of_life_halting")
    wrong = {"True": "False", "False": "True"}[halting.reference["answer"]]
    assert mixed.unwrapped.verifier(halting, f"<answer>{wrong}</answer>").status is Status.INCORRECT
