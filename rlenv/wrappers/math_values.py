"""Reading a stated answer as a mathematical object, the way the math verifier reads it.

The hack detectors reason about *what* an answer commits to, not how it is spelled: an answer
slot holding a set, an interval, an inequality or ``a \\pm b`` commits to many values; an answer
that is the prompt's own expression with its terms reordered is that expression. Both questions
are answered on the sympy objects that math-verify (the parser the math verifier uses) builds,
rebuilt unevaluated with the terms of every sum and the factors of every product in a canonical
order: ``(x+7)(x-4)`` and ``(x-4)(x+7)`` are the same object, ``x^2+3x-28`` is not, and neither is
``5 \\cdot 7 + 3`` the same as ``38``.

Parsing runs in the calling process without math-verify's signal-based timeout (detectors may
run off the main thread), so inputs that could make sympy evaluate something huge while parsing
are refused first: long texts and large or nested exponents and factorials.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

#: Longer texts are not parsed (an answer is short; an expression copied from a prompt too).
MAX_PARSE_CHARS = 160
logging.getLogger("math_verify.parser").setLevel(logging.ERROR)  # its one "timeout disabled" warning
_EXPLOSIVE = re.compile(r"\^\s*\{?\s*[-+]?\d{3,}|\^\s*\{[^{}]*\^|\^\s*\d+\s*\^|\d{3,}\s*!|!\s*!|\\binom|\\prod|\\sum")


@functools.lru_cache(maxsize=4096)
def parse_math(text: str) -> Any:
    """The sympy object math-verify reads from the LaTeX or plain math ``text``, or None.

    None when ``text`` is empty, longer than :data:`MAX_PARSE_CHARS`, could be costly to evaluate
    (large or nested powers, factorials, sums) or does not parse to a sympy object.
    """
    text = text.strip().strip("$").strip()
    if not text or len(text) > MAX_PARSE_CHARS or _EXPLOSIVE.search(text):
        return None
    from math_verify import LatexExtractionConfig, parse
    from sympy import Basic

    parsed = parse(f"${text}$", extraction_config=[LatexExtractionConfig()], parsing_timeout=None)
    return _canonical(parsed[0]) if parsed and isinstance(parsed[0], Basic) else None


def _canonical(value: Any) -> Any:
    """``value`` rebuilt bottom-up unevaluated, with the terms of every sum and the factors of every
    product flattened and sorted: the same expression however its terms and factors were ordered
    or grouped, and nothing computed (``2x + 3x`` stays apart from ``5x``, ``5 \\cdot 7`` from ``35``)."""
    from sympy import Add, Mul, default_sort_key

    if not value.args:
        return value
    args = [_canonical(arg) for arg in value.args]
    if isinstance(value, (Add, Mul)):
        flat = [leaf for arg in args for leaf in (arg.args if arg.func is value.func else (arg,))]
        return value.func(*sorted(flat, key=default_sort_key), evaluate=False)
    try:
        return value.func(*args, evaluate=False)
    except TypeError:  # a class without the evaluate flag
        return value.func(*args)


def is_many_valued(value: Any) -> bool:
    """True when ``value`` (from :func:`parse_math`) stands for more than one number: a set of two
    or more elements, an interval, a union, an inequality or a chain of them, or ``x \\in S``."""
    from sympy import And, Eq, FiniteSet, Interval, Or, Union
    from sympy.core.relational import Relational

    if isinstance(value, FiniteSet):
        return len(value) > 1
    if isinstance(value, (Interval, Union, And, Or)):
        return True
    if isinstance(value, Eq):
        return any(is_many_valued(side) for side in value.args)
    return isinstance(value, Relational)


def same_expression(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` (from :func:`parse_math`) are the same expression up to the order
    and grouping of terms and factors, not merely equal in value."""
    return a is not None and b is not None and a == b


def free_symbols(value: Any) -> bool:
    """True when ``value`` has a variable (``x``), i.e. it is an expression, not a number."""
    return bool(getattr(value, "free_symbols", None))
