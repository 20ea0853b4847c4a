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
    """``--executor``, ``--workers`` and ``--ray-address``: how the verifier calls are spread over a pool."""
    parser.add_argument("--executor", default="thread", choices=["thread", "process", "serial", "ray"],
                        help="thread/process pools on this machine, or a Ray cluster (see --ray-address)")
    parser.add_argument("--workers", type=int, default=None, help="scoring pool size")
    parser.add_argument("--ray-address", default=None,
                        help="the Ray cluster of --executor ray (e.g. auto, ray://host:10001; default: "
                             "$RAY_ADDRESS or a local cluster)")


def scoring_executor(args: argparse.Namespace) -> Any:
    """The executor the scoring flags name: a :class:`~rlenv.ray_executor.RayExecutor` on
    ``--ray-address`` for ``--executor ray``, else the executor's name."""
    if args.ray_address is not None and args.executor != "ray":
        raise ValueError("--ray-address needs --executor ray")
    if args.executor == "ray":
        from rlenv.ray_executor import shared_ray_executor

        return shared_ray_executor(args.ray_address)
    return args.executor


def parse_env_args(pairs: list[str]) -> dict[str, Any]:
    """``["level=3", "seed=1"]`` -> ``{"level": 3, "seed": 1}``; values are JSON when they parse, else strings.

    A string value is kept verbatim, surrounding whitespace included (prompt templates need it).
    """
    overrides: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--env-arg {pair!r} must look like KEY=VALUE, e.g. level=3")
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
