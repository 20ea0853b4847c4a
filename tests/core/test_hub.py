"""Default data from the Hub: the offline error, the field names it gives, quiet local loads, no ../shared."""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import datasets
import pytest

import rlenv
from rlenv import sources
from rlenv.hub import DatasetUnavailableError, HubDataset, load_hub_rows
from tests.waiting import PATIENCE_S

REPO = Path(__file__).resolve().parents[2]
#: Every catalog id whose default data is a Hub dataset, with that dataset.
HUB_IDS = {
    "rlenv/GSM8K-v0": "openai/gsm8k",
    "rlenv/MATH-v0": "HuggingFaceH4/MATH-500",
    "rlenv/MATH-Full-v0": "EleutherAI/hendrycks_math",
    "rlenv/AIME-2024-v0": "HuggingFaceH4/aime_2024",
    "rlenv/AIME-2025-v0": "MathArena/aime_2025",
    "rlenv/MBPP-v0": "google-research-datasets/mbpp",
    "rlenv/MBPP-Sanitized-v0": "google-research-datasets/mbpp",
    "rlenv/CodeContests-v0": "deepmind/code_contests",
}


def offline_env(tmp_path):
    """A child environment in datasets' offline mode with an empty cache (nothing can be downloaded)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_"))}
    return {**env, "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"), "PYTHONPATH": str(REPO)}


def test_offline_without_cache_every_catalog_default_is_a_clear_error(tmp_path):
    script = textwrap.dedent(f"""
        import json, rlenv
        from rlenv.hub import DatasetUnavailableError
        out = {{}}
        for env_id in {sorted(HUB_IDS)!r}:
            try:
                rlenv.make(env_id)
                out[env_id] = "loaded"
            except DatasetUnavailableError as exc:
                out[env_id] = str(exc)
        print(json.dumps(out))
    """)
    done = subprocess.run([sys.executable, "-c", script], env=offline_env(tmp_path), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout.splitlines()[-1])
    for env_id, hub_id in HUB_IDS.items():
        message = messages[env_id]
        assert message.startswith(f"{env_id}: cannot load its default data"), message
        assert f"Hugging Face dataset {hub_id}" in message and "HF_DATASETS_OFFLINE is set" in message
        assert f"rlenv.make({env_id!r}, data_files=" in message and "--data" in message


def test_offline_cli_error_names_the_dataset_and_local_files(tmp_path):
    done = subprocess.run([sys.executable, "-m", "rlenv", "show", "rlenv/GSM8K-v0"], env=offline_env(tmp_path),
                          capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("rlenv show: error: rlenv/GSM8K-v0: cannot load its default data, split 'test' of "
                                  "the Hugging Face dataset openai/gsm8k (main): HF_DATASETS_OFFLINE is set")
    assert "columns question, answer" in done.stderr


def test_a_missing_or_gated_dataset_is_told_apart(monkeypatch):
    def not_found(path, name=None, **kwargs):
        raise datasets.exceptions.DatasetNotFoundError(f"Dataset '{path}' doesn't exist on the Hub")

    monkeypatch.setattr(datasets, "load_dataset", not_found)
    for name in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    hub = HubDataset("acme/nothing", split="test", splits=("test",), columns=("q",), licence="none")
    with pytest.raises(DatasetUnavailableError, match="the Hub has no such dataset, or it needs a login"):
        load_hub_rows(hub, "test", "acme/Nothing-v0")
    with pytest.raises(ValueError, match="default split 'dev' of acme/x is not one of its splits"):
        HubDataset("acme/x", split="dev", splits=("test",), columns=(), licence="")


def test_small_local_files_load_without_progress_bars(tmp_path, capfd, monkeypatch):
    def load(name):
        path = tmp_path / name
        path.write_text(json.dumps({"prompt": name, "reference": "x"}) + "\n")
        capfd.readouterr()
        assert sources.load_rows(str(path))[0]["prompt"] == name
        return capfd.readouterr().err

    assert "Generating train split" not in load("quiet.jsonl")
    assert not datasets.are_progress_bars_disabled()  # switched back on after the load
    monkeypatch.setattr(sources, "QUIET_LOAD_BYTES", 0)
    assert "Generating train split" in load("loud.jsonl")


def test_the_package_never_reads_beside_the_repository():
    """``../shared`` is the tests' data; no module of the package builds a path into it."""
    pattern = re.compile(r"""\.\./shared|["']shared["']\s*/|/\s*["']shared["']""")
    offenders = [str(path.relative_to(REPO)) for package in ("rlenv", "envs", "trainers", "sandbox")
                 for path in (REPO / package).rglob("*.py") if pattern.search(path.read_text(encoding="utf-8"))]
    assert offenders == []
    assert "shared" not in json.dumps([rlenv.spec(env_id).kwargs for env_id in HUB_IDS])
