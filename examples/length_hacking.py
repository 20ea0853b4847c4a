"""Length hacking of a length-biased proxy reward, caught by the monitors and stopped by a penalty.

    python examples/length_hacking.py [--steps 30] [--out runs/length_hacking]

A tiny character-level policy (rlenv.trainers.tiny, CPU) first learns by SFT to answer "Repeat: abc"
with "abc". It is then trained with GRPO on a *proxy* reward that stands in for a learned reward
model with a length bias: ``gold + bonus * min(length, cap) / cap``, where ``gold`` is the exact
match the task really wants. Two runs from the same warm start:

* **no wrapper**: the policy learns that longer answers pay; the length climbs, the proxy reward
  rises while the gold reward does not; :func:`rlenv.wrappers.monitors.length_reward_metrics`
  raises ``hacks/length_alert`` (reward correlates with length at equal correctness) within the
  first steps, and :func:`~rlenv.wrappers.monitors.proxy_gold_divergence` follows;
* **OverlongPenalty**: DAPO's soft overlong punishment on top of the proxy; the length stays
  bounded near the soft limit.

Prints one line per step and a summary table, and saves ``length_hacking.png`` (length, proxy
and gold reward per step, both runs) and ``metrics.json`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import string
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import rlenv  # noqa: E402
from rlenv.exact_match import ExactMatchVerifier  # noqa: E402
from rlenv.wrappers import OverlongPenalty  # noqa: E402
from rlenv.wrappers.monitors import length_reward_metrics, proxy_gold_divergence  # noqa: E402


class LengthBiasedRM:
    """A proxy reward with a length bias: the gold verifier's value plus a bonus for length.

    ``value = gold + bonus * min(len(completion), cap) / cap``; the components keep ``gold`` and
    ``length_bonus`` apart and the status is the gold verifier's, so the gold reward stays visible.
    """

    name, version = "length_biased_rm", "1"

    def __init__(self, gold: Any, bonus: float = 1.0, cap: int = 40):
        self.gold, self.bonus, self.cap = gold, bonus, cap

    def __call__(self, task: rlenv.Task, completion: str) -> rlenv.RewardResult:
        gold = self.gold(task, completion)
        extra = self.bonus * min(len(completion), self.cap) / self.cap
        return rlenv.RewardResult(gold.value + extra, gold.status, {"gold": gold.value, "length_bonus": extra},
                                  verifier=self.name, verifier_version=self.version)


def copy_tasks(count: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    rows = []
    for n in range(count):
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 4)))
        rows.append({"id": f"copy-{n}", "prompt": f"Repeat: {word}\n", "reference": word})
    return rows


class Recorder:
    """A vector env that keeps the last step's completions and infos for the monitors."""

    def __init__(self, vec: rlenv.TextVectorEnv):
        self.vec, self.num_envs, self.group_size = vec, vec.num_envs, vec.group_size
        self.last: dict[str, Any] = {}

    def reset(self, *, seed=None, options=None):
        return self.vec.reset(seed=seed, options=options)

    def step(self, actions):
        out = self.vec.step(actions)
        self.last = {"completions": [str(a) for a in actions], "rewards": np.asarray(out[1]), "infos": out[4],
                     "group_ids": self.vec.group_ids}
        return out


def run(name: str, model: Any, tokenizer: Any, rows: list[dict], penalty: bool, args: argparse.Namespace) -> list[dict]:
    from rlenv.trainers.policy_gradient.trainer import Trainer

    env: Any = rlenv.TextEnv(rlenv.sources.DatasetSource(rows), LengthBiasedRM(ExactMatchVerifier(), args.bonus, args.cap))
    if penalty:
        env = OverlongPenalty(env, max_len=args.max_len, buffer=args.buffer, penalty=-args.penalty_factor)
    recorder = Recorder(rlenv.TextVectorEnv(env, num_tasks=args.num_tasks, group_size=args.group_size,
                                            executor="serial"))
    trainer = Trainer(model, recorder, algorithm="grpo", tokenizer=tokenizer, config={
        "steps": args.steps, "num_tasks": args.num_tasks, "group_size": args.group_size,
        "max_new_tokens": args.max_new_tokens, "lr": args.lr, "micro_batch_size": 32, "seed": args.seed,
        "device": "cpu", "progress": False})
    history: list[dict] = []

    def on_step(step: int, metrics: dict[str, float]) -> None:
        last = recorder.last
        results = last["infos"]["reward"]
        gold = np.array([r.components["gold"] for r in results])
        lengths = np.array([len(c) for c in last["completions"]], dtype=float)
        monitor = length_reward_metrics(lengths, last["rewards"], last["group_ids"], gold > 0)
        proxy_mean = float(np.mean([r.value for r in results]))
        row = {"step": step, "length": float(lengths.mean()), "proxy": proxy_mean, "gold": float(gold.mean()),
               "reward": float(last["rewards"].mean()), **monitor}
        history.append(row)
        divergence = proxy_gold_divergence([h["proxy"] for h in history], [h["gold"] for h in history], window=10)
        row.update(divergence)
        flags = [k for k in ("hacks/length_alert", "hacks/proxy_gold_diverging") if row[k] == 1.0]
        print(f"[{name}] step {step:>3}  length {row['length']:6.1f}  proxy {row['proxy']:.3f}  gold {row['gold']:.3f}  "
              f"rho|correct {row['hacks/length_reward_given_correctness']:+.2f}  {' '.join(flags)}", flush=True)

    trainer.train(callback=on_step)
    return history


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--num-tasks", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--bonus", type=float, default=1.0, help="proxy reward for a completion of --cap characters")
    parser.add_argument("--cap", type=int, default=40, help="length (characters) where the bonus saturates")
    parser.add_argument("--max-len", type=int, default=48, help="OverlongPenalty L_max (characters)")
    parser.add_argument("--buffer", type=int, default=40, help="OverlongPenalty L_cache (characters)")
    parser.add_argument("--penalty-factor", type=float, default=2.0,
                        help="OverlongPenalty reward at L_max is -this (verl's penalty_factor)")
    parser.add_argument("--sft-steps", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/length_hacking"))
    args = parser.parse_args()

    import copy

    import torch

    from rlenv.trainers.finetune import sft
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    torch.manual_seed(args.seed)
    start = time.perf_counter()
    rows = copy_tasks(64, args.seed)
    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=64, num_layers=2, seed=args.seed)
    losses = sft(model, tokenizer, [(r["prompt"], r["reference"]) for r in rows], steps=args.sft_steps, batch_size=32,
                 lr=3e-3, seed=args.seed, progress=False)
    print(f"SFT warm start: loss {losses[0]:.2f} -> {losses[-1]:.2f} nats/token")
    runs = {}
    for name, penalty in (("no wrapper", False), ("OverlongPenalty", True)):
        runs[name] = run(name, copy.deepcopy(model), tokenizer, rows, penalty, args)
    print(f"\n{'run':<16} {'length 1st->last':>18} {'proxy 1st->last':>18} {'gold 1st->last':>16} {'first alert':>12}")
    for name, hist in runs.items():
        alerts = [h["step"] for h in hist if h["hacks/length_alert"] == 1.0]
        print(f"{name:<16} {hist[0]['length']:>8.1f} -> {hist[-1]['length']:<7.1f} {hist[0]['proxy']:>8.3f} -> "
              f"{hist[-1]['proxy']:<7.3f} {hist[0]['gold']:>6.3f} -> {hist[-1]['gold']:<7.3f} "
              f"{(alerts[0] if alerts else 'none')!s:>12}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "metrics.json").write_text(json.dumps(runs, indent=1, default=lambda v: None if math.isnan(v) else v))
    plot(runs, args.out / "length_hacking.png")
    print(f"saved {args.out / 'length_hacking.png'} and metrics.json ({time.perf_counter() - start:.0f} s)")
    return 0


def plot(runs: dict[str, list[dict]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for name, hist in runs.items():
        steps = [h["step"] for h in hist]
        for ax, key in zip(axes, ("length", "proxy", "gold"), strict=True):
            ax.plot(steps, [h[key] for h in hist], label=name)
        alerts = [h["step"] for h in hist if h["hacks/length_alert"] == 1.0]
        if alerts and name == "no wrapper":
            axes[0].axvline(alerts[0], color="red", linestyle=":", label="first length alert")
    for ax, title in zip(axes, ("mean completion length (chars)", "proxy reward (length-biased RM)",
                                "gold reward (exact match)"), strict=True):
        ax.set_title(title)
        ax.set_xlabel("step")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
