"""``rlenv list``: the registered environment ids."""

import argparse

NAME = "list"
HELP = "list registered environments"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON spec per line")


def run(args: argparse.Namespace) -> int:
    import rlenv

    ids = rlenv.list_envs()
    width = max(map(len, ids), default=0)
    for env_id in ids:
        spec = rlenv.spec(env_id)
        print(spec.to_json() if args.json else f"{env_id:{width}s} {spec.description}")
    return 0
