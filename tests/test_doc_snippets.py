"""Every ```python block of README.md and of the docs site (``docs/``) runs, and every `rlenv <command>`
they show exists.

A block preceded by the line ``<!-- no-test -->`` is skipped (documented in the README). Each block
runs in its own fresh module (so environments it registers resolve by ``module:function``), in a
temporary working directory.
"""

import importlib
import re
import sys
import types
import warnings
from pathlib import Path

import pytest

from rlenv.commands import COMMAND_MODULES

ROOT = Path(__file__).resolve().parents[1]
#: The README, then every page of the docs site.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
NO_TEST = "<!-- no-test -->"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def doc_blocks(language):
    """``(page:heading, code, skipped)`` for each fenced block of ``language``, page by page, in order."""
    blocks = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            if match.group(1) != language:
                continue
            before = text[: match.start()].rstrip("\n").splitlines()
            heading = next((line.lstrip("# ") for line in reversed(before) if line.startswith("#")), "top")
            blocks.append((f"{page.relative_to(ROOT)}:{heading}", match.group(2),
                           bool(before) and before[-1].strip() == NO_TEST))
    return blocks


PYTHON_BLOCKS = doc_blocks("python")
#: The docs show reasoning-gym environments, registered through this checkout's entry points.
pytestmark = pytest.mark.usefixtures("entry_point_path")


def run_block(code, name, tmp_path, monkeypatch):
    """Execute ``code`` as the body of a fresh module ``name`` (importable until the test ends)."""
    monkeypatch.chdir(tmp_path)
    module = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, module)
    exec(compile(code, name, "exec"), module.__dict__)
    return module


@pytest.mark.parametrize("index", [i for i, (_, _, skipped) in enumerate(PYTHON_BLOCKS) if not skipped],
                         ids=lambda i: f"{i}-{PYTHON_BLOCKS[i][0][:60]}")
def test_doc_python_block_runs(index, tmp_path, monkeypatch):
    run_block(PYTHON_BLOCKS[index][1], f"doc_block_{index}", tmp_path, monkeypatch)


def test_register_your_own_task_snippet_runs(tmp_path, monkeypatch):
    import rlenv

    blocks = [code for heading, code, skipped in PYTHON_BLOCKS
              if heading.startswith("docs/getting-started.md:Register your own task")]
    assert len(blocks) == 1 and "rlenv.register(" in blocks[0]
    assert len(blocks[0].strip().splitlines()) <= 32, "the snippet promises about 20 lines"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the parametrized run of the same block registered the id already
        module = run_block(blocks[0], "readme_register_snippet", tmp_path, monkeypatch)
    env = rlenv.make("myproject/Units-v0")
    env.reset(options={"task_id": "kg"})
    assert env.step("2500 g")[4]["status"] == "correct"
    assert env.unwrapped.verifier.name == module.LastNumberVerifier.name


def test_docs_mark_few_blocks_no_test():
    skipped = [heading for heading, _, skipped in PYTHON_BLOCKS if skipped]
    assert len(PYTHON_BLOCKS) >= 4
    assert len(skipped) <= max(1, len(PYTHON_BLOCKS) // 4), f"too many {NO_TEST} blocks: {skipped}"


def test_doc_cli_commands_exist():
    names = {importlib.import_module(m).NAME for m in COMMAND_MODULES}
    readme = PAGES[0].read_text(encoding="utf-8")
    shown = set(re.findall(r"`rlenv ([a-z][a-z_-]*)", readme)) | set(re.findall(r"^rlenv ([a-z][a-z_-]*)", readme, re.M))
    assert {"demo", "eval"} <= shown, f"the README should show rlenv demo and rlenv eval, shows {sorted(shown)}"
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    shell = "\n".join(code for _, code, _ in doc_blocks("bash"))
    used = set(re.findall(r"^rlenv ([a-z][a-z_-]*)", shell, re.M)) | set(re.findall(r"`rlenv ([a-z][a-z_-]*)", text))
    missing = used - names
    assert not missing, f"the docs show rlenv commands that do not exist: {sorted(missing)} (known: {sorted(names)})"


def test_every_page_is_in_the_site_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in PAGES[1:]]
    assert pages and all(f": {page}" in nav for page in pages), [page for page in pages if f": {page}" not in nav]
