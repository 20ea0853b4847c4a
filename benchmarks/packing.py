"""Padded tokens that sequence packing removes, on a GSM8K length distribution.

Each episode is a GSM8K question (prompt) and its reference solution (completion), tokenized one
token per character (rlenv's tiny tokenizer: a BPE tokenizer's counts are about proportional, so
the ratios hold). Steps of ``--batch`` episodes in a shuffled order are split into micro-batches of
``--micro-batch-size`` episodes; the positions a forward pass runs are counted three ways:

- **padded (step width)**: every micro-batch as wide as the step's longest prompt plus longest
  completion, as the trainer's padded micro-batches are (baseline);
- **padded (micro-batch width)**: each micro-batch trimmed to its own longest prompt and completion;
- **packed**: the real tokens only (``TrainerConfig.pack_sequences``).

Run: ``python benchmarks/packing.py --data PATH/gsm8k/test.jsonl [--batch 64 --micro-batch-size 8]``
(a JSONL file of ``{"question", "answer"}`` rows).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a GSM8K-style JSONL file (question, answer)")
    parser.add_argument("--batch", type=int, default=64, help="episodes per step")
    parser.add_argument("--micro-batch-size", type=int, default=8, help="episodes per padded micro-batch")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from rlenv.trainers.tiny import tiny_tokenizer

    tok = tiny_tokenizer()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    lengths = [(len(tok.encode(row["question"])), len(tok.encode(row["answer"])) + 1) for row in rows]  # + EOS
    random.Random(args.seed).shuffle(lengths)
    real = step_width = micro_width = 0
    steps = len(lengths) // args.batch
    for s in range(steps):
        step = lengths[s * args.batch:(s + 1) * args.batch]
        width = max(p for p, _ in step) + max(c for _, c in step)
        for m in range(0, len(step), args.micro_batch_size):
            micro = step[m:m + args.micro_batch_size]
            real += sum(p + c for p, c in micro)
            step_width += len(micro) * width
            micro_width += len(micro) * (max(p for p, _ in micro) + max(c for _, c in micro))
    print(f"{args.data.name}: {steps} steps of {args.batch} episodes, micro-batches of {args.micro_batch_size}; "
          f"prompt + completion characters per episode: mean {real / (steps * args.batch):.0f}")
    print("| forward pass over | positions | padding | removed by packing |")
    print("|---|---|---|---|")
    for name, total in (("padded (step width)", step_width), ("padded (micro-batch width)", micro_width),
                        ("packed", real)):
        print(f"| {name} | {total:,} | {1 - real / total:.1%} | {1 - real / step_width:.1%} of step-width, "
              f"{1 - real / micro_width:.1%} of micro-batch-width |" if name == "packed" else
              f"| {name} | {total:,} | {1 - real / total:.1%} | |")


if __name__ == "__main__":
    main()
