"""``ToolUseBonus``: paid once, to correct episodes with a successful call; never farmed by calls."""

import pytest

from rlenv.wrappers import ToolUseBonus
from tests.wrappers.test_tool_use import make, play, python


@pytest.mark.parametrize("calls, answer_right, bonus", [
    (["x = 1"], True, 0.25),                       # a call that ran, then the right answer
    (["x = 1"] * 15, True, 0.25),                  # many calls: still once
    ([], True, 0.0),                               # right without a tool: no bonus
    (["x = 1"] * 15, False, 0.0),                  # calls without solving earn nothing
])
def test_the_bonus_is_gated_on_the_outcome_and_paid_once(calls, answer_right, bonus):
    answer = "{answer}" if answer_right else "no idea"
    _, reward, _, _, info = play(make(ToolUseBonus, bonus=0.25), [python(code) for code in calls] + [f"It is {answer}."])
    assert info["tool_bonus"] == bonus and reward == float(answer_right) + bonus
    assert info["reward"].value == float(answer_right)  # the verifier's own score is untouched


def test_only_failed_calls_earn_no_bonus_and_a_bonus_must_be_positive():
    _, reward, _, _, info = play(make(ToolUseBonus), ['<tool_call>{"name": "shell", "arguments": {}}</tool_call>',
                                                      "It is {answer}."])
    assert (reward, info["tool_bonus"]) == (1.0, 0.0)
    with pytest.raises(ValueError, match="bonus must be positive, got 0"):
        make(ToolUseBonus, bonus=0)
