"""The math environments: GSM8K gold scoring, MATH-format data, the arithmetic generator, check_env."""

import ast
import json
import logging
import operator
import re
import subprocess
import sys
from fractions import Fraction

import gymnasium
import pytest
from math_verify import parse, verify

import rlenv
from rlenv import Status
from rlenv.envs.math.arithmetic import LEVELS, ArithmeticConfig, make_arithmetic_env
from rlenv.envs.math.gsm8k import make_gsm8k_env
from tests.waiting import PATIENCE_S

logging.getLogger("math_verify").setLevel(logging.ERROR)


@pytest.mark.parametrize("env_id", ["rlenv/GSM8K-v0", "rlenv/MATH-v0", "rlenv/Arithmetic-v0"])
def test_check_env_passes(env_id, gsm8k_dir, hub_data):
    data = {"rlenv/GSM8K-v0": gsm8k_dir / "test.jsonl", "rlenv/MATH-v0": hub_data / "math500.jsonl"}.get(env_id)
    env = rlenv.make(env_id) if data is None else rlenv.make(env_id, data_files=str(data))
    report = rlenv.check_env(env)
    assert report == {"gymnasium": True, "seeded_reset": True, "picklable_verifier": True, "gold": True}


def test_gsm8k_gold_solutions_are_all_correct_and_mismatches_no_more_than_raw_math_verify(gsm8k_dir):
    env = rlenv.make("rlenv/GSM8K-v0", data_files=str(gsm8k_dir / "test.jsonl"))
    tasks = [env.unwrapped.source[i] for i in range(env.unwrapped.source.size)]
    assert len(tasks) == 1319
    gold = rlenv.score(env, [{"index": i, "completion": t.gold_completion} for i, t in enumerate(tasks)])
    assert [r.status for r in gold].count(Status.CORRECT) == 1319
    nxt = tasks[1:] + tasks[:1]  # each problem's answer against the next problem's solution
    ours = rlenv.score(env, [{"index": i, "completion": n.gold_completion} for i, n in enumerate(nxt)])
    raw = [verify(parse(t.reference, parsing_timeout=None), parse(n.gold_completion, parsing_timeout=None),
                  timeout_seconds=None) for t, n in zip(tasks, nxt)]
    ours_correct = [r.correct for r in ours]
    assert sum(ours_correct) <= sum(raw)
    # every accepted mismatch really has the same final number
    for t, n, ok in zip(tasks, nxt, ours_correct):
        if ok:
            assert float(t.reference.replace(",", "")) == float(n.reference.replace(",", ""))


def test_gsm8k_prompt_and_reference(gsm8k_dir):
    env = rlenv.make("rlenv/GSM8K-v0", data_files=str(gsm8k_dir / "test.jsonl"))
    prompt, info = env.reset(options={"index": 0})
    assert prompt.startswith("Janet") and prompt.endswith('output the final answer after "####".')
    assert env.unwrapped.task.reference == "18" and "reference" not in json.dumps(info)


def test_gsm8k_reads_data_files(tmp_path):
    rows = [{"question": "What is 2+2?", "answer": "2+2=4\n#### 4"}, {"question": "1,000 + 1?", "answer": "#### 1,001"}]
    path = tmp_path / "mini.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = make_gsm8k_env(data_files=str(path))
    assert rlenv.check_env(env)["gold"]
    results = rlenv.score(env, [{"index": 1, "completion": "The answer is 1001."}, {"index": 0, "completion": "#### 5"}])
    assert [r.status for r in results] == [Status.CORRECT, Status.INCORRECT]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "q", "answer": "no marker"}) + "\n")
    with pytest.raises(ValueError, match="row 0: the solution has no '#### <answer>' line"):
        make_gsm8k_env(data_files=str(bad)).reset(seed=0)


def test_math_sample_gold_solutions_are_correct(hub_data):
    env = rlenv.make("rlenv/MATH-v0", data_files=str(hub_data / "math500.jsonl"))
    source = env.unwrapped.source
    tasks = [source[i] for i in range(source.size)]
    results = env.unwrapped.verifier.score_batch(tasks, [t.gold_completion for t in tasks])
    assert [r.status for r in results] == [Status.CORRECT] * len(tasks)
    prompt, info = env.reset(options={"task_id": "sample/1"})
    assert prompt.endswith("put your final answer within \\boxed{}.") and info["metadata"]["subject"] == "Prealgebra"


def test_math_reference_is_the_answer_column_or_the_last_box(tmp_path):
    rows = [
        {"problem": "p0", "solution": r"So $\boxed{2}$, i.e. $\boxed{\frac{1}{2}}$ of it."},
        {"problem": "p1", "solution": r"We get $\boxed{7}$."},
    ]
    path = tmp_path / "math.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = rlenv.make("rlenv/MATH-v0", data_files=str(path))
    assert env.unwrapped.source[0].reference == r"\frac{1}{2}"
    with_answer = tmp_path / "math_answers.jsonl"
    with_answer.write_text(json.dumps({"problem": "p", "solution": r"$\boxed{3}$", "answer": "4"}) + "\n")
    assert rlenv.make("rlenv/MATH-v0", data_files=str(with_answer)).unwrapped.source[0].reference == "4"
    neither = tmp_path / "math_bad.jsonl"
    neither.write_text(json.dumps({"problem": "p", "solution": "no box"}) + "\n")
    with pytest.raises(ValueError, match=r"MATH row 0: no answer column and no \\boxed"):
        rlenv.make("rlenv/MATH-v0", data_files=str(neither)).reset(seed=0)


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def exact_value(expression):
    """Evaluate a generated expression exactly (fractions), independently of the generator."""
    def walk(node):
        if isinstance(node, ast.BinOp):
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        assert isinstance(node, ast.Constant) and isinstance(node.value, int), ast.dump(node)
        return Fraction(node.value)

    return walk(ast.parse(expression, mode="eval").body)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_arithmetic_levels_are_exact_and_match_their_knobs(level):
    config = LEVELS[level]
    env = make_arithmetic_env(level=level)
    for index in range(150):
        task = env.unwrapped.source[index]
        expression = task.prompt.removeprefix("Compute: ")
        value = exact_value(expression)
        assert value.denominator == 1 and str(value.numerator) == task.reference, task.prompt
        assert task.gold_completion == f"#### {task.reference}"
        assert len(re.findall(r"(?<=[\d)])[-+*/]", expression)) == config.steps
        assert set(re.findall(r"[-+*/]", expression)) <= set(config.operations)
        assert all(config.min_digits <= len(n) <= config.max_digits for n in re.findall(r"\d+", expression))
        assert config.parentheses or "(" not in expression
        assert config.negative or value >= 0


def test_arithmetic_level_one_is_tiny():
    env = make_arithmetic_env(level=1)
    prompts = [env.unwrapped.source[i].prompt for i in range(50)]
    assert all(re.fullmatch(r"Compute: \d\+\d", p) for p in prompts)


def test_arithmetic_is_deterministic_and_seeded():
    first = [make_arithmetic_env(level=3, seed=7).unwrapped.source[i] for i in range(20)]
    again = [make_arithmetic_env(level=3, seed=7).unwrapped.source[i] for i in range(20)]
    other = [make_arithmetic_env(level=3, seed=8).unwrapped.source[i] for i in range(20)]
    assert first == again and [t.prompt for t in first] != [t.prompt for t in other]
    env = gymnasium.make("rlenv/Arithmetic-v0", level=2)
    assert env.reset(seed=3)[0] == env.reset(seed=3)[0]
    assert env.unwrapped.source.size is None  # infinite


def test_arithmetic_gold_completions_always_score_correct():
    verifier = make_arithmetic_env().unwrapped.verifier
    tasks = [make_arithmetic_env(level=lv, seed=1).unwrapped.source[i] for lv in LEVELS for i in range(60)]
    tasks += [make_arithmetic_env(level=3, style="word").unwrapped.source[i] for i in range(30)]
    results = verifier.score_batch(tasks, [t.gold_completion for t in tasks])
    assert all(r.correct for r in results), [(t.prompt, r.details) for t, r in zip(tasks, results) if not r.correct]
    wrong = verifier.score_batch(tasks[:20], [f"#### {int(t.reference) + 1}" for t in tasks[:20]])
    assert not any(r.correct for r in wrong)


def test_arithmetic_knobs_override_the_level_and_are_validated():
    env = make_arithmetic_env(level=1, steps=3, operations="*", max_digits=2, negative=True)
    task = env.unwrapped.source[0]
    assert task.prompt.count("*") == 3 and "+" not in task.prompt
    word = make_arithmetic_env(level=4, style="word").unwrapped.source[0]
    assert word.prompt.startswith("Start with ") and word.prompt.endswith("What is the result?")
    with pytest.raises(ValueError, match="level must be one of"):
        make_arithmetic_env(level=9)
    with pytest.raises(ValueError, match="operations must be distinct characters"):
        ArithmeticConfig(operations="+^")


def test_vector_env_scores_groups_through_the_worker_pool():
    vec = rlenv.make_vec("rlenv/Arithmetic-v0", num_tasks=4, group_size=3, level=2)
    prompts, infos = vec.reset(seed=0)
    golds = [t.gold_completion for t in vec.tasks]
    completions = [g if n % 3 else "#### -1" for n, g in enumerate(golds)]
    _, rewards, terminated, _, infos = vec.step(completions)
    assert rewards.tolist() == [0.0, 1.0, 1.0] * 4 and terminated.all()
    assert list(infos["status"]) == ["incorrect", "correct", "correct"] * 4


def test_score_cli_on_arithmetic(tmp_path):
    samples = tmp_path / "samples.jsonl"
    env = make_arithmetic_env(level=1)
    rows = [{"task_id": env.unwrapped.source[i].id, "completion": f"#### {env.unwrapped.source[i].reference}"}
            for i in range(3)] + [{"index": 5, "completion": "I give up"}]
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "results.jsonl"
    done = subprocess.run([sys.executable, "-m", "rlenv", "score", "rlenv/Arithmetic-v0", "--samples", str(samples),
                           "--out", str(out)], capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == {"correct": 3, "unparsable": 1}
