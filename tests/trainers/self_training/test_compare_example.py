"""``examples/compare_algorithms.py`` runs end to end (quick mode) and reports every algorithm on one budget."""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "compare_algorithms.py"


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)  # the example sets 1 thread


def test_selftrain_compare_example_quick_run(tmp_path):
    spec = importlib.util.spec_from_file_location("compare_algorithms", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    names = list(example.DEFAULT_ALGORITHMS)  # trpo / ppo_klpen: tests/trainers/policy_gradient/test_trust_region_trainer.py
    summary = example.main(["--quick", "--out", str(tmp_path), "--algorithms", *names])
    results = summary["results"]
    assert list(results) == names
    assert {r["samples"] for r in results.values()} == {4 * 8 * 4}                  # one budget for all
    for name, r in results.items():
        assert [step for step, _ in r["curve"]] == [2, 4], name
        assert all(0.0 <= p <= 1.0 for _, p in r["curve"])
    table = (tmp_path / "table.md").read_text()
    assert all(f"| {name} |" in table for name in names)
    assert (tmp_path / "compare_algorithms.png").stat().st_size > 10_000
    assert json.loads((tmp_path / "metrics.json").read_text())["start"] == summary["start"]
