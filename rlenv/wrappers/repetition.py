"""Repetition: degenerate loops that pad length or farm a per-step / per-length reward.

Padding that hides from the measures is undone first (:func:`normalize_padding`): Unicode
compatibility forms are folded (NFKC: full-width, mathematical letters), invisible format
characters (zero-width spaces and joiners, word joiners, soft hyphens, BOMs) are dropped, and a
word that mixes scripts (Latin letters with Cyrillic or Greek look-alikes, ``Thіs`` with a
Cyrillic ``і``) is read by its shape alone, so a loop of one sentence with letters swapped for
look-alikes is still a loop. Two kinds need no loop: ``lookalike_letters`` (at least
``min_lookalike_words`` words mixing scripts; honest text in any one script has none) and
``digit_padding`` (at least ``max_irrelevant_digits`` digits in numbers that stand alone: runs of
numbers with nothing between them but spaces and punctuation, or single numbers of 16+ digits;
fenced code is not counted).

Three measures:

* :func:`ngram_repetition` — the share of repeated word n-grams, ``1 - |unique n-grams| /
  |n-grams|`` over lower-cased whitespace-split words, as in open-r1 / TRL
  ``get_repetition_penalty_reward`` (Yeo et al. 2025, App. C.2); 0 when there are fewer than
  ``n`` words. Also accepts a sequence of token ids.
* :func:`compression_ratio` — raw bytes over zlib-compressed bytes (loops compress very well).
* :func:`max_line_repeats` — how often the most repeated non-trivial line occurs.
"""

from __future__ import annotations

import collections
import re
import unicodedata
import zlib
from collections.abc import Hashable, Sequence

import gymnasium

from rlenv.code_blocks import fenced_blocks
from rlenv.types import RewardResult, Task
from rlenv.wrappers.detection import Detection, DetectorWrapper, quote

NAME = "repetition"


def ngram_repetition(text: str | Sequence[Hashable], n: int = 3) -> float:
    """Share of repeated n-grams in ``[0, 1)``: ``1 - unique/total``.

    Args:
        text: A string (split into lower-cased words on whitespace) or a sequence of token ids.
        n: The n-gram size (>= 1).
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    units = text.lower().split() if isinstance(text, str) else list(text)
    if len(units) < n:
        return 0.0
    grams = list(zip(*(units[i:] for i in range(n)), strict=False))
    return 1.0 - len(set(grams)) / len(grams)


def repetition_penalty(text: str | Sequence[Hashable], n: int = 3, max_penalty: float = -1.0) -> float:
    """open-r1's n-gram repetition penalty: ``ngram_repetition(text, n) * max_penalty`` (``max_penalty <= 0``)."""
    if max_penalty > 0:
        raise ValueError(f"max_penalty must be <= 0, got {max_penalty}")
    return ngram_repetition(text, n) * max_penalty


def compression_ratio(text: str) -> float:
    """``len(utf8) / len(zlib.compress(utf8, 9))``; 0.0 for empty text. Loops score high (> 4)."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data, 9)) if data else 0.0


def max_line_repeats(text: str, min_words: int = 4) -> tuple[int, str]:
    """``(count, line)`` of the most repeated line with at least ``min_words`` words (``(0, "")`` if none)."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    counts = collections.Counter(line for line in lines if len(line.split()) >= min_words)
    if not counts:
        return 0, ""
    line, count = counts.most_common(1)[0]
    return count, line


_LETTERS = re.compile(r"[^\W\d_]+")
_NUMBER_SOUP = re.compile(r"(?:\d[\d.,]*[\s,;:|/]+){7,}\d[\d.,]*")
_LONG_NUMBER = re.compile(r"\d{16,}")


def _script(ch: str) -> str:
    """The script of a letter as its Unicode name starts (``LATIN``, ``CYRILLIC``, ``GREEK``…)."""
    return unicodedata.name(ch, "UNKNOWN").split(" ", 1)[0]


def mixes_scripts(word: str) -> bool:
    """True when the letters of ``word`` come from more than one script (``Thіs`` with a Cyrillic ``і``)."""
    return len({_script(ch) for ch in word}) > 1


def normalize_padding(text: str) -> tuple[str, int, int]:
    """``(normalized, invisible, mixed)``: ``text`` NFKC-folded, without invisible format characters
    (Unicode category Cf), and with every mixed-script word replaced by its shape (``*`` per
    letter); with how many invisible characters were dropped and how many words were folded."""
    folded = unicodedata.normalize("NFKC", text)
    visible = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    mixed = 0

    def shape(match: re.Match) -> str:
        nonlocal mixed
        if not mixes_scripts(match.group(0)):
            return match.group(0)
        mixed += 1
        return "*" * len(match.group(0))

    return _LETTERS.sub(shape, visible), len(folded) - len(visible), mixed


def irrelevant_digits(text: str) -> int:
    """How many digits stand in numbers that say nothing: runs of 8+ numbers with only spaces and
    punctuation between them, and single numbers of 16+ digits, outside fenced code (a data table
    in a program is code)."""
    for _, code in fenced_blocks(text):
        text = text.replace(code, " ")
    soup = sum(sum(ch.isdigit() for ch in m.group(0)) for m in _NUMBER_SOUP.finditer(text))
    return soup + sum(len(m.group(0)) for m in _LONG_NUMBER.finditer(_NUMBER_SOUP.sub(" ", text)))


def detect_repetition(
    text: str,
    n: int = 3,
    threshold: float = 0.5,
    min_ngrams: int = 12,
    max_compression: float = 5.0,
    min_compress_chars: int = 400,
    max_repeated_lines: int = 4,
    min_lookalike_words: int = 3,
    max_irrelevant_digits: int = 200,
) -> Detection:
    """Fire on degenerate repetition, measured on :func:`normalize_padding` of ``text``.

    Fires when any of: the n-gram repetition is at least ``threshold`` over at least
    ``min_ngrams`` n-grams; the text (at least ``min_compress_chars`` long) compresses more than
    ``max_compression`` times; a line of 4+ words occurs ``max_repeated_lines`` times or more;
    at least ``min_lookalike_words`` words mix scripts (``lookalike_letters``); at least
    ``max_irrelevant_digits`` digits are :func:`irrelevant_digits` (``digit_padding``).
    The score is the n-gram repetition share (what open-r1's penalty scales by), or the share of
    lines taken by the repeated line when that is larger (1 for the two padding kinds).
    """
    raw = text
    text, invisible, mixed = normalize_padding(text)
    words = text.split()
    share = ngram_repetition(text, n)
    ratio = compression_ratio(text)
    repeats, line = max_line_repeats(text)
    lines = max(1, sum(1 for x in text.splitlines() if x.strip()))
    score = max(share, repeats / lines if repeats >= max_repeated_lines else 0.0)
    evidence = f"{n}-gram repetition {share:.2f}, compression ratio {ratio:.1f}"
    if invisible or mixed:
        evidence += f" (measured without {invisible} invisible characters, {mixed} mixed-script words read by shape)"
    if share >= threshold and len(words) - n + 1 >= min_ngrams:
        return Detection(NAME, True, score, "ngram_loop", evidence)
    if ratio > max_compression and len(text) >= min_compress_chars:
        return Detection(NAME, True, score, "compressible", evidence)
    if repeats >= max_repeated_lines:
        return Detection(NAME, True, score, "repeated_lines", f"line {quote(line, 50)} occurs {repeats} times; {evidence}")
    if mixed >= min_lookalike_words:
        shown = next(w for w in _LETTERS.findall(raw) if mixes_scripts(w))
        return Detection(NAME, True, 1.0, "lookalike_letters", f"{mixed} words mix scripts, e.g. {quote(shown, 30)}")
    digits = irrelevant_digits(text)
    if digits >= max_irrelevant_digits:
        return Detection(NAME, True, 1.0, "digit_padding",
                         f"{digits} digits in numbers that stand alone (runs of bare numbers, 16+ digit numbers)")
    return Detection.clean(NAME, score, evidence)


class RepetitionPenalty(DetectorWrapper):
    """Flag (and optionally penalize) degenerate repetition; see :func:`detect_repetition`.

    Args:
        env: The environment to wrap.
        penalty: Scaled by the repetition score and added when the detector fires; ``-1.0``
            reproduces open-r1's penalty on flagged completions. 0 flags only.
        n, threshold: n-gram size and the repetition share that fires.
    """

    name = NAME

    def __init__(self, env: gymnasium.Env, penalty: float = 0.0, n: int = 3, threshold: float = 0.5):
        super().__init__(env, penalty)
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.n = n
        self.threshold = threshold

    def detect(self, task: Task, completion: str, result: RewardResult, truncated: bool) -> Detection:
        return detect_repetition(completion, n=self.n, threshold=self.threshold)
