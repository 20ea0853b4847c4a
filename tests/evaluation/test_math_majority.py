"""maj@k clusters answers by the environment's own equivalence: math-verify for the math envs."""

import pytest

import rlenv
from rlenv.evaluation import answer_equivalence, cluster_answers, maj_at_k
from rlenv.types import Task


@pytest.fixture(scope="module")
def math_verifier():
    return rlenv.make("rlenv/Arithmetic-v0").unwrapped.verifier


def test_eval_math_equivalence_is_math_verify_not_string_equality(math_verifier):
    task = Task("t", "Compute: 1/2", reference="0.5")
    completions = ["#### 1/2", "so \\boxed{0.5}", "#### 3", "#### 2/4", "no answer here", "#### 3.0"]
    results = [math_verifier(task, c) for c in completions]
    statuses = [r.status.value for r in results]
    assert statuses == ["correct", "correct", "incorrect", "correct", "unparsable", "incorrect"]
    same = answer_equivalence(math_verifier, task)
    labels = cluster_answers(completions, statuses, same)
    assert labels == [0, 0, 1, 0, None, 1]
    string_labels = cluster_answers(completions, statuses, answer_equivalence(object(), task, fallback="string"))
    assert len(set(string_labels) - {None}) == 5  # string equality would split every answer
    correct = [s == "correct" for s in statuses]
    assert maj_at_k(labels, correct, 6) == 1.0  # 3 votes for 1/2 against 2 for 3
    assert maj_at_k(string_labels, correct, 6) == pytest.approx(3 / 5)  # a five-way tie, 3 of them right


def test_eval_math_equivalent_without_an_answer(math_verifier):
    task = Task("t", "Compute: 2+2", reference="4")
    assert not math_verifier.equivalent(task, "I do not know", "#### 4")
    assert math_verifier.equivalent(task, "#### 4", "The answer is 4.")
    assert not math_verifier.equivalent(task, "#### 4", "#### 5")
