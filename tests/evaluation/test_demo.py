"""``rlenv demo --quick`` (the README's main-job command, shortened for CI) shows a pass@1 gain."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rlenv

pytest.importorskip("torch")

CLI_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(Path(rlenv.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}


def test_eval_demo_quick_shows_a_pass_at_1_gain(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "rlenv", "demo", "--quick", "--out", str(tmp_path / "demo")],
                          capture_output=True, text=True, timeout=900, env=CLI_ENV)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "before GRPO:" in proc.stdout and "after GRPO:" in proc.stdout
    assert "step 1: {" not in proc.stderr  # step metrics only with -v (they are in metrics.jsonl)
    result = json.loads((tmp_path / "demo" / "demo.json").read_text())
    before, after, gain = result["before"], result["after"], result["comparison"]["difference"]
    assert after["value"] > before["value"], (before, after)
    assert gain["low"] > 0, f"the gain is not significant: {gain} (p={result['comparison']['p_value']})"
    assert [p["step"] for p in result["curve"]][0] == 0 and result["curve"][-1]["step"] == result["preset"]["grpo_steps"]
    assert len(result["history"]) == result["preset"]["grpo_steps"]
    assert (tmp_path / "demo" / "demo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((tmp_path / "demo" / "eval-step-0000" / "summary.json").read_text())
    assert summary["metrics"]["pass@1"] == before
    assert (tmp_path / "demo" / "final" / "config.json").exists()  # the trained model, loadable
    report = subprocess.run([sys.executable, "-m", "rlenv", "report", str(tmp_path / "demo"), "-o",
                             str(tmp_path / "demo.html"), "--resamples", "99"], capture_output=True, text=True,
                            timeout=900, env=CLI_ENV)
    assert report.returncode == 0, report.stderr[-3000:]  # the demo's directory: its runs, side by side
