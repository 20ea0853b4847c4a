"""Settings of the math grader (light: no math-verify import, so the parent process stays lean)."""

from __future__ import annotations

import dataclasses

from rlenv.envs.math.extraction import ANSWER_FORMATS, check_formats
from rlenv.errors import check_choice

HEDGING_POLICIES = ("all", "last")


@dataclasses.dataclass(frozen=True)
class GradingConfig:
    """How answers are found and compared (hashable: it keys the workers' caches).

    Attributes:
        formats: Answer formats in priority order (see :mod:`rlenv.envs.math.extraction`).
        last_number: Fall back to the last number when no format matches.
        hedging: ``"all"`` (every different answer must be correct) or ``"last"``.
        max_answer_chars: Longer answers are not parsed (a final one is ``unparsable``).
        max_answers: More different answers than this is ``incorrect`` without parsing them.
        float_rounding, numeric_precision, strict: Passed to ``math_verify.verify``.
    """

    formats: tuple[str, ...] = ANSWER_FORMATS
    last_number: bool = False
    hedging: str = "all"
    max_answer_chars: int = 1000
    max_answers: int = 8
    float_rounding: int = 6
    numeric_precision: int = 15
    strict: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "formats", check_formats(self.formats))
        check_choice("hedging", self.hedging, HEDGING_POLICIES)
        for name in ("max_answer_chars", "max_answers"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
