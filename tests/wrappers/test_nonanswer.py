"""The non-answer detector: its kinds, what it never flags, and the envs that never pay a non-answer."""

import pytest

import rlenv
from rlenv import Status, Task
from rlenv.envs.format import RegexFormat
from rlenv.wrappers import (
    NonAnswer,
    audit,
    default_detectors,
    detect_non_answer,
    detector_names,
    non_answer_kind,
)

PROMPT = "How do I bake bread at home?"


@pytest.mark.parametrize(("completion", "kind"), [
    ("", "empty"), (" \n\t", "empty"), ("...", "punctuation"), ("—", "punctuation"), ("```\n```", "punctuation"),
    ("um, ok", "filler"), ("N/A", "filler"), ("I don't know.", "filler"), ("Here is my answer:", "filler"),
    ("Lorem ipsum dolor sit amet", "filler"), ("How do I bake bread at home?", "prompt_restated"),
    ("You asked: how do I bake bread at home", "prompt_restated"),
])
def test_non_answers_are_named(completion, kind):
    assert non_answer_kind(completion, PROMPT) == kind


@pytest.mark.parametrize("completion", [
    "Paris", "42", "Yes.", "No", "None of them.", "I'm sorry, but I can't help with that.", "Not sure, maybe 7",
    "To bake bread, mix flour, water, salt and yeast.", "Bake bread at home: knead, proof, bake at 220C.", "x = 3",
])
def test_real_replies_and_refusals_are_not(completion):
    assert non_answer_kind(completion, PROMPT) is None


def test_too_short_is_opt_in():
    assert non_answer_kind("Paris", PROMPT, min_words=3) == "too_short"
    assert non_answer_kind("Paris is lovely.", PROMPT, min_words=3) is None
    with pytest.raises(ValueError, match="min_words"):
        NonAnswer(rlenv.make("rlenv/ExactMatch-v0"), min_words=0)


def test_detector_wrapper_records_evidence_and_penalty():
    env = NonAnswer(rlenv.make("rlenv/ExactMatch-v0"), penalty=-1.0)
    env.reset(seed=0)
    _, reward, *_, info = env.step("...")
    assert reward == info["raw_reward"] - 1.0
    assert info["hacks"][0]["detector"] == "non_answer" and info["hacks"][0]["kind"] == "punctuation"
    assert "'...'" in info["hacks"][0]["evidence"]


def test_safety_envs_audit_non_answers_by_default():
    assert NonAnswer in default_detectors("rlenv/SafetyRM-v0")
    report = audit(rlenv.make("rlenv/ExactMatch-v0"), [{"index": 0, "completion": ""}],
                   detectors=detector_names("rlenv/SafetyRM-v0"))
    assert report.rows[0]["hacks"][0]["kind"] == "empty"


def test_an_empty_completion_never_satisfies_a_format():
    verifier = RegexFormat(r".*")
    task = Task("t", "Say anything.")
    assert verifier(task, "anything").status is Status.CORRECT
    empty = verifier(task, "   ")
    assert empty.status is Status.INCORRECT and empty.value == 0.0 and empty.details["non_answer"] == "empty"


def test_vector_env_with_the_safety_defaults_flags_non_answers():
    vec = rlenv.make_vec("rlenv/ExactMatch-v0", num_tasks=2, group_size=2,
                         wrappers=default_detectors("rlenv/SafetyRM-v0"))
    vec.reset(seed=0)
    _, _, _, _, infos = vec.step(["", "Paris", "N/A", "Eight, like every spider."])
    kinds = [[h["kind"] for h in hacks if h["detector"] == "non_answer"] for hacks in infos["hacks"]]
    assert kinds == [["empty"], [], ["filler"], []]


@pytest.mark.parametrize("completion", ["The answer depends on several factors.", "Great question.", "Sure! Here's how:",
                                        "Answer: see above.", "Let me restate: Ava has 5 apples. Interesting."])
def test_a_math_reply_that_states_no_value_is_a_non_answer(completion):
    found = detect_non_answer(completion, "Ava has 5 apples and buys 7 more. How many now?", reference="12")
    assert found.fired and found.kind == "no_value", found


@pytest.mark.parametrize("completion", ["12", "Twelve.", "A dozen.", "It's 12.", "Sure! 5 + 7 = 12.", "5",
                                        r"$\frac{24}{2}$", "The answer is 5."])
def test_a_math_reply_with_a_value_is_not(completion):
    assert not detect_non_answer(completion, "Ava has 5 apples and buys 7 more. How many now?", reference="12").fired
    assert not detect_non_answer("The answer depends on several factors.", "Tell me about rain.", reference="Sure").fired
