"""The checks of batch grading, run in worker processes (see :mod:`rlenv.envs.math.batch`).

A check is ``(reference, answer)``: with ``answer`` None it is the *gold check* (parse the
reference), else the *answer check* (parse the cleaned answer and compare it with the gold). Each
worker parses a reference once per settings and keeps it in a bounded cache.
"""

from __future__ import annotations

import functools

from rlenv.envs.math import grading, latex_parsing
from rlenv.envs.math.config import GradingConfig
from rlenv.envs.math.grading import ParsedAnswer, answers_match, parse_answer, parse_reference

#: Parsed gold answers each worker keeps (the least recently used are dropped first).
GOLD_CACHE_SIZE = 4096


@functools.lru_cache(maxsize=GOLD_CACHE_SIZE)
def gold_answer(config: GradingConfig, reference: str) -> ParsedAnswer:
    """The parsed gold answer of ``reference``, cached by reference *and* settings.

    Raises:
        ValueError: The reference is empty after cleaning (not cached: raised every time).
    """
    return parse_reference(reference)


def check(config: GradingConfig, payload: tuple[str, str | None]) -> bool | None:
    """Worker-pool handler: ``payload = (reference, answer)``.

    Returns None for a gold check (``answer`` None; raises when the reference is not usable),
    else whether the cleaned ``answer`` matches the gold.
    """
    reference, answer = payload
    gold = gold_answer(config, reference)
    return None if answer is None else answers_match(gold, parse_answer(answer), config)


def init_worker() -> None:
    """Worker-pool initializer: the faster LaTeX conversion (:mod:`rlenv.envs.math.latex_parsing`), then
    the grading warm-up (:func:`rlenv.envs.math.grading.init_worker`); the caches start empty."""
    latex_parsing.install()
    grading.init_worker()
    gold_answer.cache_clear()
