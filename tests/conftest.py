"""Fixtures shared by every test area.

Tests never touch the network: ``datasets`` runs in offline mode (set before it is imported), so
a Hub load that a test forgot to intercept fails at once instead of retrying for half a minute.
"""

import importlib
import os
import re
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.waiting import PATIENCE_S

os.environ["HF_DATASETS_OFFLINE"] = "1"


@pytest.fixture(scope="session")
def docker_ready() -> None:
    """The real Docker sandbox (engine + image, see ``rlenv sandbox doctor``) is usable.

    Without it the requesting tests skip locally, but with ``CI=true`` they fail loudly: in CI a
    missing engine or image is an error, not a skip.
    """
    from rlenv.sandbox.doctor import problems

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


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler (Ctrl-C raises ``KeyboardInterrupt``) for the test, whatever the
    suite inherited: a suite started in the background by a non-interactive shell (``cmd &``, as CI
    starts it) has SIGINT ignored. The handler before is put back after."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture(scope="session")
def hub_data() -> Path:
    """``tests/data/hub``: local files in the exact schemas of the Hub datasets behind the catalog envs
    (rows written for this project)."""
    return Path(__file__).resolve().parent / "data" / "hub"


@pytest.fixture(scope="session")
def gsm8k_dir() -> Path:
    """The real GSM8K splits (``test.jsonl``, ``train.jsonl`` in ``openai/gsm8k``'s format) beside the
    repository: tests may read ``../shared``, the package never does."""
    path = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "gsm8k"
    assert (path / "test.jsonl").is_file(), f"GSM8K test data missing at {path}"
    return path


@pytest.fixture
def fake_hub(monkeypatch):
    """``datasets.load_dataset`` intercepted at the ``datasets`` boundary, without network.

    ``fake_hub.files[(hub_id, config)] = path`` serves a local JSONL file (in that Hub dataset's
    schema) for the id; every Hub call is recorded in ``fake_hub.calls`` as ``(hub_id, config,
    split)``; an id with no file raises ``ConnectionError`` as ``datasets`` does offline. Local-file
    loads (``json``, ``parquet``, ``csv``) go to the real function.
    """
    import datasets

    real = datasets.load_dataset
    hub = SimpleNamespace(calls=[], files={})

    def load_dataset(path, name=None, *, split=None, **kwargs):
        if path in ("json", "parquet", "csv"):
            return real(path, name, split=split, **kwargs)
        hub.calls.append((path, name, split))
        if (path, name) not in hub.files:
            raise ConnectionError(f"Couldn't reach {path!r} on the Hub (tests have no network)")
        return real("json", data_files=str(hub.files[(path, name)]), split="train")

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    return hub


@pytest.fixture
def catalog_hub(fake_hub, hub_data, gsm8k_dir):
    """``fake_hub`` serving the Hub dataset of every catalog id from a local file in its schema."""
    from rlenv.envs.math.competition_math import MATH_SUBJECTS

    fake_hub.files.update({
        ("openai/gsm8k", "main"): gsm8k_dir / "test.jsonl",
        ("HuggingFaceH4/MATH-500", None): hub_data / "math500.jsonl",
        ("HuggingFaceH4/aime_2024", None): hub_data / "aime_2024.jsonl",
        ("MathArena/aime_2025", None): hub_data / "aime_2025.jsonl",
        ("google-research-datasets/mbpp", "full"): hub_data / "mbpp_full.jsonl",
        ("google-research-datasets/mbpp", "sanitized"): hub_data / "mbpp_sanitized.jsonl",
        ("deepmind/code_contests", None): hub_data / "code_contests.jsonl",
        **{("EleutherAI/hendrycks_math", subject): hub_data / "hendrycks_math.jsonl" for subject in MATH_SUBJECTS},
    })
    return fake_hub


@pytest.fixture(scope="module")
def serve_app():
    """``serve_app(app) -> base URL``: an ASGI app on a real uvicorn server at 127.0.0.1 (a free port),
    in a thread; every server started is stopped at the end of the test module."""
    import uvicorn

    running = []

    def start(app) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        running.append((server, thread, sock))
        deadline = time.monotonic() + PATIENCE_S
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the uvicorn server did not start"
            time.sleep(0.02)
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    yield start
    for server, thread, sock in running:
        server.should_exit = True
        thread.join(timeout=PATIENCE_S)
        sock.close()


def declared_entry_points() -> dict[str, str]:
    """``name -> value`` of the ``rlenv.envs`` entry points that ``pyproject.toml`` declares."""
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r'^\[project\.entry-points\."rlenv\.envs"\]\n((?:[^\[\n].*\n)+)', text, re.M)
    assert section, 'pyproject.toml declares no [project.entry-points."rlenv.envs"]'
    pairs = (line.split("=", 1) for line in section.group(1).splitlines() if "=" in line)
    return {name.strip(): value.strip().strip('"') for name, value in pairs}


@pytest.fixture(scope="session")
def entry_point_path(tmp_path_factory):
    """The checkout's ``rlenv.envs`` entry points (reasoning-gym's), visible to the registry.

    ``pip install -e .`` records the entry points ``pyproject.toml`` declares; a checkout imported
    through ``PYTHONPATH`` (or installed before they were declared) lacks them. Then a
    ``.dist-info`` directory declaring exactly those entry points goes on ``sys.path``, so the
    registry finds them through the real entry-point machinery. Yields that directory for
    subprocesses' ``PYTHONPATH`` ("" when the installed entry points already match).
    """
    from importlib.metadata import entry_points

    from rlenv import registry

    declared = declared_entry_points()
    installed = {ep.name: ep.value for ep in entry_points(group=registry.ENTRY_POINT_GROUP)}
    path = ""
    if any(installed.get(name) != value for name, value in declared.items()):
        root = tmp_path_factory.mktemp("entry_points")
        dist = root / "rlenv_checkout-0.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: rlenv-checkout\nVersion: 0.0\n")
        lines = "".join(f"{name} = {value}\n" for name, value in declared.items())
        (dist / "entry_points.txt").write_text(f"[{registry.ENTRY_POINT_GROUP}]\n{lines}")
        path = str(root)
        sys.path.insert(0, path)
        importlib.invalidate_caches()
    registry.load_plugins(force=True)
    yield path
    if path:
        sys.path.remove(path)


@pytest.fixture
def clean_registry():
    """Registrations made by the test (envs, detectors, loaded entry points) are undone after it."""
    import gymnasium

    from rlenv import registry
    from rlenv.wrappers import detector_registry

    envs, detectors = dict(registry._REGISTRY), dict(detector_registry._DETECTORS)
    loaded, plugins_loaded = set(registry._loaded_entry_points), registry._plugins_loaded
    yield
    for env_id in set(registry._REGISTRY) - set(envs):
        gymnasium.registry.pop(env_id, None)
    registry._REGISTRY.clear()
    registry._REGISTRY.update(envs)
    detector_registry._DETECTORS.clear()
    detector_registry._DETECTORS.update(detectors)
    registry._loaded_entry_points.clear()
    registry._loaded_entry_points.update(loaded)
    registry._plugins_loaded = plugins_loaded


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
