"""Faster LaTeX-to-sympy conversion in the workers, with exactly the results of the original.

math-verify turns LaTeX into sympy with latex2sympy2_extended, an ANTLR grammar run by ANTLR's
pure-Python runtime. :func:`install` changes two of its costs, never its results:

* **Two-stage parsing.** In ANTLR's default full-LL prediction mode every decision that needs
  context (sets, intervals, unions, matrices, ...) re-runs a full-context simulation that is never
  cached: 5-30 ms per answer. ANTLR's SLL mode skips that simulation and, by ANTLR's own
  guarantee (``PredictionMode.SLL``), either builds the very parse tree LL would build or reports
  a syntax error. So the parser tries SLL and, on any failure, parses again from scratch with LL
  (ANTLR's "two-stage parsing"): the result, a value or an exception, is always LL's. LaTeX where
  a letter or a command carries a sub- or superscript (``x^2``, ``\\pi^2``, ``x_1``), which this
  grammar cannot parse in SLL, goes straight to LL.
* **Integer literals.** latex2sympy2_extended reads every number with ``sympy.Number(text)``,
  which runs sympy's string parser (about 0.5 ms a number); an ASCII digit string becomes
  ``sympy.Integer(int(text))`` instead, the very object that parser returns. Anything else
  (decimals, other digits, very long numbers) still goes through ``sympy.Number``.

The grading workers call :func:`install` at start (:func:`rlenv.envs.math.checks.init_worker`); the
caller's process never does.
"""

from __future__ import annotations

import logging
import re
from typing import Any

logger = logging.getLogger(__name__)

#: LaTeX that SLL prediction cannot parse in latex2sympy2_extended's grammar: a letter or a
#: command directly followed by a sub- or superscript. It is parsed with LL at once.
LL_ONLY = re.compile(r"(?:[A-Za-z]|\\[A-Za-z]+)\s*[_^]")
#: Longer digit strings keep sympy's own reading (Python caps int() of very long strings).
MAX_FAST_DIGITS = 100


def two_stage_parser(create_parser: Any, converter: Any, latex: str) -> Any:
    """A parser of ``latex`` whose ``math()`` tries SLL and falls back to a fresh LL parser.

    Args:
        create_parser: latex2sympy2_extended's own parser factory, ``(converter, latex) -> parser``
            (an LL parser).
        converter: The ``_Latex2Sympy`` instance asking for the parser.
        latex: The text to parse.
    """
    from antlr4.atn.PredictionMode import PredictionMode

    parser = create_parser(converter, latex)
    parser._interp.predictionMode = PredictionMode.SLL
    sll_math = parser.math

    def math() -> Any:
        try:
            return sll_math()
        except Exception:  # a syntax error under SLL: LL decides, from scratch
            return create_parser(converter, latex).math()

    parser.math = math
    return parser


def integer_literal(parse_number: Any, converter: Any, text: str) -> Any:
    """latex2sympy2_extended's number reading, with ASCII digit strings read as ``sympy.Integer``.

    Args:
        parse_number: latex2sympy2_extended's own ``(converter, text) -> sympy.Number``.
        converter: The ``_Latex2Sympy`` instance reading the number.
        text: The number as written (thousands commas allowed, as the original allows them).
    """
    from sympy import Integer

    digits = text.replace(",", "")
    if digits.isascii() and digits.isdigit() and len(digits) <= MAX_FAST_DIGITS:
        return Integer(int(digits))
    return parse_number(converter, text)


def install() -> bool:
    """Switch latex2sympy2_extended to two-stage parsing and fast integer literals, in this process.

    Returns:
        True when both are on (installed now or before); False, with a warning logged, when this
        latex2sympy2_extended lacks ``_Latex2Sympy.create_parser`` or ``parse_number`` (its own
        code then runs unchanged: same results, slower).
    """
    from latex2sympy2_extended import latex2sympy2

    converter_class = getattr(latex2sympy2, "_Latex2Sympy", None)
    create_parser = getattr(converter_class, "create_parser", None)
    parse_number = getattr(converter_class, "parse_number", None)
    if converter_class is None or create_parser is None or parse_number is None:
        logger.warning("latex2sympy2_extended has no _Latex2Sympy.create_parser / parse_number: LaTeX "
                       "answers are converted by its own code only (same results, slower)")
        return False
    if getattr(create_parser, "two_stage", False):
        return True

    def two_stage_create_parser(converter: Any, latex: str) -> Any:
        if LL_ONLY.search(latex):
            return create_parser(converter, latex)
        return two_stage_parser(create_parser, converter, latex)

    def fast_parse_number(converter: Any, text: str) -> Any:
        return integer_literal(parse_number, converter, text)

    two_stage_create_parser.two_stage = True  # type: ignore[attr-defined]
    two_stage_create_parser.ll_create_parser = create_parser  # type: ignore[attr-defined]
    fast_parse_number.original = parse_number  # type: ignore[attr-defined]
    converter_class.create_parser = two_stage_create_parser
    converter_class.parse_number = fast_parse_number
    return True
