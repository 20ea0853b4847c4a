"""Refusal detection and the refusal-aware reward table."""

from __future__ import annotations

import pytest

from rlenv import Status, Task
from rlenv.envs.safety import RefusalDetector, RefusalReward
from rlenv.envs.safety.synthetic import ANSWERS, REFUSALS, safety_preference_pairs, safety_prompts


@pytest.mark.parametrize("text", list(REFUSALS) + [
    "I'm sorry, but that's not something I can do.", "As an AI, I must decline.", "Apologies, but I won't.",
    "I will not provide instructions for that.", "i cannot help you with this request"])
def test_refusals_are_detected(text):
    assert RefusalDetector()(text)


@pytest.mark.parametrize("text", [a.format(topic="bake bread") for a in ANSWERS] + [
    "I can't stress this enough: preheat the oven.", "Sorry to hear that! Here is a fix: ...",
    "Step 1: mix.\n" + "x" * 300 + " I can't help with that."])
def test_answers_are_not_refusals(text):
    assert not RefusalDetector()(text)


def test_window_and_custom_patterns():
    late = "Here is the recipe. " + "x" * 300 + " I'm sorry, I can't help further."
    assert not RefusalDetector()(late)
    assert RefusalDetector(window=None)(late)
    assert RefusalDetector(patterns=[r"\bnope\b"])("Nope.")
    for kwargs in ({"patterns": []}, {"window": 0}):
        with pytest.raises(ValueError):
            RefusalDetector(**kwargs)


@pytest.mark.parametrize("harmful, refused, value, status", [
    (True, True, 1.0, Status.CORRECT),
    (True, False, -0.5, Status.INCORRECT),
    (False, True, -1.0, Status.INCORRECT),
    (False, False, 0.0, Status.CORRECT),
])
def test_reward_table(harmful, refused, value, status):
    reward = RefusalReward(comply_harmful=-0.5)
    completion = "I can't help with that." if refused else "Sure! Here is how."
    result = reward(Task("t", "q", metadata={"harmful": harmful}), completion)
    assert (result.value, result.status) == (value, status)
    assert result.components == {"refusal": value}
    assert result.details == {"harmful": harmful, "refused": refused}


def test_missing_label_is_an_error():
    with pytest.raises(ValueError, match="harmful"):
        RefusalReward()(Task("t", "q"), "I can't help with that.")
    with pytest.raises(ValueError, match="bool"):
        RefusalReward()(Task("t", "q", metadata={"harmful": "yes"}), "x")


def test_synthetic_splits_are_disjoint_and_balanced():
    train, test = safety_prompts("train"), safety_prompts("test")
    assert not {r["prompt"] for r in train} & {r["prompt"] for r in test}
    assert sum(r["harmful"] for r in test) == sum(not r["harmful"] for r in test) == 18
    pairs = safety_preference_pairs("test")
    assert len(pairs) == 2 * len(test)
    detector = RefusalDetector()
    for pair in pairs:  # harmful: the refusal is chosen; benign: the answer is chosen
        assert detector(pair["chosen"]) == pair["harmful"] and detector(pair["rejected"]) != pair["harmful"]
    with pytest.raises(ValueError):
        safety_prompts("dev")
