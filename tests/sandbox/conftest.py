"""Docker fixtures for the sandbox tests.

The sandbox is real (engine + image, see ``rlenv sandbox doctor``). Without it these tests skip
locally, but with ``CI=true`` they fail loudly: in CI a missing engine is an error, not a skip.
"""

import os

import pytest

from sandbox import SandboxPool
from sandbox.doctor import problems


@pytest.fixture(scope="session")
def docker_ready() -> None:
    found = problems()
    if found:
        message = "the Docker sandbox is not ready: " + "; ".join(found)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{message} (CI=true: Docker tests must run, not skip)", pytrace=False)
        pytest.skip(message)


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
