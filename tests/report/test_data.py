"""What the report reads and computes, without a browser: runs, evidence spans, curves, comparisons, the page."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest

from rlenv.envs.code import detect_code_tampering
from rlenv.evaluation import compare_results, read_results
from rlenv.report import REPORT_FILE, build_payload, load_run, render_html, training_curves
from rlenv.report.evidence import evidence_spans
from rlenv.wrappers.hedging import detect_answer_hedging
from rlenv.wrappers.repetition import detect_repetition
from tests.report.report_helpers import DATA_ARGS, ENV_ID, math_run, run_cli
from tests.waiting import PATIENCE_S


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return math_run(root / "A"), math_run(root / "B", better=True)


def spans_of(completion, detection):
    return [completion[s:e] for s, e, _ in evidence_spans(completion, [detection.record(0.0)])]


def test_evidence_spans_point_at_the_quoted_text():
    hedge = "I am torn after 14 tries.\nIt is \\boxed{4}   or\nmaybe \\boxed{5}, final."
    assert spans_of(hedge, detect_answer_hedging(hedge, "4")) == ["4", "5"]  # short quotes: whole words only
    listed = "The answer is 14 or 15 or maybe   4."  # quoted as 'maybe 4': any whitespace matches its space
    assert spans_of(listed, detect_answer_hedging(listed, "14")) == ["14", "15", "maybe   4"]
    looped = "".join(f"Line {i}: we add {7 * i} to the sum {i * i}.\n" for i in range(8))
    looped += "We check it again.\n" * 2 + "We  check it again.\n" + "We check it again.\nSo 5."
    detection = detect_repetition(looped)
    assert detection.kind == "repeated_lines"
    assert spans_of(looped, detection) == ["We check it again."] * 2 + ["We  check it again.", "We check it again."]
    # apostrophes in prose are not quotes
    assert evidence_spans("the prompt's numbers", [{"detector": "x", "kind": "k",
                                                     "evidence": "the prompt's numbers: 'abc' in it's"}]) == []


def test_evidence_spans_find_code_tampering_lines():
    completion = "Here you go:\n```python\nimport os\ndef f(x):\n    os._exit(0)\n```\n"
    detection = detect_code_tampering(completion, "def f(x):\n    \"\"\"\n    >>> f(1)\n    2\n    \"\"\"\n")
    assert detection.fired and "(line 3)" in detection.evidence
    assert spans_of(completion, detection) == ["    os._exit(0)"]


def test_load_run_reads_every_kind_and_names_what_is_wrong(runs, tmp_path):
    run_a, _ = runs
    assert load_run(run_a).kind == "eval" and load_run(run_a / "results.jsonl").name == "A"
    sample = load_run(run_a).samples[0]
    assert sample["prompt"].startswith("What is the sum") and sample["metadata"]["level"] == 1
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_run(tmp_path / "nowhere")
    with pytest.raises(ValueError, match="results.jsonl.*metrics.jsonl"):
        load_run(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"task_id": "t", "status": "correct"}) + "\n")
    with pytest.raises(ValueError, match=r"rows lack \['sample', 'reward'\]"):
        load_run(other)
    train = tmp_path / "train"
    train.mkdir()
    (train / "metrics.jsonl").write_text(json.dumps({"step": 1.0, "episodes": 4.0}) + "\n")
    run = load_run(train)
    assert run.kind == "train" and run.samples == [] and run.metrics == [{"step": 1.0, "episodes": 4.0}]


def test_training_curves_derive_pass_rate_and_hack_rates():
    metrics = [{"step": 2.0, "episodes": 8.0, "reward/mean": 0.5, "length/mean": 30.0, "status/correct": 4.0,
                "hacks/repetition": 2.0},
               {"step": 1.0, "episodes": 8.0, "reward/mean": 0.25, "length/mean": 40.0, "status/incorrect": 8.0}]
    curves = training_curves(metrics)
    assert curves["steps"] == [1.0, 2.0]
    assert curves["panels"]["training-batch accuracy"] == {"correct": [0.0, 0.5]}  # a step without correct: no key
    assert curves["panels"]["hack rate"] == {"repetition": [0.0, 0.25]}
    assert curves["panels"]["reward"] == {"reward/mean": [0.25, 0.5]}
    assert curves["series"]["status/correct"] == [None, 4.0]


def test_payload_compares_like_rlenv_compare_per_task_never_sample_by_sample(runs):
    run_a, run_b = runs
    a, b = load_run(run_a), load_run(run_b)
    payload = build_payload([a, b], n_resamples=500)
    (comparison,) = payload["comparisons"]
    rows_a, rows_b = read_results(run_a / "results.jsonl"), read_results(run_b / "results.jsonl")
    names = list(a.summary["metrics"])
    assert [m["metric"] for m in comparison["metrics"]] == names
    assert comparison["metrics"] == [compare_results(rows_a, rows_b, name, n_resamples=500) for name in names]
    assert "flipped" not in comparison  # sample i of A and sample i of B are independent draws
    reference = payload["sample_columns"].index("reference")
    assert [row[reference] for row in payload["samples"][:4]] == [str(rows_a[0]["reference"])] * 4
    assert [run["env"] for run in payload["runs"]] == ["rlenv/MATH-v0"] * 2
    # one row per sample, prompts stored once
    assert len(payload["samples"]) == len(rows_a) + len(rows_b)
    assert len(payload["prompts"]) == len({r["prompt"] for r in rows_a})
    assert payload["fields"] == ["subject", "level"]


def test_page_is_self_contained_and_allows_only_its_own_script(runs):
    page = render_html(build_payload([load_run(runs[0])], title="<t>", n_resamples=100))
    script = re.search(r"<script>(.*)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page and "default-src 'none'" in page
    assert "<title>&lt;t&gt;</title>" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert page.count("<script") == 2


def test_eval_and_report_commands_write_the_page(tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": f"sample/{t}", "completion": "\\boxed{6}"}) + "\n"
                               for t in range(14)))
    run_cli("eval", ENV_ID, *DATA_ARGS, "--samples", str(samples), "--out", str(tmp_path / "e"), "--no-plot",
            "--bootstrap", "100", cwd=tmp_path)
    assert (tmp_path / "e" / REPORT_FILE).read_text().startswith("<!DOCTYPE html>")
    run_cli("eval", ENV_ID, *DATA_ARGS, "--samples", str(samples), "--out", str(tmp_path / "f"), "--no-plot", "--no-report",
            "--bootstrap", "100", cwd=tmp_path)
    assert not (tmp_path / "f" / REPORT_FILE).exists()
    proc = run_cli("report", str(tmp_path / "e"), "-o", str(tmp_path / "r.html"), cwd=tmp_path)
    assert proc.stdout.strip() == f"wrote {tmp_path / 'r.html'}"
    bad = run_cli_failing("report", str(tmp_path / "missing"), cwd=tmp_path)
    assert bad.returncode == 2 and "run not found" in bad.stderr


def run_cli_failing(*args, cwd):
    import subprocess
    import sys

    from tests.report.report_helpers import CLI_ENV

    return subprocess.run([sys.executable, "-m", "rlenv", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=PATIENCE_S, env=CLI_ENV)
