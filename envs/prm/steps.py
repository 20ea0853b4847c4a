"""Splitting a completion into reasoning steps with exact character offsets."""

from __future__ import annotations

import dataclasses
import re

from rlenv.errors import check_choice

#: Splitting modes of :class:`StepSplitter`.
MODES = ("separator", "regex", "step_k", "lines")
#: Default header of the ``"step_k"`` mode: ``Step 1:``, ``step 2.``, ``Step 3)`` at a line start.
STEP_HEADER = r"(?im)^[ \t]*step[ \t]*\d+[ \t]*[:.)]"


@dataclasses.dataclass(frozen=True)
class Span:
    """One step: ``text[start:end]`` of the completion it came from."""

    start: int
    end: int
    text: str


class StepSplitter:
    """Split a completion into steps; ``completion[span.start:span.end] == span.text`` always holds.

    Modes:
        * ``"separator"``: split on the literal ``separator`` (default ``"\\n\\n"``, the Qwen2.5-Math-PRM convention).
        * ``"lines"``: split on ``"\\n"``.
        * ``"regex"``: split on every match of ``pattern`` (the matches are separators, not steps).
        * ``"step_k"``: a step starts at each header matching ``pattern`` (default :data:`STEP_HEADER`,
          ``Step k:`` at a line start) and runs to the next header; the header is part of the step.
          Non-blank text before the first header is a step of its own.

    With ``strip=True`` (default) each span is shrunk to exclude surrounding whitespace, and
    whitespace-only pieces are dropped, so spans never cover separators or blank lines.

    Example::

        StepSplitter("step_k").split("Step 1: 2 + 2 = 4\\nStep 2: 4 * 3 = 12")
        # [Span(0, 17, 'Step 1: 2 + 2 = 4'), Span(18, 36, 'Step 2: 4 * 3 = 12')]
    """

    def __init__(self, mode: str = "separator", separator: str = "\n\n", pattern: str | None = None,
                 strip: bool = True):
        check_choice("mode", mode, MODES)
        if mode == "separator" and not separator:
            raise ValueError("separator must be a non-empty string")
        if mode == "regex" and not pattern:
            raise ValueError("mode='regex' needs pattern= (a regular expression matching the separators)")
        if mode in ("separator", "lines") and pattern is not None:
            raise ValueError(f"pattern is not used by mode={mode!r}")
        self.mode = mode
        self.separator = "\n" if mode == "lines" else separator
        self.pattern = pattern if pattern is not None else (STEP_HEADER if mode == "step_k" else None)
        self.strip = strip
        self._regex = re.compile(self.pattern) if self.pattern is not None else None
        if self._regex is not None and self._regex.search("") is not None:
            raise ValueError(f"pattern {self.pattern!r} matches the empty string: every position would be a boundary")

    def split(self, text: str) -> list[Span]:
        """The steps of ``text``, in order."""
        return [span for start, end in self._pieces(text) if (span := self._span(text, start, end)) is not None]

    def _pieces(self, text: str) -> list[tuple[int, int]]:
        if self._regex is None:  # the separator and lines modes
            pieces, start = [], 0
            while (found := text.find(self.separator, start)) != -1:
                pieces.append((start, found))
                start = found + len(self.separator)
            return pieces + [(start, len(text))]
        matches = list(self._regex.finditer(text))
        if self.mode == "regex":
            bounds = [0] + [x for m in matches for x in (m.start(), m.end())] + [len(text)]
            return list(zip(bounds[::2], bounds[1::2]))
        starts = [m.start() for m in matches]
        starts = ([0] if not starts or starts[0] > 0 else []) + starts
        return list(zip(starts, starts[1:] + [len(text)]))

    def _span(self, text: str, start: int, end: int) -> Span | None:
        if self.strip:
            piece = text[start:end]
            start += len(piece) - len(piece.lstrip())
            end -= len(piece) - len(piece.rstrip())
            if start >= end:
                return None
        elif start == end:
            return None
        return Span(start, end, text[start:end])

    def __repr__(self) -> str:
        return f"StepSplitter(mode={self.mode!r}, separator={self.separator!r}, pattern={self.pattern!r})"
