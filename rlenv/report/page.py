"""The report page: one self-contained HTML file (inline style and script, the data as embedded JSON).

The page needs no server and no network (it works from ``file://``). Its Content-Security-Policy
allows no network request and only the page's own script (by hash): text from completions is
inserted as text, and even markup that slipped through could not run a script. The data sits in a
``<script type="application/json">`` element with ``<``, ``>``, ``&``, U+2028/U+2029 and lone
surrogates escaped, so no completion can close the element or break the JSON.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

logger = logging.getLogger(__name__)

#: The file name ``rlenv eval`` gives the report in its output directory.
REPORT_FILE = "report.html"
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_UNSAFE_IN_SCRIPT = re.compile("[<>&\u2028\u2029\ud800-\udfff]")


def _asset(name: str) -> str:
    return resources.files("rlenv.report.assets").joinpath(name).read_text(encoding="utf-8")


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside ``<script type="application/json">``.

    Characters that could end the element or a JavaScript string (``<``, ``>``, ``&``,
    U+2028, U+2029) and lone surrogates (undecodable text, which UTF-8 cannot encode) become
    ``\\uXXXX`` escapes; they occur only inside JSON strings, so the JSON means the same.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    return _UNSAFE_IN_SCRIPT.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render_html(payload: Mapping[str, Any]) -> str:
    """The report page for a :func:`~rlenv.report.payload.build_payload` result."""
    script = _asset("report.js")
    values = {"title": html.escape(str(payload.get("title", "rlenv report"))), "css": _asset("report.css"),
              "js": script, "data": embed_json(payload), "script_hash": _sha256(script)}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _asset("report.html"))


def write_report(runs: Sequence[str | Path], out: str | Path, title: str | None = None, confidence: float = 0.95,
                 n_resamples: int = 9999, seed: int = 0, progress: bool = True) -> Path:
    """Read ``runs`` (see :func:`rlenv.report.load_run`) and write their report page to ``out``.

    Two or more evaluations are compared, each against the first (A - B, as ``rlenv compare A B``,
    with ``confidence``, ``n_resamples`` and ``seed``). Returns ``out``.
    """
    from rlenv.report.payload import build_payload
    from rlenv.report.runs import expand_runs, load_run

    start = time.perf_counter()
    loaded = [load_run(path) for path in tqdm(expand_runs(runs), desc="reading runs", unit="run", disable=None if progress else True)]
    title = title or "rlenv report: " + " vs ".join(run.name for run in loaded)
    page = render_html(build_payload(loaded, title, confidence, n_resamples, seed))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    logger.info("wrote %s (%.1f MB, %d samples) in %.1f s", out, len(page.encode("utf-8")) / 1e6,
                sum(len(run.samples) for run in loaded), time.perf_counter() - start)
    return out
