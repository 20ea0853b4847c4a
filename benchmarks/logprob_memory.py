"""Peak memory and time of completion log-probs (forward + backward): chunked LM head vs full logits.

Three ways to get ``log pi(token)`` for ``N`` completion tokens from final hidden states
``(N, H)`` and an LM head ``(V, H)``, each followed by a backward pass (as in training):

* ``naive``: full ``(N, V)`` logits, ``log_softmax``, ``gather`` (the baseline);
* ``trl``: full logits, then TRL's ``selective_log_softmax`` (row-wise logsumexp; on CUDA with
  Triton, TRL's fused kernel);
* ``chunked``: :func:`rlenv.trainers.logprobs.head_logprobs`, the LM head applied ``--chunk`` rows at a
  time with each chunk recomputed in the backward pass (what the trainers use).

Each method runs in its own process so its peak is measured alone: on CPU the peak RSS
(``VmHWM``, reset just before the computation) above the RSS at that moment; on CUDA ``torch.cuda.max_memory_allocated`` on
CUDA. The log-probs and gradients of every method are checked against the naive ones.

Usage: python benchmarks/logprob_memory.py [--vocab 151936] [--hidden 896] [--tokens 2048]
       [--chunk 256] [--dtype float32|bfloat16] [--device cpu|cuda] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import torch

METHODS = ("naive", "trl", "chunked")


def rss_bytes() -> int:
    """Current resident set size of this process, in bytes (Linux)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize()


def reset_peak_rss() -> None:
    """Reset the kernel's peak-RSS counter (VmHWM) of this process to the current RSS (Linux)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def peak_rss_bytes() -> int:
    """Peak resident set size (VmHWM) since the last :func:`reset_peak_rss`, in bytes."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def inputs(args: argparse.Namespace) -> tuple[torch.Tensor, torch.nn.Linear, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    dtype = getattr(torch, args.dtype)
    hidden = torch.randn(args.tokens, args.hidden, generator=gen).to(args.device, dtype).requires_grad_(True)
    head = torch.nn.Linear(args.hidden, args.vocab, bias=False)
    with torch.no_grad():
        head.weight.copy_(torch.randn(args.vocab, args.hidden, generator=gen) * args.hidden ** -0.5)
    head = head.to(args.device, dtype)
    index = torch.randint(0, args.vocab, (args.tokens,), generator=gen).to(args.device)
    return hidden, head, index


def logprobs(method: str, hidden: torch.Tensor, head: torch.nn.Linear, index: torch.Tensor, chunk: int) -> torch.Tensor:
    if method == "naive":
        logits = head(hidden).float()
        return torch.log_softmax(logits, -1).gather(-1, index.unsqueeze(-1)).squeeze(-1)
    if method == "trl":
        from trl.trainer.utils import selective_log_softmax

        return selective_log_softmax(head(hidden).float(), index)
    from rlenv.trainers.logprobs import head_logprobs

    return head_logprobs(hidden, head, index, chunk_size=chunk)[0]


def run_one(args: argparse.Namespace) -> dict[str, float]:
    """Measure ``args.method`` in this process; returns peak bytes, seconds and the outputs' checksum."""
    torch.set_num_threads(args.threads)
    hidden, head, index = inputs(args)
    weights = torch.linspace(-1, 1, args.tokens, device=args.device)
    cuda = args.device.startswith("cuda")
    times = []
    peak = 0
    for _ in range(args.repeats):
        hidden.grad, head.weight.grad = None, None
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
        else:
            reset_peak_rss()
            base = rss_bytes()
        start = time.perf_counter()
        out = logprobs(args.method, hidden, head, index, args.chunk)
        (out * weights).sum().backward()
        if cuda:
            torch.cuda.synchronize()
            peak = max(peak, torch.cuda.max_memory_allocated() - base)
        else:
            peak = max(peak, peak_rss_bytes() - base)
        times.append(time.perf_counter() - start)
    return {"peak_bytes": float(peak), "seconds": min(times), "logp": out.detach().double().cpu().tolist(),
            "grad_hidden": hidden.grad.double().norm().item(), "grad_head": head.weight.grad.double().norm().item()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=151936, help="vocabulary size (Qwen2.5: 151936)")
    parser.add_argument("--hidden", type=int, default=896, help="hidden size (Qwen2.5-0.5B: 896)")
    parser.add_argument("--tokens", type=int, default=2048, help="completion tokens N = batch x length")
    parser.add_argument("--chunk", type=int, default=256, help="rows per chunk of the chunked method")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeats", type=int, default=3, help="timed repetitions (the fastest is reported)")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--method", choices=METHODS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.method:
        print(json.dumps(run_one(args)))
        return

    forwarded = [f"--{k}={v}" for k, v in vars(args).items() if k != "method"]
    results = {}
    for method in METHODS:
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), *forwarded, f"--method={method}"],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"{method} failed:\n{proc.stderr[-3000:]}")
        results[method] = json.loads(proc.stdout.strip().splitlines()[-1])
    ref = results["naive"]
    for method, res in results.items():
        err = max(abs(a - b) for a, b in zip(res["logp"], ref["logp"], strict=True))
        grad_err = max(abs(res["grad_hidden"] - ref["grad_hidden"]) / ref["grad_hidden"],
                       abs(res["grad_head"] - ref["grad_head"]) / ref["grad_head"])
        tol = 1e-3 if args.dtype == "float32" else 5e-2
        if err > tol or grad_err > tol:
            raise SystemExit(f"{method} disagrees with naive: max |dlogp|={err:.2e}, grad rel err={grad_err:.2e}")

    full_logits = args.tokens * args.vocab * 4
    print(f"log-probs + backward, N={args.tokens} tokens, V={args.vocab}, H={args.hidden}, {args.dtype}, "
          f"{args.device}, chunk={args.chunk} (one (N, V) float32 tensor = {full_logits / 2**20:.0f} MiB)")
    print(f"{'method':<10}{'peak MiB':>12}{'time s':>10}{'memory vs naive':>18}{'time vs naive':>16}")
    for method, res in results.items():
        print(f"{method:<10}{res['peak_bytes'] / 2**20:>12.0f}{res['seconds']:>10.3f}"
              f"{res['peak_bytes'] / ref['peak_bytes']:>17.3f}x{res['seconds'] / ref['seconds']:>15.2f}x")


if __name__ == "__main__":
    main()
