"""``rlenv demo``: train a tiny policy with GRPO on ``rlenv/Arithmetic-v0``, on CPU, with no downloads.

1. builds a tiny character-level Llama policy locally (:mod:`rlenv.trainers.tiny`);
2. sets ``heldout`` distinct problems aside: SFT and GRPO never see them (training draws that
   would repeat one are redrawn);
3. warms the policy up with a short SFT on gold completions of training problems (:func:`rlenv.trainers.finetune`);
4. measures held-out pass@1 (sampled completions at temperature 1, bootstrap CI over problems);
5. trains with GRPO (:class:`rlenv.trainers.Trainer`), measuring held-out pass@1 every few steps;
6. compares the final pass@1 with step 0 on the same problems (paired CI and p-value);
7. writes ``demo.png`` (training reward and held-out pass@1 per step), ``demo.json``, the
   evaluation directories (``eval-step-NNNN/``, see ``rlenv eval``; ``rlenv report DIR`` reads
   them all) and the trained model in ``final/``.

``--quick`` is the shortened run used by the tests.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import shutil
import sys
import time
from pathlib import Path
from typing import Any

NAME = "demo"
HELP = "train a tiny policy with GRPO on Arithmetic-v0 (CPU, minutes): pass@1 before/after with CIs"
ENV_ID = "rlenv/Arithmetic-v0"
logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class DemoConfig:
    """Sizes of one demo run (the ``full`` and ``quick`` presets below).

    SFT: ``sft_steps`` AdamW steps of ``sft_batch_size`` gold completions at ``sft_lr``. GRPO:
    ``grpo_steps`` steps of ``num_tasks`` problems x ``group_size`` samples at ``lr``. Evaluation:
    the ``heldout`` problems x ``eval_samples`` samples at temperature 1, every ``eval_every``
    GRPO steps. (Level 1, single-digit sums, has 100 distinct problems.)
    """

    level: int = 1
    heldout: int = 30
    sft_examples: int = 3000
    sft_steps: int = 150
    sft_batch_size: int = 32
    sft_lr: float = 3e-3
    grpo_steps: int = 40
    num_tasks: int = 32
    group_size: int = 8
    lr: float = 5e-4
    eval_samples: int = 16
    eval_every: int = 10
    max_new_tokens: int = 8
    hidden_size: int = 64
    num_layers: int = 2


PRESETS = {
    "full": DemoConfig(),
    "quick": DemoConfig(grpo_steps=16, eval_every=8),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="the shortened run used in CI (a minute or two)")
    parser.add_argument("--out", type=Path, default=Path("runs/demo"), help="output directory")
    parser.add_argument("--seed", type=int, default=0, help="seed of the model, the problems and the sampling")
    parser.add_argument("--steps", type=int, default=None, help="GRPO steps (default: the preset's)")


class _Excluding:
    """A task generator that redraws (with the same per-task RNG) any task whose prompt is excluded."""

    def __init__(self, generate: Any, excluded: frozenset[str], max_draws: int = 10_000):
        self.generate = generate
        self.excluded = excluded
        self.max_draws = max_draws

    def __call__(self, rng: Any, index: int) -> Any:
        for _ in range(self.max_draws):
            task = self.generate(rng, index)
            if task.prompt not in self.excluded:
                return task
        raise RuntimeError(f"no task outside the {len(self.excluded)} held-out problems in {self.max_draws} draws")


def split_heldout(env: Any, count: int, seed: int) -> tuple[Any, Any]:
    """``(train_env, heldout_env)`` from a procedural env: ``count`` distinct problems (drawn with
    ``seed``) form the held-out env; the train env is the same generator with those redrawn."""
    import copy

    from rlenv.sources import DatasetSource, ProceduralSource

    base = env.unwrapped
    draws = copy.copy(base.source)
    draws.seed = seed
    heldout: dict[str, Any] = {}
    for index in range(100 * count):
        task = draws[index]
        heldout.setdefault(task.prompt, task)
        if len(heldout) == count:
            break
    else:
        raise ValueError(f"the generator has fewer than {count} distinct problems to hold out")
    rows = [{"id": t.id, "prompt": t.prompt, "reference": t.reference, "gold_completion": t.gold_completion}
            for t in heldout.values()]
    heldout_env, train_env = copy.copy(base), copy.copy(base)
    heldout_env.source = DatasetSource(rows)
    train_env.source = ProceduralSource(_Excluding(base.source.generate, frozenset(heldout)), seed=base.source.seed,
                                        size=base.source.size, prefix=f"{base.source.prefix}-train")
    return train_env, heldout_env


def _plot(path: Path, history: list[dict[str, float]], curve: list[dict[str, Any]]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5), dpi=120)
    try:
        left.plot([h["step"] for h in history], [h["reward/mean"] for h in history], marker=".")
        left.set_xlabel("GRPO step")
        left.set_ylabel("mean training reward")
        left.set_title("reward per step")
        left.grid(alpha=0.3)
        steps = [p["step"] for p in curve]
        values = [p["pass@1"]["value"] for p in curve]
        errors = [[v - p["pass@1"]["low"] for v, p in zip(values, curve, strict=True)],
                  [p["pass@1"]["high"] - v for v, p in zip(values, curve, strict=True)]]
        right.errorbar(steps, values, yerr=errors, marker="o", capsize=3)
        right.set_ylim(0, 1)
        right.set_xlabel("GRPO step")
        right.set_ylabel("held-out pass@1")
        right.set_title("held-out pass@1 (95% CI)")
        right.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path


def run_demo(preset: DemoConfig, out: Path, seed: int = 0, progress: bool = True) -> dict[str, Any]:
    """Run the demo; returns ``{"before", "after", "comparison", "curve", "history", "seconds"}``."""
    import torch

    import rlenv
    from rlenv.evaluation import EvalOptions, compare_results, evaluate_policy, read_results
    from rlenv.inference import Sampling
    from rlenv.inference.hf import policy_generate
    from rlenv.trainers import Trainer
    from rlenv.trainers.finetune import gold_examples, sft
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*out.glob("eval-step-*"), out / "train", out / "final"]:  # a rerun starts from scratch
        shutil.rmtree(stale, ignore_errors=True)
    torch.manual_seed(seed)
    train_env, heldout_env = split_heldout(rlenv.make(ENV_ID, level=preset.level, seed=seed), preset.heldout,
                                           seed=seed + 1)
    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=preset.hidden_size, num_layers=preset.num_layers, seed=seed)

    sft(model, tokenizer, gold_examples(train_env, range(preset.sft_examples)), steps=preset.sft_steps,
        batch_size=preset.sft_batch_size, lr=preset.sft_lr, seed=seed, progress=progress)

    sampling = Sampling(max_new_tokens=preset.max_new_tokens, temperature=1.0)
    tasks = list(range(preset.heldout))
    options = EvalOptions(ks=[1], families=("pass@k", "mean"), plot=False, progress=False, seed=seed)
    curve: list[dict[str, Any]] = []

    def evaluate(step: int) -> dict[str, Any]:
        torch.manual_seed(seed + 10_000 + step)
        summary = evaluate_policy(heldout_env, policy_generate(model, tokenizer, sampling, chat="off"), tasks,
                                  preset.eval_samples, out / f"eval-step-{step:04d}", options,
                                  config={"demo": dataclasses.asdict(preset), "seed": seed, "step": step})
        point = {"step": step, "pass@1": summary["metrics"]["pass@1"]}
        curve.append(point)
        logger.info("step %d: held-out pass@1 %.3f [%.3f, %.3f]", step, point["pass@1"]["value"],
                    point["pass@1"]["low"], point["pass@1"]["high"])
        return summary

    before = evaluate(0)
    episodes = preset.num_tasks * preset.group_size
    trainer = Trainer(model, train_env, algorithm="grpo", tokenizer=tokenizer, config={
        "steps": preset.grpo_steps, "num_tasks": preset.num_tasks, "group_size": preset.group_size,
        "max_new_tokens": preset.max_new_tokens, "lr": preset.lr, "micro_batch_size": episodes,
        "seed": seed, "device": "cpu", "output_dir": str(out / "train"), "progress": progress,
    })

    def every(step: int, metrics: dict[str, float]) -> None:
        if step % preset.eval_every == 0 and step < preset.grpo_steps:
            evaluate(step)

    history = trainer.train(callback=every)
    after = evaluate(preset.grpo_steps)
    last = out / f"eval-step-{preset.grpo_steps:04d}" / "results.jsonl"
    comparison = compare_results(read_results(last), read_results(out / "eval-step-0000" / "results.jsonl"),
                                 metric="pass@1", seed=seed)
    result = {"before": before["metrics"]["pass@1"], "after": after["metrics"]["pass@1"],
              "comparison": comparison, "curve": curve,
              "history": [{"step": h["step"], "reward/mean": h["reward/mean"]} for h in history],
              "preset": dataclasses.asdict(preset), "seed": seed, "seconds": time.perf_counter() - start}
    model.save_pretrained(out / "final")  # for rlenv eval --model runs/demo/final
    tokenizer.save_pretrained(out / "final")
    (out / "demo.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    _plot(out / "demo.png", result["history"], curve)
    return result


def run(args: argparse.Namespace) -> int:
    preset = PRESETS["quick" if args.quick else "full"]
    if args.steps is not None:
        if args.steps < 1:
            raise ValueError(f"--steps must be >= 1, got {args.steps}")
        preset = dataclasses.replace(preset, grpo_steps=args.steps)
    result = run_demo(preset, args.out, seed=args.seed)
    before, after, diff = result["before"], result["after"], result["comparison"]["difference"]
    level = int(round(100 * before["confidence"]))
    sys.stdout.write(
        f"rlenv demo: GRPO on {ENV_ID} (level {preset.level}), tiny policy, {preset.grpo_steps} steps, "
        f"{result['seconds']:.0f} s\n"
        f"pass@1 on {before['num_tasks']} held-out problems (never trained on) x {preset.eval_samples} samples, "
        f"{level}% CI:\n"
        f"  before GRPO: {before['value']:.3f} [{before['low']:.3f}, {before['high']:.3f}]\n"
        f"  after GRPO:  {after['value']:.3f} [{after['low']:.3f}, {after['high']:.3f}]\n"
        f"  gain:        {diff['value']:+.3f} [{diff['low']:+.3f}, {diff['high']:+.3f}]  "
        f"p = {result['comparison']['p_value']:.3g} (paired over problems)\n"
        f"wrote {args.out / 'demo.png'}, {args.out / 'demo.json'} and the model in {args.out / 'final'}\n")
    return 0
