"""Batched reward-model scoring vs one forward per episode (the baseline), measured in the same run.

A vector env of N episodes scored by ``RewardModelVerifier.score_batch`` (length-sorted micro-batches,
one forward each) against calling the verifier once per episode, which is what a verifier without
``score_batch`` gets. Same model, same inputs; the scores are checked to agree.

Usage: python benchmarks/rm_batching.py [--episodes 256] [--batch-size 32] [--hidden 128] [--layers 4]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time

import torch

from rlenv import Task
from rlenv.envs.prm import PRMVerifier, StepSplitter
from rlenv.envs.safety import RewardModelVerifier
from rlenv.trainers.tiny import save_tiny, tiny_sequence_classifier, tiny_token_classifier, tiny_tokenizer


def completions(n: int, rng: random.Random, max_steps: int) -> list[str]:
    words = ["step", "add", "then", "so", "the", "answer", "is", "we", "get", "Sure", "here", "how"]
    out = []
    for _ in range(n):
        steps = [f"Step {k + 1}: " + " ".join(rng.choice(words) for _ in range(rng.randint(4, 30)))
                 for k in range(rng.randint(1, max_steps))]
        out.append("\n".join(steps))
    return out


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def count_forwards(model, fn):
    calls = []
    hook = model.register_forward_hook(lambda *args: calls.append(1))
    try:
        value, seconds = timed(fn)
    finally:
        hook.remove()
    return value, seconds, len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--max-steps", type=int, default=6, help="steps per completion: 1..N, 4-30 words each")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rng = random.Random(0)
    texts = completions(args.episodes, rng, args.max_steps)
    tasks = [Task(str(i), "Add the numbers and explain each step.") for i in range(args.episodes)]
    tok = tiny_tokenizer()
    rows = []
    with tempfile.TemporaryDirectory() as root:
        rm_path = save_tiny(tiny_sequence_classifier(tok, hidden_size=args.hidden, num_layers=args.layers), tok,
                            f"{root}/rm")
        prm_path = save_tiny(tiny_token_classifier(tok, hidden_size=args.hidden, num_layers=args.layers), tok,
                             f"{root}/prm")
        for name, verifier in (
            ("reward model", RewardModelVerifier(rm_path, batch_size=args.batch_size)),
            ("process reward model", PRMVerifier(prm_path, splitter=StepSplitter("step_k"), batch_size=args.batch_size)),
        ):
            verifier.score_batch(tasks[:2], texts[:2])  # load and warm up
            base, base_s, base_f = count_forwards(verifier.model, lambda v=verifier: [v(t, c) for t, c in zip(tasks, texts)])
            batched, batch_s, batch_f = count_forwards(verifier.model, lambda v=verifier: v.score_batch(tasks, texts))
            gap = max(abs(a.value - b.value) for a, b in zip(base, batched))
            rows.append((name, base_f, base_s, batch_f, batch_s, gap))
    mean_chars = sum(map(len, texts)) / len(texts)
    print(f"{args.episodes} episodes (mean {mean_chars:.0f} chars, 1 token/char), batch_size {args.batch_size}, "
          f"Llama hidden {args.hidden} x {args.layers} layers, {args.threads} CPU thread(s)")
    print(f"{'verifier':<22}{'baseline fwd':>13}{'baseline s':>12}{'batched fwd':>13}{'batched s':>11}"
          f"{'episodes/s':>12}{'speedup':>9}{'max |diff|':>12}")
    for name, base_f, base_s, batch_f, batch_s, gap in rows:
        print(f"{name:<22}{base_f:>13}{base_s:>12.2f}{batch_f:>13}{batch_s:>11.2f}{args.episodes / batch_s:>12.0f}"
              f"{base_s / batch_s:>8.1f}x{gap:>12.1e}")


if __name__ == "__main__":
    main()
