"""``rlenv report RUN [RUN ...] -o report.html``: one self-contained HTML page to read a run's samples.

A RUN is an ``rlenv eval`` output directory (or its ``results.jsonl``), an ``rlenv audit`` output
file, an ``rlenv score`` output file or a training output directory (``metrics.jsonl`` and the
logged ``samples.jsonl``). The page shows the metrics with confidence intervals and the pass@k
curve, a per-task table filterable by status, hack detector and task field, and every sample
(prompt, completion, verdict, components, verifier details, hack evidence). With several runs,
each evaluation is compared with the first (the paired comparison of ``rlenv compare``, per-task
differences, samples whose verdict flipped); training runs get their curves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "report"
HELP = "write a self-contained HTML page of one or more eval, audit or training runs (samples, metrics, diffs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                        help="eval output directory, results/audit JSONL file or training output directory")
    parser.add_argument("-o", "--out", type=Path, default=Path("report.html"), help="the HTML file to write")
    parser.add_argument("--title", default=None, help="page title (default: the run names)")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level of the paired comparisons")
    parser.add_argument("--resamples", type=int, default=9999, help="bootstrap / permutation resamples of comparisons")
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling")


def run(args: argparse.Namespace) -> int:
    from rlenv.report import write_report

    out = write_report(args.runs, args.out, title=args.title, confidence=args.confidence,
                       n_resamples=args.resamples, seed=args.seed)
    sys.stdout.write(f"wrote {out}\n")
    return 0
