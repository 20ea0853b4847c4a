"""examples/length_hacking.py runs end to end (a 2-step smoke run; the full run takes minutes)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_length_hacking_example_smoke(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "length_hacking.py"), "--steps", "2", "--sft-steps", "20",
         "--num-tasks", "2", "--group-size", "4", "--max-new-tokens", "12", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    runs = json.loads((tmp_path / "metrics.json").read_text())
    assert set(runs) == {"no wrapper", "OverlongPenalty"} and all(len(h) == 2 for h in runs.values())
    assert {"length", "proxy", "gold", "hacks/length_alert"} <= set(runs["no wrapper"][0])
    assert (tmp_path / "length_hacking.png").stat().st_size > 10_000
    assert "first alert" in proc.stdout
