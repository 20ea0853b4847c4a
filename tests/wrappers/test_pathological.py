"""Pathological completions (1e5-3e5 characters of loops, braces, tags, commas) must not hang a detector.

pytest-timeout turns a quadratic blow-up into a failure; the assertions check the verdicts.
"""

import pytest

from rlenv.envs.code import detect_code_tampering
from rlenv.wrappers import (
    detect_answer_hedging,
    detect_format_gaming,
    detect_prompt_echo,
    detect_repetition,
)

PROMPT = "Janet's ducks lay 16 eggs per day. How much does she make? " * 3
CASES = {
    "unclosed boxes": "\\boxed{" * 20_000 + "}" * 20_000,
    "unclosed tags": "<think>" * 30_000,
    "unclosed answer tags": "<answer>1 " * 30_000,
    "comma list": "1, " * 100_000,
    "or chain": "0 or 1 or " * 30_000,
    "answer markers": "The answer is 5. " * 20_000,
    "deep parentheses": "```python\nx = " + "(" * 5_000 + "1" + ")" * 5_000 + "\n```",
    "digits and dots": "1.1." * 80_000,
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(CASES))
def test_detectors_return_on_pathological_input(name):
    text = CASES[name]
    found = [detect_answer_hedging(text, "18"), detect_prompt_echo(text, PROMPT, "18"), detect_repetition(text),
             detect_format_gaming(text), detect_code_tampering(text, PROMPT)]
    assert all(0.0 <= d.score <= 1.0 for d in found)
    if name != "deep parentheses":
        assert found[2].fired  # every other case is a degenerate loop
