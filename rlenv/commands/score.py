"""``rlenv score ID --samples S.jsonl --out R.jsonl``: score completions produced elsewhere."""

from __future__ import annotations

import argparse
import collections
import json
import logging
import sys
from pathlib import Path
from typing import Any

from rlenv.commands.env_args import (
    SAMPLES_HELP,
    add_env_arguments,
    add_scoring_arguments,
    make_env_from_args,
    scoring_executor,
)

NAME = "score"
HELP = "score existing completions from a JSONL file"
logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_env_arguments(parser)
    parser.add_argument("--samples", required=True, type=Path, help=SAMPLES_HELP)
    parser.add_argument("--out", required=True, type=Path, help="where to write one result row per sample")
    add_scoring_arguments(parser)


def summarize(task_ids: list[str], results: list[Any]) -> dict[str, Any]:
    """``count``, ``mean_reward``, ``status`` counts and, when tasks have several samples, pass@k."""
    import numpy as np

    from rlenv.evaluation import pass_at_k

    summary: dict[str, Any] = {
        "count": len(results),
        "mean_reward": sum(r.value for r in results) / len(results) if results else 0.0,
        "status": dict(collections.Counter(r.status.value for r in results)),
    }
    per_task: dict[str, list[bool]] = collections.defaultdict(list)
    for task_id, result in zip(task_ids, results):
        per_task[task_id].append(result.correct)
    n_min = min((len(v) for v in per_task.values()), default=0)
    if n_min > 1:
        n = [len(v) for v in per_task.values()]
        c = [sum(v) for v in per_task.values()]
        ks = [k for k in (1, 2, 4, 8, 16, 32, 64, 128) if k <= n_min]
        summary["pass@k"] = {str(k): float(np.mean(pass_at_k(n, c, k))) for k in ks}
    return summary


def run(args: argparse.Namespace) -> int:
    import rlenv
    from rlenv.jsonl import read_jsonl

    samples = read_jsonl(args.samples)
    env = make_env_from_args(args)
    results = rlenv.score(env, samples, executor=scoring_executor(args), max_workers=args.workers, progress=True)
    base = env.unwrapped
    task_ids = [str(s["task_id"]) if "task_id" in s else base.source[int(s["index"])].id for s in samples]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as fh:
        for n, (task_id, result) in enumerate(zip(task_ids, results)):
            row = {"sample": n, "task_id": task_id, "reward": result.value, "status": result.status.value,
                   "components": dict(result.components)}
            fh.write(json.dumps(row) + "\n")
    summary = summarize(task_ids, results)
    logger.info("wrote %d results to %s", len(results), args.out)
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0
