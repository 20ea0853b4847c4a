"""Composing format verifiers with a math correctness verifier: weighted sum and gate, components visible."""

from __future__ import annotations

import pickle

import pytest

import rlenv
from rlenv import RewardResult, Status, StepReward, Task
from rlenv.composition import Gate, WeightedSum
from rlenv.envs.format import AnswerContent, ThinkAnswerFormat, format_reward
from rlenv.envs.math import MathVerifier
from rlenv.exact_match import ExactMatchVerifier


class Counting:
    """Counts the calls of a wrapped verifier (plain ``__call__`` only)."""

    name, version = "counting", "1"

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def __call__(self, task, completion):
        self.calls += 1
        return self.inner(task, completion)


class Failing:
    name, version = "failing", "1"

    def __call__(self, task, completion):
        raise RuntimeError("grader crashed")


class Steps:
    """Fixed dense rewards on two spans (stands in for a PRM)."""

    name, version = "steps", "1"

    def __call__(self, task, completion):
        return RewardResult(0.5, Status.CORRECT, step_rewards=(StepReward(1.0, 0, 3), StepReward(-1.0, 4, 9)))


class Batched:
    """Exact match that also scores batches (as reward models do) and records the batch sizes."""

    name, version = "batched_exact", "1"

    def __init__(self):
        self.inner, self.batches = ExactMatchVerifier(), []

    def __call__(self, task, completion):
        return self.inner(task, completion)

    def score_batch(self, tasks, completions):
        self.batches.append(len(tasks))
        return [self.inner(t, c) for t, c in zip(tasks, completions)]


TASK = Task("t0", "What is 1/2 + 1/4?", reference="\\frac{3}{4}")


def r1(answer: str, think: str = "add the fractions") -> str:
    return f"<think>\n{think}\n</think>\n<answer>\n{answer}\n</answer>"


CASES = {  # completion: (format ok, answer correct)
    "right+formatted": (r1("$\\frac{3}{4}$"), True, True),
    "right+unformatted": ("The sum is \\boxed{0.75}", False, True),
    "wrong+formatted": (r1("$\\frac{2}{6}$"), True, False),
    "wrong+unformatted": ("it is \\boxed{1/3}", False, False),
}


@pytest.fixture(scope="module")
def math():
    """The real math verifier (math-verify in bounded worker processes)."""
    return MathVerifier(timeout=20)


@pytest.mark.parametrize("case", CASES)
def test_weighted_sum_of_correctness_and_format(case, math):
    completion, format_ok, correct = CASES[case]
    fmt = ThinkAnswerFormat()
    total = WeightedSum({"correct": (math, 1.0), "format": (fmt, 0.25)}, status_from="correct")
    result = total(TASK, completion)
    assert result.value == pytest.approx(float(correct) + 0.25 * float(format_ok))
    assert result.components["correct"] == float(correct) and result.components["format"] == float(format_ok)
    assert result.components["format.think_answer_format"] == float(format_ok)
    assert result.details["components"]["correct"]["verifier"] == "math"
    assert result.status is (Status.CORRECT if correct else Status.INCORRECT)
    assert result.details["weights"] == {"correct": 1.0, "format": 0.25}
    assert result.details["components"]["format"]["status"] == ("correct" if format_ok else "incorrect")


@pytest.mark.parametrize("case", CASES)
def test_gate_format_credit_only_when_the_answer_is_right(case, math):
    completion, format_ok, correct = CASES[case]
    gated = Gate(ThinkAnswerFormat(), condition=math, reward_name="format", condition_name="correct")
    result = gated(TASK, completion)
    assert result.value == float(format_ok and correct)
    assert result.components == {"format": float(format_ok), "format.think_answer_format": float(format_ok),
                                 "correct": float(correct), "gate_open": float(correct)}
    assert result.status is (Status.INCORRECT if not correct or not format_ok else Status.CORRECT)


@pytest.mark.parametrize("case", CASES)
def test_gate_correctness_only_when_the_format_holds(case, math):
    completion, format_ok, correct = CASES[case]
    gated = Gate(math, condition=ThinkAnswerFormat(), reward_name="correct", condition_name="format")
    result = gated(TASK, completion)
    assert result.value == float(format_ok and correct)
    assert result.components["gate_open"] == float(format_ok)
    assert result.components["correct"] == float(correct)  # visible even when the gate is closed


@pytest.mark.parametrize("combine, expected", [
    ("sum", {"right+formatted": 1.1, "right+unformatted": 1.0, "wrong+formatted": 0.1, "wrong+unformatted": 0.0}),
    ("gate_format", {"right+formatted": 1.1, "right+unformatted": 1.0, "wrong+formatted": 0.0,
                     "wrong+unformatted": 0.0}),
    ("gate_correct", {"right+formatted": 1.0, "right+unformatted": 0.0, "wrong+formatted": 0.0,
                      "wrong+unformatted": 0.0}),
])
def test_format_reward_modes(combine, expected, math):
    verifier = format_reward(ThinkAnswerFormat(), math, combine, format_weight=0.1)
    for case, (completion, _, _) in CASES.items():
        assert verifier(TASK, completion).value == pytest.approx(expected[case]), case


def test_a_verifier_used_twice_runs_once(math):
    fmt, counted = ThinkAnswerFormat(), Counting(math)
    total = WeightedSum({"correct": (counted, 1.0), "format": (Gate(fmt, condition=counted), 0.1)})
    assert total(TASK, r1("$\\frac{3}{4}$")).value == pytest.approx(1.1)
    assert counted.calls == 1
    assert total.leaves() == [counted, fmt]


def test_failures_are_reported_not_hidden():
    total = WeightedSum({"correct": (Failing(), 1.0), "format": (ThinkAnswerFormat(), 0.1)})
    result = total(TASK, r1("3/4"))
    assert result.status is Status.ERROR and result.value == pytest.approx(0.1)
    assert "grader crashed" in result.details["components"]["correct"]["details"]["error"]
    gated = Gate(ThinkAnswerFormat(), condition=Failing())
    closed = gated(TASK, r1("3/4"))
    assert closed.status is Status.ERROR and closed.value == 0.0 and closed.components["gate_open"] == 0.0


def test_status_all_and_threshold_gate(math):
    fmt = ThinkAnswerFormat()
    total = WeightedSum({"correct": (math, 1.0), "format": (fmt, 0.1)})  # status_from="all"
    assert total(TASK, r1("$\\frac{3}{4}$")).status is Status.CORRECT
    assert total(TASK, "\\boxed{3/4}").status is Status.INCORRECT
    partial = ThinkAnswerFormat(partial_credit=True)
    gate = Gate(math, condition=partial, threshold=0.8, closed_value=-1.0)
    assert gate(TASK, "<think>\nx\n</think><answer>\n$3/4$\n</answer>").value == 1.0  # 8/9 checks >= 0.8
    assert gate(TASK, "\\boxed{3/4}").value == -1.0


def test_step_rewards_are_weighted_merged_and_zeroed_by_a_closed_gate():
    total = WeightedSum({"a": (Steps(), 2.0), "b": (Steps(), 1.0)})
    assert total(TASK, "x").step_rewards == (StepReward(3.0, 0, 3), StepReward(-3.0, 4, 9))
    closed = Gate(Steps(), condition=ThinkAnswerFormat())(TASK, "no tags")
    assert closed.step_rewards == (StepReward(0.0, 0, 3), StepReward(0.0, 4, 9))
    assert WeightedSum({"m": (ThinkAnswerFormat(), 1.0)})(TASK, "x").step_rewards is None


def test_score_batch_exists_only_with_a_batched_leaf_and_matches_per_item_scoring(math):
    plain = WeightedSum({"correct": (ExactMatchVerifier(), 1.0), "format": (ThinkAnswerFormat(), 0.1)})
    assert not hasattr(plain, "score_batch")
    batched = Batched()
    total = WeightedSum({"correct": (AnswerContent(batched), 1.0),
                         "format": (Gate(ThinkAnswerFormat(), condition=AnswerContent(batched)), 0.1)})
    assert hasattr(total, "score_batch")
    completions = [r1("0.75"), "0.75", r1("3/4"), "<answer>1</answer>"] * 3
    tasks = [Task("t", "1/2 + 1/4?", reference="0.75")] * len(completions)
    results = rlenv.scoring.score_tasks(total, tasks, completions)
    assert batched.batches == [9, 9]  # one batch per AnswerContent leaf, only the 9 answers found
    assert [r.value for r in results] == pytest.approx([1.1, 0.0, 0.0, 0.0] * 3)
    assert [r.to_dict() for r in results] == [total(t, c).to_dict() for t, c in zip(tasks, completions)]
    with_math = WeightedSum({"correct": (math, 1.0), "format": (Gate(ThinkAnswerFormat(), condition=math), 0.1)})
    assert hasattr(with_math, "score_batch")  # the math verifier batches too
    got = rlenv.scoring.score_tasks(with_math, [TASK] * 4, [c for c, _, _ in CASES.values()])
    assert [r.value for r in got] == pytest.approx([1.1, 1.0, 0.0, 0.0])


def test_composites_pickle(math):
    total = WeightedSum({"correct": (math, 1.0), "format": (Gate(ThinkAnswerFormat(), condition=math), 0.1)})
    clone = pickle.loads(pickle.dumps(total))
    completion = CASES["right+formatted"][0]
    assert clone(TASK, completion).to_dict() == total(TASK, completion).to_dict()
    assert clone.leaves()[0] is clone.terms["format"][0].condition  # identity survives pickling


@pytest.mark.parametrize("bad", [{}, {"a.b": (ExactMatchVerifier(), 1.0)}, {"a": ExactMatchVerifier()},
                                 {"a": (ExactMatchVerifier(), "1")}])
def test_bad_weighted_sums_are_rejected(bad):
    with pytest.raises((ValueError, TypeError)):
        WeightedSum(bad)
    with pytest.raises(ValueError, match="status_from"):
        WeightedSum({"a": (ExactMatchVerifier(), 1.0)}, status_from="b")


def test_format_env_registered_with_data_and_correctness(tmp_path, math):
    assert "rlenv/Format-v0" in rlenv.list_envs()
    env = rlenv.make("rlenv/Format-v0")
    assert rlenv.check_env(env)["gold"]
    data = tmp_path / "rows.jsonl"
    data.write_text('{"id": "q1", "question": "1/2 + 1/4?", "answer": "\\\\frac{3}{4}"}\n')
    env = rlenv.make("rlenv/Format-v0", data_files=str(data), fields={"prompt": "question", "reference": "answer"},
                     answer_check=math, answer_tag=None, combine="gate_format", format_weight=0.5)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(r1("$0.75$"))
    assert reward == pytest.approx(1.5) and terminated and info["status"] == "correct"
    assert info["components"]["format"] == 1.0 and info["components"]["correct"] == 1.0
    vec = rlenv.make_vec("rlenv/Format-v0", num_tasks=1, group_size=4, data_files=str(data),
                         fields={"prompt": "question", "reference": "answer"}, answer_check=math, answer_tag=None)
    vec.reset(seed=0)
    _, rewards, *_ = vec.step([c for c, _, _ in CASES.values()])
    assert rewards.tolist() == pytest.approx([1.2, 1.0, 0.2, 0.0])
    exact = rlenv.make("rlenv/Format-v0", data_files=str(data), fields={"prompt": "question", "reference": "answer"},
                       answer_check="exact_match")  # checks the <answer> block only
    exact.reset(seed=0)
    assert exact.step(r1("\\frac{3}{4}"))[1] == pytest.approx(1.2)
    exact.reset(seed=0)
    assert exact.step("\\frac{3}{4}")[1] == 0.0
    with pytest.raises(ValueError, match="reference column"):
        rlenv.make("rlenv/Format-v0", data_files=str(data), fields={"prompt": "question"}, answer_check="exact_match")
