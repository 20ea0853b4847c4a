"""Report page for a 50k-sample evaluation: size, generation time and load time in headless Chromium.

Builds a real ``rlenv eval`` directory (``evaluate_samples`` on ``rlenv/Arithmetic-v0`` level 3,
8 samples per task, with the flag-only hedging and repetition detectors, so rows carry verifier
details, prompts, metadata and hack evidence), then writes two pages from it:

* **ours**: ``rlenv report`` (:func:`rlenv.report.write_report`): the data as embedded JSON,
  tables rendered 50 rows at a time;
* **naive** (the baseline): every sample as a row of one HTML table (escaped completion in a
  ``<pre>``), the usual "dump it to HTML" page.

Each page is opened ``--loads`` times from ``file://`` in headless Chromium (Playwright); the
medians are reported: time to the first sample row in the DOM, to the load event, DOM nodes
and JS heap after load (Chrome DevTools ``Performance.getMetrics``). For ours also the time to
re-filter all samples by status (the naive page has no filter). Times are milliseconds since
navigation start.

Usage: python benchmarks/report_size.py [--samples 50000] [--per-task 8] [--loads 3] [--out DIR]
Chromium: $RLENV_CHROMIUM, else ``chromium`` on the PATH (Debian), else Playwright's own.
"""

from __future__ import annotations

import argparse
import html
import logging
import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import rlenv
from rlenv.evaluation import EvalOptions, evaluate_samples, read_results
from rlenv.report import write_report
from rlenv.wrappers import AnswerHedging, RepetitionPenalty

ENV_ID = "rlenv/Arithmetic-v0"
FIRST_ROW = """
window.__bench = {};
new MutationObserver(function (records, observer) {
  if (!window.__bench.firstRow && document.querySelector(%r)) {
    window.__bench.firstRow = performance.now();
    observer.disconnect();
  }
}).observe(document, {childList: true, subtree: true});
"""


def completion(rng: random.Random, reference: str) -> str:
    """A chain-of-thought-like completion (~300-900 characters): right, wrong, hedged, looping or with code."""
    steps = [f"Step {i + 1}: we rewrite the expression and compute {rng.randint(2, 99)} * {rng.randint(2, 9)} "
             f"= {rng.randint(10, 900)}, then carry on with the remaining terms." for i in range(rng.randint(2, 6))]
    wrong = str(int(reference) + rng.choice([-3, -1, 1, 2, 10])) if reference.lstrip("-").isdigit() else "0"
    kind = rng.random()
    if kind < 0.05:
        tail = f"So it is #### {reference} or maybe {wrong}."
    elif kind < 0.08:
        tail = "We check the sum again carefully.\n" * 6 + f"#### {wrong}"
    elif kind < 0.15:
        tail = (f"```python\nresult = {rng.randint(1, 50)} + {rng.randint(1, 50)}  # check\nprint(result)\n```\n"
                f"#### {reference}")
    elif kind < 0.55:
        tail = f"The final answer is $\\boxed{{{reference}}}$."
    elif kind < 0.95:
        tail = f"#### {wrong}"
    else:
        tail = "I am not sure how to finish this."
    return "Let us solve this step by step.\n" + "\n".join(steps) + "\n" + tail


def build_run(out: Path, num_samples: int, per_task: int, seed: int = 0) -> list[dict]:
    """A real evaluation directory of ``num_samples`` scored samples; returns its result rows."""
    env = RepetitionPenalty(AnswerHedging(rlenv.make(ENV_ID, level=3)))
    source = env.unwrapped.source
    rng = random.Random(seed)
    samples = [{"index": t, "completion": completion(rng, str(source[t].reference))}
               for t in range(num_samples // per_task) for _ in range(per_task)]
    evaluate_samples(env, samples, out, EvalOptions(ks=[1, 2, 4, 8], n_resamples=1000, plot=False, report=False),
                     config={"benchmark": "report_size", "seed": seed})
    return read_results(out / "results.jsonl")


def naive_page(rows: list[dict], path: Path) -> Path:
    """The baseline: one HTML table with every sample (completion escaped into a ``<pre>``)."""
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>naive report</title></head><body>",
             "<table id='naive'><thead><tr><th>task</th><th>sample</th><th>status</th><th>reward</th>"
             "<th>hacks</th><th>completion</th></tr></thead><tbody>"]
    for row in rows:
        hacks = ", ".join(h["detector"] for h in row.get("hacks") or [])
        parts.append(f"<tr><td>{html.escape(str(row['task_id']))}</td><td>{row['sample']}</td>"
                     f"<td>{html.escape(row['status'])}</td><td>{row['reward']:.3f}</td><td>{html.escape(hacks)}</td>"
                     f"<td><pre>{html.escape(row['completion'])}</pre></td></tr>")
    parts.append("</tbody></table></body></html>")
    path.write_text("".join(parts), encoding="utf-8")
    return path


def measure_load(browser, path: Path, row_selector: str, ours: bool) -> dict[str, float]:
    """One load of ``path``: first row, load event, DOM nodes, JS heap (and the status re-filter for ours)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(FIRST_ROW % row_selector)
    page.goto(path.resolve().as_uri(), wait_until="load", timeout=300_000)
    if ours:
        page.wait_for_selector("body[data-ready='1']", state="attached")
    page.wait_for_function("window.__bench.firstRow !== undefined")
    timing = page.evaluate("""() => {
        const nav = performance.getEntriesByType('navigation')[0];
        return {firstRow: window.__bench.firstRow, load: nav.loadEventEnd};
    }""")
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    result = {"first_row_ms": timing["firstRow"], "load_ms": timing["load"], "dom_nodes": metrics["Nodes"],
              "heap_mb": metrics["JSHeapUsedSize"] / 1e6}
    if ours:
        page.click("#tabbtn-samples")
        result["filter_ms"] = page.evaluate("""() => {
            const select = document.getElementById('sample-status');
            const start = performance.now();
            select.value = 'incorrect';
            select.dispatchEvent(new Event('change'));
            return performance.now() - start;
        }""")
    page.close()
    return result


def chromium(playwright):
    executable = os.environ.get("RLENV_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    return playwright.chromium.launch(executable_path=executable)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=50_000, help="samples in the run")
    parser.add_argument("--per-task", type=int, default=8, help="samples per task")
    parser.add_argument("--loads", type=int, default=3, help="page loads per page (medians reported)")
    parser.add_argument("--out", type=Path, default=None, help="keep the run and the pages here (default: temporary)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from playwright.sync_api import sync_playwright

    root = args.out or Path(tempfile.mkdtemp(prefix="report-bench-"))
    run = root / "run"
    start = time.perf_counter()
    rows = build_run(run, args.samples, args.per_task)
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    ours = write_report([run], root / "ours.html", progress=False)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    naive = naive_page(read_results(run / "results.jsonl"), root / "naive.html")
    naive_s = time.perf_counter() - start

    with sync_playwright() as playwright:
        browser = chromium(playwright)
        loads = {name: [measure_load(browser, path, selector, name == "ours") for _ in range(args.loads)]
                 for name, path, selector in (("ours", ours, "#samples tbody tr"),
                                              ("naive", naive, "#naive tbody tr"))}
        version = browser.version
        browser.close()

    def median(name: str, key: str) -> float:
        return statistics.median(load[key] for load in loads[name])

    stats = {
        "ours": {"size": ours.stat().st_size / 1e6, "gen": ours_s},
        "naive": {"size": naive.stat().st_size / 1e6, "gen": naive_s},
    }
    for name in stats:
        for key in ("first_row_ms", "load_ms", "dom_nodes", "heap_mb"):
            stats[name][key] = median(name, key)
    print(f"\nReport page for {len(rows)} samples ({len(rows) // args.per_task} tasks x {args.per_task}; "
          f"results.jsonl {(run / 'results.jsonl').stat().st_size / 1e6:.1f} MB, built in {build_s:.0f} s); "
          f"headless Chromium {version}, median of {args.loads} loads from file://\n")
    header = f"{'':<28}{'ours (rlenv report)':>22}{'naive all-rows DOM':>22}{'ours / naive':>16}"
    print(header)
    print("-" * len(header))
    for label, key, fmt in (("HTML size (MB)", "size", "{:.1f}"), ("generation (s)", "gen", "{:.2f}"),
                            ("first sample row (ms)", "first_row_ms", "{:.0f}"), ("load event (ms)", "load_ms", "{:.0f}"),
                            ("DOM nodes after load", "dom_nodes", "{:.0f}"), ("JS heap (MB)", "heap_mb", "{:.1f}")):
        a, b = stats["ours"][key], stats["naive"][key]
        print(f"{label:<28}{fmt.format(a):>22}{fmt.format(b):>22}{a / b:>15.2f}x")
    print(f"{'re-filter by status (ms)':<28}{median('ours', 'filter_ms'):>22.0f}{'(no filter)':>22}")
    print(f"\npages: {ours}  {naive}")


if __name__ == "__main__":
    main()
