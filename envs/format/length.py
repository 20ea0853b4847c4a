"""Length bounds on a completion, in characters, words or lines."""

from __future__ import annotations

from typing import Any

from rlenv.envs.format.base import FormatVerifier
from rlenv.errors import check_choice
from rlenv.types import Task

#: Units :class:`LengthBounds` can count.
UNITS = ("chars", "words", "lines")


def measure(text: str, unit: str) -> int:
    """Length of ``text`` in ``unit``: characters, whitespace-separated words or non-blank lines."""
    if unit == "chars":
        return len(text)
    if unit == "words":
        return len(text.split())
    if unit == "lines":
        return sum(1 for line in text.splitlines() if line.strip())
    raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")


class LengthBounds(FormatVerifier):
    """``min_length <= length(completion) <= max_length`` (either bound optional), counted in ``unit``.

    Example::

        LengthBounds(max_length=50, unit="words")(task, "short answer").value    # 1.0
    """

    name = "length_bounds"
    version = "1"

    def __init__(self, min_length: int | None = None, max_length: int | None = None, unit: str = "chars"):
        super().__init__(partial_credit=False)
        check_choice("unit", unit, UNITS)
        if min_length is None and max_length is None:
            raise ValueError("give min_length, max_length or both")
        for name, bound in (("min_length", min_length), ("max_length", max_length)):
            if bound is not None and (not isinstance(bound, int) or isinstance(bound, bool) or bound < 0):
                raise ValueError(f"{name} must be a non-negative int or None, got {bound!r}")
        if min_length is not None and max_length is not None and min_length > max_length:
            raise ValueError(f"min_length={min_length} exceeds max_length={max_length}")
        self.min_length, self.max_length, self.unit = min_length, max_length, unit

    def check(self, task: Task, completion: str) -> tuple[dict[str, bool], dict[str, Any]]:
        length = measure(completion, self.unit)
        checks = {}
        if self.min_length is not None:
            checks["min_length"] = length >= self.min_length
        if self.max_length is not None:
            checks["max_length"] = length <= self.max_length
        return checks, {"length": length, "unit": self.unit}
