"""Two-stage LaTeX parsing in the workers: ANTLR's SLL prediction first, full LL when SLL fails.

math-verify turns LaTeX into sympy with latex2sympy2_extended, an ANTLR grammar run by ANTLR's
pure-Python runtime in its default full-LL prediction mode. There, every decision that needs
context (sets, intervals, unions, matrices, ...) re-runs a full-context simulation that is never
cached: 5-30 ms per answer, most of a check's time. ANTLR's SLL mode skips that simulation and,
by ANTLR's own guarantee (``PredictionMode.SLL``), either builds the very parse tree LL would
build or reports a syntax error. So this module parses with SLL and, on any failure, parses again
from scratch with LL (ANTLR's "two-stage parsing"): the result, a value or an exception, is
always the one LL gives; only the time differs. Answers where a letter or a command carries a
sub- or superscript (``x^2``, ``\\pi^2``, ``x_1``), which this grammar cannot parse in SLL, go
straight to LL.

:func:`install` switches latex2sympy2_extended to two-stage parsing in the calling process; the
grading workers call it at start (:func:`envs.math.checks.init_worker`), the caller's process
never does.
"""

from __future__ import annotations

import logging
import re
from typing import Any

logger = logging.getLogger(__name__)

#: LaTeX that SLL prediction cannot parse in latex2sympy2_extended's grammar: a letter or a
#: command directly followed by a sub- or superscript. It is parsed with LL at once.
LL_ONLY = re.compile(r"(?:[A-Za-z]|\\[A-Za-z]+)\s*[_^]")


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


def install() -> bool:
    """Make latex2sympy2_extended parse with SLL first, LL on failure, in this process.

    Returns:
        True when two-stage parsing is on (installed now or before); False, with a warning
        logged, when this latex2sympy2_extended has no ``_Latex2Sympy.create_parser`` to wrap
        (parsing then stays plain LL: same results, slower).
    """
    from latex2sympy2_extended import latex2sympy2

    converter_class = getattr(latex2sympy2, "_Latex2Sympy", None)
    create_parser = getattr(converter_class, "create_parser", None)
    if create_parser is None:
        logger.warning("latex2sympy2_extended has no _Latex2Sympy.create_parser: LaTeX answers are "
                       "parsed in full-LL mode only (same results, slower)")
        return False
    if getattr(create_parser, "two_stage", False):
        return True

    def two_stage_create_parser(converter: Any, latex: str) -> Any:
        if LL_ONLY.search(latex):
            return create_parser(converter, latex)
        return two_stage_parser(create_parser, converter, latex)

    two_stage_create_parser.two_stage = True  # type: ignore[attr-defined]
    two_stage_create_parser.ll_create_parser = create_parser  # type: ignore[attr-defined]
    converter_class.create_parser = two_stage_create_parser
    return True
