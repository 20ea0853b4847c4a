"""Verifier-failure policies in policy-gradient training: held-out pass@1 gain with injected failures, clean runs as baseline.

From the learning tests' SFT warm start of a tiny Llama on ``rlenv/Arithmetic-v0`` (level 1), a
policy-gradient preset (GRPO by default) trains with the verifier crashing (status ``error``) on
``--rate`` of its calls, under each ``on_verifier_error`` policy (``mask``, ``zero``,
``resample``), once per ``--seeds`` entry: the seed is the trainer's and picks which calls fail.
The baseline is the clean run (no failures) on the same seeds, measured in the same invocation.
``--unit`` says what fails: random calls (a transient crash), the same answer to a problem every
time, or every call on a share of the problems (``--parsed-only``: only answers that parsed, as a
crash while checking an answer would). ``--format-weight W`` grades the training reward as
accuracy + format rewards do (correct 1 + W, well-formed but wrong W, else 0; rlenv's
``format_reward``); ``--failing`` says whether the whole reward call crashes (a reward service
that did not answer: reward 0) or only the accuracy check inside it (the format term is paid).
The gain is held-out pass@1 after minus before (16 samples at T=1 on 30 problems kept out of
training), measured by ``rlenv.evaluation``.

Prints a table of the gains per policy, their mean and its ratio to the clean mean.
Run: ``python benchmarks/failure_policies.py [--workers 2 --seeds 0,1,2,3 --algorithm grpo]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "trainers"))

import torch  # noqa: E402
from trainer_helpers import failure_policy_gains, warm_start_state  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=0.3, help="share of verifier calls (or problems) that fail")
    parser.add_argument("--unit", choices=["call", "completion", "task"], default="call",
                        help="call: random calls fail (transient); completion: the same answer to a problem always "
                             "fails; task: every call on a share of the problems fails")
    parser.add_argument("--parsed-only", action="store_true", help="only answers that parsed can fail")
    parser.add_argument("--format-weight", type=float, default=0.0,
                        help="grade the training reward: + this much for the answer format (accuracy + format "
                             "rewards)")
    parser.add_argument("--failing", choices=["reward", "accuracy"], default="reward",
                        help="what crashes: the whole reward call (the episode's reward is 0), or only the accuracy "
                             "check inside a graded reward (its format term is still paid)")
    parser.add_argument("--algorithm", default="grpo", help="a policy-gradient preset (e.g. reinforce_pp)")
    parser.add_argument("--lr", type=float, default=5e-4, help="the learning tests use 5e-4 for GRPO, 1e-3 otherwise")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--group-size", type=int, default=4)
    parser.add_argument("--policies", default="mask,zero,resample")
    parser.add_argument("--seeds", default="0,1,2,3")
    parser.add_argument("--workers", type=int, default=2, help="runs in parallel (one CPU thread each)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    state, before = warm_start_state()
    seeds = [int(s) for s in args.seeds.split(",")]
    policies = ["clean", *args.policies.split(",")]
    start = time.perf_counter()
    gains = failure_policy_gains(state, before, policies, seeds, algorithm=args.algorithm, lr=args.lr, steps=args.steps,
                                 group_size=args.group_size, rate=args.rate, format_weight=args.format_weight,
                                 failing=args.failing, workers=args.workers,
                                 failure_options=dict(unit=args.unit, parsed_only=args.parsed_only))
    clean = statistics.mean(gains["clean"])
    print(f"warm start held-out pass@1 {before:.3f}; {args.rate:.0%} failures (unit: {args.unit}"
          f"{', parsed answers only' if args.parsed_only else ''}; crashing: {args.failing}); "
          f"format term {args.format_weight}; "
          f"{args.algorithm}, {args.steps} steps x 32 prompts x "
          f"{args.group_size}, lr {args.lr}; seeds {args.seeds}; {time.perf_counter() - start:.0f} s")
    print("| policy | held-out pass@1 gain per seed | mean gain | ratio vs clean |")
    print("|---|---|---|---|")
    for policy in policies:
        mean = statistics.mean(gains[policy])
        print(f"| {policy} | {', '.join(f'{g:+.3f}' for g in gains[policy])} | {mean:+.3f} | {mean / clean:.2f}x |")


if __name__ == "__main__":
    main()
