"""``rlenv/Arithmetic-Calculator-v0``: seeded arithmetic with a calculator tool (multi-turn, offline).

The tasks and the verifier are ``rlenv/Arithmetic-v0``'s (any of its knobs: ``level``,
``min_digits``, ``operations``...); the policy may call ``calculator(expression)``, which
evaluates ``+ - * /`` and parentheses on integers exactly (a fraction when a division is not
exact), in process: no sandbox, so the env runs anywhere, training included. Its final turn, the
one without a tool call, is graded as the base env grades a single-turn completion
(``#### answer``). With ``min_digits=max_digits=5, operations="*"`` it is the products of
5-digit numbers a tiny policy cannot compute but can delegate.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from rlenv.tools import ToolEnv, single_turn_base

#: Put after the base env's prompt.
TOOL_INSTRUCTION = "\nUse the calculator tool; then reply without a tool call as #### answer."
_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {ast.Add: operator.add, ast.Sub: operator.sub,
                                                     ast.Mult: operator.mul, ast.Div: operator.truediv}
#: Longest expression the calculator reads (characters), and the largest result it returns (digits).
MAX_EXPRESSION_CHARS = 200
MAX_RESULT_DIGITS = 60


def _evaluate(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            raise ZeroDivisionError("division by zero")
        result = _OPERATORS[type(node.op)](left, right)
        if len(str(abs(result.numerator))) > MAX_RESULT_DIGITS:
            raise ValueError(f"a result has more than {MAX_RESULT_DIGITS} digits")
        return result
    raise ValueError(f"only integers, + - * / and parentheses are allowed, got {ast.dump(node)[:80]}")


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression exactly.

    Args:
        expression: Integers with + - * / and parentheses, e.g. "12345 * 67890".
    """
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    value = _evaluate(ast.parse(expression.strip(), mode="eval"))
    return str(value.numerator) if value.denominator == 1 else str(value)


def make_arithmetic_calculator_env(
    base_kwargs: dict[str, Any] | None = None,
    max_turns: int = 4,
    data_files: Any = None,
    fields: Any = None,
    **tool_env_kwargs: Any,
) -> ToolEnv:
    """Build ``rlenv/Arithmetic-Calculator-v0``.

    Args:
        base_kwargs: ``rlenv/Arithmetic-v0``'s settings (``level``, ``seed``, ``min_digits``,
            ``max_digits``, ``operations``, ``steps``...).
        max_turns: The most policy turns of an episode.
        data_files, fields: Tasks from local files (``rlenv eval --data/--field``).
        **tool_env_kwargs: Other :class:`~rlenv.tools.ToolEnv` settings (``chat``, ``tool_format``,
            ``max_tokens``, ...).
    """
    single = single_turn_base("rlenv/Arithmetic-v0", base_kwargs, data_files, fields)
    return ToolEnv(single.source, single.verifier, tools=[calculator], max_turns=max_turns,
                   prompt_template=single.prompt_template + TOOL_INSTRUCTION, **tool_env_kwargs)
