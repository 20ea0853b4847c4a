"""Fixtures of the math tests."""

import pytest

from rlenv.envs.math import MathVerifier

#: The check deadline of :func:`bounded_verifier`, seconds.
DEADLINE = 1.5


@pytest.fixture(scope="module")
def bounded_verifier():
    """A verifier with a short deadline on its own started pool of 2 workers (apart from the
    default pool other tests share), closed after the module."""
    verifier = MathVerifier(timeout=DEADLINE, num_workers=2)
    verifier.pool.start()
    yield verifier
    verifier.pool.close()
