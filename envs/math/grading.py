"""Grading one completion against a reference answer with math-verify (runs in worker processes).

Policy (see also the README section "Math environments"):

* The answers come from :func:`rlenv.envs.math.extraction.extract_answers`. None found, an empty
  answer, or a final answer longer than ``max_answer_chars``: ``unparsable``.
* **Hedging**: with ``hedging="all"`` (default) every different answer the completion commits to
  (all its ``\\boxed{}``, or all its ``####`` lines, ..., and the final answer another format
  restates) must be correct, so ``\\boxed{1} or \\boxed{2}`` and ``\\boxed{69}`` then ``#### 96``
  are incorrect against ``1`` and ``69``; restating the same answer is fine. With
  ``hedging="last"`` only the final answer counts.
* **Normalization**: :func:`rlenv.envs.math.normalization.normalize_answer`, in one fixed order
  (unwrap the value, numerals and words, structure, notation).
* **Parsing**: a plain number (optional sign, currency, thousands separators, decimals,
  ``%``/``percent`` and trailing unit words, of one letter only SI units (``5 m``, not ``2 x``),
  e.g. ``$1,000``, ``18 dollars``, ``12.5%``) is read as that number; anything else is parsed
  as LaTeX inside ``\\boxed{}`` by math-verify, with ``\\mathrm{e}``-style single letters
  unwrapped first.
* **Comparison**: ``math_verify.verify(gold, prediction)``, gold first, math-verify's own
  timeouts off (the deadline is enforced by :mod:`rlenv.scoring.worker_pool`). math-verify's leniencies
  stay: ``x = 3`` vs ``3``, ``10\\%`` vs ``10`` vs ``0.1``, ``\\frac{2}{4}`` vs ``\\frac12``,
  ``1+1`` vs ``2``, units text, set order.
* **Notations math-verify misreads** (:mod:`rlenv.envs.math.answer_forms`): degrees (``90°``),
  repeating decimals, scalar-times-matrix, Unicode math, thousands separators, inequalities as
  intervals, the spacing of ``i`` and a final period are rewritten before parsing; numbers with a
  base subscript, multiple-choice letters (and lists of them) and text answers
  (``\\text{an ellipse}``) are compared by their form.
* **Compared before math-verify**: units by value after conversion
  (:mod:`rlenv.envs.math.quantities`), clock times and ratios by form (a colon is never a
  division), a choice letter's option value against a value gold; after parsing, a relation in
  solved form against a set by the set it describes, and a decimal never equals an exact value it
  cannot write (:func:`inexact_for`).
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

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
from sympy import Abs, Basic, Float, Integer, MatrixBase, Rational, Set
from sympy.core.relational import Relational
from sympy.logic.boolalg import Boolean

from rlenv.boxed import braces_balanced
from rlenv.envs.math.answer_forms import choice_letter, choice_value, compare_forms, decimal_comma
from rlenv.envs.math.config import GradingConfig
from rlenv.envs.math.extraction import clean_answer, extract_answers
from rlenv.envs.math.normalization import normalize_answer
from rlenv.envs.math.quantities import compare_quantities

_PLAIN_NUMBER = re.compile(
    r"""^(?P<sign>[-+])?\s*(?:\\?\$|USD\s*|€|£)?\s*(?P<sign2>-)?\s*
    (?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    \s*(?P<percent>\\?%|percent\b)?
    (?:\s+(?:[A-Za-z][A-Za-z'-]+|[mgshLKNJWV])(?:/[A-Za-z]+)?)*\s*$""",  # unit words (km/h); one letter only for SI units, not x or i
    re.X,
)
_TEXT_NOISE = re.compile(r"\s+|\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|\\[,;:! ]|\\displaystyle|\$")
_FRAC_VARIANTS = re.compile(r"\\[dt]frac(?![a-zA-Z])")


@dataclasses.dataclass(frozen=True)
class ParsedAnswer:
    """An answer as text and as math-verify's parse (``values[0]`` is a sympy object when ``symbolic``)."""

    text: str
    values: tuple[Any, ...]

    @property
    def symbolic(self) -> bool:
        return bool(self.values) and isinstance(self.values[0], (Basic, MatrixBase))


def comparable_text(answer: str) -> str:
    """The text used when an answer cannot be parsed: spacing, ``\\left``/``\\right``, ``$`` removed."""
    return _FRAC_VARIANTS.sub(r"\\frac", _TEXT_NOISE.sub("", answer))


@functools.lru_cache(maxsize=8192)
def parse_answer(answer: str) -> ParsedAnswer:
    """Parse one answer (already cleaned with :func:`clean_answer`) with math-verify.

    Plain integers skip math-verify's number parser (``sympy.Number(str)`` is slow) and become
    ``Integer`` directly, which is what that parser would build.
    """
    text, answer = answer, normalize_answer(answer)
    number = _PLAIN_NUMBER.match(answer)
    if number is not None:
        sign = "-" if "-" in (number["sign"] or "", number["sign2"] or "") else ""
        digits = number["number"].replace(",", "")
        if digits.isdigit() and not number["percent"]:
            return ParsedAnswer(text, (Integer(int(sign + digits)), str(int(sign + digits))))
        plain = f"{sign}{number['number']}{'%' if number['percent'] else ''}"
        values = parse(plain, [ExprExtractionConfig()], parsing_timeout=None)
    elif braces_balanced(answer):
        values = parse(f"\\boxed{{{answer}}}", [LatexExtractionConfig(boxed_match_priority=0)],
                       parsing_timeout=None)
    else:
        values = []
    return ParsedAnswer(text, tuple(values))


def answers_match(gold: ParsedAnswer, pred: ParsedAnswer, config: GradingConfig) -> bool:
    """True when ``pred`` is equivalent to ``gold``: by form for the notations of
    :func:`~rlenv.envs.math.answer_forms.compare_forms`, by value after unit conversion
    (:mod:`~rlenv.envs.math.quantities`), else by math-verify, gold first (a relation in one
    variable against a set by the set it describes; a decimal never equals an exact value it
    cannot write, see :func:`inexact_for`); as text when unparsed. A choice letter followed by
    its option's value is that value against a gold that is not a letter; a number with a
    decimal comma is read with a decimal point against a number."""
    by_form = compare_forms(gold.text, pred.text)
    if by_form is not None:
        return by_form
    by_units = compare_quantities(gold.text, pred.text)
    if by_units is not None:
        return by_units
    value = choice_value(pred.text) if choice_letter(gold.text) is None else None
    if value is not None:
        return answers_match(gold, parse_answer(value), config)
    with_point = _decimal_point_reading(gold, pred)
    if with_point is not None:
        return answers_match(*with_point, config)
    if gold.symbolic and pred.symbolic:
        gold_value, pred_value = gold.values[0], pred.values[0]
        if inexact_for(gold_value, pred_value):
            return False
        relation_set = _relation_as_set(gold_value, pred_value)
        if relation_set is not None:
            return relation_set
        return verify(list(gold.values), list(pred.values), float_rounding=config.float_rounding,
                      numeric_precision=config.numeric_precision, strict=config.strict, timeout_seconds=None)
    return comparable_text(gold.text) == comparable_text(pred.text)


def _is_number(answer: ParsedAnswer) -> bool:
    return answer.symbolic and isinstance(answer.values[0], Basic) and bool(answer.values[0].is_number)


def _decimal_point_reading(gold: ParsedAnswer, pred: ParsedAnswer) -> tuple[ParsedAnswer, ParsedAnswer] | None:
    """``(gold, pred)`` with the one written with a decimal comma (``1000,99``: see
    :func:`~rlenv.envs.math.answer_forms.decimal_comma`) read with a decimal point, when the other
    is a number; else None. Against anything else (``3,4`` against the set ``\\{3, 4\\}``) the
    comma stays a list separator."""
    gold_point, pred_point = decimal_comma(gold.text), decimal_comma(pred.text)
    if pred_point is not None and gold_point is None and _is_number(gold):
        return gold, parse_answer(pred_point)
    if gold_point is not None and pred_point is None and _is_number(pred):
        return parse_answer(gold_point), pred
    return None


def inexact_for(gold: Any, pred: Any) -> bool:
    """Whether ``pred`` is a decimal approximation of an exact ``gold`` no decimal can write
    (an irrational number, or a rational whose denominator has a prime factor other than 2 and
    5): ``1.41421356`` for ``\\sqrt2``, ``0.3333`` for ``\\frac13``, however many digits."""
    if not (isinstance(gold, Basic) and isinstance(pred, Basic) and gold.is_number and isinstance(pred, Float)):
        return False  # only a decimal is an approximation: 10\sqrt{10.5}/27 is exact (5\sqrt{42}/27)
    if gold.has(Float):
        return False
    if isinstance(gold, Rational):
        denominator = int(gold.q)
        for prime in (2, 5):
            while denominator % prime == 0:
                denominator //= prime
        return denominator != 1
    return gold.is_real is True and gold.is_rational is False


def _relation_as_set(gold: Any, pred: Any) -> bool | None:
    """A relation in one variable written in solved form against a set, compared as the set it
    describes (sympy's ``as_set``: ``-x > -1`` is ``(-\\infty, 1)``, ``|x| < 1`` is ``(-1, 1)``),
    else None. Only a solved form counts (one side a number, the other ``c x`` or ``|x|``): an
    unsolved ``2x - 4 > 6`` is how the problem is stated, not an answer."""
    relation, other = (pred, gold) if isinstance(gold, Set) else (gold, pred)
    if not (isinstance(other, Set) and isinstance(relation, Boolean) and len(relation.free_symbols) == 1):
        return None
    if not all(_solved(part) for part in ([relation] if isinstance(relation, Relational) else relation.args)):
        return None
    try:
        return bool(relation.as_set() == other)
    except (NotImplementedError, TypeError, ValueError):
        return None


def _solved(relation: Any) -> bool:
    if not isinstance(relation, Relational):
        return False
    number, expression = (relation.lhs, relation.rhs) if relation.lhs.is_number else (relation.rhs, relation.lhs)
    if not number.is_number:
        return False
    if isinstance(expression, Abs):
        expression = expression.args[0]
    coefficient, symbol = expression.as_coeff_Mul()
    return coefficient.is_number and coefficient != 0 and symbol.is_Symbol


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
    final = distinct.pop(distinct.index(clean_answer(found.answers[-1])))
    if not final:
        details["reason"] = "the final answer is empty"
        return "unparsable", details
    if len(final) > config.max_answer_chars:
        details["reason"] = f"the final answer has {len(final)} characters, over max_answer_chars={config.max_answer_chars}"
        return "unparsable", details
    others = [] if config.hedging == "last" else [a for a in distinct if a]
    if others:
        details["answers"] = others + [final]
    hedged = f"hedged between {len(others) + 1} different answers: " if others else ""
    if len(others) + 1 > config.max_answers:
        details["reason"] = f"{hedged}over max_answers={config.max_answers}"
        return "incorrect", details
    if not answers_match(gold, parse_answer(final), config):
        details["reason"] = f"{hedged}the final answer does not match the reference"
        return "incorrect", details
    for other in others:
        if len(other) > config.max_answer_chars or not answers_match(gold, parse_answer(other), config):
            details["reason"] = f"{hedged}{other[:200]!r} does not match the reference"
            return "incorrect", details
    return "correct", details


def init_worker() -> None:
    """Worker-pool initializer: silence math-verify's "timeout is disabled" warning (the pool
    enforces deadlines) and warm up its parsers, so a worker's first checks are not slowed by
    lazy imports."""
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    for reference, completion in _WARM_UP:
        grade(GradingConfig(), reference, completion)
    parse_answer.cache_clear()
    parse_reference.cache_clear()


_WARM_UP = (("1", "\\boxed{\\frac{2}{2}}"), ("0.5", "The answer is 50%."), ("x=2", "#### 2"),
            ("\\sqrt{2}x+1", "<answer>1+x\\sqrt 2</answer>"))
