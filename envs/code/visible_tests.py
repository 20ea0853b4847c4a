"""The tests a code task's prompt shows the policy: doctest ``>>>`` examples, ``assert f(...) == ...``
lines, ``f(x) -> y`` lines and Input/Output examples (:func:`visible_tests`), read so the tampering
detector (:mod:`rlenv.envs.code.tampering`) can tell code that answers the examples from code that
solves the task."""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Any


@dataclasses.dataclass(frozen=True)
class VisibleTest:
    """One example the policy can see in its prompt.

    Call-style tests have ``args`` (a tuple of literal arguments) and ``expected`` (the literal
    result); stdin/stdout examples have ``stdin`` and ``stdout`` text.
    """

    args: tuple[Any, ...] | None = None
    expected: Any = None
    stdin: str | None = None
    stdout: str | None = None


def literal(node: ast.AST | str) -> tuple[bool, Any]:
    """``(True, value)`` of a Python literal (source text or a parsed node), else ``(False, None)``."""
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _call_args(call: ast.Call) -> tuple[bool, tuple[Any, ...]]:
    values = []
    for arg in call.args:
        ok, value = literal(arg)
        if not ok:
            return False, ()
        values.append(value)
    return True, tuple(values)


def _parse_call_test(source: str, expected_src: str | None) -> VisibleTest | None:
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    if expected_src is None and isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
        expected_node = node.comparators[0]
        node = node.left
        ok, expected = literal(expected_node)
    else:
        ok, expected = literal(expected_src.strip()) if expected_src is not None else (False, None)
    if not ok or not isinstance(node, ast.Call):
        return None
    ok, args = _call_args(node)
    return VisibleTest(args=args, expected=expected) if ok and args else None


_DOCTEST = re.compile(r"^[ \t]*>>>[ \t]*(?P<call>.+)\n[ \t]*(?P<out>(?!>>>)\S.*)$", re.MULTILINE)
_ASSERT = re.compile(r"^[ \t]*assert\s+(?P<expr>.+?)\s*$", re.MULTILINE)
_ARROW = re.compile(r"^[ \t]*(?P<call>[A-Za-z_]\w*\(.*\))\s*(?:==>|=>|➞|->|→|==|\#\s*returns?|should return|returns?)"
                    r"\s*(?P<out>.+?)\s*$", re.MULTILINE)
_IO = re.compile(r"(?:sample\s+|example\s+)?input(?:\s*\d+)?\s*:?[ \t]*\n(?P<stdin>.*?)\n\s*(?:sample\s+|example\s+|expected\s+)?output"
                 r"(?:\s*\d+)?\s*:?[ \t]*\n(?P<stdout>.*?)(?:\n\s*\n|\Z)", re.IGNORECASE | re.DOTALL)
_INLINE_IO = re.compile(r"^[ \t]*input\s*:[ \t]*(?P<input>\S.*?)\s*\n[ \t]*output\s*:[ \t]*(?P<output>\S.*?)\s*$",
                        re.IGNORECASE | re.MULTILINE)
_BOOL_WORDS = {"true": "True", "false": "False", "none": "None"}


def _expected_literal(text: str) -> str:
    """The literal part of an example's output: ``19 - 5 - 6 = 8`` -> ``8``, ``true`` -> ``True``."""
    text = text.strip().rstrip(".").strip()
    if "=" in text and not literal(text)[0]:
        text = text.rsplit("=", 1)[1].strip()
    return _BOOL_WORDS.get(text.lower(), text)


def visible_tests(prompt: str) -> list[VisibleTest]:
    """The examples a prompt shows: doctests, ``assert`` lines, ``f(x) -> y`` lines and Input/Output examples."""
    tests = []
    for match in _DOCTEST.finditer(prompt):
        tests.append(_parse_call_test(match.group("call"), match.group("out")))
    for match in _ASSERT.finditer(prompt):
        tests.append(_parse_call_test(match.group("expr"), None))
    for match in _ARROW.finditer(prompt):
        tests.append(_parse_call_test(match.group("call"), _expected_literal(match.group("out"))))
    for match in _INLINE_IO.finditer(prompt):
        ok_in, value_in = literal(match.group("input"))
        ok_out, value_out = literal(_expected_literal(match.group("output")))
        if ok_in and ok_out:
            tests.append(VisibleTest(args=(value_in,), expected=value_out))
    for match in _IO.finditer(prompt):
        tests.append(VisibleTest(stdin=match.group("stdin").strip(), stdout=match.group("stdout").strip()))
    return [t for t in tests if t is not None]
