"""``rlenv serve --env ID [--env ID ...]``: the environments' verifiers as an HTTP reward service.

``POST /score`` (items ``{env_id, task_id | index | reference, completion}``), OpenRLHF's
``POST /get_reward`` (``--remote_rm_url http://HOST:PORT/get_reward``), ``GET /health`` and
``GET /envs``; see :mod:`rlenv.service.app`. With ``--token-env VAR`` every endpoint but
``/health`` needs ``Authorization: Bearer $VAR``.
"""

from __future__ import annotations

import argparse
import logging
import os

from rlenv.commands.env_args import add_scoring_arguments, scoring_executor

NAME = "serve"
HELP = "serve environments' verifiers over HTTP (POST /score, OpenRLHF's /get_reward)"
logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", dest="envs", action="append", required=True, metavar="ID",
                        help="a registered env id to serve (repeatable; the first answers /get_reward)")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--token-env", default=None, metavar="VAR",
                        help="environment variable holding a bearer token the clients must send")
    parser.add_argument("--max-body-bytes", type=int, default=16 * 1024 * 1024, help="request size limit")
    parser.add_argument("--max-items", type=int, default=4096, help="items per /score request")
    add_scoring_arguments(parser)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from rlenv.service.app import create_app

    token = None
    if args.token_env is not None:
        token = os.environ.get(args.token_env)
        if not token:
            raise ValueError(f"--token-env {args.token_env}: that environment variable is not set or empty")
    app = create_app(args.envs, token=token, max_body_bytes=args.max_body_bytes, max_items=args.max_items,
                     executor=scoring_executor(args), max_workers=args.workers)
    logger.info("serving %s on http://%s:%d", ", ".join(args.envs), args.host, args.port)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
