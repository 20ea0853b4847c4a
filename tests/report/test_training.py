"""The report of a training run: curves from ``metrics.jsonl`` and the completions the trainer logged."""

from __future__ import annotations

import json

import pytest

import rlenv
from rlenv.report import write_report
from rlenv.wrappers import RepetitionPenalty


@pytest.fixture(scope="module")
def train_dir(tmp_path_factory):
    """Three GRPO steps of an untrained tiny policy (flag-only repetition detector), two samples logged per step."""
    from rlenv.trainers import Trainer
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    out = tmp_path_factory.mktemp("train")
    tok = tiny_tokenizer()
    env = RepetitionPenalty(rlenv.make("rlenv/Arithmetic-v0", level=1))
    config = dict(steps=3, num_tasks=2, group_size=4, max_new_tokens=12, micro_batch_size=8, progress=False,
                  output_dir=str(out), log_samples=2, log_samples_every=1)
    Trainer(tiny_causal_lm(tok, hidden_size=32, num_layers=1, seed=0), env, "grpo", config=config, tokenizer=tok).train()
    return out


def test_report_of_a_training_run_shows_curves_and_logged_samples(train_dir, open_report, tmp_path):
    metrics = [json.loads(line) for line in (train_dir / "metrics.jsonl").read_text().splitlines()]
    logged = [json.loads(line) for line in (train_dir / "samples.jsonl").read_text().splitlines()]
    assert [r["step"] for r in logged] == [1, 1, 2, 2, 3, 3]
    out = write_report([train_dir], tmp_path / "train.html", progress=False)
    page, problems = open_report(out)

    assert page.locator("#tab-training").is_visible()  # a training run opens on its curves
    assert page.locator("#curves .card[data-panel='pass@1']").count() == 0  # not an evaluation's pass@1
    assert "Runs" not in page.inner_text("#runs") and "rlenv/Arithmetic-v0" in page.inner_text("#runs")
    for panel in ("reward", "training-batch accuracy", "length", "hack rate"):
        card = page.locator(f"#curves .card[data-panel='{panel}']")
        assert card.locator("svg").count() == 1
    reward_line = page.locator("#curves .card[data-panel='reward'] polyline")
    assert reward_line.count() == 1 and len(reward_line.get_attribute("points").split()) == len(metrics)
    page.select_option("#train-metric", "entropy")
    assert page.locator("#train-other polyline").count() == 1

    page.click("#tabbtn-samples")
    assert page.inner_text("#sample-count") == "6 of 6 samples"
    page.select_option("#sample-step", "2")
    assert page.locator("#samples tbody tr").count() == 2
    page.locator("#samples tbody tr").nth(1).click()
    second = logged[3]
    assert page.locator("#detail pre.completion").text_content() == (second["completion"] or "(empty completion)")
    assert page.locator("#detail-prompt").text_content() == second["prompt"]
    assert page.locator("#detail .verdict .badge").first.inner_text() == second["status"]
    page.screenshot(path=str(tmp_path / "report-train.png"), full_page=True)
    assert problems == []
