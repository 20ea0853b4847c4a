"""Fixtures shared by every test area."""

import os

import pytest


@pytest.fixture(scope="session")
def docker_ready() -> None:
    """The real Docker sandbox (engine + image, see ``rlenv sandbox doctor``) is usable.

    Without it the requesting tests skip locally, but with ``CI=true`` they fail loudly: in CI a
    missing engine or image is an error, not a skip.
    """
    from sandbox.doctor import problems

    found = problems()
    if found:
        message = "the Docker sandbox is not ready: " + "; ".join(found)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{message} (CI=true: Docker tests must run, not skip)", pytrace=False)
        pytest.skip(message)
