"""Finding the final answer(s) a completion commits to.

Pure text processing (no sympy, no math-verify), so it is cheap and safe to run anywhere.
Supported formats, tried in the order the caller lists them; the first format with at least one
non-empty answer supplies *all* its answers (so the grader can see hedging):

* ``"boxed"``: every top-level ``\\boxed{...}`` / ``\\fbox{...}`` with nested braces
  (``\\boxed 5`` without braces takes the next token);
* ``"gsm8k"``: ``#### 42`` (the rest of the line);
* ``"answer_tag"``: ``<answer>...</answer>``;
* ``"answer_is"``: ``the answer is X``, ``the final answer is $X$. I hope it is correct.``,
  ``Final Answer: X``, ``Answer: X`` (up to the end of the sentence or line);
* the opt-in last-number fallback (:data:`LAST_NUMBER`), used only when no listed format matched.

Text before the last ``</think>`` is reasoning and is never searched.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

#: All anchored formats, in the default priority order.
ANSWER_FORMATS: tuple[str, ...] = ("boxed", "gsm8k", "answer_tag", "answer_is")
#: The name reported for answers found by the last-number fallback.
LAST_NUMBER = "last_number"

_BOXED = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
_BRACE_TOKENS = re.compile(r"\\.|[{}]", re.S)
_GSM8K = re.compile(r"####[ \t]*([^\n]*)")
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_ANSWER_IS = re.compile(
    r"(?:\bfinal\s+answer\s*:\s*(?:the\s+final\s+answer\s+is\b)?"
    r"|\b(?:the\s+)?(?:final\s+)?answer\s+is\b\s*:?"
    r"|\banswer\s*:)",
    re.I,
)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\bI hope\b")
_NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_THINK_END = "</think>"


@dataclasses.dataclass(frozen=True)
class Extraction:
    """The answers found in a completion.

    Attributes:
        format: The format that supplied the answers (one of :data:`ANSWER_FORMATS` or
            :data:`LAST_NUMBER`), or None when nothing was found.
        answers: Every non-empty answer of that format, in order of appearance; the last one
            is the final answer. Empty when nothing was found.
    """

    format: str | None
    answers: tuple[str, ...]

    @property
    def final(self) -> str | None:
        """The last answer, or None."""
        return self.answers[-1] if self.answers else None


def _group_end(text: str, open_brace: int) -> int | None:
    """Index of the ``}`` closing the group that opens at ``text[open_brace] == "{"``."""
    depth = 0
    for match in _BRACE_TOKENS.finditer(text, open_brace):
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return match.start()
    return None


def boxed_answers(text: str) -> list[str]:
    """Contents of the top-level ``\\boxed``/``\\fbox`` commands of ``text``, in order.

    Nested braces are matched (escaped ``\\{``/``\\}`` do not count); a box nested in another
    box is part of the outer answer; an unclosed box (a cut-off completion) is skipped.
    """
    answers = []
    position = 0
    for match in _BOXED.finditer(text):
        if match.start() < position:
            continue  # inside the previous box
        start = match.end()
        while start < len(text) and text[start] in " \t":
            start += 1
        if start < len(text) and text[start] == "{":
            end = _group_end(text, start)
            if end is None:
                continue
            answers.append(unwrap_boxed(text[start + 1:end].strip()))
            position = end + 1
        else:
            token = re.match(r"[^\s$]*", text[start:]).group()
            answers.append(token)
            position = start + len(token)
    return answers


def unwrap_boxed(answer: str) -> str:
    """``\\boxed{X}`` (the whole string) -> ``X``, repeatedly; anything else unchanged."""
    while True:
        match = _BOXED.match(answer)
        if match is None or answer[match.end():match.end() + 1] != "{":
            return answer
        end = _group_end(answer, match.end())
        if end != len(answer) - 1:
            return answer
        answer = answer[match.end() + 1:end].strip()


def last_boxed(text: str) -> str | None:
    """The content of the last top-level ``\\boxed{}`` in ``text`` (None when there is none)."""
    answers = boxed_answers(text)
    return answers[-1] if answers else None


def strip_math_delimiters(text: str) -> str:
    """``$x$``, ``$$x$$``, ``\\(x\\)``, ``\\[x\\]`` -> ``x`` (only when they wrap the whole text)."""
    text = text.strip()
    for opening, closing in _DELIMITERS:
        if len(text) >= len(opening) + len(closing) and text.startswith(opening) and text.endswith(closing):
            inner = text[len(opening):len(text) - len(closing)]
            if closing not in inner:
                return inner.strip()
    return text


def _tidy(answer: str) -> str:
    """Strip whitespace, markdown bold and a final period/comma from a plain-text answer."""
    answer = answer.strip().strip("*").strip()
    return answer.rstrip(".,;").strip()


def _sentence_answer(tail: str) -> str:
    """The answer that follows an ``answer is`` anchor: a math span, or text up to the sentence end."""
    tail = tail.strip().lstrip(":").strip().lstrip("*").strip()
    for opening, closing in _DELIMITERS:
        if tail.startswith(opening):
            end = tail.find(closing, len(opening))
            if end != -1:
                return tail[len(opening):end].strip()
    end = _SENTENCE_END.search(tail)
    return _tidy(tail if end is None else tail[:end.start()])


def _answer_is_answers(text: str) -> list[str]:
    matches = list(_ANSWER_IS.finditer(text))
    answers = []
    for n, match in enumerate(matches):
        line_end = text.find("\n", match.end())
        stop = len(text) if line_end == -1 else line_end
        if n + 1 < len(matches):
            stop = min(stop, matches[n + 1].start())
        answers.append(_sentence_answer(text[match.end():stop]))
    return answers


def _format_answers(text: str, fmt: str) -> list[str]:
    if fmt == "boxed":
        return boxed_answers(text)
    if fmt == "gsm8k":
        return [_tidy(m.group(1)) for m in _GSM8K.finditer(text)]
    if fmt == "answer_tag":
        return [strip_math_delimiters(m.group(1)) for m in _ANSWER_TAG.finditer(text)]
    if fmt == "answer_is":
        return _answer_is_answers(text)
    raise ValueError(f"unknown answer format {fmt!r}: expected one of {ANSWER_FORMATS}")


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """Validate a format list (non-empty, known names, no repeats) and return it as a tuple."""
    formats = tuple(formats)
    unknown = [f for f in formats if f not in ANSWER_FORMATS]
    if unknown or not formats or len(set(formats)) != len(formats):
        raise ValueError(f"formats must be distinct names from {ANSWER_FORMATS}, got {formats!r}")
    return formats


def extract_answers(
    completion: str, formats: Sequence[str] = ANSWER_FORMATS, last_number: bool = False
) -> Extraction:
    """Find the answers ``completion`` commits to.

    Args:
        completion: The model's text.
        formats: Anchored formats in priority order (see the module docstring).
        last_number: When no anchored format matches, fall back to the last number in the text.

    Returns:
        The :class:`Extraction` of the first format (in ``formats`` order) with a non-empty
        answer; ``Extraction(None, ())`` when there is none.
    """
    think_end = completion.rfind(_THINK_END)
    text = completion if think_end == -1 else completion[think_end + len(_THINK_END):]
    for fmt in formats:
        answers = tuple(a for a in _format_answers(text, fmt) if a)
        if answers:
            return Extraction(fmt, answers)
    if last_number:
        numbers = _NUMBER.findall(text)
        if numbers:
            return Extraction(LAST_NUMBER, (numbers[-1],))
    return Extraction(None, ())
