"""Verifier-failure policies in policy-gradient training: held-out pass@1 gain with injected failures, clean runs as baseline.

From the learning tests' SFT warm start of a tiny Llama on ``rlenv/Arithmetic-v0`` (level 1), a
policy-gradient preset (GRPO by default) trains with the verifier crashing (status ``error``) on
``--rate`` of its calls, under each ``on_verifier_error`` policy (``mask``, ``zero``,
``resample``), once per ``--seeds`` entry: the seed is the trainer's and picks which calls fail.
The baseline is the clean run (no failures) on the same seeds, measured in the same invocation.
``--unit`` says what fails: random calls (a transient crash), the same answer to a problem every
time, or every call on a share of the problems (``--parsed-only``: only answers that parsed, as a
crash while checking an answer would). The gain is held-out pass@1 after minus before (16 samples
at T=1 on 30 problems kept out of training), measured by ``rlenv.evaluation``.

Prints a table of the gains per policy, their mean and its ratio to the clean mean.
Run: ``python benchmarks/failure_policies.py [--workers 2 --seeds 0,1,2,3 --algorithm grpo]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "trainers"))

import torch  # noqa: E402
from trainer_helpers import MAX_NEW_TOKENS, policy_gradient_gain, warm_start_state  # noqa: E402

from rlenv.trainers import ALGORITHMS  # noqa: E402


def gain(policy: str, seed: int, state: dict, before: float, args: argparse.Namespace) -> float:
    """Held-out pass@1 gain of one run from the warm start ``state``."""
    torch.set_num_threads(1)
    config = dict(steps=args.steps, num_tasks=32, group_size=args.group_size, lr=args.lr,
                  max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=64, progress=False, seed=seed,
                  fail_fast_fraction=None, on_verifier_error="mask" if policy == "clean" else policy)
    rate = 0.0 if policy == "clean" else args.rate
    return policy_gradient_gain(state, before, ALGORITHMS[args.algorithm].replace(ppo_epochs=4), config, rate,
                                unit=args.unit, seed=seed, parsed_only=args.parsed_only)[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=0.3, help="share of verifier calls (or problems) that fail")
    parser.add_argument("--unit", choices=["call", "completion", "task"], default="call",
                        help="call: random calls fail (transient); completion: the same answer to a problem always "
                             "fails; task: every call on a share of the problems fails")
    parser.add_argument("--parsed-only", action="store_true", help="only answers that parsed can fail")
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
    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        futures = {(policy, seed): pool.submit(gain, policy, seed, state, before, args)
                   for policy in policies for seed in seeds}
        gains = {policy: [futures[policy, seed].result() for seed in seeds] for policy in policies}
    clean = statistics.mean(gains["clean"])
    print(f"warm start held-out pass@1 {before:.3f}; {args.rate:.0%} failures (unit: {args.unit}"
          f"{', parsed answers only' if args.parsed_only else ''}); {args.algorithm}, {args.steps} steps x 32 prompts x "
          f"{args.group_size}, lr {args.lr}; seeds {args.seeds}; {time.perf_counter() - start:.0f} s")
    print("| policy | held-out pass@1 gain per seed | mean gain | ratio vs clean |")
    print("|---|---|---|---|")
    for policy in policies:
        mean = statistics.mean(gains[policy])
        print(f"| {policy} | {', '.join(f'{g:+.3f}' for g in gains[policy])} | {mean:+.3f} | {mean / clean:.2f}x |")


if __name__ == "__main__":
    main()
