"""Verifier-failure policies in policy-gradient training: held-out pass@1 gain with injected failures, clean run as baseline.

From one SFT warm start of a tiny Llama on ``rlenv/Arithmetic-v0`` (level 1), GRPO runs with the
verifier failing (status ``error``) on ``--rate`` of its calls (``--parsed-only``: only on answers
that parsed, as a crash while checking an answer would), under each ``on_verifier_error`` policy
(``mask``, ``zero``, ``resample``), one run per ``--seeds`` entry (the seed picks which calls fail);
the clean run (no failures) is the baseline. The gain is held-out pass@1 after minus before (16
samples at T=1 on 30 problems kept out of training), measured by ``rlenv.evaluation``.

Prints a table of the mean gain per policy and its ratio to the clean gain.
Run: ``python benchmarks/failure_policies.py [--group-size 8 --steps 100 --seeds 0,1,2]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "trainers"))

import torch  # noqa: E402
from trainer_helpers import MAX_NEW_TOKENS, held_out_pass_at_1, make_task_env, tiny_policy, training_split  # noqa: E402

from rlenv import RewardResult, TextEnv  # noqa: E402
from rlenv.trainers import ALGORITHMS, Trainer, gold_examples, sft  # noqa: E402


class InjectedFailures:
    """Fails ``rate`` of the calls (``unit="call"``: by a hash of the call number, the task and the
    completion) or every call on ``rate`` of the tasks (``unit="task"``: a broken task, e.g. a
    reference the checker cannot read)."""

    name = "injected"

    def __init__(self, inner, rate: float, seed: int, parsed_only: bool, unit: str = "call"):
        self.inner, self.rate, self.seed, self.parsed_only, self.unit = inner, rate, seed, parsed_only, unit
        self.calls, self.lock = 0, threading.Lock()

    def __call__(self, task, completion):
        with self.lock:
            self.calls += 1
            n = self.calls
        result = self.inner(task, completion)
        if self.parsed_only and result.status.value == "unparsable":
            return result
        key = f"{self.seed}|{task.reference}" if self.unit == "task" else f"{self.seed}|{n}|{task.id}|{completion}"
        if zlib.crc32(key.encode()) % 1000 < 1000 * self.rate:
            return RewardResult.error(f"injected crash on {task.id}")
        return result


def gain(policy: str, state: dict, before: float, seed: int, args: argparse.Namespace) -> float:
    model, tok = tiny_policy()
    model.load_state_dict(state)
    env = training_split(make_task_env())
    if policy != "clean":
        env = TextEnv(env.unwrapped.source, InjectedFailures(env.unwrapped.verifier, args.rate, seed, args.parsed_only,
                                                             args.unit))
    config = dict(steps=args.steps, num_tasks=32, group_size=args.group_size, lr=5e-4, max_new_tokens=MAX_NEW_TOKENS,
                  micro_batch_size=64, progress=False, seed=0, fail_fast_fraction=None,
                  on_verifier_error="mask" if policy == "clean" else policy)
    torch.manual_seed(0)
    Trainer(model, env, ALGORITHMS[args.algorithm].replace(ppo_epochs=4), config=config, tokenizer=tok).train()
    return held_out_pass_at_1(model, tok, make_task_env()) - before


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sft-steps", type=int, default=600, help="warm-up SFT steps (600: pass@1 about 0.6)")
    parser.add_argument("--rate", type=float, default=0.3)
    parser.add_argument("--parsed-only", action="store_true")
    parser.add_argument("--unit", choices=["call", "task"], default="call",
                        help="call: random calls fail; task: every call on a share of the problems fails")
    parser.add_argument("--algorithm", default="grpo", help="a policy-gradient preset (e.g. reinforce_pp)")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--policies", default="mask,zero,resample")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    model, tok = tiny_policy()
    env = make_task_env()
    sft(model, tok, gold_examples(training_split(env), range(min(5000, args.sft_steps * 16))), steps=args.sft_steps,
        batch_size=16, lr=3e-3, progress=False)
    before = held_out_pass_at_1(model, tok, env)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = {}
    for policy in ["clean", *args.policies.split(",")]:
        start = time.perf_counter()
        rows[policy] = [gain(policy, state, before, seed, args) for seed in (seeds if policy != "clean" else [0])]
        print(f"{policy:>9}: {' '.join(f'{g:+.3f}' for g in rows[policy])} ({time.perf_counter() - start:.0f} s)",
              flush=True)
    clean = rows["clean"][0]
    print(f"\nwarm start pass@1 {before:.3f}; {args.rate:.0%} failures{' on parsed answers' if args.parsed_only else ''}; "
          f"(unit: {args.unit}); {args.algorithm} {args.steps} steps x 32 prompts x {args.group_size}")
    print("| policy | gains | mean gain | ratio vs clean |")
    print("|---|---|---|---|")
    for policy, gains in rows.items():
        mean = statistics.mean(gains)
        print(f"| {policy} | {', '.join(f'{g:+.3f}' for g in gains)} | {mean:+.3f} | {mean / clean:.2f}x |")


if __name__ == "__main__":
    main()
