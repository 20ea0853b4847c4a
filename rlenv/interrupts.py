"""Ctrl-C held back while a unit of work that must not be cut in half finishes.

A training step's update, its step counter and its logged rows change together: a ``KeyboardInterrupt`` raised
between them would save a checkpoint whose step count disagrees with the weights or with ``metrics.jsonl``.
:func:`deferred_interrupt` holds the first SIGINT back until the block ends and raises it there; a second one
raises at once (the user insists).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

logger = logging.getLogger(__name__)


@contextmanager
def deferred_interrupt(what: str) -> Iterator[None]:
    """Run the block with the first SIGINT held back, then raise :class:`KeyboardInterrupt` after it.

    Only where Python's own SIGINT handler is installed, in the main thread: elsewhere (another thread, a
    handler the application set) the block runs unchanged.

    Args:
        what: The work being finished, for the log line a held-back Ctrl-C prints (e.g. ``"step 3"``).
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        if received:
            raise KeyboardInterrupt
        received.append(signum)
        logger.warning("interrupted: finishing %s first (Ctrl-C again to stop at once)", what)

    signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if received:
        raise KeyboardInterrupt
