"""Answers with units, compared by value after conversion with pint.

An answer is a *quantity* when it is one or more ``number unit`` terms (``2.5 km``,
``12\\text{ cm}``, ``6 \\text{ ft}^2``, ``1 \\text{ h } 35 \\text{ min}``) whose units pint knows and
that are not dimensionless; text wrappers, LaTeX spacing (``\\,``, ``\\ ``, ``~``) and ``$`` are dropped first. Terms are
added (``1 h 35 min`` is 95 minutes). Unit words must be longer than one letter, or one of the
one-letter SI symbols ``m g s h L K N J W V`` (so ``2 x`` or ``3 e`` are not quantities).

:func:`compare_quantities`:

* gold and answer both quantities: equal when the answer converted to the gold's unit has the
  gold's value (``2500 m`` is ``2.5 km``, ``864 in^2`` is ``6 ft^2``); a different value or an
  incompatible unit is a different answer (``6 in^2`` is not ``6 ft^2``, ``12 cm^2`` not ``12 cm``);
* a unitless gold and an answer of several terms (``1 h 35 min`` for ``95`` when the problem asks
  in minutes): the answer in the unit of its last (smallest) term;
* anything else: None, math-verify decides (a unitless gold and ``12 cm`` stay equal, as before).
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from rlenv.envs.math.answer_forms import unwrap_text

_NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_UNIT = r"[A-Za-z][A-Za-z.]*(?:\s*(?:\^|\*\*)\s*\{?\s*\d\s*\}?)?(?:\s*/\s*[A-Za-z]+(?:\s*(?:\^|\*\*)\s*\{?\s*\d\s*\}?)?)?"
_TERM = re.compile(rf"\s*({_NUMBER})\s*({_UNIT})")
_QUANTITY = re.compile(rf"^(?:\s*{_NUMBER}\s*{_UNIT})+\s*$")
_SI_LETTERS = frozenset("mgshLKNJWV")
_SPACING = re.compile(r"\\(?:[,;:!]|quad|qquad)")
#: Relative tolerance of a converted value (conversion factors are floats).
RELATIVE_TOLERANCE = 1e-9


@functools.cache
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


def _unit(text: str) -> Any | None:
    """The pint unit of ``text`` (``cm``, ``ft^2``, ``km/h``), or None when it is not a unit."""
    import pint

    name = re.sub(r"\s*(?:\^|\*\*)\s*\{?\s*(\d)\s*\}?", r"**\1", text.strip().rstrip("."))
    if len(name) == 1 and name not in _SI_LETTERS:
        return None
    try:
        unit = _registry().parse_units(name)
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, TypeError, ValueError):
        return None
    return None if unit.dimensionless else unit


def quantity_terms(answer: str) -> list[Any] | None:
    """The pint quantities of the ``number unit`` terms of ``answer``, or None when it is not a quantity."""
    if not any(char.isalpha() for char in answer) or not any(char.isdigit() for char in answer):
        return None
    text = " ".join(_SPACING.sub(" ", unwrap_text(answer)).split())
    if not _QUANTITY.match(text):
        return None
    terms = []
    for number, unit_text in _TERM.findall(text):
        unit = _unit(unit_text)
        if unit is None:
            return None
        terms.append(_registry().Quantity(float(number.replace(",", "")), unit))
    return terms


def _total(terms: list[Any]) -> Any | None:
    total = terms[-1]
    for term in terms[:-1]:
        if not term.is_compatible_with(total):
            return None
        total = total + term.to(total.units)
    return total


def compare_quantities(gold: str, pred: str) -> bool | None:
    """True/False when the units decide (see the module docstring), else None."""
    pred_terms = quantity_terms(pred)
    if pred_terms is None:
        return None
    gold_terms = quantity_terms(gold)
    pred_total = _total(pred_terms)
    if gold_terms is None:
        if len(pred_terms) < 2 or pred_total is None:
            return None
        try:
            gold_value = float(unwrap_text(gold).replace(",", ""))
        except ValueError:
            return None
        return math.isclose(pred_total.magnitude, gold_value, rel_tol=RELATIVE_TOLERANCE)
    gold_total = _total(gold_terms)
    if gold_total is None or pred_total is None or not pred_total.is_compatible_with(gold_total):
        return False
    return math.isclose(pred_total.to(gold_total.units).magnitude, gold_total.magnitude, rel_tol=RELATIVE_TOLERANCE)
