"""Boxed answers and numbers in model text: the one reading shared by the math verifier
(the math family's answer extraction) and the hack detectors (:mod:`rlenv.wrappers.answers`), so a
detector inspects exactly the answers the verifier grades.
"""

from __future__ import annotations

import re

#: ``\boxed`` / ``\fbox`` (not ``\boxedfoo``).
BOXED = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")
#: A plain number written in text: optional sign, thousands separators, decimals, not glued to a
#: word or another number (``x2``, ``1.2.3``).
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)")
_BRACE_TOKENS = re.compile(r"\\.|[{}]", re.S)


def brace_pairs(text: str) -> dict[int, int]:
    """``{open_index: close_index}`` for every matched brace pair of ``text`` (one linear pass).

    Escaped ``\\{``/``\\}`` do not count (``\\\\{`` is a line break then a brace, which does);
    unmatched braces are left out.
    """
    pairs, stack = {}, []
    for match in _BRACE_TOKENS.finditer(text):
        token = match.group()
        if token == "{":
            stack.append(match.start())
        elif token == "}" and stack:
            pairs[stack.pop()] = match.start()
    return pairs


def braces_balanced(text: str) -> bool:
    """True when every ``{`` of ``text`` is closed and no ``}`` comes unopened (escapes ignored)."""
    depth = 0
    for match in _BRACE_TOKENS.finditer(text):
        depth += {"{": 1, "}": -1}.get(match.group(), 0)
        if depth < 0:
            return False
    return depth == 0


def _unwrap_span(text: str, pairs: dict[int, int], start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` of ``text[start:end]`` stripped, with boxes that wrap all of it removed."""
    while True:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        match = BOXED.match(text, start, end)
        if match is None or match.end() >= end or text[match.end()] != "{" or pairs.get(match.end()) != end - 1:
            return start, end
        start, end = match.end() + 1, end - 1


def boxed_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the content of every top-level ``\\boxed``/``\\fbox`` of ``text``, in order.

    Nested braces are matched (escaped ``\\{``/``\\}`` do not count); a box nested in another
    box is part of the outer answer, and a box wrapping the whole content is unwrapped; an
    unclosed box (a cut-off completion) is skipped; ``\\boxed 5`` takes the next token.
    """
    spans: list[tuple[int, int]] = []
    pairs: dict[int, int] | None = None
    position = 0
    for match in BOXED.finditer(text):
        if match.start() < position:
            continue  # inside the previous box
        start = match.end()
        while start < len(text) and text[start] in " \t":
            start += 1
        if start < len(text) and text[start] == "{":
            pairs = brace_pairs(text) if pairs is None else pairs
            end = pairs.get(start)
            if end is None:
                continue
            spans.append(_unwrap_span(text, pairs, start + 1, end))
            position = end + 1
        else:
            token = re.split(r"[\s$]", text[start:start + 200], maxsplit=1)[0]
            spans.append((start, start + len(token)))
            position = start + len(token)
    return spans


def unwrap_boxed(answer: str) -> str:
    """``\\boxed{X}`` (the whole string) -> ``X``, repeatedly; anything else unchanged (stripped)."""
    start, end = _unwrap_span(answer, brace_pairs(answer), 0, len(answer))
    return answer[start:end]
