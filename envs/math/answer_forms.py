"""Answer notations that math-verify reads wrongly, handled before or instead of its comparison.

* **Rewritten before parsing** (:func:`normalize_notation`), each rule guarded by a cheap
  substring test so plain answers pay nothing:

  - Unicode math (``√2``, ``2π``, ``∞``, ``½``, ``x²``, ``≤``, ``·``) becomes the LaTeX it stands
    for (``\\sqrt{2}``, ``2\\pi``, ``\\infty``, ``\\frac{1}{2}``, ``x^{2}``, ``\\le``, ``\\cdot``);
  - degrees: ``90°``, ``90\\degree``, ``90\\textdegree``, ``90^o``, ``90\\deg`` are ``90^{\\circ}``;
  - repeating decimals are exact rationals: ``0.1\\overline{6}``, ``0.\\bar{3}``, ``0.(3)``,
    ``0.\\dot{3}`` (``0.1\\dot{4}2\\dot{8}``: the digits from the first dot to the last repeat);
  - ``\\varnothing`` (and ``∅``) is ``\\emptyset``;
  - brace-less fractions (``\\frac17``, ``\\dfrac1{7}``) get their braces, so the digits after
    them are not swallowed;
  - a scalar times a matrix or vector (``\\frac{1}{7}\\begin{pmatrix}12 \\\\ -3\\end{pmatrix}``,
    ``\\frac{1}{\\sqrt2}\\left(\\begin{matrix}…\\end{matrix}\\right)``) is the matrix of the scaled
    entries (math-verify would misread a multi-digit first entry);
  - thousands separators inside a number (``1\\,000``, ``1\\!000``, ``1{,}000``, ``1~000``, and a
    whole answer ``10 000``) are dropped: groups of exactly three digits;
  - an inequality or a chain of inequalities on one variable is the interval it describes
    (``x > 5`` is ``(5, \\infty)``, ``0 \\le x < 1`` is ``[0, 1)``): math-verify accepts only a
    gold inequality against a predicted interval, and no chain;
  - the imaginary unit is written the same way however it is spaced (math-verify gives ``4i``
    and ``4 i`` different symbols ``i``);
  - a final period (``5.``, ``\\text{Tuesday}.``) is dropped.

* **Compared by form** (:func:`compare_forms`), when either side has that form:

  - numbers with a base subscript (``1011_2``, ``40_{9}``, ``1011_{(2)}``, ``(1011)_2``,
    ``1011_{\\text{two}}``): the base is part of the answer. Same digits in the same base are
    equal; a different base is a different answer, even for the same value, and plain digits are
    base 10 (``11_{10}`` is ``11``, ``1011`` is not ``1011_2``): the gold answer says which base
    was asked for;
  - multiple-choice letters (``(C)``, ``\\text{(C)}``, ``\\text{C}``, ``(C) Plane``, ``B: 12``):
    equal when the letters are; lists of letters (``\\text{A, C}``, ``(A), (C)``, ``C, A``) are
    equal when they hold the same letters;
  - text answers (``\\text{an ellipse}``, ``ellipse``, ``\\text{odd function}``): equal when their
    words are, ignoring case, articles, a final period and a trailing generic noun
    (``function``, ``curve``, ``number`` …); different words are different answers.

* **Read with a decimal point** (:func:`decimal_comma`): a number written with a decimal comma
  (``1000,99``, ``0,111``, ``2{,}74``), when the other answer is a number.
"""

from __future__ import annotations

import re
from fractions import Fraction

# -- rewritten before parsing -------------------------------------------------------------------
_VULGAR = {"½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅕": (1, 5), "⅖": (2, 5), "⅗": (3, 5),
           "⅘": (4, 5), "⅙": (1, 6), "⅚": (5, 6), "⅛": (1, 8), "⅜": (3, 8), "⅝": (5, 8), "⅞": (7, 8)}
_SYMBOLS = {"π": r"\pi", "∞": r"\infty", "·": r"\cdot", "⋅": r"\cdot", "×": r"\times", "÷": r"\div", "≤": r"\le",
            "≥": r"\ge", "≠": r"\ne", "±": r"\pm", "∓": r"\mp", "∪": r"\cup", "∩": r"\cap", "∈": r"\in",
            "∅": r"\emptyset", "θ": r"\theta", "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "λ": r"\lambda",
            "μ": r"\mu", "σ": r"\sigma", "φ": r"\phi", "ω": r"\omega", "Δ": r"\Delta"}
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
_ROOT = re.compile(r"([√∛∜])\s*(\{[^{}]*\}|\([^()]*\)|\d+(?:\.\d+)?|\\[A-Za-z]+|[A-Za-z])")
_ROOT_INDEX = {"√": "", "∛": "[3]", "∜": "[4]"}
_UNICODE = re.compile("|".join(map(re.escape, sorted({**_VULGAR, **_SYMBOLS}, key=len, reverse=True))))

_DEGREE = re.compile(r"\s*(?:°|\\degree(?![A-Za-z])|\\textdegree(?![A-Za-z])|(?<=\d)\s*\\deg(?![A-Za-z])"
                     r"|(?<=\d)\s*\^\s*(?:o|\{\s*o\s*\})(?![A-Za-z]))")
_REPEATING = re.compile(r"(?<![\d.])(-?)(\d*)\.(\d*)\\(?:overline|bar)\s*(?:\{\s*(\d+)\s*\}|(\d))(?!\s*[\d.])")
_PAREN_REPEATING = re.compile(r"(?<![\d.])(-?)(\d*)\.(\d*)\((\d+)\)(?![\d.])")
_DOTTED = re.compile(r"(?<![\d.])(-?)(\d*)\.(\d*)\\dot\s*(?:\{\s*(\d)\s*\}|(\d))(?:(\d*)\\dot\s*(?:\{\s*(\d)\s*\}|(\d)))?"
                     r"(?!\s*[\d.])")
_BARE_FRAC = re.compile(r"\\([dt]?frac)\s*(?:(\d)\s*(\d|\{[^{}]*\})|(\{[^{}]*\})\s*(\d))")  # an argument without braces
_MATRIX = re.compile(r"(?P<left>\\left\s*[(\[]\s*)?\\begin\{(?P<env>[pbB]?matrix)\}(?P<body>.*)\\end\{(?P=env)\}"
                     r"(?P<right>\s*\\right\s*[)\]])?", re.S)
_THOUSANDS = re.compile(r"(?<![\w.}])(\d{1,3})((?:(?:\\[,!]|\\ |\{,\}|~|,\\!)\d{3})+)(?![\d])")
_SPACED_THOUSANDS = re.compile(r"^\s*(-?\d{1,3})((?: \d{3})+)(\.\d+)?\s*$")
_SEPARATOR = re.compile(r"\\[,!]|\\ |\{,\}|~|,\\!")
_LESS = r"<|\\leq?(?![A-Za-z])|\\leqslant"
_GREATER = r">|\\geq?(?![A-Za-z])|\\geqslant"
_COMPARISON = re.compile(rf"\s*({_LESS}|{_GREATER})\s*")
_VARIABLE = re.compile(r"[A-Za-z]")
_FINAL_PERIOD = re.compile(r"(?<![.\\])\.\s*$")
_GLUED_I = re.compile(r"(?<=\d)\s*i(?![A-Za-z])")
_PERCENT_OF_PARENTHESES = re.compile(r"\((-?\\frac\{-?\d+\}\{\d+\}|-?\d+)\)(?=\s*\\?%)")  # ``(\frac{100}{3})\%``


def _unicode_math(answer: str) -> str:
    def vulgar_or_symbol(match: re.Match) -> str:
        char = match.group()
        if char in _VULGAR:
            numerator, denominator = _VULGAR[char]
            return f"\\frac{{{numerator}}}{{{denominator}}}"
        return _SYMBOLS[char] + " "

    answer = _UNICODE.sub(vulgar_or_symbol, answer).rstrip()
    answer = _SUPERSCRIPT_RUN.sub(lambda m: f"^{{{m.group().translate(_SUPERSCRIPTS)}}}", answer)
    return _ROOT.sub(lambda m: f"\\sqrt{_ROOT_INDEX[m[1]]}{{{m[2].strip('{}()')}}}", answer)


def _rational_text(value: Fraction) -> str:
    return f"({value.numerator})" if value.denominator == 1 else f"(\\frac{{{value.numerator}}}{{{value.denominator}}})"


def _repeating_value(sign: str, whole: str, fixed: str, repeat: str) -> Fraction:
    value = Fraction(int(whole or "0")) + Fraction(int(fixed or "0"), 10 ** len(fixed))
    value += Fraction(int(repeat), (10 ** len(repeat) - 1) * 10 ** len(fixed))
    return -value if sign else value


def _repeating_fraction(match: re.Match) -> str:
    return _rational_text(_repeating_value(match[1], match[2], match[3], match[4] or match[5]))


def _dotted_fraction(match: re.Match) -> str:
    first = match[4] or match[5]
    last = match[7] or match[8]
    repeat = first + (match[6] or "") + last if last else first
    return _rational_text(_repeating_value(match[1], match[2], match[3], repeat))


def _bare_frac(match: re.Match) -> str:
    numerator, denominator = (match[2], match[3]) if match[2] is not None else (match[4], match[5])
    return f"\\{match[1]}{{{numerator.strip('{}')}}}{{{denominator.strip('{}')}}}"


def _top_level(text: str) -> str:
    """``text`` with everything inside braces removed (to look for top-level operators)."""
    depth, out = 0, []
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return ""
        if depth == 0 and char not in "{}":
            out.append(char)
    return "".join(out) if depth == 0 else ""


def _scaled_matrix(answer: str) -> str:
    """``s \\begin{pmatrix}a \\\\ b\\end{pmatrix}`` -> the matrix of ``s·a``, ``s·b`` (else unchanged).

    ``s`` is what precedes the matrix when it is one factor (no top-level ``=``, ``,``, ``+``,
    ``-`` after its sign, ``\\det``); determinants (``vmatrix``) are not scaled entry-wise.
    """
    match = _MATRIX.search(answer)
    if match is None or bool(match["left"]) != bool(match["right"]) or answer[match.end():].strip(" .") \
            or "\\begin" in match["body"]:
        return answer
    scalar = re.sub(r"\s*(?:\\cdot|\\times)\s*$", "", answer[:match.start()]).strip()
    top = _top_level(scalar)
    if not scalar or not top.strip() or re.search(r"[=,<>+&]|(?<=.)-|\\det", top.strip()):
        return answer
    env = "pmatrix" if match["env"] == "matrix" else match["env"]
    rows = [row.split("&") for row in re.split(r"\\\\", match["body"]) if row.strip()]
    scaled = " \\\\ ".join(" & ".join(f"{scalar}\\cdot({entry.strip()})" for entry in row) for row in rows)
    return f"\\begin{{{env}}}{scaled}\\end{{{env}}}"


def _is_bound(text: str) -> bool:
    """Whether ``text`` can end an interval: non-empty, no ``=``, no variable (commands such as
    ``\\frac``, ``\\pi``, ``\\infty`` are fine)."""
    return bool(text.strip()) and "=" not in text and not re.search(r"[A-Za-z]", re.sub(r"\\[A-Za-z]+", "", text))


def _inequality_interval(answer: str) -> str:
    """An inequality on one variable as the interval it describes, else ``answer`` unchanged:
    ``x < 3`` -> ``(-\\infty, 3)``, ``5 \\le x`` -> ``[5, \\infty)``, ``a \\le x < b`` -> ``[a, b)``
    (``>``/``\\ge`` chains read the other way)."""
    parts = _COMPARISON.split(answer.strip())
    if len(parts) == 3:
        left, op, right = parts
        if _VARIABLE.fullmatch(left) and _is_bound(right):
            less, bound = re.fullmatch(_LESS, op) is not None, right
        elif _VARIABLE.fullmatch(right) and _is_bound(left):
            less, bound = re.fullmatch(_LESS, op) is None, left  # ``5 < x`` is ``x > 5``
        else:
            return answer
        strict = op in "<>"
        bound = bound.strip()
        return f"(-\\infty, {bound}{')' if strict else ']'}" if less else f"{'(' if strict else '['}{bound}, \\infty)"
    if len(parts) == 5:
        low, op1, variable, op2, high = parts
        first_less, second_less = (re.fullmatch(_LESS, op) is not None for op in (op1, op2))
        if not (_VARIABLE.fullmatch(variable) and _is_bound(low) and _is_bound(high)) or first_less != second_less:
            return answer  # ``a < x > b`` is not an interval
        if not first_less:
            low, op1, op2, high = high, op2, op1, low
        return f"{'(' if op1 in '<>' else '['}{low.strip()}, {high.strip()}{')' if op2 in '<>' else ']'}"
    return answer


def normalize_notation(answer: str) -> str:
    """``answer`` with the notations of this module's first list rewritten into notation
    math-verify reads correctly (other text unchanged)."""
    if answer.isascii() and answer.isdigit():
        return answer  # the common case: nothing to rewrite (``isdigit`` alone accepts ``⁶``)
    if not answer.isascii():
        if "°" in answer:
            answer = _DEGREE.sub(r"^{\\circ}", answer)
        answer = _unicode_math(answer)
    if "deg" in answer or "^" in answer:
        answer = _DEGREE.sub(r"^{\\circ}", answer)
    if "overline" in answer or "\\bar" in answer:
        answer = _PERCENT_OF_PARENTHESES.sub(r"\1", _REPEATING.sub(_repeating_fraction, answer))
    if ".(" in answer:
        answer = _PAREN_REPEATING.sub(lambda m: _rational_text(_repeating_value(*m.groups())), answer)
    if "\\varnothing" in answer:
        answer = answer.replace("\\varnothing", "\\emptyset")
    if "\\dot" in answer:
        answer = _DOTTED.sub(_dotted_fraction, answer)
    if "frac" in answer:
        answer = _BARE_FRAC.sub(_bare_frac, answer)
    if "matrix" in answer:
        answer = _scaled_matrix(answer)
    if "\\," in answer or "\\!" in answer or "{,}" in answer or "~" in answer or "\\ " in answer:
        answer = _THOUSANDS.sub(lambda m: m[1] + _SEPARATOR.sub("", m[2]), answer)
    if " " in answer:
        spaced = _SPACED_THOUSANDS.match(answer)
        if spaced is not None:
            answer = spaced[1] + spaced[2].replace(" ", "") + (spaced[3] or "")
    if "<" in answer or ">" in answer or "\\le" in answer or "\\ge" in answer:
        answer = _inequality_interval(answer)
    if "i" in answer:
        answer = _GLUED_I.sub(" i", answer)
    if answer.endswith("."):
        answer = _FINAL_PERIOD.sub("", answer)
    return answer


# -- compared by form ----------------------------------------------------------------------------
_WRAPPER = re.compile(r"\\(?:text|textbf|textit|textrm|textsf|mathrm|mathbf|mathit|mbox)\s*\{([^{}]*)\}")
_BASED = re.compile(r"^\(?\s*([0-9A-Za-z]+)\s*\)?\s*_\s*(?:\{\s*\(?\s*([0-9a-z]+)\s*\)?\s*\}|(\d))$")
_BASE_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
               "eleven": 11, "twelve": 12, "sixteen": 16}
_TEXT_LETTER = re.compile(r"^\s*\\(?:text|textbf|textrm|mbox)\s*\{\s*([A-E])\s*\}\s*$")
_CHOICE = re.compile(r"^(?:\(\s*([A-Ea-e])\s*\)|([A-E])\s*[).:](?!\d))(?:\s*(.*))?$", re.S)
_LETTER = r"(?:\(\s*[A-Z]\s*\)|[A-Z])"
_OPTION_LETTER = re.compile(r"^[A-E]$")
_LETTER_LIST = re.compile(rf"^{_LETTER}(?:\s*(?:,|;|&|\band\b)\s*{_LETTER})+$")
_WORDS = re.compile(r"^[A-Za-z][A-Za-z '\-]*$")
_ARTICLES = frozenset(("a", "an", "the"))
_CLOCK = re.compile(r"^(\d{1,2})\s*:\s*(\d{2})\s*(?:([apAP])\.?\s*[mM]\.?)?$")
_RATIO = re.compile(r"^\d+(?:\.\d+)?(?:\s*(?::|\bto\b)\s*\d+(?:\.\d+)?)+$")
_COLON_SPACING = re.compile(r"\\colon|\{:\}|\\[,;!]")
#: Generic nouns that qualify a text answer without changing it (``an even function`` is ``even``).
_DECIMAL_COMMA = re.compile(r"^(?:\\?\$|€|£)?\s*(-?)(\d+)(?:,|\{,\})(\d+)\s*(?:\\?\$|€|£)?$")
_QUALIFIERS = frozenset(("function", "curve", "conic", "shape", "graph", "number", "figure"))


def unwrap_text(answer: str) -> str:
    """``answer`` without text and font wrappers (``\\text{…}``, ``\\mathrm{…}``, …), ``$``, ``\\ `` and ``~``."""
    previous = None
    while previous != answer:
        previous, answer = answer, _WRAPPER.sub(r"\1", answer)
    return answer.replace("$", "").replace("\\ ", " ").replace("~", " ").strip()


def based_number(answer: str) -> tuple[str, int] | None:
    """``(digits, base)`` of an answer written with a base subscript (``1011_2``, ``40_{9}``,
    ``\\text{1011}_2``, ``(1011)_2``, ``1011_{\\text{two}}``), else None."""
    match = _BASED.match(unwrap_text(answer))
    if match is None:
        return None
    base_text = match[2] or match[3]
    base = int(base_text) if base_text.isdigit() else _BASE_WORDS.get(base_text)
    digits = match[1].upper().lstrip("0") or "0"
    if base is None or not 2 <= base <= 36 or any(int(digit, 36) >= base for digit in digits):
        return None  # ``x_2``, ``a_1``: a variable with an index, not a number in a base
    return digits, base


def choice_letter(answer: str) -> str | None:
    """The letter of a multiple-choice answer (``(C)``, ``\\text{(C)}``, ``(C) Plane``, ``C) Plane``,
    ``\\text{C}``; a bare ``C`` is a variable), else None."""
    match = _CHOICE.match(unwrap_text(answer))
    if match:
        return (match[1] or match[2]).upper()
    match = _TEXT_LETTER.match(answer)
    return match[1] if match else None


def choice_letters(answer: str) -> frozenset[str] | None:
    """The letters of a list of multiple-choice letters (``\\text{A, C}``, ``(A), (C)``), else None."""
    plain = unwrap_text(answer)
    if not _LETTER_LIST.match(plain):
        return None
    return frozenset(re.findall(r"[A-Z]", plain))


def text_key(answer: str) -> str | None:
    """The words of a text answer (lowercase, without articles, a final period or a trailing
    generic noun such as ``function``), else None (also for single letters, which are variables)."""
    plain = unwrap_text(answer).rstrip(".").strip()
    if not _WORDS.match(plain) or not any(len(word) > 1 for word in plain.split()):
        return None
    words = [word for word in plain.lower().replace("-", " ").split() if word not in _ARTICLES]
    if len(words) > 1 and words[-1] in _QUALIFIERS:
        words.pop()
    return " ".join(words) or None


_HINT = re.compile(r"[A-Za-z_(]")


def clock_time(answer: str) -> tuple[int, bool] | None:
    """``(minutes after midnight, whether a.m./p.m. is written)`` of a clock time (``3:15 p.m.``,
    ``15:15``, ``9:40 AM``; without a.m./p.m. it is a 24-hour time), else None."""
    match = _CLOCK.match(_colon_text(answer))
    if match is None:
        return None
    hour, minute, meridiem = int(match[1]), int(match[2]), (match[3] or "").lower()
    if minute > 59 or hour > (12 if meridiem else 23) or (meridiem and hour == 0):
        return None
    if meridiem:
        hour = hour % 12 + (12 if meridiem == "p" else 0)
    return 60 * hour + minute, bool(meridiem)


def ratio_terms(answer: str) -> tuple[Fraction, ...] | None:
    """The terms of a ratio (``1:2:3``, ``1 : 2``, ``2 \\text{ to } 5``, ``1\\!:\\!2``), else None."""
    text = _colon_text(answer)
    if not _RATIO.match(text):
        return None
    return tuple(Fraction(term) for term in re.split(r"\s*(?::|\bto\b)\s*", text))


def _colon_text(answer: str) -> str:
    """The value side (after a last ``=``: ``V_1:V_2 = 11:21``) with LaTeX spacing and wrappers removed."""
    text = _COLON_SPACING.sub(lambda m: ":" if m[0] in ("\\colon", "{:}") else " ", unwrap_text(answer))
    return " ".join(text.rpartition("=")[2].split())


def compare_colon_forms(gold: str, pred: str) -> bool | None:
    """True/False when either answer is a clock time or a ratio (a colon is never a division),
    else None. Clock times are equal when they name the same minute of the day (``15:15`` is
    ``3:15 p.m.``, ``9:40 AM`` is not ``9:40 PM``), except that a gold written on a 12-hour
    dial without a.m./p.m. (``3:15``) accepts either (an answer ``3:15`` against a gold
    ``3:15 p.m.`` stays wrong: it names 03:15); ratios when their terms are proportional in
    order (``2 \\text{ to } 5`` is ``2:5``; ``1:3:2`` is not ``1:2:3``)."""
    gold_clock, pred_clock = clock_time(gold), clock_time(pred)
    if gold_clock and pred_clock:
        if pred_clock[1] and not gold_clock[1] and 60 <= gold_clock[0] < 13 * 60:
            return gold_clock[0] % 720 == pred_clock[0] % 720  # a gold ``3:15`` leaves a.m./p.m. open
        return gold_clock[0] == pred_clock[0]
    if (gold_clock and gold_clock[1]) or (pred_clock and pred_clock[1]):
        return False
    gold_ratio, pred_ratio = ratio_terms(gold), ratio_terms(pred)
    if gold_ratio is None and pred_ratio is None:
        return None
    if gold_ratio is None or pred_ratio is None or len(gold_ratio) != len(pred_ratio):
        return False
    return all(g * pred_ratio[0] == p * gold_ratio[0] for g, p in zip(gold_ratio, pred_ratio)) and any(gold_ratio)


def choice_value(answer: str) -> str | None:
    """The value written after a multiple-choice letter (``\\text{(C) } 2\\sqrt6`` -> ``2\\sqrt6``), else None."""
    match = _CHOICE.match(unwrap_text(answer))
    return match[3].strip() if match and match[3] and match[3].strip() else None


def decimal_comma(answer: str) -> str | None:
    """``answer`` with a decimal point when it is one number written with a decimal comma, the
    way most of Europe writes decimals (``1000,99``, ``0,111``, ``-3,5``, ``2{,}74``, an optional
    currency sign), else None. Only a comma that cannot separate thousands counts: ``1,234`` (a
    first group of one to three digits without a leading zero, then exactly three) is one
    thousand two hundred thirty-four; ``3,4`` is read as 3.4 only against a number (the grader's
    choice: see :func:`rlenv.envs.math.grading.answers_match`)."""
    match = _DECIMAL_COMMA.match(unwrap_text(answer).strip())
    if match is None:
        return None
    sign, whole, fraction = match.groups()
    if len(fraction) == 3 and len(whole) <= 3 and not whole.startswith("0"):
        return None
    return f"{sign}{whole}.{fraction}"


def compare_forms(gold: str, pred: str) -> bool | None:
    """True/False when either answer has a form this module decides (clock time or ratio, base
    subscript, choice letters, text), else None (math-verify decides)."""
    if ":" in gold or ":" in pred or "colon" in gold + pred or " to " in gold + pred:
        by_colon = compare_colon_forms(gold, pred)
        if by_colon is not None:
            return by_colon
    if not (_HINT.search(gold) and _HINT.search(pred)) and "_" not in gold + pred:
        return None  # no letter, parenthesis or subscript on one side: none of these forms (fast path)
    gold_based, pred_based = based_number(gold), based_number(pred)
    if gold_based or pred_based:
        decimal = [(digits.lstrip("0") or "0", 10) if re.fullmatch(r"\d+", digits := unwrap_text(side)) else None
                   for side in (gold, pred)]
        return (gold_based or decimal[0]) == (pred_based or decimal[1])
    gold_choice, pred_choice = choice_letter(gold), choice_letter(pred)
    if pred_choice and not gold_choice and _OPTION_LETTER.match(unwrap_text(gold)):
        gold_choice = unwrap_text(gold)  # a bare gold ``D`` against an explicit choice ``\textbf{(D) }17``
    if gold_choice and pred_choice:
        return gold_choice == pred_choice
    gold_letters, pred_letters = choice_letters(gold), choice_letters(pred)
    if gold_letters is not None or pred_letters is not None:
        gold_letters = gold_letters or (frozenset(gold_choice) if gold_choice else None)
        pred_letters = pred_letters or (frozenset(pred_choice) if pred_choice else None)
        if gold_letters is not None and pred_letters is not None:
            return gold_letters == pred_letters
    gold_text, pred_text = text_key(gold), text_key(pred)
    if gold_text is not None and pred_text is not None:
        return gold_text == pred_text
    return None
