"""Report pages: one self-contained HTML file to read the samples of evaluations, audits and training runs.

``rlenv report RUN [RUN ...] -o report.html`` (and ``rlenv eval`` / ``rlenv audit``, which write
one next to their summary) renders:

* the metrics with their confidence intervals and the pass@k curve;
* a per-task table, sortable and filterable by status, hack detector and task field;
* every sample: prompt, completion (code highlighted, math in monospace, hack evidence marked),
  verdict, status, reward components and the verifier's details;
* for two or more evaluations, the paired comparison of ``rlenv compare`` and the per-task
  differences; for training runs, the curves of ``metrics.jsonl`` and the logged samples.

Modules: :mod:`~rlenv.report.runs` reads runs, :mod:`~rlenv.report.evidence` locates hack
evidence, :mod:`~rlenv.report.payload` computes the page's data, :mod:`~rlenv.report.page`
writes the HTML (template, style and script in ``assets/``).
"""

from rlenv.report.page import REPORT_FILE, embed_json, render_html, write_report
from rlenv.report.payload import build_payload, training_curves
from rlenv.report.runs import Run, load_run

__all__ = ["REPORT_FILE", "Run", "build_payload", "embed_json", "load_run", "render_html", "training_curves",
           "write_report"]
