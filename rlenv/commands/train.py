"""``rlenv train ID --model PATH --algorithm grpo --output DIR``: RL fine-tuning of a causal LM on an environment.

Any env-based algorithm of :func:`rlenv.trainers.launch.algorithm_names` runs here (policy gradient,
self-training ``raft``/``rest``/``star``, ``online_dpo``), through :func:`rlenv.trainers.make_trainer`.
For the policy-gradient family:

Writes ``DIR/metrics.jsonl`` (one row per step), ``DIR/samples.jsonl`` (a few completions with
their verdicts at step 1 and every 10 steps: ``--set log_samples=N --set log_samples_every=K``),
checkpoints ``DIR/checkpoint-N/`` (with ``--save-every``), TensorBoard logs (``--tensorboard``),
the trained model in ``DIR/final/`` and ``DIR/report.html`` (curves and samples, ``rlenv report``).
Every algorithm writes ``DIR/manifest.json`` (:mod:`rlenv.manifest`: env, data, verifier, settings,
the SFT warm-up, library versions).
Runs data-parallel under ``accelerate launch`` / ``torchrun``. Trainer fields without a flag are
set with ``--set FIELD=VALUE`` and algorithm fields with ``--algo-set FIELD=VALUE`` (values are
JSON, e.g. ``--algo-set kl_coef=0.001 --set lr_schedule='"cosine"'``).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from rlenv.commands.env_args import add_env_arguments, make_env_from_args

NAME = "train"
HELP = "train a policy on an environment (GRPO, RLOO, PPO, TRPO, RAFT, STaR, online DPO, ...)"
logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_env_arguments(parser)
    parser.add_argument("--model", required=True, help="a transformers causal LM directory (from_pretrained)")
    parser.add_argument("--algorithm", default="grpo",
                        help="policy gradient: reinforce_pp, reinforce_pp_baseline, rloo, grpo, dr_grpo, dapo, gspo, "
                             "cispo, ppo, ppo_klpen, trpo; self-training: raft, rest, star; online_dpo (default grpo)")
    parser.add_argument("--output", required=True, type=Path, help="output directory")
    parser.add_argument("--steps", type=int, default=100, help="rollout + update steps (rounds for self-training "
                                                                "and online DPO)")
    parser.add_argument("--num-tasks", type=int, default=8, help="prompts per step (per process)")
    parser.add_argument("--group-size", type=int, default=None, help="completions per prompt (default: preset's)")
    parser.add_argument("--lr", type=float, default=1e-6, help="learning rate")
    parser.add_argument("--max-new-tokens", type=int, default=256, help="generation limit")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature")
    parser.add_argument("--micro-batch-size", type=int, default=8, help="episodes per forward/backward")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rollout-backend", choices=["hf", "vllm"], default="hf",
                        help="generation: transformers generate, or a colocated vLLM engine synced to the policy")
    parser.add_argument("--tis-cap", type=float, default=None,
                        help="truncated importance sampling of the sampler/trainer mismatch (e.g. 2.0; off by default)")
    parser.add_argument("--save-every", type=int, default=0, help="checkpoint every N steps (0 = at the end only)")
    parser.add_argument("--tensorboard", action="store_true", help="also write TensorBoard logs")
    parser.add_argument("--resume", type=Path, default=None, help="checkpoint directory to continue from")
    parser.add_argument("--sft-steps", type=int, default=0,
                        help="supervised warm-up steps on the env's gold completions before RL")
    parser.add_argument("--sft-lr", type=float, default=1e-4, help="warm-up learning rate")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="any field of the algorithm family's config (TrainerConfig, SelfTrainingConfig, "
                             "OnlineDPOConfig; JSON value), repeatable")
    parser.add_argument("--algo-set", action="append", default=[], metavar="FIELD=VALUE",
                        help="override a field of a policy-gradient preset (JSON value), repeatable")


def parse_assignments(pairs: list[str], what: str) -> dict[str, Any]:
    """``["a=1", "b=\\"x\\""]`` -> ``{"a": 1, "b": "x"}``; a non-JSON value is an error."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"{what} {pair!r} must look like NAME=VALUE")
        key, text = pair.split("=", 1)
        try:
            out[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(f"{what} {key}={text!r}: the value must be JSON (quote strings: '\"text\"')") from None
    return out


def _config(args: argparse.Namespace, family: str) -> dict[str, Any]:
    """The family's config fields from the flags (``--set`` last)."""
    sets = parse_assignments(args.set, "--set")
    if family == "policy_gradient":
        return {"steps": args.steps, "num_tasks": args.num_tasks, "group_size": args.group_size, "lr": args.lr,
                "max_new_tokens": args.max_new_tokens, "temperature": args.temperature,
                "micro_batch_size": args.micro_batch_size, "seed": args.seed, "output_dir": str(args.output),
                "save_every": args.save_every, "tensorboard": args.tensorboard, "rollout_backend": args.rollout_backend,
                "tis_cap": args.tis_cap, **sets}
    sampling = {"max_new_tokens": args.max_new_tokens, "temperature": args.temperature, "backend": args.rollout_backend}
    if family == "online_preference":
        return {"rounds": args.steps, "seed": args.seed, "sampling": sampling,
                "preference": {"lr": args.lr, **sets.pop("preference", {})}, **sets}
    return {"rounds": args.steps, "seed": args.seed, "sampling": sampling, "lr": args.lr, **sets}


def run(args: argparse.Namespace) -> int:
    from rlenv.trainers import gold_examples, make_trainer, sft
    from rlenv.trainers.launch import ENV_FAMILIES, family_of

    family = family_of(args.algorithm)
    if family not in ENV_FAMILIES:
        raise ValueError(f"--algorithm {args.algorithm} trains on rows, not on an environment: "
                         f"use rlenv.trainers.train({args.algorithm!r}, model, tokenizer, data=rows)")
    env = make_env_from_args(args)
    config = _config(args, family)
    options: dict[str, Any] = {}
    if family == "policy_gradient":
        options["algorithm_overrides"] = parse_assignments(args.algo_set, "--algo-set")
    elif args.algo_set or args.resume is not None:
        raise ValueError(f"--algo-set and --resume are for the policy-gradient algorithms, not {args.algorithm}")
    from accelerate import PartialState
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.model, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(args.model).to(PartialState().device)
    if args.sft_steps and args.resume is None:  # before the Trainer copies the reference model and critic
        size = env.unwrapped.source.size
        wanted = args.sft_steps * 16
        examples = gold_examples(env, range(wanted if size is None else min(size, wanted)))
        sft(model, tokenizer, examples, steps=args.sft_steps, batch_size=16, lr=args.sft_lr, seed=args.seed,
            progress=True)
    single_env = env
    if family != "policy_gradient":  # these sample groups from a vector env
        from rlenv.vector import TextVectorEnv

        env = TextVectorEnv(env, num_tasks=args.num_tasks, group_size=args.group_size or 4)
    trainer = make_trainer(args.algorithm, model, tokenizer, env, config, **options)
    from rlenv.trainers import distributed

    warm_up = {"sft_steps": args.sft_steps if args.resume is None else 0, "sft_lr": args.sft_lr}
    if family == "policy_gradient":
        history = trainer.train(resume_from=args.resume)  # the Trainer writes DIR/manifest.json as it starts
        trainer.save_checkpoint(args.output / f"checkpoint-{trainer.step}")
        if distributed.rank() == 0:
            _add_to_manifest(args.output, {"warm_up": warm_up})
    else:
        if distributed.rank() == 0:
            _write_manifest(args, single_env, trainer, warm_up)
        history = trainer.train()

    if distributed.rank() == 0:
        final = args.output / "final"
        trainer.policy.save_pretrained(final)
        tokenizer.save_pretrained(final)
        logger.info("saved the trained policy to %s", final)
        if family == "policy_gradient" and trainer.history:  # metrics.jsonl exists once a step ran
            from rlenv.report import REPORT_FILE, write_report

            write_report([args.output], args.output / REPORT_FILE, title=f"rlenv train: {args.id} ({args.algorithm})")
        last = history[-1] if history else {}
        steps = trainer.step if family == "policy_gradient" else len(history)
        sys.stdout.write(json.dumps({"algorithm": args.algorithm, "steps": steps, "final": str(final),
                                     "last": last}) + "\n")
    return 0


def _write_manifest(args: argparse.Namespace, env: Any, trainer: Any, warm_up: dict[str, Any]) -> None:
    """``DIR/manifest.json`` of a self-training or online-preference run (policy-gradient runs get theirs from the
    Trainer)."""
    import dataclasses

    from rlenv.manifest import MANIFEST_FILE, run_manifest, write_manifest

    settings = {"algorithm": args.algorithm, "config": dataclasses.asdict(trainer.config), "model": args.model,
                "group_size": trainer.env.group_size, "num_tasks": trainer.env.num_tasks, "warm_up": warm_up}
    write_manifest(args.output / MANIFEST_FILE, run_manifest("train", env, settings))


def _add_to_manifest(output: Path, settings: dict[str, Any]) -> None:
    """Add ``settings`` to the settings of the manifest the Trainer wrote in ``output``."""
    from rlenv.manifest import MANIFEST_FILE, write_manifest

    path = output / MANIFEST_FILE
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["settings"].update(settings)
    write_manifest(path, manifest)
