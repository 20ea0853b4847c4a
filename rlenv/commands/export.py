"""``rlenv export FORMAT ID``: an environment's tasks as another trainer's dataset (and reward hook).

``verl``: a parquet file of :func:`rlenv.integrations.verl.to_verl_rows` (point verl's
``reward.custom_reward_function.path`` at ``pkg://rlenv.integrations.verl``). ``openrlhf``: a JSONL
prompt file (``--input_key prompt --label_key label``) plus, with ``--reward-file``, the Python
file for OpenRLHF's ``--remote_rm_url``.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from rlenv.commands.env_args import parse_env_args

NAME = "export"
HELP = "write an env's tasks as a verl or OpenRLHF dataset (and OpenRLHF's reward_func file)"
logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("format", choices=["verl", "openrlhf"], help="the trainer the files are for")
    parser.add_argument("id", help="environment id, e.g. rlenv/GSM8K-v0")
    parser.add_argument("-o", "--output", type=Path, required=True,
                        help="the dataset file (.parquet for verl, .jsonl for openrlhf)")
    parser.add_argument("--num-tasks", type=int, default=None,
                        help="tasks 0..N-1 (default: every task; required for an endless env)")
    parser.add_argument("--split", default="train", help="verl: the split name recorded in extra_info")
    parser.add_argument("--label", default="task_id", choices=["task_id", "reference"],
                        help="openrlhf: what each row's label carries")
    parser.add_argument("--reward-file", type=Path, help="openrlhf: also write the reward_func file here")
    parser.add_argument("--env-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="environment constructor override, e.g. --env-arg level=2 (repeatable)")


def run(args: argparse.Namespace) -> int:
    import datasets

    import rlenv
    from rlenv.env import text_env

    env_kwargs = parse_env_args(args.env_arg)
    size = text_env(rlenv.make(args.id, **env_kwargs)).source.size
    num_tasks = size if args.num_tasks is None else args.num_tasks
    if num_tasks is None:
        raise ValueError(f"{args.id} generates tasks without end: pass --num-tasks")
    if num_tasks < 1 or (size is not None and num_tasks > size):
        raise ValueError(f"--num-tasks must be in [1, {size}], got {num_tasks}")
    if args.format == "verl":
        from rlenv.integrations.verl import to_verl_rows

        rows = to_verl_rows(args.id, range(num_tasks), split=args.split, **env_kwargs)
        datasets.Dataset.from_list(rows).to_parquet(str(args.output))
    else:
        from rlenv.integrations.openrlhf import to_openrlhf_rows, write_reward_file

        rows = to_openrlhf_rows(args.id, range(num_tasks), label=args.label, **env_kwargs)
        datasets.Dataset.from_list(rows).to_json(str(args.output), lines=True, force_ascii=False)
        if args.reward_file is not None:
            write_reward_file(args.reward_file, args.id, label=args.label, **env_kwargs)
            logger.info("wrote %s (--remote_rm_url %s)", args.reward_file, args.reward_file)
    logger.info("wrote %d rows of %s to %s", len(rows), args.id, args.output)
    return 0
