"""Where a hack detector's evidence sits in the completion, for highlighting it in the report.

Detectors describe what they found in words (``Detection.evidence``), quoting the completion with
:func:`rlenv.wrappers.detection.quote` (Python ``repr`` of the text with whitespace collapsed, cut
with ``...``) and naming code lines as ``(line N)`` (code tampering, counted within the code
block). :func:`evidence_spans` finds those quotes and lines in the completion.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from typing import Any

from rlenv.code_blocks import fenced_blocks

#: A quoted piece of a ``repr``: opened after a non-word character, closed before one.
_QUOTED = re.compile(r"""(?<!\w)(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?!\w)""")
_LINE = re.compile(r"\(line (\d+)\)")
#: Quotes shorter than this (``'4'``, ``'or'``) only match as whole words.
SHORT_QUOTE_CHARS = 3
#: Spans kept per sample (a repeated line may occur hundreds of times).
MAX_SPANS = 100


def _quotes(evidence: str) -> list[str]:
    found = []
    for match in _QUOTED.finditer(evidence):
        try:
            text = ast.literal_eval(match.group(0))
        except (ValueError, SyntaxError):
            continue
        text = text.removesuffix("...").strip()
        if text:
            found.append(text)
    return found


def _code_line(completion: str, line: int) -> tuple[int, int] | None:
    """Offsets of line ``line`` (1-based) of the completion's only code block (the whole text without fences)."""
    blocks = [code for _, code in fenced_blocks(completion) if code.strip()]
    if len(blocks) > 1:
        return None  # the detector's line numbers are per block: ambiguous
    code = blocks[0] if blocks else completion
    start = completion.find(code)
    lines = code.split("\n")
    if start < 0 or not 1 <= line <= len(lines):
        return None
    begin = start + sum(len(text) + 1 for text in lines[: line - 1])
    return begin, begin + len(lines[line - 1])


def evidence_spans(completion: str, hacks: Iterable[Mapping[str, Any]]) -> list[tuple[int, int, str]]:
    """Character spans ``(start, end, label)`` of ``completion`` that the ``hacks`` records point at.

    ``label`` is ``"detector: kind"``. Quoted text is matched with any run of whitespace where the
    quote has one space (quotes are whitespace-collapsed), as a whole word when it is shorter than
    :data:`SHORT_QUOTE_CHARS`; every occurrence is a span. Spans are sorted by start, at most
    :data:`MAX_SPANS` of them.
    """
    spans: list[tuple[int, int, str]] = []
    for hack in hacks:
        label = f"{hack.get('detector', '?')}: {hack.get('kind', '')}"
        evidence = str(hack.get("evidence") or "")
        for quote in _quotes(evidence):
            pattern = r"\s+".join(re.escape(word) for word in quote.split())
            if len(quote) < SHORT_QUOTE_CHARS:
                pattern = rf"(?<!\w){pattern}(?!\w)"
            spans += [(m.start(), m.end(), label) for m in re.finditer(pattern, completion)]
        for match in _LINE.finditer(evidence):
            where = _code_line(completion, int(match.group(1)))
            if where is not None and where[1] > where[0]:
                spans.append((*where, label))
    return sorted(set(spans))[:MAX_SPANS]
