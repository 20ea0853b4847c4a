"""Finding the final-answer spans of a completion and comparing answers, for the hack detectors.

Detectors must work with any environment, so this module reads the answer conventions seen in
the wild: ``\\boxed{}`` / ``\\fbox{}``, ``<answer>…</answer>``, ``#### 42``
and "the answer is 42" / "Answer: 42". Boxes, braces and numbers are read by :mod:`rlenv.boxed`,
exactly as the math verifier reads them. :func:`answer_key` maps an answer to a canonical string so that ``\\boxed{18}``,
``The answer is $18.`` and ``18 dollars`` compare equal and ``\\frac{1}{2}`` equals ``0.5``.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from rlenv.boxed import BOXED, NUMBER, brace_pairs
from rlenv.boxed import boxed_spans as find_boxed

_HASHES = re.compile(r"^[ \t]*####[ \t]*(.+?)[ \t]*$", re.MULTILINE)
_MARKER = re.compile(r"\b(?:final\s+answer|(?:possible|candidate|potential)\s+answers|candidates|answer)\s*(?:is|are|:|=)\s*(?::\s*)?",
                     re.IGNORECASE)
_SENTENCE_END = re.compile(r"\n|\.(?=\s|$)|;|!|\?")
_MAX_MARKER_WORDS = 6
#: A stated answer longer than this many characters is not an answer (and is never copied out).
MAX_ANSWER_CHARS = 1000

_LATEX_NOISE = re.compile(r"\\[,;:!]|\\left|\\right|\\displaystyle|~|\\\(|\\\)|\\\[|\\\]|\*\*")
_TEXT_CMD = re.compile(r"\\(?:text|textbf|mathrm|mathbf|operatorname|mbox)\s*\{([^{}]*)\}")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_UNIT_TAIL = re.compile(r"^\s*(?P<sign>-)?\s*\$?\s*(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+)"
                        r"\s*(?:\\?%|percent)?(?:\s+(?P<tail>[A-Za-z][A-Za-z .'/-]*))?\s*$")
_SIMPLE_FRACTION = re.compile(r"^\(?([-+]?\d+(?:\.\d+)?)\)?/\(?([-+]?\d+(?:\.\d+)?)\)?$")
_OPEN = "([{"
_CLOSE = ")]}"


@dataclasses.dataclass(frozen=True)
class AnswerSpan:
    """One place where a completion states a final answer.

    Attributes:
        text: The stated answer (the inside of the box, tag or marker phrase).
        start, end: Character offsets of ``text`` in the completion.
        source: ``"boxed"``, ``"tag"``, ``"hashes"`` or ``"marker"``.
    """

    text: str
    start: int
    end: int
    source: str


def boxed_spans(text: str) -> list[AnswerSpan]:
    """The answers of every top-level ``\\boxed{…}`` / ``\\fbox{…}`` and ``\\boxed 5``, read exactly as the
    math verifier reads them (:func:`rlenv.boxed.boxed_spans`), up to :data:`MAX_ANSWER_CHARS`
    characters each."""
    return [AnswerSpan(text[start:end], start, end, "boxed") for start, end in find_boxed(text)
            if end - start <= MAX_ANSWER_CHARS]


def prose_words(text: str) -> int:
    """How many words of two or more letters ``text`` has once LaTeX is stripped (math has none)."""
    return len(re.findall(r"[A-Za-z]{2,}", strip_latex(text)))


def tag_pattern(name: str, closing: bool) -> re.Pattern[str]:
    """The regex of ``<name>`` (or ``</name>`` when ``closing``), spaces allowed, case-insensitive."""
    return re.compile(rf"<\s*{'/' if closing else ''}\s*{re.escape(name)}\s*>", re.IGNORECASE)


def block_spans(text: str, tag: str) -> list[tuple[int, int, int, int]]:
    """``(open_start, content_start, content_end, close_end)`` of every ``<tag>…</tag>`` block.

    Each block ends at the first closing tag after its opening tag (case-insensitive); one
    linear pass, so thousands of unclosed tags cost no more than one.
    """
    opening, closing = tag_pattern(tag, False), tag_pattern(tag, True)
    spans, at = [], 0
    while (start := opening.search(text, at)) is not None:
        end = closing.search(text, start.end())
        if end is None:
            break
        spans.append((start.start(), start.end(), end.start(), end.end()))
        at = end.end()
    return spans


def blocks(text: str, tag: str) -> list[str]:
    """Contents of every ``<tag>…</tag>`` block (see :func:`block_spans`)."""
    return [text[a:b] for _, a, b, _ in block_spans(text, tag)]


def outside_blocks(text: str, *tags: str) -> str:
    """``text`` without its ``<tag>…</tag>`` blocks and stray ``<tag>`` / ``</tag>`` of each of ``tags``."""
    for tag in tags:
        kept, last = [], 0
        for start, _, _, end in block_spans(text, tag):
            kept.append(text[last:start])
            last = end
        text = " ".join(kept + [text[last:]])
        text = tag_pattern(tag, False).sub(" ", text)
        text = tag_pattern(tag, True).sub(" ", text)
    return text.strip()


def _marker_spans(text: str) -> list[AnswerSpan]:
    spans = []
    for match in _MARKER.finditer(text):
        start = match.end()
        stop = _SENTENCE_END.search(text, start)
        end = stop.start() if stop else len(text)
        value = text[start:end].strip()
        if not value or prose_words(value) > _MAX_MARKER_WORDS:
            continue
        if not re.search(r"\d|\\", value) and prose_words(value) > 3:
            continue
        offset = text.index(value, start)
        spans.append(AnswerSpan(value, offset, offset + len(value), "marker"))
    return spans


def answer_spans(text: str) -> list[AnswerSpan]:
    """Every final-answer span of ``text`` (boxed, answer tags, ``####``, answer markers), by position.

    Spans longer than :data:`MAX_ANSWER_CHARS` are dropped. A marker phrase is kept only when it
    is short (at most 6 words, not counting math) and looks like an answer (a digit or LaTeX, or at
    most 3 words), so "Answer: let's think step by step" is not an answer.
    """
    boxes = boxed_spans(text)
    spans = boxes + [AnswerSpan(text[a:b], a, b, "tag") for _, a, b, _ in block_spans(text, "answer")
                     if b - a <= MAX_ANSWER_CHARS]
    spans += [AnswerSpan(m.group(1), m.start(1), m.end(1), "hashes") for m in _HASHES.finditer(text)]
    # a marker phrase around boxes ("the answer is \boxed{4}") is represented by its boxes
    spans += [s for s in _marker_spans(text) if not any(s.start <= b.start < s.end for b in boxes)]
    return sorted(spans, key=lambda s: (s.start, s.end))


def unbox(text: str) -> str:
    """``text`` with every ``\\boxed{X}`` / ``\\fbox{X}`` replaced by ``X`` (linear time)."""
    if BOXED.search(text) is None:
        return text
    pairs = brace_pairs(text)
    keep = bytearray(b"\x01") * len(text)
    for match in BOXED.finditer(text):
        at = match.end()
        while at < len(text) and text[at] in " \t":
            at += 1
        end = at + 1 if at < len(text) and text[at] == "{" else at
        keep[match.start() : end] = bytes(end - match.start())
        if end > at and at in pairs:
            keep[pairs[at]] = 0
    return "".join(ch for ch, k in zip(text, keep, strict=True) if k)


def strip_latex(text: str) -> str:
    """Remove LaTeX wrappers that do not change an answer's value (``$``, ``\\text{}``, boxes, spacing)."""
    out = unbox(text)
    for _ in range(3):  # nested \text{...} wrappers
        out = _TEXT_CMD.sub(r"\1", out)
    out = _FRAC.sub(r"(\1)/(\2)", out)
    out = _LATEX_NOISE.sub("", out).replace("$", "")
    for old, new in (("\\times", "*"), ("\\cdot", "*"), ("×", "*"), ("\\div", "/"), ("÷", "/"), ("\\%", "%")):
        out = out.replace(old, new)
    return out.strip()


def parse_number(text: str) -> Fraction | None:
    """The exact value of a plain number (``1,234.5``, ``-3``, ``$18``, ``18 dollars``, ``3/4``), else None."""
    text = text.strip().rstrip(".").strip()
    match = _UNIT_TAIL.match(text)
    if match:
        value = Fraction(match.group("num").replace(",", ""))
        return -value if match.group("sign") else value
    match = _SIMPLE_FRACTION.match(text.replace(" ", ""))
    if match and Fraction(match.group(2)) != 0:
        return Fraction(match.group(1)) / Fraction(match.group(2))
    return None


def answer_key(text: str) -> str:
    """A canonical form of an answer: equal keys mean the same stated answer.

    Numbers become exact fractions (``"18"``, ``"3/4"``); ``x = 3`` becomes ``3``; anything else
    is the LaTeX-stripped, lower-cased text without spaces.
    """
    plain = strip_latex(text).strip().rstrip(".").strip()
    if "=" in plain and "==" not in plain:
        plain = plain.rsplit("=", 1)[1].strip()
    value = parse_number(plain)
    if value is not None:
        return str(value)
    return re.sub(r"\s+", "", plain).lower().strip("{}")


def split_top_level(text: str, separators: re.Pattern[str]) -> list[str]:
    """Split ``text`` on matches of ``separators`` that lie outside any brackets."""
    boundaries = {m.start(): m.end() for m in separators.finditer(text) if m.end() > m.start()}
    parts, depth, last, i = [], 0, 0, 0
    while i < len(text):
        if depth == 0 and i in boundaries:
            parts.append(text[last:i])
            last = i = boundaries[i]
            continue
        if text[i] in _OPEN:
            depth += 1
        elif text[i] in _CLOSE:
            depth = max(0, depth - 1)
        i += 1
    parts.append(text[last:])
    return [p.strip() for p in parts if p.strip()]


# ``,`` not followed by exactly three digits (a thousands separator), ``;``, ``or``, ``and``, ``and/or``, ``to``.
_ALTERNATIVES = re.compile(r",(?!\d{3}(?!\d))|;|\s+and/or\s+|\s+or\s+|\\lor|\\vee|\s+and\s+|\s+to\s+|\\text\{\s*(?:or|to)\s*\}|\\quad")


def answer_parts(text: str) -> list[str]:
    """The top-level items of an answer: ``"3 or 4"`` -> ``["3", "4"]``; ``"(1, 2)"`` stays one item."""
    plain = strip_latex(text)
    if plain.startswith("\\{") and plain.endswith("\\}"):
        plain = plain[2:-2]
    return split_top_level(plain, _ALTERNATIVES)


_SMALL = {word: n for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_SMALL.update({word: 10 * n for n, word in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)})
_SCALES = {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_NUMBER_WORD_RUN = re.compile(
    rf"\b(?:{'|'.join(sorted(_SMALL, key=len, reverse=True))}|{'|'.join(_SCALES)})"
    rf"(?:(?:[\s-]+|\s+and\s+)(?:{'|'.join(sorted(_SMALL, key=len, reverse=True))}|{'|'.join(_SCALES)}))*\b",
    re.IGNORECASE)
_CENTS = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)\s*(?:cents?\b|¢)", re.IGNORECASE)


def number_word_value(words: str) -> int:
    """The value of an English cardinal written in words (``three hundred forty-two`` -> 342,
    ``two dozen`` -> 24)."""
    total = current = 0
    for word in re.findall(r"[a-z]+", words.lower()):
        if word in _SMALL:
            current += _SMALL[word]
        elif word in ("hundred", "dozen"):
            current = max(current, 1) * _SCALES[word]
        elif word in _SCALES:
            total += max(current, 1) * _SCALES[word]
            current = 0
        elif word != "and":
            raise ValueError(f"{word!r} in {words!r} is not a number word")
    return total + current


def stated_values(text: str) -> set[Fraction]:
    """Every value ``text`` states: numbers in digits, cardinals in words (``twelve``), and amounts
    in cents read as dollars (``1250 cents`` is ``12.5``), so that ``$12.50 (1250 cents)`` and
    ``12 (twelve)`` state one value each. A lone ``one`` is read as a pronoun, not a value."""
    cents = {Fraction(m.group(1).replace(",", "")) / 100 for m in _CENTS.finditer(text)}
    digits = distinct_numbers(_CENTS.sub(" ", text.replace("$", " ")))
    words = {Fraction(number_word_value(m.group(0))) for m in _NUMBER_WORD_RUN.finditer(text)
             if m.group(0).lower() != "one"}  # "one could argue", "the one on the left"
    return digits | words | cents


def numbers_in(text: str) -> list[Fraction]:
    """Every plain number written in ``text`` (thousands separators and decimals understood)."""
    return [Fraction(m.group(0).replace(",", "")) for m in NUMBER.finditer(text)]


def distinct_numbers(text: str) -> set[Fraction]:
    """The set of :func:`numbers_in` ``text`` (each distinct spelling parsed once)."""
    return {Fraction(s.replace(",", "")) for s in set(NUMBER.findall(text))}


#: Answer-based detectors read only this many final characters: final answers sit at the end,
#: and the cost of a pathological completion stays bounded.
TAIL_CHARS = 50_000


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    """The last ``limit`` characters of ``text``."""
    return text[-limit:] if len(text) > limit else text

