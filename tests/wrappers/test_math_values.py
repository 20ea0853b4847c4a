"""Reading answers as math (rlenv.wrappers.math_values): many-valued answers and expressions up to term order."""

import pytest

from rlenv.wrappers.math_values import MAX_PARSE_CHARS, is_many_valued, parse_math, same_expression


@pytest.mark.parametrize("text", [r"[11, 13]", r"11 \le r \le 13", r"r \in \{12, 13\}", r"\{13, 12\}", r"12 \pm 1",
                                  r"11 < n \leq 13", r"n \in (11, 30)", r"x > 5", r"(3, 9]"])
def test_sets_intervals_and_inequalities_are_many_valued(text):
    assert is_many_valued(parse_math(text)), parse_math(text)


@pytest.mark.parametrize("text", ["12", r"\frac{1}{2}", "x = 6", r"7\sqrt{2}", "(x+7)(x-4)", r"\{5\}", "-3"])
def test_single_values_and_expressions_are_not(text):
    assert not is_many_valued(parse_math(text)), parse_math(text)


@pytest.mark.parametrize("a, b", [("(x+7)(x-4)", "(x-4)(x+7)"), ("x^2+3x-28", "-28 + 3x + x^2"),
                                  ("(x - 4)(x + 7)", r"(-4 + x) \cdot (7 + x)"), (r"5 \cdot 7 + 3", r"3 + 7 \times 5"),
                                  ("12 < n < 30", "12<n<30"), (r"\frac{x^2-9}{x-3}", r"\frac{-9 + x^2}{-3 + x}"),
                                  ("a + (b + c)", "(c + a) + b")])
def test_the_same_expression_in_another_order_is_the_same(a, b):
    assert same_expression(parse_math(a), parse_math(b))


@pytest.mark.parametrize("a, b", [("x^2+3x-28", "(x-4)(x+7)"), (r"5 \cdot 7 + 3", "38"), ("2x + 3x", "5x"),
                                  ("x - 4", "x + 4")])
def test_equal_values_written_differently_are_not_the_same_expression(a, b):
    assert not same_expression(parse_math(a), parse_math(b))


@pytest.mark.parametrize("text", ["", "   ", "2^{2^{40}}", "10^{100000}", "1000!", "x" * (MAX_PARSE_CHARS + 1),
                                  r"\text{the answer is unclear}"])
def test_costly_or_unparsable_text_is_not_parsed(text):
    value = parse_math(text)
    assert value is None or not value.args
    assert same_expression(None, parse_math("x")) is False
