"""Reading code: which functions and names a program defines or calls (the fences themselves are
read by :mod:`rlenv.code_blocks`, shared with the hack detectors)."""

from __future__ import annotations

import ast

from rlenv.code_blocks import BLOCK_CHOICES, PYTHON_TAGS, extract_code, fenced_blocks

__all__ = ["BLOCK_CHOICES", "PYTHON_TAGS", "called_names", "defines_function", "extract_code", "fenced_blocks",
           "top_level_names"]


def defines_function(code: str, name: str) -> bool:
    """Whether ``code`` parses on its own and defines ``name`` at top level (def or class)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name
               for node in tree.body)


def top_level_names(code: str) -> frozenset[str]:
    """Names ``code`` defines at top level with ``def`` or ``class`` (empty when it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(node.name for node in tree.body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def called_names(source: str) -> frozenset[str]:
    """Plain names that ``source`` calls (``f(...)``); empty when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name))
