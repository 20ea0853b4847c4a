"""Waiting in tests without wall-clock limits that a busy machine exceeds.

CI shares two cores with whatever else runs (load averages of 4-5 seen), so nothing here assumes
an idle machine:

* a wait for something that must happen (a result, a process exit, containers gone, a server up)
  polls a condition and is bounded by :data:`PATIENCE_S`: it returns as soon as the condition
  holds, so the bound costs nothing when it does and only ends a test that would hang;
* an assertion that something is *quick* (a deadline fires, an error comes at once) bounds the
  elapsed time by :func:`scaled`: the time on an idle machine times :data:`SLOWDOWN`;
* nothing sleeps to let another process get somewhere: wait for a sign that it got there.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Bound, in seconds, on a wait for something that must happen.
PATIENCE_S = 300.0
#: How many times slower than on an idle machine a loaded CI machine may be.
SLOWDOWN = 5.0


def scaled(idle_seconds: float) -> float:
    """A bound on elapsed time for work that takes at most ``idle_seconds`` on an idle machine."""
    return idle_seconds * SLOWDOWN


def wait_until(condition: Callable[[], bool], timeout_s: float = PATIENCE_S, interval_s: float = 0.05) -> bool:
    """Poll ``condition`` until it is true (then ``True``) or ``timeout_s`` has passed (then its last value)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval_s)
    return bool(condition())
