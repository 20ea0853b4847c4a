"""The sandbox's errors, under one base (itself an :class:`rlenv.errors.RlenvError` and a ``RuntimeError``)."""

from __future__ import annotations

from rlenv.errors import RlenvError


class SandboxError(RlenvError, RuntimeError):
    """Base of the sandbox's errors: a container that cannot start or broke the protocol, no
    engine or image, a full queue, an image that cannot be built."""
