"""A completion (or a part of it) must match a regular expression."""

from __future__ import annotations

import re
from typing import Any

from rlenv.envs.format.base import FormatVerifier
from rlenv.errors import check_choice
from rlenv.types import Task

#: Matching modes of :class:`RegexFormat`.
MODES = ("fullmatch", "search")
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


def parse_flags(flags: str | int) -> int:
    """``re`` flags from letters (``"ims"``: IGNORECASE, MULTILINE, DOTALL; ``"x"``: VERBOSE) or an int."""
    if isinstance(flags, int):
        return flags
    unknown = set(flags) - set(_FLAGS)
    if unknown:
        raise ValueError(f"unknown regex flag letter(s) {sorted(unknown)} in {flags!r}: expected some of 'imsx'")
    value = 0
    for letter in flags:
        value |= _FLAGS[letter]
    return value


class RegexFormat(FormatVerifier):
    """The completion must match ``pattern``: the whole completion (``fullmatch``, default) or anywhere (``search``).

    Args:
        pattern: A regular expression.
        mode: ``"fullmatch"`` or ``"search"``.
        flags: Letters ``"imsx"`` or an ``re`` flag int.
        strip: Strip surrounding whitespace before matching (default True).

    ``details["groups"]`` holds the named groups of the match.

    Example::

        RegexFormat(r"Answer: -?\\d+")(task, "Answer: 42").value    # 1.0
    """

    name = "regex_format"
    version = "1"

    def __init__(self, pattern: str, mode: str = "fullmatch", flags: str | int = "", strip: bool = True):
        super().__init__(partial_credit=False)
        check_choice("mode", mode, MODES)
        try:
            self.regex = re.compile(pattern, parse_flags(flags))
        except re.error as exc:
            raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
        self.mode = mode
        self.strip = strip

    def check(self, task: Task, completion: str) -> tuple[dict[str, bool], dict[str, Any]]:
        text = completion.strip() if self.strip else completion
        match = self.regex.fullmatch(text) if self.mode == "fullmatch" else self.regex.search(text)
        details = {"groups": match.groupdict()} if match else {}
        return {self.mode: match is not None}, details
