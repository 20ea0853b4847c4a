"""Notations raw math-verify reads wrongly, both ways: each equal pair is correct and each near
miss incorrect through MathVerifier, and raw math-verify gets at least one of each category wrong
(so each category tests a real gap)."""

import json
import logging
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from math_verify import parse, verify

import rlenv
from rlenv import Status, Task
from rlenv.envs.math import MathVerifier
from rlenv.envs.math.answer_forms import (
    based_number,
    choice_letter,
    choice_letters,
    normalize_notation,
    text_key,
)

logging.getLogger("math_verify").setLevel(logging.ERROR)

# category -> [(gold, answer, equal)]
CASES = {
    "base subscript": [
        ("1011_2", "1011_2", True), ("1011_2", "1011_{2}", True), ("40_{9}", "40_9", True), ("1A_{16}", "1a_{16}", True),
        ("11_{10}", "11", True), ("0110_2", "110_2", True), ("1011_2", r"1011_{\text{two}}", True), ("1011_2", "(1011)_2", True),
        ("1011_2", r"1011_{\text{three}}", False),
        ("1011_2", "1011_3", False), ("1011_2", "23_4", False), ("1011_2", "11", False), ("1011_2", "1011", False),
        ("40_9", "36", False), ("36_9", "36", False),
    ],
    "repeating decimal": [
        (r"\frac{1}{3}", r"0.\overline{3}", True), (r"\frac{1}{6}", r"0.1\overline{6}", True),
        (r"\frac{1}{7}", r"0.\overline{142857}", True), (r"0.\overline{3}", r"\frac{1}{3}", True), ("1", r"0.\overline{9}", True),
        (r"\frac{4}{3}", r"1.\overline{3}", True), (r"-\frac{2}{3}", r"-0.\overline{6}", True),
        (r"\frac{1}{3}", "0.3", False), (r"\frac{1}{6}", r"0.1\overline{7}", False), (r"\frac{1}{3}", r"0.\overline{33}1", False),
        (r"0.\overline{3}", "0.333", False),
    ],
    "degree sign": [
        (r"90^\circ", "90°", True), ("90", "90°", True), (r"30^{\circ}", "30°", True), ("90°", r"90^\circ", True),
        (r"90^\circ", "45°", False), ("90°", "91", False),
    ],
    "scaled matrix": [
        (r"\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}", r"\begin{pmatrix}12/7 \\ -3/7\end{pmatrix}", True),
        (r"\begin{pmatrix}12/7 \\ -3/7\end{pmatrix}", r"\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}", True),
        (r"2\begin{pmatrix}1 & 3 \\ 5 & 7\end{pmatrix}", r"\begin{pmatrix}2 & 6 \\ 10 & 14\end{pmatrix}", True),
        (r"\dfrac{1}{25}\begin{pmatrix}16 \\ -12\end{pmatrix}", r"\begin{pmatrix}0.64 \\ -0.48\end{pmatrix}", True),
        (r"\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}", r"\begin{pmatrix}12 \\ -3\end{pmatrix}", False),
        (r"\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}", r"\begin{pmatrix}3/7 \\ -3/7\end{pmatrix}", False),
        (r"\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}", r"\frac{1}{7}\begin{pmatrix}1 \\ 2\end{pmatrix}", False),
    ],
    "text qualifier": [
        (r"\text{ellipse}", r"\text{an ellipse}", True), (r"\text{an ellipse}", "ellipse", True),
        (r"\text{Ellipse}", r"\text{the ellipse}", True), (r"\text{(C)}", "(C) Plane", True), ("(C)", r"\text{(C) Plane}", True),
        (r"\textbf{(B)}", "(B)", True), (r"\text{odd}", "Odd.", True),
        (r"\text{ellipse}", r"\text{parabola}", False), ("(C)", "(D)", False), (r"\text{(C)}", "(B) Plane", False),
        (r"\text{odd}", r"\text{even}", False), (r"\text{no}", r"\text{no solution}", False),
        (r"\text{even}", r"\text{an even function}", True), (r"\text{odd}", r"\text{even function}", False),
    ],
    "choice letters": [
        (r"\text{A, C}", "C, A", True), (r"\text{(A), (C)}", "A, C", True), (r"\text{(B)}", "B: 12", True),
        (r"\text{(C)}", r"\text{C) Plane}", True), (r"\text{A, C}", "A, C, D", False), (r"\text{(D)}", "E. 24", False),
        (r"\text{B}", r"\text{(B) } 3", True), (r"\text{B}", r"\text{(C) } 3", False),
        ("D", r"\textbf{(D) }17", True), ("D", r"\textbf{(C) }17", False), ("D", "(D)", True),
    ],
    "more degree and repeating forms": [
        (r"75^\circ", r"75\degree", True), (r"36^\circ", "36^{o}", True), (r"90^\circ", r"90\textdegree", True),
        (r"\frac{1}{3}", r"0.\bar{3}", True), (r"\frac{14}{99}", r"0.\dot{1}\dot{4}", True),
        (r"0.\overline{3}", "0.(3)", True), (r"\frac{1}{3}", "0.(6)", False), (r"\emptyset", r"\varnothing", True),
        (r"90^\circ", r"45\degree", False), (r"\frac{1}{3}", r"0.\bar{6}", False), (r"\frac{1}{9}", r"0.\dot{2}", False),
    ],
    "brace-less fraction": [
        (r"\frac17\begin{pmatrix}12 \\ -3\end{pmatrix}", r"\begin{pmatrix}12/7 \\ -3/7\end{pmatrix}", True),
        (r"\begin{pmatrix}12/7 \\ -3/7\end{pmatrix}", r"\frac{1}{7} \left(\begin{matrix}12 \\ -3\end{matrix}\right)", True),
        (r"\frac{1}{\sqrt{2}}\begin{pmatrix}1 \\ 1\end{pmatrix}", r"\begin{pmatrix}\frac{\sqrt2}{2} \\ \frac{\sqrt2}{2}\end{pmatrix}", True),
        (r"-\frac{1}{7}\begin{pmatrix}12 \\ -3\end{pmatrix}", r"\begin{pmatrix}12/7 \\ -3/7\end{pmatrix}", False),
        ("17", r"\frac17", False),
    ],
    "unicode": [
        (r"\sqrt{2}", "√2", True), (r"2\sqrt{3}", "2√3", True), (r"\infty", "∞", True), (r"\frac{3}{4}", "¾", True), ("x^2", "x²", True),
        (r"\frac{5}{2}", "2½", True), (r"\sqrt{3}", "√2", False), ("x^3", "x²", False), (r"\frac{1}{3}", "½", False),
    ],
    "thousands separators": [
        (r"1\,000", "1000", True), ("10 000", "10000", True), (r"1\,234\,567", "1234567", True), ("1000", r"1\!000", True),
        (r"1\,000", "100", False), ("1,234", "1.234", False), ("3,500", "35,00", False),
    ],
    "inequality chain": [
        ("[0, 1]", r"0 \le x \le 1", True), ("(-1, 1)", "-1 < x < 1", True), ("[1,3]", r"3 \ge x \ge 1", True),
        ("[0,1)", r"0 \le x \le 1", False), ("(1,3]", "1 < x < 3", False),
    ],
    "decimal comma": [
        ("1000.99", "1000,99", True), ("1,22", "1.22", True), ("0,111", "0.111", True), ("2.74", r"2{,}74", True),
        ("-3.5", "-3,5", True), ("12,5", "12,5", True), ("0.05", "0,05", True), (r"\frac{1}{4}", "0,25", True),
        ("1000.99", "1000,98", False), ("1,22", "1.23", False), ("1,22", "122", False), ("0,111", "0.11", False),
        ("1.5", "1,50001", False), ("1,234", "1.234", False), ("1234", "1,234", True), ("2.5", "-2,5", False),
    ],
    "spacing and final period": [
        ("3-4i", "3 - 4 i", True), ("2x", "2 x", True), ("5", "5.", True), (r"\text{Tuesday}", r"\text{Tuesday}.", True),
        ("2+3i", "2 - 3 i", False), ("5i", "5", False), ("5", "6.", False),
    ],
}
PAIRS = [(category, *case) for category, cases in CASES.items() for case in cases]


@pytest.fixture(scope="module")
def verifier():
    return MathVerifier(timeout=30.0)


def raw_math_verify(gold: str, answer: str) -> bool:
    try:
        return bool(verify(parse(f"${gold}$", parsing_timeout=None), parse(f"\\boxed{{{answer}}}", parsing_timeout=None),
                           timeout_seconds=None))
    except Exception:
        return False


@pytest.mark.parametrize(("category", "gold", "answer", "equal"), PAIRS,
                         ids=[f"{c}:{g}|{a}" for c, g, a, _ in PAIRS])
def test_verdict(verifier, category, gold, answer, equal):
    result = verifier(Task("t", "q", reference=gold), f"The answer is $\\boxed{{{answer}}}$.")
    assert result.status is (Status.CORRECT if equal else Status.INCORRECT), result.details


@pytest.mark.parametrize("category", sorted(CASES))
def test_each_category_is_a_real_gap_of_raw_math_verify(category):
    wrong = [case for case in CASES[category] if raw_math_verify(case[0], case[1]) != case[2]]
    assert wrong, f"raw math-verify already gets every {category} case right: the category tests nothing"


def test_helpers():
    assert normalize_notation("90°") == r"90^{\circ}"
    assert normalize_notation(r"0.1\overline{6}") == r"(\frac{1}{6})" and normalize_notation(r"0.\overline{9}") == "(1)"
    assert based_number("1011_{2}") == ("1011", 2) and based_number("x_2") is None and based_number("a_1") is None
    assert choice_letter(r"\text{(C) Plane}") == "C" and choice_letter("C") is None
    assert text_key(r"\text{An Ellipse.}") == "ellipse" and text_key("x") is None and text_key("2x") is None
    assert text_key(r"\text{an odd function}") == "odd" and text_key(r"\text{function}") == "function"
    assert choice_letters(r"\text{(A), (C)}") == {"A", "C"} and choice_letters("(A, B)") is None and choice_letters("A") is None
    assert normalize_notation("√12") == r"\sqrt{12}" and normalize_notation("¾") == r"\frac{3}{4}"
    assert normalize_notation("10⁶") == "10^{6}" and normalize_notation("42") == "42"
    assert normalize_notation(r"0.\dot{1}4\dot{2}") == r"(\frac{142}{999})" and normalize_notation(r"\frac17") == r"\frac{1}{7}"
    assert normalize_notation(r"1\,000") == "1000" and normalize_notation(r"x = 1\,5") == r"x = 1\,5"
    assert normalize_notation(r"-2 < x \le 3") == "(-2, 3]" and normalize_notation("1 < x > 0") == "1 < x > 0"


def test_math_rows_with_only_problem_and_answer(tmp_path):
    path = tmp_path / "aime.jsonl"
    path.write_text(json.dumps({"problem": "Express 11 in base 2.", "answer": "1011_2"}) + "\n"
                    + json.dumps({"problem": "Compute 6*7.", "answer": "42"}) + "\n")
    env = rlenv.make("rlenv/MATH-v0", data_files=str(path))
    tasks = [env.unwrapped.source[i] for i in range(2)]
    assert [t.gold_completion for t in tasks] == [r"\boxed{1011_2}", r"\boxed{42}"]
    assert rlenv.check_env(env)["gold"]
    assert env.unwrapped.verify(tasks[0], r"\boxed{1011_3}").status is Status.INCORRECT


@st.composite
def comma_decimals(draw):
    """A decimal whose comma no thousands separator could be: one, two or four+ digits after it,
    or a first group of four+ digits or a leading zero."""
    whole = draw(st.one_of(st.integers(0, 999), st.integers(1000, 10**7)))
    places = draw(st.sampled_from([1, 2, 4, 5]) if 1 <= whole <= 999 else st.integers(1, 5))
    fraction = draw(st.integers(0, 10**places - 1))
    return f"{'-' if draw(st.booleans()) else ''}{whole}", f"{fraction:0{places}d}"


@given(number=comma_decimals(), where=st.sampled_from(["gold", "answer"]), wrap=st.sampled_from(["{}", r"\text{{{}}}", "€{}"]),
       miss=st.sampled_from([None, "digit", "sign", "shift"]))
@settings(max_examples=80, deadline=None)
def test_decimal_comma_property(verifier, number, where, wrap, miss):
    """A number written with a decimal comma equals the same number with a point, either side,
    and never a near miss (one digit, the sign, the comma moved)."""
    whole, fraction = number
    point, comma = f"{whole}.{fraction}", wrap.format(f"{whole},{fraction}")
    other = {None: point, "digit": f"{whole}.{fraction[:-1]}{(int(fraction[-1]) + 1) % 10}",
             "sign": point[1:] if point.startswith("-") else f"-{point}", "shift": f"{whole}{fraction[0]}.{fraction[1:] or 0}"}[miss]
    equal = miss is None or Fraction(other) == Fraction(point)
    gold, answer = (comma, other) if where == "gold" else (other, comma)
    result = verifier(Task("t", "q", reference=gold), f"The answer is $\\boxed{{{answer}}}$.")
    assert result.status is (Status.CORRECT if equal else Status.INCORRECT), (gold, answer, result.details)
