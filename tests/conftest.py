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


def _chromium_executable() -> str | None:
    """A Chromium binary: ``$RLENV_CHROMIUM``, else Debian's ``chromium`` (installed by ``.ci/run``) or another
    Chromium/Chrome on the PATH; None lets Playwright use its own download (``playwright install chromium``)."""
    import shutil

    explicit = os.environ.get("RLENV_CHROMIUM")
    if explicit:
        return explicit
    return next((found for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
                 if (found := shutil.which(name))), None)


@pytest.fixture(scope="module")
def browser():
    """A real headless Chromium driven by Playwright, for the report page tests (one per test module:
    Playwright's sync API keeps an event loop of its own, closed before other modules run).

    Without Playwright or a browser the requesting tests skip locally; with ``CI=true`` they fail
    (``.ci/run`` installs both).
    """
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as exc:
        message = f"Playwright is not installed ({exc}): pip install -e '.[dev]'"
        browser_missing(message)
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=_chromium_executable())
        except Error as exc:
            browser_missing(f"no Chromium could be started ({str(exc).splitlines()[0]}): apt-get install chromium")
        yield chromium
        chromium.close()


def browser_missing(message: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message} (CI=true: browser tests must run, not skip)", pytrace=False)
    pytest.skip(message)


@pytest.fixture
def open_report(browser):
    """``open_report(path) -> (page, problems)``: a report page loaded from ``file://`` and rendered.

    ``problems`` collects console errors and warnings, uncaught page errors and any request but the
    page itself (a report loads nothing: no network, no other file).
    """
    from pathlib import Path

    pages = []

    def open_(path, width: int = 1400, height: int = 1000):
        page = browser.new_page(viewport={"width": width, "height": height})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning")
                else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        url = Path(path).resolve().as_uri()
        page.on("request", lambda r: None if r.url in (url, page.url) else problems.append(f"request {r.url}"))
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']", state="attached", timeout=30_000)
        pages.append(page)
        return page, problems

    yield open_
    for page in pages:
        page.close()


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
