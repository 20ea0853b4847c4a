"""The installed layout: one import name, ``rlenv``; the family, trainer and sandbox folders inside it."""

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True, text=True, timeout=600)
    (path,) = out.glob("*.whl")
    return path


def test_the_wheel_installs_one_import_name(wheel):
    assert wheel.name.startswith("rlenv_lm-")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"rlenv", wheel.name.split("-py3")[0] + ".dist-info"}
    for folder in ("envs", "trainers", "sandbox"):  # every module of each folder travels, under rlenv/
        expected = {f"rlenv/{folder}/{p.relative_to(ROOT / folder)}" for p in (ROOT / folder).rglob("*.py")}
        assert expected <= set(names), sorted(expected - set(names))[:5]
    for data in ("rlenv/sandbox/Dockerfile", "rlenv/envs/format/sample.jsonl", "rlenv/report/assets/report.js"):
        assert data in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "rlenv.envs.rgym.registration:register_reasoning_gym_envs" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_the_installed_wheel_imports_without_the_source_tree(wheel, tmp_path):
    """Installed into a bare target and imported with no site hooks: no editable finder, no checkout."""
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, text=True, timeout=300)
    code = (
        "import importlib.util, sys\n"
        f"sys.path[:0] = {[str(target), *(p for p in sys.path if p.endswith('site-packages'))]!r}\n"
        "import rlenv, rlenv.envs.math, rlenv.trainers, rlenv.sandbox\n"
        "env = rlenv.make('rlenv/Arithmetic-v0')\n"
        "print(rlenv.__file__.startswith(sys.path[0]), rlenv.sandbox.__file__.startswith(sys.path[0]))\n"
        "print([importlib.util.find_spec(n) is None for n in ('envs', 'trainers', 'sandbox')])\n"
        "print(env.spec.entry_point)\n"
    )
    run = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:3] == ["True True", "[True, True, True]", "rlenv.envs.math.arithmetic:make_arithmetic_env"]


def test_the_core_never_names_a_family_the_trainers_or_the_sandbox():
    """Only the CLI commands reach into rlenv.envs / rlenv.trainers / rlenv.sandbox; the core knows
    the families through their entry points (the group is called ``rlenv.envs``, nothing below it)."""
    named = re.compile(r"rlenv\.envs\.|rlenv\.(?:trainers|sandbox)\b|(?<![\w.])(?:envs|trainers|sandbox)\.[a-z_]")
    offenders = []
    for path in sorted((ROOT / "rlenv").rglob("*.py")):
        if "commands" in path.relative_to(ROOT / "rlenv").parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if named.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


@pytest.mark.parametrize("folder", ["envs", "trainers", "sandbox"])
def test_the_checkout_links_each_folder_under_rlenv_for_static_tools(folder):
    """mypy, IDEs and the API reference read ``rlenv/<folder>`` as ``rlenv.<folder>``: a link to the folder."""
    link = ROOT / "rlenv" / folder
    assert link.is_symlink() and link.resolve() == ROOT / folder
