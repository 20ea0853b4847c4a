"""One GRPO training step (rollout + scoring + update): ``rlenv.trainers.Trainer`` vs TRL's ``GRPOTrainer``.

Variants (``--variants``, all by default), each run by both trainers with the same settings:

- ``full``: full fine-tuning in bf16. Ours: bf16 weights stepped through fp32 master weights
  (``dtype="bfloat16"``); TRL: the model as given (bf16) with its own optimizer;
- ``lora``: LoRA adapters (``--lora-r``, alpha ``2 r``, every linear layer), base weights frozen;
- ``fsdp``: ours sharded with FSDP2 (``fsdp=True``) in a 1-process group: the cost of the sharding
  machinery on one GPU (TRL's FSDP needs ``accelerate launch``: not run, shown as ``-``);
- ``packing``: ours on padding-free packed micro-batches (``pack_sequences=True``); TRL's GRPO
  has no padding-free mode, so its padded step is the baseline.

``--size 0.5b`` / ``1.5b`` picks Qwen2.5-0.5B / -1.5B shapes (random weights).

Both get the same randomly initialized Qwen2-architecture model (default: Qwen2.5-0.5B shapes,
~494M parameters, bf16), the same local tokenizer (no downloads), the same prompts
(``rlenv/Arithmetic-v0``) and reward (its verifier plus a dense digit-share shaping so that rewards
vary within groups), the same batch (``--prompts`` x ``--group``), completion length, learning
rate and loss (GRPO: group-normalized advantages, PPO clip 0.2, per-sequence token mean, no KL,
one pass), with ``transformers`` ``generate`` for sampling (TRL without vLLM) and the same
gradient-checkpointing setting. Each trainer runs in its own process; after ``--warmup`` steps
the next ``--steps`` are timed (CUDA-synchronized) and the peak of
``torch.cuda.max_memory_allocated`` over them is reported.

Usage (GPU): python benchmarks/gpu_step.py [--prompts 8] [--group 8] [--max-new-tokens 256]
Smoke run on CPU with a tiny model: python benchmarks/gpu_step.py --smoke
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rlenv

import rlenv  # noqa: E402
from rlenv.wrappers.base import RewardWrapper  # noqa: E402

SYSTEMS = ("ours", "trl")
VARIANTS = ("full", "lora", "fsdp", "packing")
#: Qwen2.5 shapes: vocab, hidden, intermediate, layers, heads, kv heads.
SIZES = {"0.5b": (151936, 896, 4864, 24, 14, 2), "1.5b": (151936, 1536, 8960, 28, 12, 2)}


class DigitShare(RewardWrapper):
    """Verifier reward plus the share of digit characters: a dense shaping that varies for random policies."""

    def transform(self, task, completion, reward, truncated, info):
        return reward + sum(ch.isdigit() for ch in completion) / max(1, len(completion)), info


def make_env():
    return DigitShare(rlenv.make("rlenv/Arithmetic-v0", level=2))


def make_tokenizer(vocab_size: int):
    """A character tokenizer padded with filler tokens up to ``vocab_size`` (so every sampled id decodes)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from rlenv.trainers.tiny import DEFAULT_ALPHABET, SPECIAL_TOKENS

    base = list(SPECIAL_TOKENS.values()) + list(dict.fromkeys(DEFAULT_ALPHABET))
    vocab = {tok: i for i, tok in enumerate(base + [f"<t{i}>" for i in range(vocab_size - len(base))])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=SPECIAL_TOKENS["unk"]))
    core.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    core.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token=SPECIAL_TOKENS["pad"],
                                   bos_token=SPECIAL_TOKENS["bos"], eos_token=SPECIAL_TOKENS["eos"],
                                   unk_token=SPECIAL_TOKENS["unk"], padding_side="left")


def make_model(args: argparse.Namespace, tokenizer, device: str, dtype: torch.dtype):
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=args.vocab, hidden_size=args.hidden, intermediate_size=args.intermediate,
                         num_hidden_layers=args.layers, num_attention_heads=args.heads,
                         num_key_value_heads=args.kv_heads, max_position_embeddings=4096, tie_word_embeddings=True,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    return Qwen2ForCausalLM(config).to(device=device, dtype=dtype)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def variant_settings(variant: str, args: argparse.Namespace, device: str) -> dict:
    """Our ``TrainerConfig`` fields for ``variant``."""
    dtype = "bfloat16" if device == "cuda" else "float32"
    return {"full": dict(dtype=dtype), "lora": dict(dtype=dtype, lora_r=args.lora_r, lora_alpha=2 * args.lora_r),
            "fsdp": dict(dtype=dtype, fsdp=True), "packing": dict(dtype=dtype, pack_sequences=True)}[variant]


def run_ours(args, model, tokenizer, env, device) -> tuple[list[float], float]:
    from rlenv.trainers import Trainer

    if args.variant == "fsdp" and not torch.distributed.is_initialized():
        torch.distributed.init_process_group("nccl" if device == "cuda" else "gloo", init_method="tcp://127.0.0.1:29517",
                                             rank=0, world_size=1)
    config = dict(steps=args.warmup + args.steps, num_tasks=args.prompts, group_size=args.group, lr=args.lr,
                  max_new_tokens=args.max_new_tokens, micro_batch_size=args.micro_batch_size,
                  gradient_checkpointing=args.gradient_checkpointing, progress=False, device=device, max_grad_norm=1.0,
                  **variant_settings(args.variant, args, device))
    trainer = Trainer(model, env, "grpo", config=config, tokenizer=tokenizer)
    times = []
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            reset_peak(device)
        sync(device)
        start = time.perf_counter()
        trainer.train_step()
        sync(device)
        times.append(time.perf_counter() - start)
    timed = trainer.history[args.warmup:]
    tokens = sum(m["length/mean"] * m["episodes"] for m in timed) / len(timed)
    return times[args.warmup:], tokens


def run_trl(args, model, tokenizer, env, device, out_dir: str) -> tuple[list[float], float]:
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from rlenv.integrations.trl import reward_funcs, to_dataset

    class StepTimer(TrainerCallback):
        def __init__(self):
            self.times, self.start = [], 0.0

        def on_step_begin(self, train_args, state, control, **kwargs):
            if state.global_step == args.warmup:
                reset_peak(device)
            sync(device)
            self.start = time.perf_counter()

        def on_step_end(self, train_args, state, control, **kwargs):
            sync(device)
            self.times.append(time.perf_counter() - self.start)

    batch = args.prompts * args.group
    config = GRPOConfig(
        output_dir=out_dir, use_cpu=device == "cpu", bf16=False, per_device_train_batch_size=args.micro_batch_size,
        gradient_accumulation_steps=batch // args.micro_batch_size, num_generations=args.group,
        max_completion_length=args.max_new_tokens, max_steps=args.warmup + args.steps, learning_rate=args.lr,
        loss_type="grpo", scale_rewards="group", beta=0.0, epsilon=0.2, num_iterations=1, temperature=1.0,
        gradient_checkpointing=args.gradient_checkpointing, logging_steps=1, report_to="none", save_strategy="no",
        seed=0, max_grad_norm=1.0, lr_scheduler_type="constant", warmup_steps=0,
    )
    timer = StepTimer()
    peft_config = None
    if args.variant == "lora":
        from peft import LoraConfig

        peft_config = LoraConfig(r=args.lora_r, lora_alpha=2 * args.lora_r, target_modules="all-linear",
                                 task_type="CAUSAL_LM")
    trainer = GRPOTrainer(model=model, reward_funcs=reward_funcs(env), args=config, processing_class=tokenizer,
                          train_dataset=to_dataset(env, num_tasks=batch * (args.warmup + args.steps)),
                          callbacks=[timer], peft_config=peft_config)
    trainer.train()
    lengths = [row["completions/mean_length"] for row in trainer.state.log_history if "completions/mean_length" in row]
    timed = lengths[args.warmup:] or lengths
    return timer.times[args.warmup:], batch * sum(timed) / len(timed)


def reset_peak(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()


def run_one(args: argparse.Namespace) -> dict[str, float]:
    device = "cuda" if torch.cuda.is_available() and not args.smoke else "cpu"
    if args.smoke:
        torch.set_num_threads(1)  # tiny CPU ops: extra threads only add contention
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    tokenizer = make_tokenizer(args.vocab)
    model = make_model(args, tokenizer, device, dtype)
    params = sum(p.numel() for p in model.parameters())
    env = make_env()
    if args.system == "ours":
        times, tokens = run_ours(args, model, tokenizer, env, device)
    else:
        times, tokens = run_trl(args, model, tokenizer, env, device, args.out_dir)
    peak = torch.cuda.max_memory_allocated() if device == "cuda" else float("nan")
    seconds = sorted(times)[len(times) // 2]
    return {"seconds": seconds, "tokens_per_s": tokens / seconds, "peak_bytes": float(peak), "params": float(params),
            "device": torch.cuda.get_device_name() if device == "cuda" else "cpu"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=8, help="prompts per step")
    parser.add_argument("--group", type=int, default=8, help="completions per prompt")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--micro-batch-size", type=int, default=16, help="completions per forward/backward")
    parser.add_argument("--lr", type=float, default=1e-6)
    parser.add_argument("--warmup", type=int, default=1, help="untimed steps first")
    parser.add_argument("--steps", type=int, default=3, help="timed steps (median reported)")
    parser.add_argument("--gradient-checkpointing", action=argparse.BooleanOptionalAction, default=True,
                        help="TRL's default is on; both trainers use the same setting")
    parser.add_argument("--vocab", type=int, default=151936)
    parser.add_argument("--hidden", type=int, default=896)
    parser.add_argument("--intermediate", type=int, default=4864)
    parser.add_argument("--layers", type=int, default=24)
    parser.add_argument("--heads", type=int, default=14)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--size", choices=sorted(SIZES), default=None,
                        help="Qwen2.5 shapes (overrides --vocab/--hidden/--intermediate/--layers/--heads/--kv-heads)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--lora-r", type=int, default=16, help="LoRA rank of the lora variant")
    parser.add_argument("--smoke", action="store_true", help="tiny model on CPU, to check the script end to end")
    parser.add_argument("--system", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--variant", choices=VARIANTS, default="full", help=argparse.SUPPRESS)
    parser.add_argument("--out-dir", default="/tmp/gpu_step_trl", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.size:
        args.vocab, args.hidden, args.intermediate, args.layers, args.heads, args.kv_heads = SIZES[args.size]
    if args.smoke:
        args.vocab, args.hidden, args.intermediate, args.layers, args.heads, args.kv_heads = 512, 64, 128, 2, 4, 2
        args.max_new_tokens, args.prompts, args.group, args.micro_batch_size = 8, 2, 4, 4
    if (args.prompts * args.group) % args.micro_batch_size:
        raise SystemExit("--prompts x --group must be a multiple of --micro-batch-size")
    if args.system:
        print(json.dumps(run_one(args)))
        return

    variants = args.variants.split(",")
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise SystemExit(f"--variants: unknown {unknown}; known: {', '.join(VARIANTS)}")
    rows = []
    for variant in variants:
        results = {}
        for system in SYSTEMS:
            if system == "trl" and variant == "fsdp":
                continue
            forwarded = [a for a in sys.argv[1:] if not a.startswith("--variants")] + [f"--system={system}",
                                                                                       f"--variant={variant}"]
            proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), *forwarded], capture_output=True,
                                  text=True, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"{system} ({variant}) failed:\n{proc.stderr[-4000:]}")
            results[system] = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append((variant, results))
    first = rows[0][1]["ours"]
    print(f"one GRPO step: {args.prompts} prompts x {args.group} completions, {args.max_new_tokens} new tokens, "
          f"{first['params'] / 1e6:.0f}M-parameter model, {first['device']}, "
          f"gradient checkpointing {'on' if args.gradient_checkpointing else 'off'}")
    print("| variant | ours s/step | TRL s/step | ours tokens/s | TRL tokens/s | ours peak GiB | TRL peak GiB | "
          "ours / TRL time |")
    print("|---|---|---|---|---|---|---|---|")
    for variant, results in rows:
        ours, trl = results["ours"], results.get("trl")
        cells = [f"{ours['seconds']:.2f}", f"{trl['seconds']:.2f}" if trl else "-", f"{ours['tokens_per_s']:.0f}",
                 f"{trl['tokens_per_s']:.0f}" if trl else "-", gib(ours), gib(trl) if trl else "-",
                 f"{ours['seconds'] / trl['seconds']:.2f}x" if trl else "-"]
        print(f"| {variant} | " + " | ".join(cells) + " |")


def gib(result: dict) -> str:
    peak = result["peak_bytes"]
    return "-" if peak != peak else f"{peak / 2**30:.2f}"  # NaN on CPU


if __name__ == "__main__":
    main()
