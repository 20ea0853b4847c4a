"""One normalization step for an answer before math-verify parses it, in a fixed order.

:func:`normalize_answer` rewrites a cleaned answer (found by :mod:`rlenv.envs.math.extraction`,
delimiters removed) into LaTeX math-verify reads as the writer meant, in this order:

1. **Unwrap the value** from what surrounds it: a lead-in sentence (``\\text{The removed number
   is } 20``, ``The total is 20``), text wrappers around a number (``\\text{12 cm}``,
   ``\\mathrm{12\\ cm}``, ``\\text{26,000}``, ``\\text{25\\%}``), a label (``\\det A = -14``) and an
   approximation after an exact value (``\\sqrt2 \\approx 1.414`` is ``\\sqrt2``).
2. **Numerals and words**: numbers in words (:mod:`rlenv.envs.math.number_words`: ``forty``,
   ``two-thirds``, ``three and a half``, ``3 out of 8``), mixed numbers (``4 1/2``,
   ``12\\frac12``), scientific e-notation (``4.2e-4`` is ``4.2 \\times 10^{-4}``).
3. **Structure**: the empty set in words or as ``\\{\\,\\}`` is ``\\emptyset``; "all real numbers"
   and ``\\mathbb{R}`` are ``(-\\infty, \\infty)``; set-builder notation (``\\{x \\mid 1 < x < 3\\}``)
   is its condition; ASCII relations (``>=``, ``<=``, ``!=``) are LaTeX; inequalities joined by
   "or" are the union of their intervals; one ``\\pm`` is the two values it stands for
   (``\\frac{1 \\pm \\sqrt5}{2}`` is ``\\frac{1+\\sqrt5}{2}, \\frac{1-\\sqrt5}{2}``); vectors written
   ``\\langle 1, 2 \\rangle`` or ``i + 2j`` are column vectors.
4. **Notation** math-verify misreads (:func:`rlenv.envs.math.answer_forms.normalize_notation`:
   degrees, repeating decimals, Unicode, thousands separators, inequalities as intervals, ...).

Each rule is guarded by a cheap substring test, so a plain number pays nothing. Relations that
equal a set (``-x > -1`` for ``(-\\infty, 1)``, ``|x| < 1`` for ``(-1, 1)``), units and the forms
compared by shape (clock times, ratios, choice letters) are decided when comparing
(:mod:`rlenv.envs.math.grading`).
"""

from __future__ import annotations

import re

from rlenv.envs.math.answer_forms import normalize_notation, unwrap_text
from rlenv.envs.math.extraction import COPULAS
from rlenv.envs.math.number_words import words_value

_WRAPPER_NAMES = r"(?:text|textrm|textbf|textnormal|mathrm|mbox)"
_LEAD_IN_WRAPPED = re.compile(rf"^\s*\\{_WRAPPER_NAMES}\s*\{{[^{{}}]*\s{COPULAS}\s*:?\s*\}}\s*", re.I)
_LEAD_IN_PLAIN = re.compile(rf"^[A-Za-z][A-Za-z ,']*\s{COPULAS}\s*:?\s+(?=[^A-Za-z\s])", re.I)
_WRAPPED_NUMBER = re.compile(rf"\\{_WRAPPER_NAMES}\s*\{{([^{{}}]*\d[^{{}}]*)\}}")
_LABEL = re.compile(r"^\s*\\det\s*(?:\([^()]*\)|\\mathbf\s*\{\s*[A-Za-z]\s*\}|[A-Za-z])\s*=\s*")
_APPROX = re.compile(r"\s*(?:\\approx|\\simeq|≈).*$", re.S)
_MIXED_PLAIN = re.compile(r"^\s*(-?)(\d+)\s+(\d+)\s*/\s*(\d+)\s*(?:[A-Za-z][A-Za-z'-]*\s*)*$")  # unit words after it
_MIXED_LATEX = re.compile(r"(?<![\d.}^_{])(\d+)\s*\\[dt]?frac\s*(?:\{\s*(\d+)\s*\}|(\d))\s*(?:\{\s*(\d+)\s*\}|(\d))")
_SCIENTIFIC = re.compile(r"(?<![\w.\\])(\d+(?:\.\d+)?)[eE]([-+]?\d+)(?![\w.])")
_EMPTY_BRACES = re.compile(r"^\\\{\s*(?:\\[,;:! ]\s*|~\s*)*\\\}$")
_EMPTY_WORDS = frozenset(("no solution", "no solutions", "no real solution", "no real solutions", "empty set",
                          "the empty set", "there is no solution", "there are no solutions", "no such x"))
_ALL_REALS = frozenset(("all real numbers", "all reals", "all real x", "all real values", "all real values of x",
                        r"\mathbb{r}", r"\mathbb r", r"x \in \mathbb{r}"))
_SET_BUILDER = re.compile(r"^\\\{\s*([A-Za-z])\s*(?:\\in\s*\\mathbb\s*\{?\s*R\s*\}?\s*)?(?:\\mid|\\vert|\||:)\s*(.+?)\s*\\\}$", re.S)
_ASCII_RELATIONS = (("<=", r"\le "), (">=", r"\ge "), ("!=", r"\ne "), ("=<", r"\le "), ("=>", r"\ge "))
_OR = re.compile(r"\s*(?:\\text\s*\{\s*or\s*\}|\\(?:lor|vee)(?![A-Za-z])|\bor\b)\s*")
_PM = re.compile(r"\\pm(?![A-Za-z])")
_ANGLE_VECTOR = re.compile(r"^\s*\\langle\s*(.+?)\s*\\rangle\s*$", re.S)
_UNIT_VECTORS = re.compile(
    r"^\s*(?P<i>[-+]?\s*[\d.]*)\s*(?:\\mathbf\s*\{\s*i\s*\}|\\hat\s*\{\s*i\s*\}|i)"
    r"\s*(?P<j>[-+]\s*[\d.]*)\s*(?:\\mathbf\s*\{\s*j\s*\}|\\hat\s*\{\s*j\s*\}|j)"
    r"(?:\s*(?P<k>[-+]\s*[\d.]*)\s*(?:\\mathbf\s*\{\s*k\s*\}|\\hat\s*\{\s*k\s*\}|k))?\s*$")


def _fraction_latex(numerator: int, denominator: int) -> str:
    return str(numerator) if denominator == 1 else f"\\frac{{{numerator}}}{{{denominator}}}"


def _unwrap_value(answer: str) -> str:
    if "\\" in answer or " " in answer:
        answer = _LEAD_IN_WRAPPED.sub("", answer, count=1)
        if answer and not answer.startswith("\\"):
            answer = _LEAD_IN_PLAIN.sub("", answer, count=1)
    if "\\" in answer:
        answer = _WRAPPED_NUMBER.sub(lambda m: m[1].replace("\\ ", " ").replace("~", " "), answer).strip()
        answer = _LABEL.sub("", answer, count=1)
    if "approx" in answer or "simeq" in answer or "≈" in answer:
        exact = _APPROX.sub("", answer)
        if re.search(r"[\d\\]", exact):
            answer = exact
    return answer


def _numerals(answer: str) -> str:
    if any(char.isalpha() for char in answer):
        plain = unwrap_text(answer)
        value = None if "\\" in plain else words_value(plain)
        if value is not None:
            return _fraction_latex(value.numerator, value.denominator)
    if "/" in answer:
        mixed = _MIXED_PLAIN.match(answer)
        if mixed and int(mixed[3]) < int(mixed[4]):
            whole, numerator, denominator = int(mixed[2]), int(mixed[3]), int(mixed[4])
            return mixed[1] + _fraction_latex(whole * denominator + numerator, denominator)
    if "frac" in answer:
        answer = _MIXED_LATEX.sub(_mixed_latex, answer)
    if "e" in answer or "E" in answer:
        answer = _SCIENTIFIC.sub(r"\1 \\times 10^{\2}", answer)
    return answer


def _mixed_latex(match: re.Match) -> str:
    whole, numerator, denominator = int(match[1]), int(match[2] or match[3]), int(match[4] or match[5])
    if not 0 < numerator < denominator:
        return match[0]
    return f"\\frac{{{whole * denominator + numerator}}}{{{denominator}}}"


def _top_level_split(text: str, separator: re.Pattern) -> list[str]:
    """``text`` split at the matches of ``separator`` outside braces, brackets and parentheses."""
    depth, parts, start = 0, [], 0
    position = 0
    while position < len(text):
        char = text[position]
        if char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
        elif depth == 0:
            match = separator.match(text, position)
            if match and match.end() > position:
                parts.append(text[start:position])
                start = position = match.end()
                continue
        position += 1
    return [*parts, text[start:]]


def _structure(answer: str) -> str:
    if "\\{" in answer and _EMPTY_BRACES.match(answer):
        return "\\emptyset"
    if any(char.isalpha() for char in answer):
        words = " ".join(unwrap_text(answer).lower().rstrip(".").split())
        if words in _EMPTY_WORDS:
            return "\\emptyset"
        if words in _ALL_REALS:
            return "(-\\infty, \\infty)"
    if "\\{" in answer:
        builder = _SET_BUILDER.match(answer.strip())
        if builder and builder[1] in builder[2]:
            answer = builder[2]
    if "=" in answer or "<" in answer or ">" in answer:
        for ascii_relation, latex in _ASCII_RELATIONS:
            answer = answer.replace(ascii_relation, latex)
    if "or" in answer or "\\vee" in answer:
        parts = _top_level_split(answer, _OR)
        intervals = [normalize_notation(part) for part in parts]
        if len(parts) > 1 and all(i != p and i.lstrip().startswith(("(", "[")) for i, p in zip(intervals, parts)):
            return " \\cup ".join(intervals)
    if "\\pm" in answer and len(_PM.findall(answer)) == 1 and "\\mp" not in answer and "," not in answer:
        answer = f"{_PM.sub('+', answer)}, {_PM.sub('-', answer)}"
    if "\\langle" in answer:
        angle = _ANGLE_VECTOR.match(answer)
        if angle:
            entries = _top_level_split(angle[1], re.compile(r"\s*,\s*"))
            answer = "\\begin{pmatrix}" + " \\\\ ".join(entry.strip() for entry in entries) + "\\end{pmatrix}"
    if "j" in answer:
        unit = _UNIT_VECTORS.match(answer)
        if unit:
            coefficients = [unit[name] for name in ("i", "j", "k") if unit[name] is not None]
            entries = [_coefficient(c) for c in coefficients]
            answer = "\\begin{pmatrix}" + " \\\\ ".join(entries) + "\\end{pmatrix}"
    return answer


def _coefficient(text: str) -> str:
    """The coefficient written before a unit vector (``""`` and ``+`` are 1, ``-`` is -1)."""
    text = text.replace(" ", "")
    sign = "-" if text.startswith("-") else ""
    digits = text.lstrip("+-")
    return sign + (digits or "1")


def normalize_answer(answer: str) -> str:
    """``answer`` rewritten in the order of the module docstring (a plain number unchanged)."""
    if answer.isascii() and answer.isdigit():
        return answer
    return normalize_notation(_structure(_numerals(_unwrap_value(answer))))
