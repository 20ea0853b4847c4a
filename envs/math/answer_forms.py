"""Answer notations that math-verify reads wrongly, handled before or instead of its comparison.

* **Rewritten before parsing** (:func:`normalize_notation`): the Unicode degree sign (``90°`` is
  ``90^\\circ``); repeating decimals (``0.1\\overline{6}`` is exactly ``\\frac{1}{6}``); a scalar
  times a matrix or vector (``\\frac{1}{7}\\begin{pmatrix}12 \\\\ -3\\end{pmatrix}`` is the matrix
  of the scaled entries; math-verify would misread its first entry).
* **Compared by form** (:func:`compare_forms`), when either side has that form:

  - numbers with a base subscript (``1011_2``, ``40_{9}``): the base is part of the answer. Same
    digits in the same base are equal; a different base is a different answer, even for the same
    value, and plain digits are base 10 (``11_{10}`` is ``11``, ``1011`` is not ``1011_2``);
  - multiple-choice letters (``(C)``, ``\\text{(C)}``, ``(C) Plane``): equal when the letters are;
  - text answers (``\\text{an ellipse}``, ``ellipse``): equal when their words are, ignoring case,
    articles and a final period.
"""

from __future__ import annotations

import re
from fractions import Fraction

_DEGREE = re.compile(r"\s*°")
_REPEATING = re.compile(r"(?<![\d.])(-?)(\d*)\.(\d*)\\overline\s*(?:\{\s*(\d+)\s*\}|(\d))(?!\s*[\d.])")
_SCALED_MATRIX = re.compile(
    r"""^(?P<scalar>-?\s*(?:\\[dt]?frac\s*\{[^{}]+\}\s*\{[^{}]+\}|\d+(?:\.\d+)?|\d*\s*\\sqrt\s*\{[^{}]+\}|\\sqrt\s*\d))
    \s*(?:\\cdot|\\times)?\s*\\begin\{(?P<env>[pbvB]?matrix)\}(?P<body>.*)\\end\{(?P=env)\}$""",
    re.X | re.S,
)
_WRAPPER = re.compile(r"\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox)\s*\{([^{}]*)\}")
_BASED = re.compile(r"^\s*(?:\\text\{\s*)?([0-9A-Za-z]+)\s*\}?\s*_\s*(?:\{\s*(\d+)\s*\}|(\d))\s*$")
_CHOICE = re.compile(r"^\(\s*([A-Ea-e])\s*\)(?:\s*(.*))?$", re.S)
_WORDS = re.compile(r"^[A-Za-z][A-Za-z '\-]*$")
_ARTICLES = frozenset(("a", "an", "the"))


def _repeating_fraction(match: re.Match) -> str:
    sign, whole, fixed, repeat = match[1], match[2] or "0", match[3], match[4] or match[5]
    value = Fraction(int(whole)) + Fraction(int(fixed or "0"), 10 ** len(fixed))
    value += Fraction(int(repeat), (10 ** len(repeat) - 1) * 10 ** len(fixed))
    value = -value if sign else value
    return f"({value.numerator})" if value.denominator == 1 else f"(\\frac{{{value.numerator}}}{{{value.denominator}}})"


def _scaled_matrix(answer: str) -> str:
    match = _SCALED_MATRIX.match(answer.strip())
    if match is None:
        return answer
    scalar, env = match["scalar"].strip(), match["env"]
    rows = [row.split("&") for row in re.split(r"\\\\", match["body"]) if row.strip()]
    scaled = " \\\\ ".join(" & ".join(f"{scalar}\\cdot({entry.strip()})" for entry in row) for row in rows)
    return f"\\begin{{{env}}}{scaled}\\end{{{env}}}"


def normalize_notation(answer: str) -> str:
    """``answer`` with the degree sign, repeating decimals and scalar-times-matrix rewritten into
    notation math-verify reads correctly (other text unchanged)."""
    if "°" in answer:
        answer = _DEGREE.sub(r"^{\\circ}", answer)
    if "overline" in answer:
        answer = _REPEATING.sub(_repeating_fraction, answer)
    return _scaled_matrix(answer) if "matrix" in answer else answer


def _unwrap(answer: str) -> str:
    previous = None
    while previous != answer:
        previous, answer = answer, _WRAPPER.sub(r"\1", answer)
    return answer.replace("$", "").replace("\\ ", " ").replace("~", " ").strip()


def based_number(answer: str) -> tuple[str, int] | None:
    """``(digits, base)`` of an answer written with a base subscript (``1011_2``, ``40_{9}``), else None."""
    match = _BASED.match(answer)
    if match is None:
        return None
    digits, base = match[1].upper().lstrip("0") or "0", int(match[2] or match[3])
    if not 2 <= base <= 36 or any(int(digit, 36) >= base for digit in digits):
        return None  # ``x_2``, ``a_1``: a variable with an index, not a number in a base
    return digits, base


def choice_letter(answer: str) -> str | None:
    """The letter of a multiple-choice answer (``(C)``, ``\\text{(C)}``, ``(C) Plane``), else None."""
    match = _CHOICE.match(_unwrap(answer))
    return match[1].upper() if match else None


def text_key(answer: str) -> str | None:
    """The words of a text answer (lowercase, without articles or a final period), else None
    (also for single letters, which are variables)."""
    plain = _unwrap(answer).rstrip(".").strip()
    if not _WORDS.match(plain) or not any(len(word) > 1 for word in plain.split()):
        return None
    words = [word for word in plain.lower().replace("-", " ").split() if word not in _ARTICLES]
    return " ".join(words) or None


_HINT = re.compile(r"[A-Za-z_(]")


def compare_forms(gold: str, pred: str) -> bool | None:
    """True/False when either answer has a form this module decides (base subscript, choice
    letter, text), else None (math-verify decides)."""
    if not (_HINT.search(gold) and _HINT.search(pred)) and "_" not in gold + pred:
        return None  # no letter, parenthesis or subscript on one side: none of these forms (fast path)
    gold_based, pred_based = based_number(gold), based_number(pred)
    if gold_based or pred_based:
        decimal = [(digits.lstrip("0") or "0", 10) if re.fullmatch(r"\d+", digits := _unwrap(side)) else None
                   for side in (gold, pred)]
        return (gold_based or decimal[0]) == (pred_based or decimal[1])
    gold_choice, pred_choice = choice_letter(gold), choice_letter(pred)
    if gold_choice and pred_choice:
        return gold_choice == pred_choice
    gold_text, pred_text = text_key(gold), text_key(pred)
    if gold_text is not None and pred_text is not None:
        return gold_text == pred_text
    return None
