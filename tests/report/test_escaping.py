"""Hostile text in completions, prompts, task ids, metadata and run names is shown as text, never run."""

from __future__ import annotations

import json
import re

import rlenv
from rlenv.evaluation import EvalOptions, evaluate_samples
from rlenv.report import REPORT_FILE, embed_json
from rlenv.wrappers import AnswerHedging
from tests.report.report_helpers import run_cli

HOSTILE = [
    "<script>window.__pwned = 'script'</script>",
    "</script><script>window.__pwned = 'closed the data element'</script>",
    "</textarea><img src=x onerror=\"window.__pwned = 'img'\"><textarea>",
    "\"' onmouseover=\"window.__pwned = 'attribute'\" data-x='",
    "<!-- <script>window.__pwned = 'comment'</script> --> <![CDATA[ ]]>",
    "broken UTF-8: \udcff\udcfe, a lone high surrogate \ud800, U+2028 \u2028 U+2029 \u2029 & &amp; &lt;",
    "{{js}} {{data}} ${window.__pwned = 'template'} `backticks` \\u003c/script>",
    "Paris or London <b onclick=\"window.__pwned = 'hedge'\">Paris</b>",
]
TASK_ID = "</script><b id='pwned-id'>task</b>"
PROMPT = "Capital of France? <img src=x onerror=\"window.__pwned = 'prompt'\"></script>"
LEVEL = "<i id='pwned-meta'>1</i>"
RAW = "raw bytes here"


def hostile_runs(tmp_path):
    data = tmp_path / "tasks.jsonl"
    data.write_text(json.dumps({"id": TASK_ID, "prompt": PROMPT, "reference": "Paris", "level": LEVEL}) + "\n")
    env = AnswerHedging(rlenv.make("rlenv/ExactMatch-v0", data_files=str(data)))
    run = tmp_path / "run<img src=x onerror=alert(1)>"
    evaluate_samples(env, [{"task_id": TASK_ID, "completion": c} for c in HOSTILE + [RAW]], run,
                     EvalOptions(ks=[1], n_resamples=100, plot=False, progress=False))
    # the same rows in a file with bytes that are not UTF-8 (a file cut mid-character, a bad tool)
    raw = tmp_path / "scored.jsonl"
    raw.write_bytes((run / "results.jsonl").read_bytes().replace(RAW.encode(), b"raw \xff\xfe\xc3 bytes"))
    return run, raw


def test_report_shows_hostile_text_as_text(tmp_path, open_report):
    run, raw = hostile_runs(tmp_path)
    out = tmp_path / "both.html"
    run_cli("report", str(run), str(raw), "-o", str(out), "--resamples", "99", cwd=tmp_path)
    for path in (run / REPORT_FILE, out):
        page, problems = open_report(path)
        assert page.evaluate("window.__pwned") is None
        assert page.locator("script").count() == 2  # the data and the page's own script
        assert page.locator("img, textarea, i, #pwned-id, [onerror], [onclick], [onmouseover]").count() == 0
        assert page.title() == page.inner_text("h1")
        assert "run<img src=x onerror=alert(1)>" in page.locator("#runs").text_content()

        page.click("#tabbtn-samples")
        rows = page.locator("#samples tbody tr")
        # unpaired surrogates stay in the text (the browser draws U+FFFD); bad bytes were read as U+FFFD
        expected = [*HOSTILE, RAW, *HOSTILE, "raw \ufffd\ufffd\ufffd bytes"]
        assert rows.count() == len(expected[: rows.count()]) and rows.count() in (len(HOSTILE) + 1, len(expected))
        for i in range(rows.count()):
            rows.nth(i).click()
            detail = page.locator("#detail .sample-view").first
            assert detail.locator("pre.completion").text_content() == expected[i]
        assert page.locator("#detail-prompt").text_content() == PROMPT
        assert page.locator("#samples tbody td.task").first.text_content() == TASK_ID
        assert LEVEL in page.locator("#detail > p.muted").text_content()
        assert page.evaluate("window.__pwned") is None
        assert problems == []


def test_embedded_json_cannot_end_its_element():
    data = {"text": HOSTILE, "key</script>": "<!--", "nested": [{"a": "\u2028"}]}
    embedded = embed_json(data)
    assert not set("<>&\u2028\u2029") & set(embedded)
    assert not re.search("[\ud800-\udfff]", embedded)
    assert embedded.encode("utf-8")  # writable as UTF-8: lone surrogates are escaped
    assert json.loads(embedded) == data
