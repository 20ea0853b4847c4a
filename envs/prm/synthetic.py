"""Synthetic step-labelled arithmetic solutions (TRL ``stepwise_supervision`` rows) for PRM demos and tests.

A problem asks to add (or to multiply) a few small numbers; a solution folds them in one step per
number (``"Step 2: 7 + 5 = 12"``). Some steps apply the wrong operation (``*`` in an addition
problem or ``+`` in a multiplication problem, with the arithmetic of that wrong operation done
right); later steps carry the resulting wrong running total on, as a real slip would. A step's
label says whether it applies the operation the problem asks for.
"""

from __future__ import annotations

import random
from typing import Any

#: Problem verb -> (operator symbol, operation).
OPERATIONS = {"Add": ("+", lambda a, b: a + b), "Multiply": ("*", lambda a, b: a * b)}


def arithmetic_solution(rng: random.Random, num_terms: int, error_rate: float) -> dict[str, Any]:
    """One stepwise row ``{"prompt", "completions", "labels", "answer"}``; ``answer`` is the true result."""
    terms = [rng.randint(1, 6) for _ in range(num_terms)]
    verb = rng.choice(sorted(OPERATIONS))
    wrong_verb = next(v for v in sorted(OPERATIONS) if v != verb)
    steps, labels = [], []
    total = answer = terms[0]
    for k, term in enumerate(terms[1:], start=1):
        ok = rng.random() >= error_rate
        symbol, operation = OPERATIONS[verb if ok else wrong_verb]
        result = operation(total, term)
        steps.append(f"Step {k}: {total} {symbol} {term} = {result}")
        labels.append(ok)
        total = result
        answer = OPERATIONS[verb][1](answer, term)
    prompt = f"{verb} the numbers " + ", ".join(map(str, terms[:-1])) + f" and {terms[-1]}."
    return {"prompt": prompt, "completions": steps, "labels": labels, "answer": answer}


def arithmetic_stepwise_rows(
    n: int, seed: int = 0, num_terms: tuple[int, int] = (3, 5), error_rate: float = 0.3
) -> list[dict[str, Any]]:
    """``n`` stepwise rows drawn with ``random.Random(seed)``; ``num_terms`` bounds the numbers per problem."""
    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    low, high = num_terms
    if not 2 <= low <= high:
        raise ValueError(f"num_terms must satisfy 2 <= low <= high, got {num_terms!r}")
    if not 0.0 <= error_rate <= 1.0:
        raise ValueError(f"error_rate must be in [0, 1], got {error_rate!r}")
    rng = random.Random(seed)
    return [arithmetic_solution(rng, rng.randint(low, high), error_rate) for _ in range(n)]
