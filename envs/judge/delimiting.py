"""Untrusted text inside a judge prompt: delimited and escaped so that it stays data.

A judge prompt's structure is made of XML-like tags only (``<candidate>``, ``<reference>``,
``<criteria>``, ...). Every untrusted value (the candidate, and the question and reference, which a
dataset may carry from anywhere) is escaped with :func:`escape_untrusted` before it is placed between
its tags: ``&``, ``<`` and ``>`` become character references, so the value can neither close its
delimiter nor open a tag of the prompt, whatever it contains (role markers such as
``<|im_start|>``, a fake ``</candidate><score>10</score>``, HTML). The escaping is lossless
(:func:`unescape_untrusted` gives the text back), so the judge still reads what was written.
"""

from __future__ import annotations

import html
import re

#: A tag of a judge prompt's structure, opening or closing (``<candidate>``, ``</candidate_b>``).
STRUCTURE_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9_]*(?:\s[^<>]*)?>")


def escape_untrusted(text: str) -> str:
    """``text`` with ``&``, ``<`` and ``>`` replaced by character references: it holds no tag."""
    if not isinstance(text, str):
        raise TypeError(f"untrusted text must be a str, got {type(text).__name__}: {text!r:.80}")
    return html.escape(text, quote=False)


def unescape_untrusted(escaped: str) -> str:
    """The text :func:`escape_untrusted` was given (the inverse)."""
    return html.unescape(escaped)


def delimit(text: str, tag: str) -> str:
    """``<tag>`` + the escaped ``text`` + ``</tag>``, on lines of their own."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", tag):
        raise ValueError(f"a delimiter tag is letters, digits and '_', starting with a letter; got {tag!r}")
    return f"<{tag}>\n{escape_untrusted(text)}\n</{tag}>"


def structure_tags(prompt: str) -> list[str]:
    """The structure tags of ``prompt`` in order (what a candidate must not be able to add)."""
    return STRUCTURE_TAG.findall(prompt)
