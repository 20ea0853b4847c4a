"""The report page in a real headless Chromium (Playwright), opened from ``file://``."""

from __future__ import annotations

import collections
import json

import pytest

import rlenv
from rlenv.evaluation import EvalOptions, read_results
from rlenv.report import REPORT_FILE
from tests.report.report_helpers import DATA_ARGS, ENV_ID, math_run, math_samples, run_cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two evaluations of the same samples file layout; B fixes the fourth sample of five tasks."""
    root = tmp_path_factory.mktemp("runs")
    return math_run(root / "A"), math_run(root / "B", better=True)


def visible(page, selector):
    return page.locator(selector).all_inner_texts()


def test_report_eval_page_loads_filters_rows_and_opens_a_sample(runs, open_report, tmp_path):
    run_a, _ = runs
    rows = read_results(run_a / "results.jsonl")
    summary = json.loads((run_a / "summary.json").read_text())
    page, problems = open_report(run_a / REPORT_FILE)  # written by evaluate_samples itself

    # metrics with their intervals, and the pass@k curve
    pass1 = summary["metrics"]["pass@1"]
    cell = page.locator("#metrics-table tr", has_text="pass@1").first.inner_text()
    assert f"{pass1['value']:.3f}" in cell and f"[{pass1['low']:.3f}, {pass1['high']:.3f}]" in cell
    assert page.locator("#passk-plot svg polyline").count() == 1

    # tasks: a field filter and a status filter change the visible rows
    page.click("#tabbtn-tasks")
    assert page.inner_text("#task-count") == "14 of 14 tasks"
    page.select_option("#task-field-level", "1")
    level1 = {r["task_id"] for r in rows if r["metadata"]["level"] == 1}
    assert sorted(visible(page, "#tasks tbody td.task")) == sorted(level1)
    page.select_option("#task-field-level", "")
    page.select_option("#task-status", "(all correct)")
    assert page.locator("#tasks tbody tr").count() == 0  # every task has a wrong sample
    page.select_option("#task-status", "has unparsable")
    assert page.locator("#tasks tbody tr").count() == 14

    # samples: status and detector filters
    page.click("#tabbtn-samples")
    assert page.inner_text("#sample-count") == f"{len(rows)} of {len(rows)} samples"
    assert page.locator("#samples tbody tr").count() == 50  # one page, not every row
    page.select_option("#sample-status", "incorrect")
    incorrect = sum(r["status"] == "incorrect" for r in rows)
    assert page.inner_text("#sample-count").startswith(f"{incorrect} of ")
    assert set(visible(page, "#samples tbody .badge")) <= {"incorrect", "answer_hedging"}
    page.select_option("#sample-status", "")
    page.select_option("#sample-detector", "answer_hedging")
    hedged = [r for r in rows if r["hacks"]]
    assert hedged and page.locator("#samples tbody tr").count() == len(hedged)

    # a hedged sample's details: prompt, completion with the evidence marked, verdict, verifier details
    page.locator("#samples tbody tr").first.click()
    first = hedged[0]
    detail = page.locator("#detail")
    assert detail.locator("#detail-prompt").inner_text() == first["prompt"]
    assert detail.locator("pre.completion").inner_text() == first["completion"]
    marks = detail.locator("pre.completion mark.evidence").all_inner_texts()
    assert marks and all(m in first["completion"] for m in marks)
    assert detail.locator(".verdict .badge").first.inner_text() == first["status"]
    assert "extracted answer" in detail.inner_text() and first["details"]["answer"] in detail.inner_text()
    assert first["hacks"][0]["evidence"] in detail.locator(".hacks").inner_text()
    # the reference answer, next to the prompt (and in results.jsonl)
    assert detail.locator("#detail-reference").inner_text() == str(first["reference"]) != ""

    # code and math are set apart in a completion
    page.select_option("#sample-detector", "")
    page.fill("#sample-search", "def f(n)")
    page.locator("#samples tbody tr").first.click()
    assert detail.locator(".codeblock .tk-kw", has_text="def").count() == 1
    assert detail.locator(".codeblock .tk-com").inner_text() == "# double"
    assert detail.locator("pre.completion .math").inner_text() == "\\boxed{999}"
    assert detail.locator("#detail-prompt .math").all_inner_texts() == ["$\\frac{84}{144}$", "\\boxed{}"]

    # the header names the env and the model (here: a samples file) of each run
    runs_table = page.inner_text("#runs")
    assert ENV_ID in runs_table and "env" in runs_table and "model" in runs_table

    shot = tmp_path / "report-eval.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 20_000
    assert problems == []


def test_report_of_two_runs_compares_them_like_rlenv_compare(runs, open_report, tmp_path):
    run_a, run_b = runs
    out = tmp_path / "ab.html"
    run_cli("report", str(run_a), str(run_b), "-o", str(out), "--resamples", "999", cwd=tmp_path)
    compare = json.loads(run_cli("compare", str(run_a), str(run_b), "--json", "--resamples", "999",
                                 cwd=tmp_path).stdout)
    page, problems = open_report(out)

    page.click("#tabbtn-compare")
    row = page.locator(".compare-table tr", has_text="pass@1").first.inner_text()
    diff = compare["difference"]
    assert f"{compare['mean_a']:.4f}" in row and f"{compare['mean_b']:.4f}" in row
    assert f"{diff['value']:+.4f}" in row and f"[{diff['low']:+.4f}, {diff['high']:+.4f}]" in row
    assert f"{compare['p_value']:.4f}" in row
    assert f"{compare['wins']} / {compare['losses']} / {compare['ties']}" in row

    # per task, not per sample index: the runs' samples are independent draws
    text = page.inner_text("#tab-compare")
    assert "flipped" not in text
    assert "Per task (pass rate over its samples): 0 tasks better in A, 5 better in B, 9 the same" in text
    page.click("#show-better-1")
    assert page.locator("#tasks").is_visible()
    assert sorted(visible(page, "#tasks tbody td.task")) == [f"sample/{t}" for t in range(5)]
    # the A−B column is on screen at 1400 px, next to the task
    header = page.locator("#tasks thead th", has_text="Δ pass A−B")
    box = header.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1400
    assert page.locator("#tasks thead th").nth(1).inner_text().startswith("Δ pass A−B")
    assert page.locator("#tasks thead th", has_text="hacks").count() == 2  # both runs ran the hedging detector
    # the same sample scored by both runs (same completion), side by side
    page.locator("#tasks tbody tr").first.click()
    page.locator("#samples tbody tr").first.click()
    assert page.locator("#detail .sample-view").count() == 2
    # a sample whose number-mate in B is another completion: an independent draw, shown alone
    page.fill("#sample-search", "i do not know")
    page.select_option("#sample-run", "0")
    page.locator("#samples tbody tr").first.click()
    assert page.locator("#detail .sample-view").count() == 1
    assert "sampled this task independently" in page.inner_text("#detail-independent")
    page.screenshot(path=str(tmp_path / "report-compare.png"), full_page=True)
    assert problems == []


def test_report_of_an_audit_file(tmp_path, open_report):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in math_samples()))
    run_cli("audit", ENV_ID, *DATA_ARGS, "--samples", str(samples), "--out", str(tmp_path / "audit.jsonl"), cwd=tmp_path)
    summary = json.loads((tmp_path / "audit.summary.json").read_text())
    rows = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert summary["flagged"] == sum(bool(r["hacks"]) for r in rows) > 0
    page, problems = open_report(tmp_path / "audit.html")

    table = page.inner_text("#detector-table")
    for name, entry in summary["detectors"].items():
        assert f"{name}\t{entry['count']}" in table
    page.click("#tabbtn-samples")
    page.select_option("#sample-detector", "(flagged)")
    assert page.inner_text("#sample-count").startswith(f"{summary['flagged']} of {len(rows)}")
    page.select_option("#sample-detector", "(clean)")
    assert page.inner_text("#sample-count").startswith(f"{len(rows) - summary['flagged']} of ")
    assert problems == []


def test_report_counts_per_task_statuses(runs, open_report):
    run_a, _ = runs
    rows = read_results(run_a / "results.jsonl")
    page, problems = open_report(run_a / REPORT_FILE)
    page.click("#tabbtn-tasks")
    page.click("#tasks th[data-key='task']")  # sorted by task id, descending now
    ids = visible(page, "#tasks tbody td.task")
    assert ids == sorted(ids, key=lambda t: int(t.split("/")[1]), reverse=True)
    first = page.locator("#tasks tbody tr").first
    counts = collections.Counter(r["status"] for r in rows if r["task_id"] == ids[0])
    for status, n in counts.items():
        assert first.locator(".badge", has_text=f"{status} {n}").count() == 1
    first.click()  # a task row opens its samples
    assert page.inner_text("#sample-count").startswith(f"{sum(counts.values())} of ")
    assert set(visible(page, "#samples tbody td.task")) == {ids[0]}
    assert problems == []


def scripted_tool_policy(conversations, tools=None):
    """A scripted policy for a chat ``PythonToolEnv``: a call that computes, a malformed call, a call of an
    unknown tool, then the answer its first call printed (the turn is read off the conversation)."""
    turns = []
    for messages in conversations:
        results = [m["content"] for m in messages if m["role"] == "tool"]
        question = messages[-1]["content"] if not results else next(m["content"] for m in messages if m["role"] == "user")
        expression = question.split("Compute: ", 1)[1].split("\n", 1)[0]
        script = [f'<tool_call>{{"name": "python", "arguments": {{"code": "print({expression})"}}}}</tool_call>',
                  '<tool_call>{"name": "python", "arguments": {"code": </tool_call>',
                  '<tool_call>{"name": "shell", "arguments": {"cmd": "ls"}}</tool_call>']
        turns.append(script[len(results)] if len(results) < len(script) else f"\\boxed{{{results[0].strip()}}}")
    return turns


@pytest.mark.docker
def test_report_shows_each_turn_of_an_episode_and_its_tool_metrics(open_report, tmp_path):
    from rlenv.evaluation import evaluate_policy

    def make():
        return rlenv.make("rlenv/MathPython-v0", chat=True, max_turns=6)

    out = tmp_path / "episodes"
    evaluate_policy(make(), scripted_tool_policy, [0, 1], 1, out, EvalOptions(ks=[1], n_resamples=100, progress=False),
                    make_env=make)
    rows = read_results(out / "results.jsonl")
    assert [r["status"] for r in rows] == ["correct", "correct"]
    assert rows[0]["episode"]["tool_metrics"] == {"calls": 2, "errors": 2, "malformed": 1, "unknown_tool": 1,
                                                  "bad_arguments": 0, "tool_exceptions": 0, "too_many_calls": 0}
    page, problems = open_report(out / REPORT_FILE)
    assert page.inner_text("p.episodes") == ("A: 2 episodes, 4.00 turns per episode (max 4), 2.00 tool calls per "
                                             "episode, 66.7% of calls answered with a tool error; cut by a limit: none")
    page.click("#tabbtn-samples")
    page.locator("#samples tbody tr").first.click()
    episode = page.locator("#detail .episode")
    assert episode.locator("h3").inner_text() == "Episode: 4 turns"
    metrics = dict(zip(episode.locator(".tool-metrics td:first-child").all_inner_texts(),
                       episode.locator(".tool-metrics td.num").all_inner_texts(), strict=True))
    assert metrics["calls"] == "2" and metrics["malformed"] == "1" and metrics["unknown_tool"] == "1"
    turns = episode.locator("ol.turns > li")
    messages = rows[0]["episode"]["messages"]
    assert turns.count() == len(messages) == 7
    assert [t.split()[0] for t in turns.locator(".badge").all_inner_texts()] == [m["role"] for m in messages]
    assert episode.locator(".badge.st-error").count() == 2  # the malformed call and the unknown tool
    assert "unknown tool 'shell'" in turns.nth(5).inner_text()
    assert turns.nth(6).locator(".turn-content").inner_text() == rows[0]["completion"]
    assert problems == []
