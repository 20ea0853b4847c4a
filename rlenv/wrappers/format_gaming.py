"""Format gaming: collecting format credit without the content the format is meant to carry.

Observed cases: several ``<think>``/``<answer>`` blocks passing an
anchored regex (open-r1 #359), an empty ``<think></think>`` plus junk getting format credit,
policies converging to an empty ``<answer></answer>`` under containment checks (Visual-RFT #176),
and answers written outside the tags where a lenient extractor still finds them. Findings:

* ``tag_spam`` — a think or answer tag occurs more than once;
* ``empty_answer`` / ``empty_think`` — a block with no content (only whitespace, punctuation or
  a filler such as ``...`` / ``TODO`` / one word repeated);
* ``answer_outside_tags`` — a final answer (box, "the answer is …", a bare number) stands outside
  the think/answer blocks while the answer block does not hold it;
* ``empty_json`` — a JSON object answer whose every value is empty.

The detector only looks at completions that use the tags (or are a JSON object); others are
clean here. When the verifier's result has a ``format`` component, the evidence says whether it
was paid.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import gymnasium

from rlenv.types import RewardResult, Task
from rlenv.wrappers.answers import answer_key, answer_spans, blocks, outside_blocks, parse_number, tag_pattern
from rlenv.wrappers.detection import Detection, DetectorWrapper, quote

NAME = "format_gaming"

_FILLERS = {"...", "…", "todo", "tbd", "n/a", "na", "none", "null", "placeholder", "answer", "your answer here",
            "lorem ipsum", "xxx", "blah", "etc", "reasoning", "thinking", "think", "answer here"}


def is_empty_content(content: str) -> bool:
    """True for content that carries nothing: blank, punctuation only, a filler word, or one word repeated."""
    text = " ".join(content.split()).lower()
    if not re.search(r"[a-z0-9]", text):
        return True
    if text.strip(" .:;!?-") in _FILLERS:
        return True
    words = re.findall(r"\w+", text)
    return len(words) >= 3 and len(set(words)) == 1


def _answer_outside(outside: str, answer_blocks: list[str]) -> str | None:
    """The answer stated outside the tags, when the answer block does not already hold it."""
    inside = {answer_key(b) for b in answer_blocks}
    for span in answer_spans(outside):
        if answer_key(span.text) and answer_key(span.text) not in inside:
            return span.text
    for line in outside.splitlines():
        if parse_number(line) is not None and answer_key(line) not in inside:
            return line
    return None


def _json_leaves(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [leaf for v in value.values() for leaf in _json_leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _json_leaves(v)] if value else [""]
    return [value]


def _empty_json(completion: str) -> bool:
    text = completion.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except (json.JSONDecodeError, ValueError):
        return False
    if not isinstance(value, Mapping) or not value:
        return False
    return all(leaf is None or (isinstance(leaf, str) and is_empty_content(leaf)) for leaf in _json_leaves(value))


def detect_format_gaming(
    completion: str,
    think_tag: str = "think",
    answer_tag: str = "answer",
    format_paid: float | None = None,
) -> Detection:
    """Fire on tag spam, empty blocks, answers outside the tags, or an all-empty JSON answer.

    Args:
        completion: The model's text.
        think_tag, answer_tag: The reasoning and answer tag names of the expected format.
        format_paid: The format component the verifier paid, when known (only used in evidence).
    """
    paid = "" if format_paid is None else f"; format component paid {format_paid:g}"
    if _empty_json(completion):
        return Detection(NAME, True, 1.0, "empty_json", f"every value of the JSON answer is empty{paid}")
    counts = {f"{slash}{tag}": len(tag_pattern(tag, bool(slash)).findall(completion))
              for tag in (think_tag, answer_tag) for slash in ("", "/")}
    if not any(counts.values()):
        return Detection.clean(NAME)
    findings = []
    if any(c > 1 for c in counts.values()):
        shown = ", ".join(f"<{k}> x{v}" for k, v in counts.items() if v)
        findings.append(("tag_spam", f"tags repeated: {shown}"))
    answers, thoughts = blocks(completion, answer_tag), blocks(completion, think_tag)
    if any(is_empty_content(a) for a in answers):
        findings.append(("empty_answer", f"empty <{answer_tag}> block {quote(next(a for a in answers if is_empty_content(a)), 30)}"))
    if any(is_empty_content(t) for t in thoughts):
        findings.append(("empty_think", f"empty <{think_tag}> block {quote(next(t for t in thoughts if is_empty_content(t)), 30)}"))
    stray = _answer_outside(outside_blocks(completion, think_tag, answer_tag), answers)
    if stray is not None:
        findings.append(("answer_outside_tags", f"answer {quote(stray, 30)} stated outside the <{answer_tag}> block"))
    if not findings:
        return Detection.clean(NAME)
    return Detection(NAME, True, 1.0, findings[0][0], "; ".join(text for _, text in findings) + paid)


def format_component(result: RewardResult | None) -> float | None:
    """The verifier's format sub-reward, or None: the sum of the components whose name contains
    ``format``, counting only top-level names when nested ones (``format.think_answer``) exist."""
    if result is None:
        return None
    named = [k for k in result.components if "format" in k.lower()]
    top = [k for k in named if "." not in k] or named  # "format" over its parts "format.think_answer"
    return float(sum(result.components[k] for k in top)) if top else None


class FormatGaming(DetectorWrapper):
    """Flag (and optionally penalize) format gaming; see :func:`detect_format_gaming`.

    Args:
        env: The environment to wrap.
        penalty: Added to the reward when the detector fires; 0 flags only.
        think_tag, answer_tag: Tag names of the expected format (R1-style by default).
    """

    name = NAME

    def __init__(self, env: gymnasium.Env, penalty: float = 0.0, think_tag: str = "think", answer_tag: str = "answer"):
        super().__init__(env, penalty)
        self.think_tag, self.answer_tag = think_tag, answer_tag

    def detect(self, task: Task, completion: str, result: RewardResult, truncated: bool) -> Detection:
        return detect_format_gaming(completion, self.think_tag, self.answer_tag, format_component(result))
