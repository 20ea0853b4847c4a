"""Grading one completion against a reference answer with math-verify (runs in worker processes).

Policy (see also the README section "Math environments"):

* The answers come from :func:`envs.math.extraction.extract_answers`. None found, an empty
  answer, or a final answer longer than ``max_answer_chars``: ``unparsable``.
* **Hedging**: with ``hedging="all"`` (default) every different answer the completion commits to
  (all its ``\\boxed{}``, or all its ``####`` lines, ...) must be correct, so ``\\boxed{1} or
  \\boxed{2}`` is incorrect against ``1``; restating the same answer is fine. With
  ``hedging="last"`` only the final answer counts.
* **Parsing**: a plain number (optional sign, currency, thousands separators, decimals,
  ``%``/``percent`` and trailing unit words, e.g. ``$1,000``, ``18 dollars``, ``12.5%``) is read
  as that number; anything else is parsed as LaTeX inside ``\\boxed{}`` by math-verify, with
  ``\\mathrm{e}``-style single letters unwrapped first.
* **Comparison**: ``math_verify.verify(gold, prediction)``, gold first, math-verify's own
  timeouts off (the deadline is enforced by :mod:`envs.math.pool`). math-verify's leniencies
  stay: ``x = 3`` vs ``3``, ``10\\%`` vs ``10`` vs ``0.1``, ``\\frac{2}{4}`` vs ``\\frac12``,
  ``1+1`` vs ``2``, units text, set order.
* **Unparsed answers are compared as text**: when math-verify cannot turn one side into a sympy
  object (e.g. ``4\\sqrt(2)``, ``\\forall x>0, f(x)=0``), the two answers must be equal as
  normalized text. math-verify itself would compare a truncated fallback string, or a number
  salvaged from the failed expression, which is how its known false positives arise.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
from typing import Any

from envs.math.extraction import ANSWER_FORMATS, check_formats, extract_answers, strip_math_delimiters, unwrap_boxed

HEDGING_POLICIES = ("all", "last")

_PLAIN_NUMBER = re.compile(
    r"""^(?P<sign>[-+])?\s*(?:\\?\$|USD\s*|€|£)?\s*(?P<sign2>-)?\s*
    (?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    \s*(?P<percent>\\?%|percent\b)?
    (?:\s+[A-Za-z][A-Za-z\s'-]*)?\s*$""",
    re.X,
)
_SINGLE_LETTER_FONT = re.compile(r"\\math(?:rm|it)\s*\{\s*([A-Za-z])\s*\}")
_TEXT_NOISE = re.compile(r"\s+|\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|\\[,;:! ]|\\displaystyle|\$")
_FRAC_VARIANTS = re.compile(r"\\[dt]frac(?![a-zA-Z])")


@dataclasses.dataclass(frozen=True)
class GradingConfig:
    """How answers are found and compared (hashable: it keys the workers' caches).

    Attributes:
        formats: Answer formats in priority order (see :mod:`envs.math.extraction`).
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
        if self.hedging not in HEDGING_POLICIES:
            raise ValueError(f"hedging must be one of {HEDGING_POLICIES}, got {self.hedging!r}")
        for name in ("max_answer_chars", "max_answers"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")


@dataclasses.dataclass(frozen=True)
class ParsedAnswer:
    """An answer as text and as math-verify's parse (``values[0]`` is a sympy object when ``symbolic``)."""

    text: str
    values: tuple[Any, ...]

    @property
    def symbolic(self) -> bool:
        from sympy import Basic, MatrixBase

        return bool(self.values) and isinstance(self.values[0], (Basic, MatrixBase))


def clean_answer(answer: str) -> str:
    """Delimiters, a whole-answer ``\\boxed{}``, unicode minus and ``\\mathrm{e}``-style fonts removed."""
    answer = unwrap_boxed(strip_math_delimiters(answer.replace("\u2212", "-")))
    return _SINGLE_LETTER_FONT.sub(r"\1", answer).strip()


def comparable_text(answer: str) -> str:
    """The text used when an answer cannot be parsed: spacing, ``\\left``/``\\right``, ``$`` removed."""
    return _FRAC_VARIANTS.sub(r"\\frac", _TEXT_NOISE.sub("", answer))


def _balanced(text: str) -> bool:
    depth = 0
    for token in re.findall(r"\\.|[{}]", text, re.S):
        depth += token == "{"
        depth -= token == "}"
        if depth < 0:
            return False
    return depth == 0


@functools.lru_cache(maxsize=8192)
def parse_answer(answer: str) -> ParsedAnswer:
    """Parse one answer (already cleaned with :func:`clean_answer`) with math-verify."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse

    number = _PLAIN_NUMBER.match(answer)
    if number is not None:
        sign = "-" if "-" in (number["sign"] or "", number["sign2"] or "") else ""
        text = f"{sign}{number['number']}{'%' if number['percent'] else ''}"
        values = parse(text, [ExprExtractionConfig()], parsing_timeout=None)
    elif _balanced(answer):
        values = parse(f"\\boxed{{{answer}}}", [LatexExtractionConfig(boxed_match_priority=0)],
                       parsing_timeout=None)
    else:
        values = []
    return ParsedAnswer(answer, tuple(values))


def answers_match(gold: ParsedAnswer, pred: ParsedAnswer, config: GradingConfig) -> bool:
    """True when ``pred`` is equivalent to ``gold`` (math-verify, gold first; text when unparsed)."""
    from math_verify import verify

    if gold.symbolic and pred.symbolic:
        return verify(list(gold.values), list(pred.values), float_rounding=config.float_rounding,
                      numeric_precision=config.numeric_precision, strict=config.strict, timeout_seconds=None)
    return comparable_text(gold.text) == comparable_text(pred.text)


@functools.lru_cache(maxsize=8192)
def parse_reference(reference: str) -> ParsedAnswer:
    """The parsed gold answer (cached: each worker parses a reference once)."""
    cleaned = clean_answer(reference)
    if not cleaned:
        raise ValueError(f"the reference answer is empty after cleaning: {reference!r}")
    return parse_answer(cleaned)


def grade(config: GradingConfig, reference: str, completion: str) -> tuple[str, dict[str, Any]]:
    """Grade ``completion`` against ``reference``.

    Returns:
        ``(status, details)``: status is ``"correct"``, ``"incorrect"`` or ``"unparsable"``;
        details has ``format`` and ``answer`` (the final answer found), ``answers`` (all
        different answers, when there are several) and ``reason`` when not correct.
    """
    gold = parse_reference(reference)
    found = extract_answers(completion, config.formats, config.last_number)
    details: dict[str, Any] = {"format": found.format, "answer": found.final}
    if not found.answers:
        details["reason"] = f"no final answer in any of the formats {list(config.formats)}"
        return "unparsable", details
    distinct = list(dict.fromkeys(clean_answer(a) for a in found.answers))
    final = distinct.pop(distinct.index(clean_answer(found.final)))
    if not final:
        details["reason"] = "the final answer is empty"
        return "unparsable", details
    if len(final) > config.max_answer_chars:
        details["reason"] = f"the final answer has {len(final)} characters, over max_answer_chars={config.max_answer_chars}"
        return "unparsable", details
    others = [] if config.hedging == "last" else [a for a in distinct if a]
    if others:
        details["answers"] = others + [final]
    if len(others) + 1 > config.max_answers:
        details["reason"] = f"{len(others) + 1} different answers, over max_answers={config.max_answers}"
        return "incorrect", details
    if not answers_match(gold, parse_answer(final), config):
        details["reason"] = "the final answer does not match the reference"
        return "incorrect", details
    for other in others:
        if len(other) > config.max_answer_chars or not answers_match(gold, parse_answer(other), config):
            details["reason"] = f"hedged: it also commits to {other[:200]!r}, which does not match the reference"
            return "incorrect", details
    return "correct", details


def grade_item(config: GradingConfig, payload: tuple[str, str]) -> tuple[str, dict[str, Any]]:
    """Worker-pool handler: ``payload = (reference, completion)``."""
    return grade(config, *payload)


def init_worker() -> None:
    """Worker-pool initializer: import math-verify up front (so the first check's deadline does not
    pay for it) and silence its "timeout is disabled" warning (the pool enforces deadlines)."""
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    grade(GradingConfig(), "1", "\\boxed{\\frac{2}{2}}")
