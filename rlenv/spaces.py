"""Observation/action spaces for free text and chat messages.

``gymnasium.spaces.Text`` limits length and charset, so it rejects real model output. These
spaces accept any string (or any list of ``{"role", "content"}`` messages) and sample
deterministically under a seed, which is what ``gymnasium.utils.env_checker.check_env`` needs.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

_ALPHABET = np.array(list(string.ascii_letters + string.digits + " .,+-*/=()"))


def _random_text(rng: np.random.Generator, max_length: int) -> str:
    length = int(rng.integers(0, max_length + 1))
    return "".join(rng.choice(_ALPHABET, size=length))


class TextSpace(spaces.Space[str]):
    """Any Python ``str``. ``sample()`` draws short random ASCII strings from the space's RNG."""

    def __init__(self, max_sample_length: int = 32, seed: int | np.random.Generator | None = None):
        self.max_sample_length = max_sample_length
        super().__init__(dtype=str, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        return _random_text(self.np_random, self.max_sample_length)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str)

    def __repr__(self) -> str:
        return "TextSpace()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TextSpace)


class ChatSpace(spaces.Space[list]):
    """A list of chat messages: dicts with string ``role`` and string ``content``."""

    roles = ("system", "user", "assistant")

    def __init__(self, max_sample_length: int = 32, seed: int | np.random.Generator | None = None):
        self.max_sample_length = max_sample_length
        super().__init__(dtype=object, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, str]]:
        return [{"role": "user", "content": _random_text(self.np_random, self.max_sample_length)}]

    def contains(self, x: Any) -> bool:
        return isinstance(x, list) and all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str) for m in x
        )

    def __repr__(self) -> str:
        return "ChatSpace()"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChatSpace)
