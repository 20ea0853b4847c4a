"""The ``rlenv`` command line. Subcommands live in :mod:`rlenv.commands`."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from rlenv.commands import COMMAND_MODULES


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlenv", description="Verifiers and reward models as RL environments")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(module_name)
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.__doc__)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rlenv`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return int(args.run(args) or 0)
    except (FileNotFoundError, KeyError, ValueError, TypeError, IndexError, ConnectionError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"rlenv {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
