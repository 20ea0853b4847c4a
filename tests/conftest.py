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


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one intra-op thread for a module (tiny models: threads cost more than they save on shared CPUs).

    Use with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With ``CI=true`` a skipped test fails the run: tests of optional libraries (TRL, verl,
    OpenRLHF...) and of Docker must run in CI, where everything they need is installed."""
    if os.environ.get("CI", "").lower() != "true":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped:
        reporter.write_line(f"CI=true: {len(skipped)} test(s) or module(s) skipped; in CI every test must run "
                            "(see the skip reasons above)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
