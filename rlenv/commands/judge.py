"""``rlenv judge calibrate PREFERENCES.jsonl --model M``: measure a pairwise AI judge on labeled
preference pairs before training on its rewards.

Each row of the JSONL file holds ``prompt``, ``chosen`` and ``rejected`` (TRL's preference
columns). The judge is asked about every pair in both orders and the command prints (see
:func:`rlenv.envs.judge.calibration.calibrate`): agreement with the labels, position-swap
consistency, length bias, the pairs the judge could not decide (errors), and the requests and tokens
the judge cost. The exit code is 1 when no pair got a verdict.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

NAME = "judge"
HELP = "AI judges: measure one against labeled preference pairs (calibrate)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="judge_command", required=True)
    calibrate = sub.add_parser("calibrate", help="agreement, position-swap consistency and length bias of a "
                                                 "pairwise judge on labeled preference pairs",
                               description="Ask a pairwise judge about each labeled pair (both orders) and "
                                           "print its agreement with the labels, its position-swap "
                                           "consistency and its length bias.")
    calibrate.add_argument("preferences", type=Path, help='JSONL rows {"prompt", "chosen", "rejected"}')
    calibrate.add_argument("--model", required=True,
                           help="the judge: a served model's name (openai) or a checkpoint directory (hf, vllm)")
    calibrate.add_argument("--backend", default="openai", choices=("openai", "hf", "vllm"), help="the judge's backend")
    calibrate.add_argument("--base-url", help="the OpenAI-compatible API root of a served judge, e.g. "
                                              "http://127.0.0.1:8000/v1")
    calibrate.add_argument("--chat", default="auto", choices=("auto", "on", "off"),
                           help="chat messages (on/auto) or one text prompt (off) for the judge")
    calibrate.add_argument("--judge-option", action="append", default=[], metavar="KEY=VALUE",
                           help="an option of the judge model, e.g. --judge-option concurrency=8, max_retries, "
                                "rate_limit, timeout, api_key, cache (repeatable)")
    calibrate.add_argument("--json", action="store_true", help="print the measures as one JSON object")


def run(args: argparse.Namespace) -> int:
    from rlenv.commands.env_args import parse_env_args
    from rlenv.envs.judge import JudgeModel, PairwiseJudge
    from rlenv.envs.judge.calibration import calibrate
    from rlenv.jsonl import read_jsonl

    options = parse_env_args(args.judge_option, flag="--judge-option")
    if args.base_url is not None:
        options["base_url"] = args.base_url
    rows = read_jsonl(args.preferences, "preference file", required_keys=("prompt", "chosen", "rejected"))
    judge = PairwiseJudge(JudgeModel(args.backend, args.model, chat=args.chat, **options))
    found = calibrate(judge, rows)
    if args.json:
        print(json.dumps(dataclasses.asdict(found)))
    else:
        print(f"{found.pairs} pairs, {found.errors} without a verdict (judge errors)")
        rates = {"agreement": found.agreement, "swap consistency": found.swap_consistency}
        for label, value in rates.items():
            print(f"{label:<17} {'n/a' if value is None else f'{value:.3f}'}")
        print(f"{'length bias':<17} {'n/a' if found.length_bias is None else f'{found.length_bias:+.3f}'}")
        print("judge usage       " + ", ".join(f"{key} {value}" for key, value in found.usage.items()))
    if found.errors == found.pairs:
        print(f"rlenv judge calibrate: no pair of {args.preferences} got a verdict: nothing was measured",
              file=sys.stderr)
        return 1
    return 0
