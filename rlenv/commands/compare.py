"""``rlenv compare A B``: paired comparison of two evaluations on the tasks they share.

A and B are result files written by ``rlenv eval`` (``results.jsonl``) or their output
directories. Prints mean(A), mean(B), the difference A - B with a paired bootstrap confidence
interval, a paired permutation-test p-value and the per-task wins / losses / ties. Warns (on
stderr) about every way the two runs' ``manifest.json`` differ other than the model: env
arguments, data, verifier versions, sampling settings, seeds, library versions.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

NAME = "compare"
logger = logging.getLogger(__name__)
HELP = "paired comparison of two rlenv eval result files (difference, CI, p-value)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, help="results.jsonl of evaluation A (or its output directory)")
    parser.add_argument("b", type=Path, help="results.jsonl of evaluation B (or its output directory)")
    parser.add_argument("--metric", default="pass@1", help="pass@K, pass^K, maj@K or mean")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level of the interval")
    parser.add_argument("--resamples", type=int, default=9999, help="bootstrap / permutation resamples")
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")


def _results_path(path: Path) -> Path:
    from rlenv.evaluation.runner import RESULTS_FILE

    return path / RESULTS_FILE if path.is_dir() else path


def _manifest_warnings(a: Path, b: Path) -> list[str]:
    """What differs between the two runs' manifests, the model aside (each run's ``manifest.json``)."""
    from rlenv.manifest import MANIFEST_FILE, manifest_differences

    paths = [_results_path(p).parent / MANIFEST_FILE for p in (a, b)]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        return [f"no manifest at {', '.join(missing)}: cannot check that the runs differ only in the model"]
    manifests = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    return manifest_differences(*manifests)


def run(args: argparse.Namespace) -> int:
    from rlenv.evaluation import compare_results, read_results

    result = compare_results(read_results(_results_path(args.a)), read_results(_results_path(args.b)),
                             metric=args.metric, confidence=args.confidence, n_resamples=args.resamples,
                             seed=args.seed)
    warnings = _manifest_warnings(args.a, args.b)
    for warning in warnings:
        logger.warning("the runs differ in more than the model: %s", warning)
    result["manifest_differences"] = warnings
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
        return 0
    diff = result["difference"]
    level = int(round(100 * diff["confidence"]))
    sys.stdout.write(
        f"{result['metric']} on {result['num_tasks']} shared tasks "
        f"({result['only_in_a']} only in A, {result['only_in_b']} only in B)\n"
        f"  A: {result['mean_a']:.4f}   B: {result['mean_b']:.4f}\n"
        f"  A - B: {diff['value']:+.4f}  {level}% CI [{diff['low']:+.4f}, {diff['high']:+.4f}]  "
        f"p = {result['p_value']:.4g} (paired permutation test)\n"
        f"  tasks A better / worse / tied: {result['wins']} / {result['losses']} / {result['ties']}\n")
    return 0
