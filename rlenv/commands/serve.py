"""``rlenv serve --env ID [--env ID ...]``: serve environments' rewards over HTTP.

``POST /score`` scores JSON lists of ``{env_id, task_id | index | reference, completion}``;
``POST /get_reward`` speaks OpenRLHF's remote reward-model protocol (``--remote_rm_url
http://HOST:PORT/get_reward``); ``GET /envs`` and ``GET /health`` describe the service (see
:mod:`rlenv.service`). The bearer token, when wanted, comes from ``--token-file`` or the
``RLENV_SERVE_TOKEN`` environment variable (never from the command line, where other users of
the machine could read it).
"""

from __future__ import annotations

import argparse
import collections
import logging
import os
from pathlib import Path

from rlenv.commands.env_args import add_scoring_arguments, parse_env_args, scoring_executor

NAME = "serve"
HELP = "serve environments' rewards over HTTP (POST /score, OpenRLHF's /get_reward)"
logger = logging.getLogger(__name__)
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", action="append", required=True, metavar="ID", dest="envs",
                        help="environment id to serve (repeatable)")
    parser.add_argument("--env-arg", action="append", nargs=2, default=[], metavar=("ID", "KEY=VALUE"),
                        help="constructor override of one served env, e.g. --env-arg rlenv/MATH-v0 "
                             "data_files=math.jsonl (repeatable)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    parser.add_argument("--token-file", type=Path, default=None,
                        help="file holding the bearer token clients must send (default: $RLENV_SERVE_TOKEN; "
                             "neither: no authentication)")
    parser.add_argument("--max-body-mb", type=float, default=16.0, help="largest request body, MiB")
    parser.add_argument("--max-items", type=int, default=10_000, help="most items in one request")
    parser.add_argument("--access-log", action="store_true", help="log every request")
    add_scoring_arguments(parser)


def _env_kwargs(envs: list[str], pairs: list[list[str]]) -> dict[str, dict]:
    grouped: dict[str, list[str]] = collections.defaultdict(list)
    for env_id, pair in pairs:
        if env_id not in envs:
            raise ValueError(f"--env-arg names {env_id!r}, which is not served (add --env {env_id})")
        grouped[env_id].append(pair)
    return {env_id: parse_env_args(group) for env_id, group in grouped.items()}


def _token(args: argparse.Namespace) -> str | None:
    if args.token_file is not None:
        token = args.token_file.read_text(encoding="utf-8").strip()
        if not token:
            raise ValueError(f"--token-file {args.token_file} is empty")
        return token
    return os.environ.get("RLENV_SERVE_TOKEN") or None


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from rlenv.service import RewardService, create_app

    if args.max_body_mb <= 0 or args.max_items < 1:
        raise ValueError(f"--max-body-mb and --max-items must be positive, got {args.max_body_mb} and {args.max_items}")
    token = _token(args)
    if token is None and args.host not in LOOPBACK:
        logger.warning("serving on %s without authentication: anyone who reaches the port can use the "
                       "verifiers (set RLENV_SERVE_TOKEN or --token-file)", args.host)
    service = RewardService(args.envs, _env_kwargs(args.envs, args.env_arg), executor=scoring_executor(args),
                            max_workers=args.workers)
    app = create_app(service, token=token, max_body_bytes=int(args.max_body_mb * 2**20), max_items=args.max_items)
    logger.info("serving %s on http://%s:%d (executor %s, %s)", ", ".join(args.envs), args.host, args.port,
                args.executor, "bearer token required" if token else "no authentication")
    uvicorn.run(app, host=args.host, port=args.port, log_level="info", access_log=args.access_log)
    return 0
