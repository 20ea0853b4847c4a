"""Numbers written in words (``forty``, ``two hundred ten``, ``two-thirds``, ``three and a half``,
``3 out of 8``), read with text2num (the integers) so the grader can compare them as numbers.

Forms, on the whole answer (lower case, hyphens and commas as spaces, a final period dropped):

* an integer: whatever ``text_to_num.text2num(..., "en")`` reads (``five``, ``forty two``,
  ``two hundred and ten``, ``one million``);
* a fraction: a count and a denominator word (``two thirds``, ``one quarter``, ``a half``,
  ``three eighths``): ``half``/``halves`` and ``quarter(s)``, else an ordinal, which text2num's
  ``alpha2digit`` writes as ``3rd``;
* a whole and a fraction: ``three and a half``, ``two and three quarters``;
* ``N out of M`` (digits or words): ``N/M``.

Anything else is not a number in words (None), so text answers (``\\text{even}``) stay text.
:func:`with_digits` writes the whole numbers of a sentence in digits (``she has twenty-four
cookies`` -> ``she has 24 cookies``), for the extraction of a concluding sentence's one value.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

_SPECIAL_DENOMINATORS = {"half": 2, "halves": 2, "quarter": 4, "quarters": 4}
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)s?$")
_WORDS = re.compile(r"^[a-z][a-z ]*$")
#: What whole-number digits cannot write: a fraction or decimal in words, an ordinal.
_NOT_WHOLE = re.compile(r"\b(?:halfs?|halves|quarters?|point|\d+(?:st|nd|rd|th)s?)\b", re.I)


def _integer(words: str) -> int | None:
    from text_to_num import text2num

    if words.isdigit():
        return int(words)
    try:
        return text2num(words, "en")
    except ValueError:
        return None


def _denominator(word: str) -> int | None:
    from text_to_num import alpha2digit

    if word in _SPECIAL_DENOMINATORS:
        return _SPECIAL_DENOMINATORS[word]
    ordinal = _ORDINAL.match(alpha2digit(word, "en", threshold=0))
    return int(ordinal[1]) if ordinal and int(ordinal[1]) > 2 else None


def _fraction(words: str) -> Fraction | None:
    """``two thirds`` -> 2/3, ``a half`` -> 1/2 (the last word is the denominator)."""
    count, _, last = words.rpartition(" ")
    if not count:
        return None
    numerator, denominator = 1 if count in ("a", "an") else _integer(count), _denominator(last)
    if numerator is None or denominator is None:
        return None
    return Fraction(numerator, denominator)


@functools.lru_cache(maxsize=4096)
def words_value(text: str) -> Fraction | None:
    """The number ``text`` writes in words, or None when it is not one (see the module docstring)."""
    words = " ".join(text.lower().replace("-", " ").replace(",", " ").rstrip(".").split())
    out_of = re.fullmatch(r"(.+?) out of (.+)", words)
    if out_of:
        numerator, denominator = _integer(out_of[1]), _integer(out_of[2])
        return Fraction(numerator, denominator) if numerator is not None and denominator else None
    if not _WORDS.match(words):
        return None
    value = _integer(words)
    if value is not None:
        return Fraction(value)
    whole, _, part = words.rpartition(" and ")
    if whole:
        base, rest = _integer(whole), _fraction(part)
        return None if base is None or rest is None else base + rest
    return _fraction(words)


def with_digits(sentence: str) -> str | None:
    """``sentence`` with its numbers in words written in digits (text2num's ``alpha2digit``), or
    None when it has none, or one digits cannot write alone (``two and a half``, ``two point
    five``, ``the third``)."""
    from text_to_num import alpha2digit

    digits = alpha2digit(sentence, "en", threshold=0)
    if digits == sentence or _NOT_WHOLE.search(digits):
        return None
    return digits
