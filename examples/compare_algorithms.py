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
* optional ``trpo`` and ``ppo_klpen`` (:mod:`rlenv.trainers.policy_gradient.trust_region_trainer`).

Held-out pass@1 (16 samples per problem at temperature 1 on ``--eval-problems`` distinct problems;
:func:`rlenv.splits.disjoint_split` keeps them out of the SFT and training tasks) is measured every
``--eval-every`` rounds. Prints a Markdown table, and saves it
(``table.md``), the curves (``compare_algorithms.png``: pass@1 per round) and ``metrics.json``
under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import rlenv  # noqa: E402
from rlenv.evaluation import EvalOptions, evaluate_policy  # noqa: E402
from rlenv.inference import Sampling  # noqa: E402
from rlenv.inference.hf import policy_generate  # noqa: E402
from rlenv.trainers import gold_examples, sft, train  # noqa: E402
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
    """Train ``model`` with ``name`` (through :func:`rlenv.trainers.train`); returns ``[(round, held-out
    pass@1)]`` every ``eval_every`` rounds."""
    curve: list[tuple[int, float]] = []

    def at_round(done: int, metrics: dict[str, float]) -> None:
        if done % args.eval_every == 0 or done == args.rounds:
            curve.append((done, held_out(model)))

    vec = rlenv.TextVectorEnv(train_env, num_tasks=args.num_tasks, group_size=args.group_size)
    sampling = {"max_new_tokens": MAX_NEW_TOKENS, "temperature": 1.0}
    options: dict[str, Any] = {}
    if name == "raft":
        algorithm = "raft"
        config: dict[str, Any] = dict(rounds=args.rounds, top_k=1, min_reward=1.0, sampling=sampling, lr=1e-3, epochs=2,
                                      batch_size=16, seed=args.seed)
    elif name.startswith("online_dpo"):
        algorithm = "online_dpo"
        preference = dict(loss="dpo", beta=0.05, nll_weight=0.0 if name.endswith("pure") else 1.0, lr=1e-3,
                          batch_size=32)
        config = dict(preference=preference, rounds=args.rounds, sampling=sampling, updates_per_round=3,
                      seed=args.seed)
    else:
        algorithm = name
        config = dict(steps=args.rounds, num_tasks=args.num_tasks, group_size=args.group_size, lr=1e-3,
                      max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=64, progress=False, seed=args.seed)
        options = {"trpo": {"trpo": {"max_kl": 0.02}}, "ppo_klpen": {"kl_target": 0.02}}.get(
            name, {"algorithm_overrides": {"ppo_epochs": 4}})
    if algorithm in ("raft", "online_dpo"):
        options["progress"] = False  # the per-round lines below say enough
    train(algorithm, model, tokenizer, env=vec, config=config, callback=at_round, **options)
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
    train_env, held_tasks = rlenv.splits.disjoint_split(env, args.eval_problems, TRAIN_SIZE, HELD_OUT_START)

    options = EvalOptions(ks=[1], families=("pass@k",), n_resamples=100, plot=False, report=False, progress=False,
                          executor="serial")

    def held_out(policy: Any) -> float:
        generate = policy_generate(policy, tokenizer, Sampling(max_new_tokens=MAX_NEW_TOKENS, temperature=1.0),
                                   chat="off")
        with tempfile.TemporaryDirectory() as out:
            summary = evaluate_policy(env, generate, held_tasks, EVAL_SAMPLES, out, options)
        return summary["metrics"]["pass@1"]["value"]

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
