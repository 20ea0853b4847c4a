"""Wall time per training step, synchronous vs asynchronous rollouts (``max_staleness=1``), same model and batch.

Both runs train GRPO on ``rlenv/Arithmetic-v0`` from the same randomly initialized Llama (default
hidden 256, 4 layers: ~3.2M parameters, character tokenizer of ``rlenv.trainers.tiny``), in this
process, one after the other:

* ``sync``: ``rlenv.trainers.Trainer`` as is: rollout (HF ``generate`` + scoring), then update;
* ``async k=1``: ``async_rollouts=True, max_staleness=1``: a generator process samples the next
  batch while this one updates; the trainer waits only for what generation did not hide
  (``sampling/wait_s``).

Each process runs torch on ``--threads`` threads (the trainer and the generator each: async uses
twice the threads of sync, which is the point: the generator gets its own hardware). The first
``--warmup`` steps (the generator process's start included) are left out; the table gives the median
step time of the remaining steps and the async / sync ratio. On a GPU (``--device cuda``) the
generator process shares the GPU with the trainer.

Run: ``python benchmarks/async_step.py [--steps 8 --threads 1]``.
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

import rlenv  # noqa: E402
from rlenv.trainers import Trainer  # noqa: E402
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer  # noqa: E402


def step_times(args: argparse.Namespace, **settings) -> tuple[list[float], list[float]]:
    """``(wall seconds of each step, seconds the trainer waited for its batch)`` of one run."""
    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=args.hidden, num_layers=args.layers, num_heads=4, seed=0)
    config = dict(steps=args.steps, num_tasks=args.num_tasks, group_size=4, max_new_tokens=args.max_new_tokens,
                  micro_batch_size=args.num_tasks * 4, lr=1e-5, progress=False, device=args.device,
                  stall_warning_steps=0, **settings)
    trainer = Trainer(model, rlenv.make("rlenv/Arithmetic-v0"), "grpo", config=config, tokenizer=tokenizer)
    ends: list[float] = []
    start = time.perf_counter()
    trainer.train(callback=lambda step, metrics: ends.append(time.perf_counter()))
    times = [b - a for a, b in zip([start, *ends], ends, strict=False)]
    waits = [m.get("sampling/wait_s", m["time/rollout_s"]) for m in trainer.history]
    return times[args.warmup:], waits[args.warmup:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--num-tasks", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    torch.set_num_threads(args.threads)
    rows = {"sync": step_times(args), "async k=1": step_times(args, async_rollouts=True, max_staleness=1)}
    sync_median = statistics.median(rows["sync"][0])
    print(f"{args.device}, {args.threads} torch thread(s) per process, {torch.get_num_interop_threads()} interop; "
          f"{args.num_tasks}x4 episodes of <= {args.max_new_tokens} tokens; median of steps {args.warmup + 1}-{args.steps}")
    print(f"{'run':<10} {'step s':>8} {'waited for batch s':>19} {'ratio':>6}")
    for name, (times, waits) in rows.items():
        median = statistics.median(times)
        print(f"{name:<10} {median:>8.3f} {statistics.median(waits):>19.3f} {median / sync_median:>6.2f}")


if __name__ == "__main__":
    main()
