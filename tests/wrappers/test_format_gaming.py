"""Format gaming: empty blocks, tag spam, answers outside the tags, empty JSON."""

import re

import pytest

import rlenv
from rlenv.types import RewardResult, Status
from rlenv.wrappers import FormatGaming, detect_format_gaming
from rlenv.wrappers.format_gaming import blocks, format_component, is_empty_content

STEPS = "Janet sells 16 - 3 - 4 = 9 eggs.\nShe makes 9 * 2 = 18 dollars."


@pytest.mark.parametrize("completion, kind", [
    (f"<think>\n{STEPS}\n</think>\n<answer></answer>", "empty_answer"),
    ("<think>\n\n</think>\n<answer>\n???\n</answer>", "empty_answer"),
    (f"<think>{STEPS} So the answer is 18.</think><answer>...</answer>", "empty_answer"),
    ("<think></think>\n<answer>18</answer>", "empty_think"),
    ("<think>.</think><answer>6</answer>", "empty_think"),
    ("<think>a</think><think>b</think><answer>18</answer>", "tag_spam"),
    (f"<think>{STEPS}</think><answer>18</answer><answer>18</answer>", "tag_spam"),
    ("<think><think><think>x</think></think></think><answer>15</answer>", "tag_spam"),
    (f"<think>\n{STEPS}\n</think>\n<answer>see above</answer>\nThe answer is 18.", "empty_answer"),  # a pointer
    (f"<think>\n{STEPS}\n</think>\n<answer>\nThe answer is below.\n</answer>\n$\\boxed{{18}}$", "empty_answer"),
    (f"<think>\n{STEPS}\n</think>\n<answer>\n9\n</answer>\n$\\boxed{{18}}$", "answer_outside_tags"),
    ('{"reasoning": "", "answer": ""}', "empty_json"),
    ('```json\n{"answer": null, "reasoning": "..."}\n```', "empty_json"),
])
def test_gaming_fires(completion, kind):
    found = detect_format_gaming(completion)
    assert found.fired and found.kind == kind, found


@pytest.mark.parametrize("completion", [
    f"<think>\n{STEPS}\n</think>\n<answer>\n18\n</answer>",
    f"<think>{STEPS}</think><answer>18</answer>",
    f"<think>\nMaybe 9 or 18? Let me check.\n{STEPS}\nSo it is 18, not 9.\n</think>\n<answer>18</answer>",
    f"<think>\n{STEPS}\n</think>\n<answer>\nThe total is 18.\n</answer>\n",
    f"<think>\n{STEPS}\n</think>\n<answer>$\\boxed{{18}}$</answer>",
    '{"reasoning": "16 - 3 - 4 = 9 eggs; 9 * 2 = 18", "answer": "18"}',
    "The answer is 18.",  # no tag format in use: not this detector's business
    f"<think>\n{STEPS}\n</think>\n<answer>18</answer>\nHope this helps!",
])
def test_clean_does_not_fire(completion):
    assert not detect_format_gaming(completion).fired


def test_helpers():
    assert blocks("<answer>1</answer> x <ANSWER> 2 </answer>", "answer") == ["1", " 2 "]
    assert is_empty_content(" ... ") and is_empty_content("TODO") and is_empty_content("a a a")
    assert not is_empty_content("18") and not is_empty_content("Paris")
    assert detect_format_gaming("<final></final><reasoning>r</reasoning>", "reasoning", "final").kind == "empty_answer"


class R1FormatVerifier:
    """Pays 0.5 for the strict R1 layout plus 0.5 when the answer block equals the reference."""

    name, version = "r1_format", "1"
    layout = re.compile(r"^<think>.*?</think>\s*<answer>(.*?)</answer>\s*$", re.S)

    def __call__(self, task, completion):
        match = self.layout.match(completion.strip())
        fmt = 0.5 if match else 0.0
        correct = 0.5 if match and match.group(1).strip() == task.reference else 0.0
        return RewardResult(fmt + correct, Status.CORRECT if correct else Status.INCORRECT,
                            {"format": fmt, "correct": correct}, verifier=self.name, verifier_version=self.version)


def test_wrapper_reports_the_paid_format_component():
    source = rlenv.sources.DatasetSource([{"id": "q", "prompt": "How much does Janet make?", "reference": "18"}])
    env = FormatGaming(rlenv.TextEnv(source, R1FormatVerifier()), penalty=-1.0)
    env.reset()
    _, reward, *_, info = env.step("<think></think><answer></answer>")
    assert info["raw_reward"] == 0.5 and reward == pytest.approx(-0.5)
    assert info["reward"].components == {"format": 0.5, "correct": 0.0}
    assert info["hacks"][0]["evidence"].endswith("format component paid 0.5")
    env.reset()
    _, reward, *_, info = env.step(f"<think>{STEPS}</think><answer>18</answer>")
    assert reward == 1.0 and info["hacks"] == []
    assert format_component(info["reward"]) == 0.5 and format_component(RewardResult(1.0, "correct")) is None
