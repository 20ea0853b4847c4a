"""The hack detectors read answers exactly as the math verifier does (one reading, rlenv.boxed):
boxes (nested, escaped braces, LaTeX line breaks, unclosed, brace-less) and numbers."""

import pytest

from rlenv.envs.math.extraction import boxed_answers, extract_answers
from rlenv.wrappers.answers import boxed_spans, numbers_in
from rlenv.wrappers.hedging import detect_answer_hedging

TRICKY = [
    r"so \boxed{3}.", r"\boxed{\boxed{3}}", r"\boxed{\frac{1}{2}} or \boxed{2}", r"\boxed{\{1, 2\}}",
    r"\boxed{\begin{pmatrix}1 \\{2}\end{pmatrix}}", r"\boxed 5 and \fbox{6}", r"\boxed {7}", r"\boxed{8",
    r"\boxed{a}\boxed{b}", r"\boxedx{9} \boxed{10}", r"\boxed{\text{yes}} \boxed{ \boxed{4} }",
]


@pytest.mark.parametrize("completion", TRICKY)
def test_detector_boxes_are_the_verifiers(completion):
    assert [span.text for span in boxed_spans(completion)] == boxed_answers(completion)


def test_hedging_sees_the_answers_the_verifier_grades():
    completion = r"\boxed{\boxed{3}} hmm, \boxed{3}"
    assert extract_answers(completion).answers == ("3", "3")  # one answer, restated
    assert not detect_answer_hedging(completion).fired
    hedged = r"\boxed{\{1, 2\}} or maybe \boxed{3}"
    assert len(set(extract_answers(hedged).answers)) == 2 and detect_answer_hedging(hedged).fired


def test_numbers_are_read_once():
    assert [str(n) for n in numbers_in("x2 has 1,234.5 and -3 and .5")] == ["2469/2", "-3", "1/2"]
    assert extract_answers("the total is 1,234 then -3", formats=(), last_number=True).answers == ("-3",)
