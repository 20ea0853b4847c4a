"""The normalization step and the comparisons it feeds: numbers in words, units, colon forms,
relations against sets, exactness (each module on its own; whole completions are in
test_math_answer_styles.py)."""

import logging
from fractions import Fraction

import pytest
from sympy import Float, Rational, sqrt

from rlenv.envs.math.answer_forms import compare_colon_forms
from rlenv.envs.math.config import GradingConfig
from rlenv.envs.math.grading import answers_match, inexact_for, parse_answer, parse_reference
from rlenv.envs.math.normalization import normalize_answer
from rlenv.envs.math.number_words import words_value
from rlenv.envs.math.quantities import compare_quantities

logging.getLogger("math_verify").setLevel(logging.ERROR)


@pytest.mark.parametrize(
    ("text", "value"),
    [("five", 5), ("Forty", 40), ("two hundred and ten", 210), ("one million", 10**6), ("seventy-five", 75),
     ("eighty-one thousand, six hundred and thirty-three", 81633), ("two-thirds", Fraction(2, 3)),
     ("one quarter", Fraction(1, 4)), ("a half", Fraction(1, 2)), ("three and a half", Fraction(7, 2)),
     ("two and three quarters", Fraction(11, 4)), ("3 out of 8", Fraction(3, 8)), ("zero", 0)],
)
def test_numbers_in_words(text, value):
    assert words_value(text) == value


@pytest.mark.parametrize("text", ["a", "even", "odd", "second", "Tuesday", "no solution", "x", "one second", "a dozen"])
def test_words_that_are_not_numbers(text):
    assert words_value(text) is None


@pytest.mark.parametrize(
    ("answer", "normalized"),
    [
        (r"\text{The removed number is } 20", "20"), (r"\text{12 cm}", "12 cm"), (r"\text{26,000}", "26,000"),
        (r"\det A = -14", "-14"), (r"\sqrt{2} \approx 1.414", r"\sqrt{2}"), (r"\text{twelve}", "12"),
        ("4 1/2", r"\frac{9}{2}"), ("1 1/2 hours", r"\frac{3}{2}"), ("-2 3/4 cups", r"-\frac{11}{4}"), (r"12\frac12\%", r"\frac{25}{2}\%"), ("4.2e-4", r"4.2 \times 10^{-4}"),
        (r"\{\,\}", r"\emptyset"), (r"\text{no solution}", r"\emptyset"), (r"\text{all real numbers}", r"(-\infty, \infty)"),
        (r"\{x \mid 1 < x < 3\}", "(1, 3)"), ("x >= 5", r"[5, \infty)"),
        (r"x \le -1 \text{ or } x \ge 4", r"(-\infty, -1] \cup [4, \infty)"),
        (r"\frac{1 \pm \sqrt{5}}{2}", r"\frac{1 + \sqrt{5}}{2}, \frac{1 - \sqrt{5}}{2}"),
        (r"\langle 1, -2 \rangle", r"\begin{pmatrix}1 \\ -2\end{pmatrix}"), ("i - 2j", r"\begin{pmatrix}1 \\ -2\end{pmatrix}"),
        ("42", "42"), (r"\text{Evelyn}", r"\text{Evelyn}"),
    ],
)
def test_normalize_answer(answer, normalized):
    assert normalize_answer(answer) == normalized


@pytest.mark.parametrize(
    ("gold", "pred", "equal"),
    [
        (r"2.5 \text{ km}", r"2500 \text{ m}", True), (r"2.5 \text{ km}", r"2500 \text{ cm}", False),
        (r"95 \text{ minutes}", r"1 \text{ h } 35 \text{ min}", True), ("95", r"1 \text{ h } 35 \text{ min}", True),
        (r"6 \text{ ft}^2", r"864 \text{ in}^2", True), (r"6 \text{ ft}^2", r"6 \text{ in}^2", False),
        (r"5 \text{ cm}", r"5 \text{ cm}^2", False), (r"36 \text{ km/h}", r"10 \text{ m/s}", True),
        ("12", r"\text{12 cm}", None), ("5", "5 x", None), ("12", "12 dollars", None),
    ],
)
def test_quantities(gold, pred, equal):
    assert compare_quantities(gold, pred) is equal


@pytest.mark.parametrize(
    ("gold", "pred", "equal"),
    [
        (r"3:15 \text{ p.m.}", "15:15", True), (r"3:15 \text{ p.m.}", "3:15 AM", False), ("9:40 AM", "9:40 PM", False),
        ("12:30 AM", "0:30", True), ("3:15", "3:15 p.m.", True), ("3:15", r"3:15\text{ AM}", True),
        ("3:15", "3:16 PM", False), ("15:15", "3:15 AM", False), ("3:15 PM", "3:15", False), ("1:2:3", "1:3:2", False), ("2:5", r"2 \text{ to } 5", True), ("2:5", "4:10", True),
        ("2:5", r"\frac{2}{5}", False), (r"V_1:V_2=11:21", "11:21", True), ("5", "6", None),
    ],
)
def test_colon_forms(gold, pred, equal):
    assert compare_colon_forms(gold, pred) is equal


@pytest.mark.parametrize(
    ("gold", "pred", "inexact"),
    [(sqrt(2), Float("1.41421356237"), True), (Rational(1, 3), Float("0.333333"), True), (Rational(1, 4), Float("0.25"), False),
     (Rational(3), Float("3.0"), False), (Float("0.5"), Float("0.5"), False), (sqrt(2), sqrt(2), False)],
)
def test_decimals_never_equal_exact_values_they_cannot_write(gold, pred, inexact):
    assert inexact_for(gold, pred) is inexact


@pytest.mark.parametrize(
    ("gold", "pred", "equal"),
    [("x < 1", "-x > -1", True), ("x < 1", "-x < -1", False), ("(-1, 1)", "|x| < 1", True), ("(-1, 1)", r"|x| \le 1", False),
     (r"(5, \infty)", "2x - 4 > 6", False)],  # unsolved: how the problem states it, not an answer
)
def test_relations_in_solved_form_equal_their_sets(gold, pred, equal):
    assert answers_match(parse_reference(gold), parse_answer(pred), GradingConfig()) is equal
