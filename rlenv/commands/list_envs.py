"""``rlenv list``: the registered environment ids (``--detectors``: the registered hack detectors)."""

import argparse

NAME = "list"
HELP = "list registered environments (or, with --detectors, hack detectors)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON spec per line")
    parser.add_argument("--detectors", action="store_true",
                        help="list the registered hack detectors and the envs that run each by default")


def run(args: argparse.Namespace) -> int:
    import json

    import rlenv
    from rlenv.wrappers import detector_names, list_detectors

    ids = rlenv.list_envs()
    if args.detectors:
        users = {name: [env_id for env_id in ids if name in detector_names(env_id)] for name in list_detectors()}
        width = max(map(len, users), default=0)
        for name, env_ids in users.items():
            print(json.dumps({"detector": name, "default_for": env_ids}) if args.json
                  else f"{name:{width}s} default for {len(env_ids)} envs")
        return 0
    width = max(map(len, ids), default=0)
    for env_id in ids:
        spec = rlenv.spec(env_id)
        print(spec.to_json() if args.json else f"{env_id:{width}s} {spec.description}")
    return 0
