"""``rlenv audit ID --samples S.jsonl --out A.jsonl``: run the reward-hack detectors on completions.

Each sample row is ``{"task_id": ..., "completion": ...}`` (or ``"index"``), optionally with
``"truncated": true``. One row per sample is written to ``--out`` (``A.jsonl``) with the detectors
that fired (``hacks``: detector, kind, score, evidence; empty when clean), the verdict and the
completion. The summary goes next to it (``A.summary.json``), with a report page to read the
flagged samples (``A.html``, see ``rlenv report``). A per-detector table goes to stdout; the last
line of stdout is the summary as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from rlenv.commands.env_args import (
    SAMPLES_HELP,
    add_env_arguments,
    add_scoring_arguments,
    make_env_from_args,
    scoring_executor,
)
from rlenv.jsonl import read_jsonl

NAME = "audit"
HELP = "flag reward hacks (hedging, echo, format gaming, repetition, code tampering) in completions"
logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_env_arguments(parser)
    parser.add_argument("--samples", required=True, type=Path, help=SAMPLES_HELP)
    parser.add_argument("--out", required=True, type=Path, help="where to write one audit row per sample")
    parser.add_argument("--detectors", type=lambda text: [name.strip() for name in text.split(",") if name.strip()],
                        metavar="NAME[,NAME...]",
                        help="registered detectors to run, innermost first (default: those the env's registration "
                             "lists; `rlenv list --detectors` shows every name)")
    parser.add_argument("--max-len", type=int, metavar="CHARS",
                        help="length budget: flag completions longer than CHARS characters as overlong (default: none)")
    add_scoring_arguments(parser)
    parser.add_argument("--no-report", action="store_true", help="do not write the HTML report next to --out")


def format_table(summary: dict) -> str:
    """A plain-text table of the per-detector counts and rates."""
    lines = [f"{'detector':<18} {'flagged':>8} {'rate':>7}  kinds"]
    for name, entry in summary["detectors"].items():
        kinds = ", ".join(f"{k}={v}" for k, v in sorted(entry["kinds"].items())) or "-"
        lines.append(f"{name:<18} {entry['count']:>8} {entry['rate']:>7.1%}  {kinds}")
    lines.append(f"{'any':<18} {summary['flagged']:>8} {summary['flagged_rate']:>7.1%}  "
                 f"({summary['count']} samples)")
    return "\n".join(lines)


def output_paths(out: Path) -> tuple[Path, Path, Path]:
    """The summary, report and manifest files written next to the audit rows ``out``: ``A.jsonl`` ->
    ``A.summary.json``, ``A.html``, ``A.manifest.json``."""
    from rlenv.report.runs import AUDIT_SUMMARY_SUFFIX

    stem = out.name.removesuffix(".jsonl")
    return (out.with_name(stem + AUDIT_SUMMARY_SUFFIX), out.with_name(stem + ".html"),
            out.with_name(stem + ".manifest.json"))


def run(args: argparse.Namespace) -> int:
    from rlenv.wrappers.audit import audit

    samples = read_jsonl(args.samples)
    env = make_env_from_args(args)
    report = audit(env, samples, detectors=args.detectors, executor=scoring_executor(args), max_workers=args.workers,
                   progress=True, max_len=args.max_len)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for row in report.rows:
            fh.write(json.dumps(row, default=str) + "\n")
    logger.info("wrote %d audit rows to %s", len(report.rows), args.out)
    summary = report.summary()
    summary_path, report_path, manifest_path = output_paths(args.out)
    summary_path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    from rlenv.manifest import run_manifest, write_manifest

    write_manifest(manifest_path, run_manifest("audit", env, {"samples": str(args.samples.resolve()),
                                                              "detectors": report.detectors}))
    if not args.no_report:
        from rlenv.report import write_report

        write_report([args.out], report_path, title=f"rlenv audit: {args.id} ({args.samples.name})")
    sys.stdout.write(format_table(summary) + "\n")
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0
