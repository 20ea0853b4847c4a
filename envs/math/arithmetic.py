"""``rlenv/Arithmetic-v0``: seeded, infinite integer-arithmetic problems with difficulty levels.

Format (kept short so a tiny character-level model can learn it):

* expression style: prompt ``"Compute: 12+7*3"``; word style: prompt
  ``"Start with 12. Add 7. Multiply by 3. What is the result?"`` (steps applied left to right);
* gold completion ``"#### 33"``; the answer is always an integer (divisions are exact).

Difficulty levels (each knob can be overridden, e.g. ``make(..., level=3, steps=4)``):

=====  ======  ==========  =====  ===========  ========
level  digits  operations  steps  parentheses  negative
=====  ======  ==========  =====  ===========  ========
1      1       ``+``       1      no           no
2      1-2     ``+-``      1      no           no
3      1-2     ``+-*``     2      no           yes
4      1-2     ``+-*/``    3      yes          yes
5      2-3     ``+-*/``    4      yes          yes
=====  ======  ==========  =====  ===========  ========

``digits`` bounds the operands' digit count; ``steps`` is the number of operations;
``negative=False`` redraws problems whose answer is below zero.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.math.verifier import MathVerifier
from rlenv.errors import check_choice
from rlenv.sources import ProceduralSource
from rlenv.types import Task

OPERATIONS = "+-*/"
STYLES = ("expression", "word")
_WORDS = {"+": "Add {n}.", "-": "Subtract {n}.", "*": "Multiply by {n}.", "/": "Divide by {n}."}
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}
_MAX_DRAWS = 1000
_DIVISOR_SCAN = 2000


@dataclasses.dataclass(frozen=True)
class ArithmeticConfig:
    """The generator's knobs.

    Attributes:
        min_digits, max_digits: Digit count of each operand (1-9).
        operations: A string of distinct operators from ``"+-*/"``.
        steps: Number of operations per problem (>= 1).
        parentheses: Allow parenthesized sub-expressions (expression style only).
        negative: Allow negative answers (otherwise such draws are redrawn).
        style: ``"expression"`` or ``"word"``.
    """

    min_digits: int = 1
    max_digits: int = 1
    operations: str = "+"
    steps: int = 1
    parentheses: bool = False
    negative: bool = False
    style: str = "expression"

    def __post_init__(self) -> None:
        if not (1 <= self.min_digits <= self.max_digits <= 9):
            raise ValueError(f"need 1 <= min_digits <= max_digits <= 9, got {self.min_digits}, {self.max_digits}")
        if not self.operations or set(self.operations) - set(OPERATIONS) or len(set(self.operations)) != len(self.operations):
            raise ValueError(f"operations must be distinct characters from {OPERATIONS!r}, got {self.operations!r}")
        if not isinstance(self.steps, int) or self.steps < 1:
            raise ValueError(f"steps must be a positive int, got {self.steps!r}")
        check_choice("style", self.style, STYLES)


#: The presets behind ``level=``.
LEVELS: dict[int, ArithmeticConfig] = {
    1: ArithmeticConfig(1, 1, "+", 1, parentheses=False, negative=False),
    2: ArithmeticConfig(1, 2, "+-", 1, parentheses=False, negative=False),
    3: ArithmeticConfig(1, 2, "+-*", 2, parentheses=False, negative=True),
    4: ArithmeticConfig(1, 2, "+-*/", 3, parentheses=True, negative=True),
    5: ArithmeticConfig(2, 3, "+-*/", 4, parentheses=True, negative=True),
}


def level_config(level: int, **overrides: Any) -> ArithmeticConfig:
    """The preset of ``level`` with ``overrides`` (any :class:`ArithmeticConfig` field) applied."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {sorted(LEVELS)}, got {level!r}")
    return dataclasses.replace(LEVELS[level], **overrides)


def _operand(rng: random.Random, config: ArithmeticConfig) -> int:
    digits = rng.randint(config.min_digits, config.max_digits)
    return rng.randint(0 if digits == 1 else 10 ** (digits - 1), 10**digits - 1)


def _divisor(rng: random.Random, config: ArithmeticConfig, dividend: int) -> int | None:
    """An exact divisor (>= 2) of ``dividend`` with an allowed digit count, or None.

    Small ranges are scanned; for wide ones (more than :data:`_DIVISOR_SCAN` candidates) a fixed
    number of random candidates is tried, so the cost per draw stays bounded.
    """
    low = max(2, 10 ** (config.min_digits - 1))
    high = min(10**config.max_digits - 1, abs(dividend))
    if not dividend or high < low:
        return None
    candidates: Sequence[int]
    if high - low < _DIVISOR_SCAN:
        candidates = range(low, high + 1)
    else:
        candidates = sorted({rng.randint(low, high) for _ in range(_DIVISOR_SCAN)})
    choices = [d for d in candidates if dividend % d == 0]
    return rng.choice(choices) if choices else None


@dataclasses.dataclass(frozen=True)
class _Expr:
    text: str
    value: int
    precedence: int  # 1: a sum at top level, 2: a product, 3: a number


def _combine(left: _Expr, op: str, right: _Expr) -> _Expr:
    """``left op right`` with only the parentheses the usual precedence needs."""
    prec = _PRECEDENCE[op]
    left_text = left.text if left.precedence >= prec else f"({left.text})"
    bare_right = right.precedence > prec or (right.precedence == prec and op in "+*")
    right_text = right.text if bare_right else f"({right.text})"
    value = {"+": left.value + right.value, "-": left.value - right.value,
             "*": left.value * right.value, "/": left.value // (right.value or 1)}[op]
    return _Expr(f"{left_text}{op}{right_text}", value, prec)


def _number(value: int) -> _Expr:
    return _Expr(str(value), value, 3)


def _pick_operation(rng: random.Random, config: ArithmeticConfig, dividend: int | None) -> tuple[str, int | None]:
    """An operation, and for ``/`` an exact divisor of ``dividend`` (``/`` is skipped when there is none)."""
    op = rng.choice(config.operations)
    if op != "/":
        return op, None
    divisor = None if dividend is None else _divisor(rng, config, dividend)
    if divisor is not None:
        return op, divisor
    return rng.choice([o for o in config.operations if o != "/"] or ["+"]), None


def _flat_expression(rng: random.Random, config: ArithmeticConfig) -> _Expr:
    """``a op b op c ...`` without parentheses; a ``/`` divides the product term before it exactly."""
    expr = term = _number(_operand(rng, config))
    head: _Expr | None = None  # the sum before the current product term
    sign = "+"
    for _ in range(config.steps):
        op, divisor = _pick_operation(rng, config, term.value)
        operand = _number(divisor if divisor is not None else _operand(rng, config))
        if op in "*/":
            term = _combine(term, op, operand)
        else:
            head = term if head is None else _combine(head, sign, term)
            sign, term = op, operand
        expr = term if head is None else _combine(head, sign, term)
    return expr


def _nested_expression(rng: random.Random, config: ArithmeticConfig, steps: int) -> _Expr:
    """A random expression tree with ``steps`` operations, written with the parentheses it needs."""
    if steps == 0:
        return _number(_operand(rng, config))
    left_steps = rng.randint(0, steps - 1)
    left = _nested_expression(rng, config, left_steps)
    right_steps = steps - 1 - left_steps
    op, divisor = _pick_operation(rng, config, left.value if right_steps == 0 else None)
    right = _number(divisor) if divisor is not None else _nested_expression(rng, config, right_steps)
    return _combine(left, op, right)


def _word_problem(rng: random.Random, config: ArithmeticConfig) -> tuple[str, int]:
    value = _operand(rng, config)
    sentences = [f"Start with {value}."]
    for _ in range(config.steps):
        op, divisor = _pick_operation(rng, config, value)
        n = divisor if divisor is not None else _operand(rng, config)
        value = _combine(_number(value), op, _number(n)).value
        sentences.append(_WORDS[op].format(n=n))
    return " ".join(sentences) + " What is the result?", value


class ArithmeticGenerator:
    """``generate(rng, index) -> Task`` for :class:`~rlenv.sources.ProceduralSource` (picklable)."""

    def __init__(self, config: ArithmeticConfig, level: int | None = None):
        self.config = config
        self.level = level

    def __call__(self, rng: random.Random, index: int) -> Task:
        for _ in range(_MAX_DRAWS):
            if self.config.style == "word":
                prompt, answer = _word_problem(rng, self.config)
            else:
                expr = (_nested_expression(rng, self.config, self.config.steps) if self.config.parentheses
                        else _flat_expression(rng, self.config))
                prompt, answer = f"Compute: {expr.text}", expr.value
            if self.config.negative or answer >= 0:
                break
        else:
            raise RuntimeError(f"no non-negative problem in {_MAX_DRAWS} draws for {self.config}: set negative=True")
        metadata = {"level": self.level, "steps": self.config.steps, "style": self.config.style}
        return Task(str(index), prompt, reference=str(answer), gold_completion=f"#### {answer}", metadata=metadata)


def make_arithmetic_env(
    level: int = 1,
    seed: int = 0,
    size: int | None = None,
    min_digits: int | None = None,
    max_digits: int | None = None,
    operations: str | None = None,
    steps: int | None = None,
    parentheses: bool | None = None,
    negative: bool | None = None,
    style: str | None = None,
    verifier: MathVerifier | None = None,
    **env_kwargs: Any,
) -> TextEnv:
    """Build ``rlenv/Arithmetic-v0``.

    Args:
        level: Difficulty preset (1-5, see the module docstring); the other knobs override it.
        seed: Seed of the task family (task ``i`` depends only on ``seed`` and ``i``).
        size: Number of tasks, or None for an infinite source.
        min_digits, max_digits, operations, steps, parentheses, negative, style: See
            :class:`ArithmeticConfig`.
        verifier: Defaults to ``MathVerifier()``.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv` (``prompt_template``, ``chat``, ...).
    """
    knobs = {"min_digits": min_digits, "max_digits": max_digits, "operations": operations, "steps": steps,
             "parentheses": parentheses, "negative": negative, "style": style}
    config = level_config(level, **{k: v for k, v in knobs.items() if v is not None})
    source = ProceduralSource(ArithmeticGenerator(config, level), seed=seed, size=size, prefix=f"arith{level}")
    return TextEnv(source, verifier or MathVerifier(), **env_kwargs)
