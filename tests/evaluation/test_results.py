"""Answer clustering, summaries with breakdowns, and paired comparisons of result rows."""

import numpy as np
import pytest

import rlenv
from rlenv.evaluation import (
    answer_equivalence,
    cluster_answers,
    compare_results,
    pass_at_k,
    pass_pow_k,
    per_task_values,
    summarize,
)
from rlenv.evaluation.results import group_by_task


def rows_for(task_id, statuses, level, clusters=None):
    rows = []
    for j, status in enumerate(statuses):
        row = {"task_id": task_id, "sample": j, "reward": float(status == "correct"), "status": status,
               "completion": f"c{j}", "metadata": {"level": level}}
        if clusters is not None:
            row["cluster"] = clusters[j]
        rows.append(row)
    return rows


C, W, U = "correct", "incorrect", "unparsable"
ROWS = (rows_for("a", [C, C, W, W], 1, [0, 0, 1, 1]) + rows_for("b", [W, W, W, U], 1, [0, 0, 1, None])
        + rows_for("c", [C, C, C, W], 2, [0, 0, 0, 1]))


def test_eval_cluster_answers_uses_env_equivalence():
    env = rlenv.make("rlenv/ExactMatch-v0")
    task = env.unwrapped.source[0]
    same = answer_equivalence(env.unwrapped.verifier, task)
    labels = cluster_answers(["Paris", "London", " paris. ", "", "LONDON"], [C, W, C, U, W], same)
    assert labels == [0, 1, 0, None, 1]


def test_eval_answer_equivalence_fallback_is_explicit():
    class NoEquivalence:
        name, version = "plain", "1"

    task = rlenv.Task("t", "prompt")
    assert answer_equivalence(NoEquivalence(), task) is None
    same = answer_equivalence(NoEquivalence(), task, fallback="string")
    assert same("The  Answer", "the answer") and not same("a", "b")
    with pytest.raises(ValueError, match="fallback"):
        answer_equivalence(NoEquivalence(), task, fallback="fuzzy")


def test_eval_cluster_answers_survives_a_failing_equivalence(caplog):
    def flaky(a, b):
        raise RuntimeError("boom")

    assert cluster_answers(["x", "x"], [C, C], flaky) == [0, 1]
    assert "boom" in caplog.text


def test_eval_summarize_metrics_and_breakdown():
    summary = summarize(ROWS, ks=[1, 2], by=["level"], n_resamples=200)
    n, c = np.array([4, 4, 4]), np.array([2, 0, 3])
    metrics = summary["metrics"]
    assert list(metrics) == ["pass@1", "pass@2", "pass^1", "pass^2", "maj@1", "maj@2", "mean"]
    assert metrics["pass@2"]["value"] == pytest.approx(pass_at_k(n, c, 2).mean())
    assert metrics["pass^2"]["value"] == pytest.approx(pass_pow_k(n, c, 2).mean())
    assert metrics["mean"]["value"] == pytest.approx(5 / 12)
    for est in metrics.values():
        assert est["low"] <= est["value"] <= est["high"]
    assert summary["num_tasks"] == 3 and summary["num_samples"] == 12
    assert summary["status"] == {C: 5, W: 6, U: 1}
    level1 = summary["by"]["level"]["1"]
    assert level1["num_tasks"] == 2
    assert level1["metrics"]["pass@1"]["value"] == pytest.approx((0.5 + 0.0) / 2)
    assert summary["by"]["level"]["2"]["metrics"]["maj@2"]["value"] == pytest.approx(
        # task c: clusters 0 (3 right) and 1 (1 wrong): pairs {0,0}: 3 win, {0,1}: 3 ties at 1/2
        (3 + 3 * 0.5) / 6)


def test_eval_summarize_default_ks_and_errors():
    summary = summarize(ROWS, n_resamples=100)
    assert "pass@4" in summary["metrics"] and "pass@8" not in summary["metrics"]
    with pytest.raises(ValueError, match="task 'a' has 4"):
        summarize(ROWS, ks=[8])
    with pytest.raises(ValueError, match="no task has metadata field 'subject'"):
        summarize(ROWS, by=["subject"])
    no_clusters = [{k: v for k, v in r.items() if k != "cluster"} for r in ROWS]
    assert not any(name.startswith("maj@") for name in summarize(no_clusters, n_resamples=100)["metrics"])
    with pytest.raises(ValueError, match="duplicate sample"):
        group_by_task(ROWS + ROWS[:1])
    with pytest.raises(ValueError, match="unknown metric"):
        per_task_values(group_by_task(ROWS), "best@3")


def test_eval_compare_results_pairs_tasks_by_id():
    better = [dict(r, status=C, reward=1.0) for r in ROWS]
    result = compare_results(better, list(reversed(ROWS)), metric="pass@1", n_resamples=500)
    assert result["num_tasks"] == 3 and result["only_in_a"] == 0
    assert result["difference"]["value"] == pytest.approx(1 - 5 / 12)
    assert (result["wins"], result["losses"], result["ties"]) == (3, 0, 0)
    partial = compare_results(ROWS, [r for r in ROWS if r["task_id"] != "c"], n_resamples=100)
    assert partial["num_tasks"] == 2 and partial["only_in_a"] == 1
    with pytest.raises(ValueError, match="share no task"):
        compare_results(ROWS, [dict(r, task_id="z" + r["task_id"]) for r in ROWS])
