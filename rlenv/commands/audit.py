"""``rlenv audit ID --samples S.jsonl --out A.jsonl``: run the reward-hack detectors on completions.

Each sample row is ``{"task_id": ..., "completion": ...}`` (or ``"index"``), optionally with
``"truncated": true``. One row per sample is written to ``--out`` with the detectors that fired
(``hacks``: detector, kind, score, evidence; empty when clean). A per-detector table goes to
stdout; the last line of stdout is the summary as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from rlenv.commands.score import make_env_from_args, read_jsonl

NAME = "audit"
HELP = "flag reward hacks (hedging, echo, format gaming, repetition, code tampering) in completions"
logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rlenv.wrappers.audit import FAMILY_DETECTORS

    parser.add_argument("id", help="environment id")
    parser.add_argument("--samples", required=True, type=Path,
                        help='JSONL rows {"task_id": ..., "completion": ...} or {"index": ..., "completion": ...}')
    parser.add_argument("--data", type=Path, help="task file (JSONL/JSON/parquet) replacing the env's default data")
    parser.add_argument("--field", action="append", default=[], metavar="NAME=COLUMN",
                        help="map a task field to a data column, e.g. --field prompt=question (repeatable)")
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="environment constructor override, e.g. --env-arg format=think_answer_lenient (repeatable)")
    parser.add_argument("--out", required=True, type=Path, help="where to write one audit row per sample")
    parser.add_argument("--family", choices=sorted(FAMILY_DETECTORS),
                        help="detector set to run (default: from the env's verifier package)")
    parser.add_argument("--executor", default="thread", choices=["thread", "process", "serial"])
    parser.add_argument("--workers", type=int, default=None, help="scoring pool size")


def format_table(summary: dict) -> str:
    """A plain-text table of the per-detector counts and rates."""
    lines = [f"{'detector':<18} {'flagged':>8} {'rate':>7}  kinds"]
    for name, entry in summary["detectors"].items():
        kinds = ", ".join(f"{k}={v}" for k, v in sorted(entry["kinds"].items())) or "-"
        lines.append(f"{name:<18} {entry['count']:>8} {entry['rate']:>7.1%}  {kinds}")
    lines.append(f"{'any':<18} {summary['flagged']:>8} {summary['flagged_rate']:>7.1%}  "
                 f"({summary['count']} samples, {summary['family']} detectors)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from rlenv.wrappers.audit import audit, env_family

    samples = read_jsonl(args.samples)
    env = make_env_from_args(args)
    family = args.family or env_family(args.id)
    report = audit(env, samples, family=family, executor=args.executor, max_workers=args.workers, progress=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for row in report.rows:
            fh.write(json.dumps(row) + "\n")
    logger.info("wrote %d audit rows to %s", len(report.rows), args.out)
    summary = report.summary()
    sys.stdout.write(format_table(summary) + "\n")
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0
