"""``rlenv/Arithmetic-Calculator-v0``: the calculator tool and the multi-turn env around it."""

import json
import random
from fractions import Fraction

import pytest

import rlenv
from rlenv.envs.math.calculator import calculator


def test_the_calculator_agrees_with_exact_arithmetic_on_random_expressions():
    rng = random.Random(0)
    for _ in range(500):
        a, b, c = (rng.randint(-99999, 99999) for _ in range(3))
        assert calculator(f"({a}) * {b} - {c}") == str(a * b - c)
        if c:
            expected = Fraction(a + b, c)
            assert calculator(f"({a} + {b}) / {c}") == (str(expected.numerator) if expected.denominator == 1
                                                        else str(expected))


@pytest.mark.parametrize("expression, message", [
    ("__import__('os').system('true')", "only integers"), ("2 ** 10", "only integers"), ("1.5 * 2", "only integers"),
    ("1 / 0", "division by zero"), ("9" * 40 + " * " + "9" * 40, "more than 60 digits"), ("1+" * 150 + "1", "longer"),
])
def test_the_calculator_refuses_anything_but_arithmetic(expression, message):
    with pytest.raises((ValueError, ZeroDivisionError), match=message):
        calculator(expression)


def test_an_episode_delegates_a_five_digit_product_and_is_graded_on_its_answer():
    env = rlenv.make("rlenv/Arithmetic-Calculator-v0", chat=True,
                     base_kwargs={"min_digits": 5, "max_digits": 5, "operations": "*"})
    prompt, info = env.reset(seed=0)
    expression = env.unwrapped.task.prompt.removeprefix("Compute: ")
    assert [t["function"]["name"] for t in info["tools"]] == ["calculator"] and len(expression) == 11
    call = {"name": "calculator", "arguments": {"expression": expression}}
    obs, reward, terminated, _, _ = env.step(f"<tool_call>{json.dumps(call)}</tool_call>")
    a, b = map(int, expression.split("*"))
    assert obs[0]["role"] == "tool" and obs[0]["content"] == str(a * b) and not terminated and reward == 0.0
    *_, terminated, truncated, final = env.step(f"#### {a * b}")
    assert terminated and not truncated and final["status"] == "correct" and final["tool_metrics"]["calls"] == 1
    assert all(rlenv.check_env(rlenv.make("rlenv/Arithmetic-Calculator-v0")).values())
