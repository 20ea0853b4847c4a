"""The errors rlenv raises on purpose, under one base: ``except rlenv.errors.RlenvError`` catches them all.

Each also derives from the built-in exception it used to be (``UnknownEnvError`` is a ``KeyError``,
``DatasetUnavailableError`` a ``ConnectionError``, ...), so existing ``except`` clauses keep
working. This module imports nothing, so every room may import it (the sandbox's errors derive
from :class:`RlenvError` too). Invalid arguments raise the built-in ``ValueError``/``TypeError``
with a message naming the value (see :func:`check_choice`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


class RlenvError(Exception):
    """Base of every error rlenv raises on purpose (not of ``ValueError``/``TypeError`` for bad arguments)."""


class UnknownEnvError(RlenvError, KeyError):
    """No environment is registered under the id asked for (the message lists close ids)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ModelUnavailableError(RlenvError, ConnectionError):
    """A model named by its Hub id cannot be loaded: the Hub cannot be reached and it is not cached."""


class RequestRejectedError(RlenvError, ValueError):
    """A server refused a request in a way that no retry changes (an HTTP 4xx other than 408/409/429)."""


class Interrupted(RlenvError):
    """A run stopped by Ctrl-C; the message says what was saved and how to resume."""


class RolloutStalledError(RlenvError, RuntimeError):
    """Asynchronous training stopped waiting on its rollouts: the generator process died, a batch
    (generation and scoring) or a weight push did not complete within its timeout. The message
    names what stopped and the timeout."""


def check_choice(name: str, value: Any, choices: Collection[Any]) -> None:
    """Raise ``ValueError`` naming ``name``, the accepted ``choices`` and the bad ``value`` unless
    ``value`` is one of ``choices``."""
    try:
        known = value in choices
    except TypeError:  # an unhashable value is just another bad value
        known = False
    if not known:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
