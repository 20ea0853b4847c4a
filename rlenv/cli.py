"""The ``rlenv`` command line. Subcommands live in :mod:`rlenv.commands`."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
import sys

from rlenv.commands import COMMAND_MODULES
from rlenv.errors import Interrupted, RlenvError

#: Sphinx roles and literals of the command modules' docstrings, shown as plain text in ``--help``.
_ROLE = re.compile(r":(?:func|class|mod|data|meth|attr|exc):`(~?)([^`]+)`")


def plain_text(docstring: str | None) -> str | None:
    """A docstring as ``--help`` shows it: ``:func:`~a.b``` -> ``b``, ``:mod:`a.b``` -> ``a.b``,
    double-backtick literals -> the bare text."""
    if docstring is None:
        return None
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), docstring)
    return text.replace("``", "")


class HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, unless that is None, False or empty."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "%(default)" in text or not action.option_strings or action.default in (None, False, [], argparse.SUPPRESS):
            return text
        return f"{text} (default: %(default)s)"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``rlenv``. With ``argv``, only the subcommand it names gets its flags: a command's
    flags may be built from heavy modules (``train``'s from the trainer configs, which need torch),
    loaded only when that command runs."""
    parser = argparse.ArgumentParser(prog="rlenv", description="Verifiers and reward models as RL environments",
                                     formatter_class=HelpFormatter)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)
    words = [word for word in argv or () if not word.startswith("-")]
    for module_name in COMMAND_MODULES:
        module = importlib.import_module(module_name)
        command = sub.add_parser(module.NAME, help=module.HELP, description=plain_text(module.__doc__),
                                 formatter_class=HelpFormatter)
        command.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                             help="import a Python module first, e.g. one that calls rlenv.register (from the "
                                  "current directory or the path; repeatable); with --executor ray it is also "
                                  "shipped to the Ray workers")
        if argv is None or words[:1] == [module.NAME]:
            module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def import_modules(names: list[str]) -> None:
    """Import the ``--import`` modules, the current directory first on the path (as ``python -m`` has it)."""
    if names and "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(f"--import {name}: {exc} (a module in the current directory, or on PYTHONPATH, "
                              "or installed)") from None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rlenv`` console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not sys.stderr.isatty():  # a log file: no progress bars from transformers, datasets or the hub
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    # rlenv's own INFO lines; other libraries' (one per HTTP request, ...) only with --verbose
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.getLogger("rlenv").setLevel(logging.DEBUG if args.verbose else logging.INFO)
    try:
        import_modules(args.imports)
        return int(args.run(args) or 0)
    except Interrupted as exc:
        print(f"rlenv {args.command}: interrupted: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"rlenv {args.command}: interrupted", file=sys.stderr)
        return 130
    except (RlenvError, ImportError, FileNotFoundError, KeyError, ValueError, TypeError, IndexError, ConnectionError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"rlenv {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
