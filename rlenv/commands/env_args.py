"""Command-line arguments shared by the subcommands that build an env and score samples on it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

SAMPLES_HELP = 'JSONL rows {"task_id": ..., "completion": ...} or {"index": ..., "completion": ...}'


def add_env_arguments(parser: argparse.ArgumentParser) -> None:
    """The env id plus ``--data``, ``--field`` and ``--env-arg`` (read back by :func:`make_env_from_args`)."""
    parser.add_argument("id", help="environment id, e.g. rlenv/GSM8K-v0")
    parser.add_argument("--data", type=Path, help="task file (JSONL/JSON/parquet) replacing the env's default data")
    parser.add_argument("--field", action="append", default=[], metavar="NAME=COLUMN",
                        help="map a task field to a data column, e.g. --field prompt=question (repeatable)")
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="environment constructor override, e.g. --env-arg level=2 (repeatable)")


def add_scoring_arguments(parser: argparse.ArgumentParser) -> None:
    """``--executor``, ``--workers`` and ``--ray-address``: how the verifier calls are spread (read
    back by :func:`scoring_executor`)."""
    from rlenv.scoring import EXECUTORS

    parser.add_argument("--executor", default="thread", choices=EXECUTORS,
                        help="where verification runs: local threads, processes, serially, or "
                             "spread over a Ray cluster (ray; needs the ray extra)")
    parser.add_argument("--workers", type=int, default=None,
                        help="scoring pool size (with --executor ray: the most scoring actors)")
    parser.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="Ray cluster to score on with --executor ray, e.g. 10.0.0.1:6379 (default: "
                             "$RAY_ADDRESS, else a cluster started on this machine, else a new local one)")


def scoring_executor(args: argparse.Namespace) -> str:
    """The ``executor`` argument for ``--executor``; for ``ray``, connects to ``--ray-address`` first."""
    if args.ray_address is not None and args.executor != "ray":
        raise ValueError(f"--ray-address needs --executor ray (got --executor {args.executor})")
    if args.executor == "ray":
        from rlenv.scoring.ray_backend import connect

        connect(args.ray_address, modules=args.imports)
    return args.executor


def parse_env_args(pairs: list[str], flag: str = "--env-arg") -> dict[str, Any]:
    """``["level=3", "seed=1"]`` -> ``{"level": 3, "seed": 1}``; values are JSON when they parse, else strings.

    A string value is kept verbatim, surrounding whitespace included (prompt templates need it).
    ``flag`` is the option the pairs came from, for the error on a pair without ``=``.
    """
    overrides: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"{flag} {pair!r} must look like KEY=VALUE, e.g. level=3")
        key, text = pair.split("=", 1)
        key = key.strip()
        try:
            overrides[key] = json.loads(text)
        except json.JSONDecodeError:
            overrides[key] = text
    return overrides


def make_env_from_args(args: argparse.Namespace) -> Any:
    """The env named by ``args.id``, on the ``--data``/``--field``/``--env-arg`` overrides given."""
    import rlenv
    from rlenv.sources import parse_field_mapping

    overrides = parse_env_args(args.env_arg)
    if args.data is not None:
        overrides["data_files"] = str(args.data)
    if args.field:
        overrides["fields"] = parse_field_mapping(args.field)
    return rlenv.make(args.id, **overrides)
