"""``rlenv show ID``: an environment's spec and one example prompt."""

import argparse
import json

NAME = "show"
HELP = "show an environment's spec and an example prompt"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="environment id, e.g. rlenv/GSM8K-v0")
    parser.add_argument("--seed", type=int, default=0, help="seed of the example reset")


def run(args: argparse.Namespace) -> int:
    import rlenv
    from rlenv.env import text_env

    spec = rlenv.spec(args.id)
    env = spec.make()
    prompt, info = env.reset(seed=args.seed)
    print(json.dumps({"spec": json.loads(spec.to_json()), "size": text_env(env).source.size,
                      "example": {"prompt": prompt, "task_id": info["task_id"]}}, indent=2, default=str))
    return 0
