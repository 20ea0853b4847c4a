"""``rlenv eval ID (--samples S.jsonl | --model PATH) --out DIR``: pass@k, pass^k, maj@k with confidence.

``--samples`` scores completions produced elsewhere (any model or API): JSONL rows
``{"task_id": ..., "completion": ...}`` (or ``"index"`` instead of ``task_id``; several rows per
task are several samples). ``--model`` samples ``-n`` completions per task and scores them:
from a local checkpoint with ``transformers`` (``--backend hf``, the default) or an in-process
vLLM engine (``--backend vllm``), or from a model served by any OpenAI-compatible server
(``--base-url http://host:port/v1 --model NAME``: the chat endpoint unless ``--chat off``, the
``-n`` samples of a task in one request seeded from ``--seed``, concurrent requests, retries with
backoff, timeouts). A request that keeps failing is recorded as status ``error``; nothing scored
is lost; a request the server rejects (an HTTP 4xx other than 408/409/429) stops the run.

A multi-turn env (``rlenv/MathPython-v0``, the ``-Revise-v0`` code envs, a ``ToolEnv``) plays
each sample as an episode, ``--batch-size`` episodes at a time, one generation per turn: in chat
mode (``--env-arg chat=true``) with the env's tools offered to the chat template or the server
(whose structured ``tool_calls`` the env reads; ``vllm serve --enable-auto-tool-choice
--tool-call-parser ...``). Each row keeps the episode's messages and tool metrics.

Writes ``DIR/results.jsonl`` (one row per sample), ``DIR/summary.json``, ``DIR/summary.md``,
``DIR/pass_at_k.png`` and ``DIR/report.html`` (``rlenv report``: every sample with its verdict).
Rerunning with the same ``--out`` skips samples already scored.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rlenv.commands.env_args import (
    add_env_arguments,
    add_scoring_arguments,
    make_env_from_args,
    scoring_executor,
)
from rlenv.errors import Interrupted
from rlenv.evaluation.results import ERROR_RULES
from rlenv.inference import BACKENDS, local_model, openai_endpoint

logger = logging.getLogger(__name__)

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
    source.add_argument("--model", help="checkpoint directory to sample from (--backend hf/vllm), or the served "
                                        "model's name (--base-url)")
    parser.add_argument("--out", "--output", dest="out", type=Path, required=True,
                        help="output directory (reused to resume)")
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
                        help="wrap text prompts as a user message through the model's chat template: 'auto' does "
                             "so when the tokenizer has one (--backend hf/vllm) and always with --base-url (the "
                             "chat endpoint; 'off' for a base model's completions endpoint)")
    parser.add_argument("--device", default="cpu", help="torch device for --backend hf/vllm, e.g. cuda")
    parser.add_argument("--errors", choices=ERROR_RULES, default="exclude",
                        help="samples with status error (the verifier or generation failed): left out of the "
                             "metrics (exclude) or counted as wrong answers (count-as-wrong); reported apart")
    parser.add_argument("--retry-errors", action="store_true",
                        help="on a rerun, score (or generate and score) again only the samples stored as errors")
    parser.add_argument("--backend", choices=BACKENDS, default=None,
                        help="generation backend for --model (default: openai with --base-url, else hf)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server's API root, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the server's API key")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight at once (--base-url)")
    parser.add_argument("--max-retries", type=int, default=4,
                        help="retries of a failed request, with exponential backoff (--base-url)")
    parser.add_argument("--request-timeout", type=float, default=120.0, help="seconds per request (--base-url)")
    add_scoring_arguments(parser)
    parser.add_argument("--no-plot", action="store_true", help="do not write pass_at_k.png")
    parser.add_argument("--no-report", action="store_true", help="do not write report.html")


def _options(args: argparse.Namespace) -> Any:
    from rlenv.evaluation import EvalOptions

    return EvalOptions(ks=args.k, by=tuple(args.by), confidence=args.confidence, n_resamples=args.bootstrap,
                       seed=args.seed, equivalence_fallback="string" if args.equivalence == "string" else None,
                       executor=scoring_executor(args), max_workers=args.workers, batch_size=args.batch_size,
                       title=f"{args.id}", plot=not args.no_plot, report=not args.no_report, errors=args.errors,
                       retry_errors=args.retry_errors)


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


def _backend(args: argparse.Namespace) -> str:
    backend = args.backend or ("openai" if args.base_url else "hf")
    if (backend == "openai") != bool(args.base_url):
        raise ValueError("--base-url and --backend openai go together" if backend == "openai" else
                         f"--base-url needs --backend openai (or none), got --backend {backend}")
    return backend


def _generate_options(args: argparse.Namespace, backend: str) -> dict[str, Any]:
    import os

    if backend == "openai":
        api_key = None
        if args.api_key_env:
            api_key = os.environ.get(args.api_key_env)
            if not api_key:
                raise ValueError(f"--api-key-env {args.api_key_env}: that environment variable is not set")
        return {"base_url": args.base_url, "api_key": api_key, "concurrency": args.concurrency,
                "max_retries": args.max_retries, "timeout": args.request_timeout}
    if backend == "vllm":
        return {"device": args.device}
    return {"device": args.device, "batch_size": args.batch_size}


@contextmanager
def _lazy_generate(args: argparse.Namespace, backend: str, model: str) -> Iterator[Any]:
    """A generate function that builds its backend on the first call (a finished run never loads a model);
    the backend is closed (an in-process vLLM engine shut down) when the run ends."""
    from rlenv.inference import Sampling, make_completer

    sampling = Sampling(max_new_tokens=args.max_new_tokens, temperature=args.temperature, top_p=args.top_p,
                        seed=args.seed)
    options = _generate_options(args, backend)
    loaded: list[Any] = []

    def generate(observations: list[Any], tools: list[dict[str, Any]] | None = None) -> list[Any]:
        if not loaded:
            loaded.append(make_completer(backend, model, sampling, chat=args.chat, **options))
        return loaded[0](observations, tools)

    try:
        yield generate
    finally:
        for completer in loaded:
            close = getattr(completer, "close", None)
            if close is not None:
                close()


def run(args: argparse.Namespace) -> int:
    from rlenv.evaluation.report import markdown_summary

    try:
        summary = _evaluate(args)
    except KeyboardInterrupt:
        raise Interrupted(_saved(args.out)) from None
    sys.stdout.write(markdown_summary(summary, summary["title"]))
    sys.stdout.write(f"\nwrote {args.out / 'results.jsonl'}, summary.json, summary.md"
                     f"{'' if args.no_plot else ', pass_at_k.png'}{'' if args.no_report else ', report.html'}\n")
    return 0


def _saved(out: Path) -> str:
    """What an interrupted run left in ``out`` and how to go on."""
    from rlenv.evaluation.report import counted
    from rlenv.evaluation.runner import GENERATED_FILE, RESULTS_FILE

    def count(name: str) -> int:
        path = out / name
        return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip()) if path.exists() else 0

    kept = count(GENERATED_FILE)
    kept_text = f", {kept} generated and kept for scoring in {out / GENERATED_FILE}" if kept else ""
    return (f"{counted(count(RESULTS_FILE), 'sample')} scored in {out / RESULTS_FILE}{kept_text}; "
            "rerun the same command to resume (the same samples, then the rest)")


def _evaluate(args: argparse.Namespace) -> dict[str, Any]:
    from rlenv.evaluation import evaluate_policy, evaluate_samples
    from rlenv.jsonl import read_jsonl

    if args.model is not None and args.k and max(args.k) > args.num_samples:
        raise ValueError(f"-k {max(args.k)} is larger than -n {args.num_samples}: pass@k needs at least k samples per "
                         "task (raise -n or lower -k)")
    env = make_env_from_args(args)
    options = _options(args)
    if args.samples is not None:
        rows = list(read_jsonl(args.samples))
        if not rows:
            raise ValueError(f"{args.samples} holds no samples: expected JSONL rows like "
                             '{"task_id": ..., "completion": ...}')
        config = {**_env_config(args), "samples": str(args.samples.resolve())}
        return evaluate_samples(env, rows, args.out, options, config)
    backend = _backend(args)
    model = args.model if backend == "openai" else local_model(args.model)
    config = {**_env_config(args), "model": model, "backend": backend, "base_url": args.base_url,
              "max_new_tokens": args.max_new_tokens, "temperature": args.temperature, "top_p": args.top_p,
              "chat": args.chat, "seed": args.seed}
    if backend == "openai":
        config["endpoint"] = openai_endpoint(args.chat)
        logger.info("text prompts go to the %s endpoint of %s (--chat %s), %d samples per request, seed %d",
                    config["endpoint"], args.base_url, args.chat, args.num_samples, args.seed)
    indices = _task_indices(env, args)
    with _lazy_generate(args, backend, model) as generate:
        return evaluate_policy(env, generate, indices, args.num_samples, args.out, options, config,
                               make_env=lambda: make_env_from_args(args))
