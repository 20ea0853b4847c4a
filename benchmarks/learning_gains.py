"""Seed-to-seed spread of the learning tests' held-out pass@1 gains: the distribution their bars come from.

From the learning tests' SFT warm start of a tiny Llama on ``rlenv/Arithmetic-v0`` (level 1), each
policy-gradient preset trains on the tests' budget (``trainer_helpers.RL_BUDGET``, the tests'
learning rates) once per ``--seeds`` entry (the trainer's seed), and its held-out pass@1 gain
(16 samples at T=1 on 30 problems kept out of training) is measured by ``rlenv.evaluation``. The
baseline is the warm start itself (gain 0), measured in the same invocation; the table gives each
preset's gains per seed, their mean, standard deviation and minimum, and the lowest mean of any
``--group`` of the seeds (the tests assert a bar on the mean over three seeds).

Run: ``python benchmarks/learning_gains.py [--seeds 0,1,2,3,4,5 --algorithms reinforce_pp,rloo,grpo,ppo]``;
``--set dtype='"bfloat16"'`` or ``--set lora_r=8 --lr 5e-3`` measures the bf16 and LoRA variants.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from tests.trainers.policy_gradient.test_learning import LEARNING_RATES  # noqa: E402
from tests.trainers.trainer_helpers import parallel_gains, warm_start_state  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algorithms", default=",".join(LEARNING_RATES), help="policy-gradient presets")
    parser.add_argument("--seeds", default="0,1,2,3,4,5")
    parser.add_argument("--group", type=int, default=3, help="seeds per mean (the tests' LEARNING_SEEDS)")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="a TrainerConfig field of every run (JSON value: dtype='\"bfloat16\"', lora_r=8), repeatable")
    parser.add_argument("--lr", type=float, default=None, help="learning rate of every run (default: the tests')")
    parser.add_argument("--workers", type=int, default=2, help="runs in parallel (one CPU thread each)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    names = args.algorithms.split(",")
    unknown = [name for name in names if name not in LEARNING_RATES]
    if unknown:
        parser.error(f"--algorithms: no learning rate for {unknown} (known: {', '.join(LEARNING_RATES)})")
    seeds = [int(s) for s in args.seeds.split(",")]
    if not 1 <= args.group <= len(seeds):
        parser.error(f"--group must be between 1 and the number of seeds ({len(seeds)}), got {args.group}")
    state, before = warm_start_state()
    start = time.perf_counter()
    trainer = {key: json.loads(value) for key, _, value in (pair.partition("=") for pair in args.set)}
    runs = [dict(algorithm=name, lr=args.lr or LEARNING_RATES[name], seed=seed, trainer=trainer)
            for name in names for seed in seeds]
    gains = iter(gain for gain, _ in parallel_gains(state, before, runs, args.workers))
    print(f"warm start held-out pass@1 {before:.3f} (baseline: gain 0); seeds {args.seeds}; settings {trainer}; "
          f"{time.perf_counter() - start:.0f} s")
    print(f"| preset | gain per seed | mean | sd | min | lowest mean of {args.group} seeds |")
    print("|---|---|---|---|---|---|")
    for name in names:
        values = [next(gains) for _ in seeds]
        lowest = min(statistics.mean(group) for group in itertools.combinations(values, args.group))
        spread = statistics.stdev(values) if len(values) > 1 else 0.0
        print(f"| {name} | {', '.join(f'{g:+.3f}' for g in values)} | {statistics.mean(values):+.3f} | "
              f"{spread:.3f} | {min(values):+.3f} | {lowest:+.3f} |")


if __name__ == "__main__":
    main()
