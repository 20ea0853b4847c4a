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

from rlenv.boxed import NUMBER, boxed_spans, unwrap_boxed

#: All anchored formats, in the default priority order.
ANSWER_FORMATS: tuple[str, ...] = ("boxed", "gsm8k", "answer_tag", "answer_is")
#: The name reported for answers found by the last-number fallback.
LAST_NUMBER = "last_number"

_GSM8K = re.compile(r"####[ \t]*([^\n]*)")
_ANSWER_TAGS = re.compile(r"<(/?)answer>", re.I)
_ANSWER_IS = re.compile(
    r"(?:\bfinal\s+answer\s*:\s*(?:the\s+final\s+answer\s+is\b)?"
    r"|\b(?:the\s+)?(?:final\s+)?answer\s+is\b\s*:?"
    r"|\banswer\s*:)",
    re.I,
)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\bI hope\b")
_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_THINK_END = "</think>"
_SINGLE_LETTER_FONT = re.compile(r"\\math(?:rm|it)\s*\{\s*([A-Za-z])\s*\}")


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


def boxed_answers(text: str) -> list[str]:
    """Contents of the top-level ``\\boxed``/``\\fbox`` commands of ``text``, in order (see
    :func:`rlenv.boxed.boxed_spans`, the reading the hack detectors share)."""
    return [text[start:end] for start, end in boxed_spans(text)]


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


def clean_answer(answer: str) -> str:
    """An answer ready to parse: math delimiters, a whole-answer ``\\boxed{}``, the unicode minus
    and single-letter fonts (``\\mathrm{e}`` -> ``e``) removed."""
    answer = unwrap_boxed(strip_math_delimiters(answer.replace("\u2212", "-")))
    return _SINGLE_LETTER_FONT.sub(r"\1", answer).strip()


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
        stop = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        line_end = text.find("\n", match.end(), stop)
        answers.append(_sentence_answer(text[match.end():stop if line_end == -1 else line_end]))
    return answers


def _answer_tag_answers(text: str) -> list[str]:
    """Contents of ``<answer>…</answer>`` pairs (a closing tag pairs with the last opening one)."""
    answers, opened = [], None
    for match in _ANSWER_TAGS.finditer(text):
        if not match.group(1):
            opened = match.end()
        elif opened is not None:
            answers.append(strip_math_delimiters(text[opened:match.start()]))
            opened = None
    return answers


def _format_answers(text: str, fmt: str) -> list[str]:
    if fmt == "boxed":
        return boxed_answers(text)
    if fmt == "gsm8k":
        return [_tidy(m.group(1)) for m in _GSM8K.finditer(text)]
    if fmt == "answer_tag":
        return _answer_tag_answers(text)
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
        numbers = NUMBER.findall(text)
        if numbers:
            return Extraction(LAST_NUMBER, (numbers[-1],))
    return Extraction(None, ())
