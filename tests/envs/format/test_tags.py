"""Think/answer tag structure: strict and lenient forms, empty blocks, duplicate tags, text outside tags."""

from __future__ import annotations

import pytest

from rlenv import Status, Task
from rlenv.envs.format import AnswerContent, ThinkAnswerFormat
from rlenv.exact_match import ExactMatchVerifier

TASK = Task("t0", "What is 2 + 2?", reference="4")
GOOD = "<think>\n2 plus 2 is 4.\n</think>\n<answer>\n4\n</answer>"


def violations(verifier, completion):
    return verifier(TASK, completion).details["violations"]


def test_strict_form_passes_with_every_check_listed():
    result = ThinkAnswerFormat()(TASK, GOOD)
    assert (result.value, result.status) == (1.0, Status.CORRECT)
    assert result.components == {"think_answer_format": 1.0}
    assert result.details["answer"] == "4"
    assert set(result.details["checks"]) == {
        "count:<think>", "count:</think>", "count:<answer>", "count:</answer>", "order", "think_not_empty",
        "answer_not_empty", "nothing_outside", "newline_layout"}


def test_strict_allows_trailing_whitespace_only():
    assert violations(ThinkAnswerFormat(), GOOD + "\n  \n") == []
    assert violations(ThinkAnswerFormat(), " " + GOOD) == ["newline_layout"]


@pytest.mark.parametrize("completion", [
    "<think>2 plus 2 is 4.</think><answer>4</answer>",
    "<think> 2 plus 2 is 4. </think>\n\n<answer> 4 </answer>",
    "  <think>\n2 plus 2 is 4.</think>\n<answer>4</answer>\n",
])
def test_lenient_form_accepts_any_whitespace_but_strict_does_not(completion):
    assert violations(ThinkAnswerFormat(strict=False), completion) == []
    assert violations(ThinkAnswerFormat(strict=True), completion) == ["newline_layout"]


@pytest.mark.parametrize("answer", ["", "   ", "\n\n"])
def test_empty_answer_fails(answer):
    completion = f"<think>\nreasoning\n</think>\n<answer>{answer}</answer>"
    result = ThinkAnswerFormat(strict=False)(TASK, completion)
    assert result.status is Status.INCORRECT and result.value == 0.0
    assert result.details["violations"] == ["answer_not_empty"]


def test_empty_think_fails_unless_allowed():
    completion = "<think></think><answer>4</answer>"
    assert violations(ThinkAnswerFormat(strict=False), completion) == ["think_not_empty"]
    assert violations(ThinkAnswerFormat(strict=False, require_think_content=False), completion) == []


@pytest.mark.parametrize("completion, expected", [
    (GOOD + "\n<answer>\n5\n</answer>", ["count:<answer>", "count:</answer>", "order", "nothing_outside",
                                         "newline_layout"]),
    ("<think>\na\n</think>\n<think>\nb\n</think>\n<answer>\n4\n</answer>",
     ["count:<think>", "count:</think>", "order", "nothing_outside", "newline_layout"]),
    ("<think>\n\n</think>\n<answer>\n\n</answer>\n<answer>\n4\n</answer>",
     ["count:<answer>", "count:</answer>", "order", "think_not_empty", "answer_not_empty", "nothing_outside",
      "newline_layout"]),
])
def test_duplicate_tags_fail_the_count_order_and_layout_checks(completion, expected):
    assert violations(ThinkAnswerFormat(), completion) == expected


@pytest.mark.parametrize("completion", [
    "Sure! " + GOOD,
    GOOD + "\nHope this helps.",
    "<think>\nx\n</think>\nso the answer is\n<answer>\n4\n</answer>",
])
def test_text_outside_the_tags_fails(completion):
    got = violations(ThinkAnswerFormat(strict=False), completion)
    assert got == ["nothing_outside"]


def test_wrong_order_and_missing_closer():
    assert "order" in violations(ThinkAnswerFormat(), "<answer>\n4\n</answer>\n<think>\nx\n</think>")
    got = violations(ThinkAnswerFormat(), "<think>\nx\n</think>\n<answer>\n4\n")
    assert got[0] == "count:</answer>" and "order" in got


def test_prefilled_think_tag():
    fmt = ThinkAnswerFormat(think_prefilled=True)
    assert violations(fmt, "2 plus 2 is 4.\n</think>\n<answer>\n4\n</answer>") == []
    assert "count:<think>" in violations(fmt, GOOD)  # the template already opened the block


def test_answer_only_format_and_custom_tags():
    fmt = ThinkAnswerFormat(think_tag=None)
    assert violations(fmt, "<answer>\n4\n</answer>") == []
    assert violations(fmt, "<answer>\n\n</answer>") == ["answer_not_empty"]
    custom = ThinkAnswerFormat(think_tag="reasoning", answer_tag="solution")
    assert violations(custom, "<reasoning>\nx\n</reasoning>\n<solution>\n4\n</solution>") == []


def test_partial_credit_is_the_fraction_of_checks_passed():
    fmt = ThinkAnswerFormat(strict=False, partial_credit=True)
    result = fmt(TASK, "<think></think><answer>4</answer>")
    assert result.value == pytest.approx(7 / 8)  # 4 counts, order, 2 contents, outside
    assert result.status is Status.INCORRECT


def test_extract_answer_requires_exactly_one_block():
    fmt = ThinkAnswerFormat()
    assert fmt.extract_answer(GOOD) == "4"
    assert fmt.extract_answer("<answer>1</answer><answer>2</answer>") is None
    assert fmt.extract_answer("no tags") is None
    assert fmt.extract_answer("</answer>4<answer>") is None


def test_answer_content_checks_only_the_answer_block():
    verifier = AnswerContent(ExactMatchVerifier())
    assert verifier(TASK, GOOD).status is Status.CORRECT
    assert verifier(TASK, GOOD.replace("\n4\n", "\n5\n")).status is Status.INCORRECT
    missing = verifier(TASK, "the answer is 4")
    assert (missing.status, missing.value) == (Status.UNPARSABLE, 0.0)
    assert not hasattr(verifier, "score_batch")


@pytest.mark.parametrize("kwargs", [{"think_tag": "a b"}, {"answer_tag": "<answer>"}, {"think_tag": "x", "answer_tag": "x"},
                                    {"think_tag": None, "think_prefilled": True}])
def test_bad_configuration_is_rejected(kwargs):
    with pytest.raises(ValueError):
        ThinkAnswerFormat(**kwargs)
