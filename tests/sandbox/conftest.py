"""Sandbox pools for the sandbox tests, on the real Docker sandbox (``docker_ready`` in tests/conftest.py)."""

import pytest

from rlenv.sandbox import SandboxPool


@pytest.fixture(scope="session")
def pool(docker_ready):
    """Two warm containers shared by the tests of the session."""
    with SandboxPool(2, reply_grace_s=5.0) as shared:
        shared.start()
        yield shared


@pytest.fixture(scope="module")
def solo(docker_ready):
    """One container: consecutive jobs are guaranteed to run in the same container."""
    with SandboxPool(1, reply_grace_s=5.0) as single:
        single.start()
        yield single
