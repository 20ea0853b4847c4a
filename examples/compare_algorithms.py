"""Compare policy-gradient RL, self-training and preference optimization on one task and budget.

    python examples/compare_algorithms.py [--rounds 40] [--out runs/compare_algorithms] [--quick]

A tiny character-level Llama (``rlenv.trainers.tiny``, CPU) is warmed up by SFT on gold answers of
``rlenv/Arithmetic-v0`` (level 1), exactly as in the trainers' learning tests. From that one
warm start, every algorithm gets the same budget: ``--rounds`` rounds of ``--num-tasks`` training
prompts x ``--group-size`` sampled completions, scored by the environment.

* ``grpo``, ``rloo``, ``reinforce_pp``, ``ppo``: :class:`rlenv.trainers.Trainer` presets, lr 1e-3,
  4 passes over each rollout (the learning tests' settings);
* ``raft``: :class:`rlenv.trainers.self_training.SelfTrainer`, top-1 correct sample per prompt, 2 SFT
  epochs per round;
* ``online_dpo``: :class:`rlenv.trainers.preference.OnlineDPO`, best vs worst of each group, DPO loss
  (beta 0.05) with iterative RPO's NLL term on the chosen completion;
* ``online_dpo_pure``: the same without the NLL term, to show its failure mode;
* optional ``trpo`` and ``ppo_klpen`` (:mod:`rlenv.trainers.trust_region_trainer`).

Held-out pass@1 (16 samples per problem at temperature 1 on ``--eval-problems`` distinct problems;
:func:`rlenv.disjoint_split` keeps them out of the SFT and training tasks) is measured every
``--eval-every`` rounds. Prints a Markdown table, and saves it
(``table.md``), the curves (``compare_algorithms.png``: pass@1 per round) and ``metrics.json``
under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import rlenv  # noqa: E402
from rlenv.inference.policy import SamplingConfig  # noqa: E402
from rlenv.trainers import ALGORITHMS, Trainer, gold_examples, sft  # noqa: E402
from rlenv.trainers.evaluate import evaluate  # noqa: E402
from rlenv.trainers.preference import OnlineDPO, OnlineDPOConfig, PreferenceConfig  # noqa: E402
from rlenv.trainers.self_training import SelfTrainer, self_training_config  # noqa: E402
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer  # noqa: E402

DEFAULT_ALGORITHMS = ("grpo", "rloo", "reinforce_pp", "ppo", "raft", "online_dpo", "online_dpo_pure")
EXTRA_ALGORITHMS = ("trpo", "ppo_klpen")
LEVEL, TRAIN_SIZE, HELD_OUT_START, MAX_NEW_TOKENS, EVAL_SAMPLES = 1, 5000, 100_000, 8, 16

Evaluate = Callable[[Any], float]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algorithms", nargs="+", default=list(DEFAULT_ALGORITHMS),
                        choices=DEFAULT_ALGORITHMS + EXTRA_ALGORITHMS)
    parser.add_argument("--rounds", type=int, default=40, help="rollouts (RL steps / self-training rounds)")
    parser.add_argument("--num-tasks", type=int, default=32, help="training prompts per round")
    parser.add_argument("--group-size", type=int, default=4, help="sampled completions per prompt")
    parser.add_argument("--eval-every", type=int, default=5, help="rounds between held-out evaluations")
    parser.add_argument("--eval-problems", type=int, default=30,
                        help=f"held-out problems ({EVAL_SAMPLES} samples each; level 1 has 100 in all)")
    parser.add_argument("--sft-steps", type=int, default=150, help="SFT warm-up steps (16 gold examples each)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (tiny models: 1 is fastest)")
    parser.add_argument("--out", type=Path, default=Path("runs/compare_algorithms"))
    parser.add_argument("--quick", action="store_true", help="a few rounds on few tasks (smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.num_tasks, args.eval_every, args.eval_problems, args.sft_steps = 4, 8, 2, 10, 40
    return args


def warm_start(args: argparse.Namespace, tokenizer: Any, env: Any) -> dict[str, torch.Tensor]:
    """SFT on gold answers of the first tasks of ``env`` (the training split); returns the weights."""
    model = tiny_causal_lm(tokenizer, seed=0)
    sft(model, tokenizer, gold_examples(env, range(args.sft_steps * 16)), steps=args.sft_steps, batch_size=16,
        lr=3e-3, progress=False)
    return {k: v.clone() for k, v in model.state_dict().items()}


def run_algorithm(name: str, model: Any, tokenizer: Any, train_env: Any, args: argparse.Namespace,
                  held_out: Evaluate) -> list[tuple[int, float]]:
    """Train ``model`` with ``name``; returns ``[(round, held-out pass@1)]`` every ``eval_every`` rounds."""
    curve: list[tuple[int, float]] = []
    sampling = SamplingConfig(max_new_tokens=MAX_NEW_TOKENS, temperature=1.0)

    def at_round(done: int, policy: Any) -> dict[str, float]:
        if done % args.eval_every == 0 or done == args.rounds:
            curve.append((done, held_out(policy)))
        return {}

    vec = rlenv.TextVectorEnv(train_env, num_tasks=args.num_tasks, group_size=args.group_size)
    if name == "raft":
        config = self_training_config("raft", rounds=args.rounds, top_k=1, min_reward=1.0, sampling=sampling,
                                      sft_lr=1e-3, sft_epochs=2, sft_batch_size=16, seed=args.seed)
        trainer = SelfTrainer(model, tokenizer, vec, config,
                              evaluate=lambda policy: at_round(len(trainer.rounds) + 1, policy))
        trainer.train(progress=False)
        return curve
    if name.startswith("online_dpo"):
        preference = PreferenceConfig(loss="dpo", beta=0.05, nll_weight=0.0 if name.endswith("pure") else 1.0,
                                      learning_rate=1e-3, batch_size=32)
        config = OnlineDPOConfig(preference=preference, rounds=args.rounds, sampling=sampling, updates_per_round=3,
                                 seed=args.seed)
        online = OnlineDPO(model, tokenizer, vec, config,
                           evaluate=lambda policy: at_round(len(online.rounds) + 1, policy))
        online.train(progress=False)
        return curve
    rl_config = dict(steps=args.rounds, num_tasks=args.num_tasks, group_size=args.group_size, lr=1e-3,
                     max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=64, progress=False, seed=args.seed)
    if name in EXTRA_ALGORITHMS:
        # Imported on demand: it adds the ``ppo_klpen`` loss to the policy-loss registry.
        from rlenv.trainers.trust_region_trainer import PPO_KLPEN, KLPenaltyTrainer, TRPOConfig, TRPOTrainer

        if name == "trpo":
            rl = TRPOTrainer(model, vec, "grpo", config=rl_config, tokenizer=tokenizer, trpo=TRPOConfig(max_kl=0.02))
        else:
            rl = KLPenaltyTrainer(model, vec, PPO_KLPEN, config=rl_config, tokenizer=tokenizer, kl_target=0.02)
    else:
        rl = Trainer(model, vec, ALGORITHMS[name].replace(ppo_epochs=4), config=rl_config, tokenizer=tokenizer)
    rl.train(callback=lambda step, metrics: at_round(step, rl.policy))
    return curve


def markdown_table(results: dict[str, dict[str, Any]], start: float) -> str:
    lines = ["| algorithm | pass@1 start | pass@1 end | gain (points) | best | samples | wall time (s) |",
             "|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        end = r["curve"][-1][1]
        best = max(p for _, p in r["curve"])
        lines.append(f"| {name} | {start:.3f} | {end:.3f} | {100 * (end - start):+.1f} | {best:.3f} | "
                     f"{r['samples']} | {r['seconds']:.0f} |")
    return "\n".join(lines)


def plot(results: dict[str, dict[str, Any]], start: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, r in results.items():
        rounds, values = zip(*([(0, start)] + r["curve"]), strict=True)
        ax.plot(rounds, values, marker="o", markersize=3, label=name)
    ax.set_xlabel("round (one rollout of the same size for every algorithm)")
    ax.set_ylabel("held-out pass@1 (T=1)")
    ax.set_title("rlenv/Arithmetic-v0, tiny Llama, same warm start and budget")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    tokenizer = tiny_tokenizer()
    env = rlenv.make("rlenv/Arithmetic-v0", level=LEVEL)
    train_env, held_tasks = rlenv.disjoint_split(env, args.eval_problems, TRAIN_SIZE, HELD_OUT_START)

    def held_out(policy: Any) -> float:
        return evaluate(policy, tokenizer, env, held_tasks, samples=EVAL_SAMPLES, temperature=1.0,
                        max_new_tokens=MAX_NEW_TOKENS, seed=args.seed)["pass@1"]

    started = time.perf_counter()
    state = warm_start(args, tokenizer, train_env)
    model = tiny_causal_lm(tokenizer, seed=0)
    model.load_state_dict(state)
    start = held_out(model)
    print(f"warm start: {args.sft_steps} SFT steps, held-out pass@1 {start:.3f} ({time.perf_counter() - started:.0f} s)")
    results: dict[str, dict[str, Any]] = {}
    for name in args.algorithms:
        model = tiny_causal_lm(tokenizer, seed=0)
        model.load_state_dict(state)
        torch.manual_seed(args.seed)
        t0 = time.perf_counter()
        curve = run_algorithm(name, model, tokenizer, train_env, args, held_out)
        results[name] = {"curve": curve, "seconds": time.perf_counter() - t0,
                         "samples": args.rounds * args.num_tasks * args.group_size}
        print(f"{name:>16}: pass@1 " + " ".join(f"{p:.3f}" for _, p in curve) + f"  ({results[name]['seconds']:.0f} s)",
              flush=True)
    table = markdown_table(results, start)
    print("\n" + table)
    (args.out / "table.md").write_text(table + "\n", encoding="utf-8")
    plot(results, start, args.out / "compare_algorithms.png")
    summary = {"start": start, "args": {k: str(v) for k, v in vars(args).items()}, "results": results}
    (args.out / "metrics.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(f"\nwrote {args.out / 'table.md'}, {args.out / 'compare_algorithms.png'}, {args.out / 'metrics.json'}")
    return summary


if __name__ == "__main__":
    main()
