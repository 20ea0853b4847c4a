"""Code in model text: markdown fences (backticks or tildes, any info string, closed or left open
by a truncated generation) or raw text.

The one reading of a completion's code: the code verifier runs what :func:`extract_code` returns
and the tampering detector inspects every block :func:`fenced_blocks` finds, so hostile code
cannot hide from the detector in a fence style the verifier accepts.
"""

from __future__ import annotations

import re

from rlenv.errors import check_choice

#: Fence info strings that mean Python.
PYTHON_TAGS = ("python", "py", "python3", "py3")
#: Which fenced block :func:`extract_code` returns when there are several.
BLOCK_CHOICES = ("last", "first", "longest")

#: Characters a fence is made of (three or more of one of them).
FENCE_CHARS = ("`", "~")

_FENCE = re.compile(r"^[ \t]*(?P<fence>" + "|".join(re.escape(c) + "{3,}" for c in FENCE_CHARS)
                    + r")[ \t]*(?P<tag>[\w+#.-]*)[^\n]*\n", re.M)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Every fenced block of ``text`` as ``(tag, code)``, in order.

    A block opens with a line of three or more backticks (or tildes) and an optional info
    string, and closes with a line of at least as many of the same character. A block left open
    at the end of the text (a truncated generation) runs to the end.
    """
    blocks: list[tuple[str, str]] = []
    pos = 0
    while True:
        opening = _FENCE.search(text, pos)
        if opening is None:
            return blocks
        fence = opening.group("fence")
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.M).search(text, opening.end())
        end = closing.start() if closing else len(text)
        blocks.append((opening.group("tag").lower(), text[opening.end():end]))
        if closing is None:
            return blocks
        pos = closing.end()


def extract_code(completion: str, block: str = "last") -> str | None:
    """The code of ``completion``, or None when there is none.

    With fenced blocks, the ``block`` (``"last"``, ``"first"`` or ``"longest"``) among those
    tagged Python is returned, else among the untagged ones, else among all. Without fences the
    whole completion is code (leading indentation kept: it may continue a function body).
    Blank or whitespace-only code is None.
    """
    check_choice("block", block, BLOCK_CHOICES)
    blocks = fenced_blocks(completion)
    if blocks:
        python = [code for tag, code in blocks if tag in PYTHON_TAGS]
        untagged = [code for tag, code in blocks if not tag]
        pool = python or untagged or [code for _, code in blocks]
        if block == "last":
            code = pool[-1]
        elif block == "first":
            code = pool[0]
        else:
            code = max(pool, key=len)
    else:
        code = completion
    code = code.rstrip()
    return code if code.strip() else None
