"""``rlenv eval ID (--samples S.jsonl | --model PATH) --out DIR``: pass@k, pass^k, maj@k with confidence.

``--samples`` scores completions produced elsewhere (any model or API): JSONL rows
``{"task_id": ..., "completion": ...}`` (or ``"index"`` instead of ``task_id``; several rows per
task are several samples). ``--model`` samples ``-n`` completions per task from a local
``transformers`` checkpoint (batched, chat template when the env is in chat mode) and scores them.

Writes ``DIR/results.jsonl`` (one row per sample), ``DIR/summary.json``, ``DIR/summary.md``,
``DIR/pass_at_k.png`` and ``DIR/report.html`` (``rlenv report``: every sample with its verdict).
Rerunning with the same ``--out`` skips samples already scored.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rlenv.commands.env_args import add_env_arguments, add_scoring_arguments, make_env_from_args

NAME = "eval"
HELP = "evaluate a model or a samples file: pass@k/pass^k/maj@k with bootstrap confidence intervals"


def parse_ks(text: str) -> list[int]:
    """``"1,4,16"`` -> ``[1, 4, 16]``."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"-k expects comma-separated integers like 1,4,16, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError(f"-k values must be >= 1, got {text!r}")
    return ks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_env_arguments(parser)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--samples", type=Path, help="JSONL of completions to score")
    source.add_argument("--model", help="local transformers checkpoint directory to sample from")
    parser.add_argument("--out", type=Path, required=True, help="output directory (reused to resume)")
    parser.add_argument("-n", "--num-samples", type=int, default=1, help="samples per task (--model)")
    parser.add_argument("-k", type=parse_ks, default=None, metavar="K1,K2,...",
                        help="ks to report (default: powers of two up to the samples per task)")
    parser.add_argument("--num-tasks", type=int, default=None,
                        help="tasks to evaluate with --model (default: all; required for endless generators)")
    parser.add_argument("--task-offset", type=int, default=0, help="index of the first task (--model)")
    parser.add_argument("--by", action="append", default=[], metavar="FIELD",
                        help="break metrics down by a task metadata field, e.g. --by level (repeatable)")
    parser.add_argument("--equivalence", choices=["env", "string"], default="env",
                        help="maj@k answer clustering: the verifier's own equivalent() ('env'), or normalized "
                             "string equality of completions when the verifier has none ('string')")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level of the intervals")
    parser.add_argument("--bootstrap", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="seed of sampling and of the bootstrap")
    parser.add_argument("--batch-size", type=int, default=64, help="samples generated/scored per batch")
    parser.add_argument("--max-new-tokens", type=int, default=256, help="generation length limit in tokens (--model)")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature, 0 = greedy (--model)")
    parser.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling mass (--model)")
    parser.add_argument("--chat", choices=["auto", "on", "off"], default="auto",
                        help="wrap text prompts as a user message through the tokenizer's chat template: "
                             "'auto' does so when the tokenizer has one (--model)")
    parser.add_argument("--device", default="cpu", help="torch device for --model, e.g. cuda")
    add_scoring_arguments(parser)
    parser.add_argument("--no-plot", action="store_true", help="do not write pass_at_k.png")
    parser.add_argument("--no-report", action="store_true", help="do not write report.html")


def _options(args: argparse.Namespace) -> Any:
    from rlenv.evaluation import EvalOptions

    return EvalOptions(ks=args.k, by=tuple(args.by), confidence=args.confidence, n_resamples=args.bootstrap,
                       seed=args.seed, equivalence_fallback="string" if args.equivalence == "string" else None,
                       executor=args.executor, max_workers=args.workers, batch_size=args.batch_size,
                       title=f"{args.id}", plot=not args.no_plot, report=not args.no_report)


def _env_config(args: argparse.Namespace) -> dict[str, Any]:
    return {"env": args.id, "data": str(args.data) if args.data else None, "field": list(args.field),
            "env_arg": list(args.env_arg)}


def _task_indices(env: Any, args: argparse.Namespace) -> list[int]:
    size = env.unwrapped.source.size
    if args.task_offset < 0:
        raise ValueError(f"--task-offset must be >= 0, got {args.task_offset}")
    if args.num_tasks is None:
        if size is None:
            raise ValueError(f"{args.id} generates tasks without end: pass --num-tasks")
        return list(range(args.task_offset, size))
    stop = args.task_offset + args.num_tasks
    if args.num_tasks < 1 or (size is not None and stop > size):
        raise ValueError(f"--num-tasks {args.num_tasks} from --task-offset {args.task_offset} does not fit the "
                         f"{size} tasks of {args.id}")
    return list(range(args.task_offset, stop))


def policy_generate(model: Any, tokenizer: Any, sampling: Any, chat: str = "auto") -> Any:
    """``generate(observations) -> list[rlenv.Completion]`` from a causal LM, via :class:`trainers.HFGenerator`.

    ``chat``: ``"on"`` wraps text prompts as one user message (through the tokenizer's chat
    template), ``"off"`` never does, ``"auto"`` does when the tokenizer has a chat template.
    Chat-mode environments already give message lists, which go through the template as they are.
    """
    from rlenv.types import Completion
    from trainers.rollout import HFGenerator, decode_completions

    if chat not in ("auto", "on", "off"):
        raise ValueError(f"chat must be 'auto', 'on' or 'off', got {chat!r}")
    has_template = getattr(tokenizer, "chat_template", None) is not None
    if chat == "on" and not has_template:
        raise ValueError("--chat on needs a tokenizer with a chat_template")
    wrap = chat == "on" or (chat == "auto" and has_template)
    generator = HFGenerator(model, tokenizer, sampling)

    def generate(observations: list[Any]) -> list[Any]:
        shown = [[{"role": "user", "content": o}] if wrap and isinstance(o, str) else o for o in observations]
        out = generator(shown)
        texts = decode_completions(tokenizer, out.completion_ids, out.completion_mask)
        return [Completion(t, truncated=bool(cut)) for t, cut in zip(texts, out.truncated.tolist(), strict=True)]

    return generate


def _lazy_model_generate(args: argparse.Namespace) -> Any:
    """A generate function that loads the checkpoint on its first call (a finished run never loads it)."""
    loaded: list[Any] = []

    def generate(observations: list[Any]) -> list[Any]:
        if not loaded:
            loaded.append(_model_generate(args))
        return loaded[0](observations)

    return generate


def _model_generate(args: argparse.Namespace) -> Any:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from trainers.rollout import SamplingConfig

    torch.manual_seed(args.seed)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model).to(args.device)
    sampling = SamplingConfig(max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_p=args.top_p)
    return policy_generate(model, tokenizer, sampling, args.chat)


def run(args: argparse.Namespace) -> int:
    from rlenv.evaluation import evaluate_policy, evaluate_samples
    from rlenv.evaluation.report import markdown_summary
    from rlenv.jsonl import read_jsonl

    env = make_env_from_args(args)
    options = _options(args)
    if args.samples is not None:
        config = {**_env_config(args), "samples": str(args.samples.resolve())}
        summary = evaluate_samples(env, read_jsonl(args.samples), args.out, options, config)
    else:
        config = {**_env_config(args), "model": str(Path(args.model).resolve()), "max_new_tokens": args.max_new_tokens,
                  "temperature": args.temperature, "top_p": args.top_p, "chat": args.chat, "seed": args.seed}
        indices = _task_indices(env, args)
        summary = evaluate_policy(env, _lazy_model_generate(args), indices, args.num_samples, args.out, options,
                                  config)
    sys.stdout.write(markdown_summary(summary, summary["title"]))
    sys.stdout.write(f"\nwrote {args.out / 'results.jsonl'}, summary.json, summary.md"
                     f"{'' if args.no_plot else ', pass_at_k.png'}{'' if args.no_report else ', report.html'}\n")
    return 0
