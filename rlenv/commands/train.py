"""``rlenv train ID --model PATH --algorithm grpo --output DIR``: RL fine-tuning of a causal LM on an environment.

Any env-based algorithm of :func:`rlenv.trainers.launch.algorithm_names` runs here (policy gradient,
self-training ``raft``/``rest``/``star``, ``online_dpo``), through :func:`rlenv.trainers.make_trainer`.
It ends with a few readable lines (the last step's main metrics, where the model and metrics are)
and writes ``DIR/train_summary.json`` and ``DIR/metrics.jsonl`` (one row per step, or per round).
For the policy-gradient family:

Writes ``DIR/samples.jsonl`` (a few completions with
their verdicts at step 1 and every 10 steps: ``--set log_samples=N --set log_samples_every=K``),
checkpoints ``DIR/checkpoint-N/`` (with ``--save-every``), experiment tracking (``--report-to
tensorboard,wandb``: TensorBoard, Weights & Biases, Trackio, MLflow; :mod:`rlenv.trainers.tracking`),
the trained model in ``DIR/final/`` (with LoRA, ``--lora-r``: merged; checkpoints hold the adapters,
``rlenv merge-lora`` merges one) and ``DIR/report.html`` (curves and samples, ``rlenv report``).
Every algorithm writes ``DIR/manifest.json`` (:mod:`rlenv.manifest`: env, data, verifier, settings,
the SFT warm-up, library versions).
Runs data-parallel under ``accelerate launch`` / ``torchrun``. The settings' flags, types, help and
defaults come from the family's config dataclass (:data:`FLAGS` maps each flag to its field in
each family; a flag left out keeps that family's default). Trainer fields without a flag are
set with ``--set FIELD=VALUE`` and algorithm fields with ``--algo-set FIELD=VALUE`` (values are
JSON, e.g. ``--algo-set kl_coef=0.001 --set lr_schedule='"cosine"'``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from rlenv.commands.config_flags import add_config_flags, config_values
from rlenv.commands.env_args import add_env_arguments, make_env_from_args
from rlenv.errors import Interrupted

NAME = "train"
#: The run's summary (algorithm, steps, the final model's path, the last step's metrics).
SUMMARY_FILE = "train_summary.json"
#: The last step's metrics printed at the end, when the run logged them.
SHOWN_METRICS = ("reward/mean", "status/correct", "kl/ref", "grad_norm", "kept_fraction", "samples")
HELP = "train a policy on an environment (GRPO, RLOO, PPO, TRPO, RAFT, STaR, online DPO, ...)"
logger = logging.getLogger(__name__)

_SAMPLING = {"max_new_tokens", "temperature"}
#: Flags of the policy-gradient config that also size the vector env the other families sample groups from.
VECTOR_ENV_FLAGS = ("num_tasks", "group_size")
#: Each flag -> its field in each family's config (families without it leave it out).
FLAGS: dict[str, dict[str, str]] = {
    "steps": {"policy_gradient": "steps", "self_training": "rounds", "online_preference": "rounds"},
    "num_tasks": {"policy_gradient": "num_tasks"},
    "group_size": {"policy_gradient": "group_size"},
    "lr": {"policy_gradient": "lr", "self_training": "lr", "online_preference": "preference.lr"},
    **{name: {"policy_gradient": name, "self_training": f"sampling.{name}", "online_preference": f"sampling.{name}"}
       for name in sorted(_SAMPLING)},
    "micro_batch_size": {"policy_gradient": "micro_batch_size", "online_preference": "preference.micro_batch_size"},
    "seed": {family: "seed" for family in ("policy_gradient", "self_training", "online_preference")},
    "rollout_backend": {family: "rollout_backend" for family in ("policy_gradient", "self_training",
                                                                  "online_preference")},
    "tis_cap": {"policy_gradient": "tis_cap"},
    **{name: {"policy_gradient": name} for name in ("async_rollouts", "max_staleness", "correction")},
    "save_every": {"policy_gradient": "save_every"},
    "save_total_limit": {"policy_gradient": "save_total_limit"},
    "stall_warning_steps": {"policy_gradient": "stall_warning_steps", "self_training": "stall_warning_rounds",
                            "online_preference": "stall_warning_rounds"},
    **{name: {"policy_gradient": name} for name in ("report_to", "run_name", "tracking_project")},
    **{name: {"policy_gradient": name} for name in ("dtype", "autocast", "lora_r", "lora_alpha", "lora_dropout",
                                                    "lora_target_modules", "fsdp", "pack_sequences",
                                                    "micro_batch_tokens")},
}


def family_configs() -> dict[str, type]:
    """The config class of each family ``rlenv train`` runs (importing them imports torch)."""
    from rlenv.trainers.policy_gradient import TrainerConfig
    from rlenv.trainers.preference import OnlineDPOConfig
    from rlenv.trainers.self_training import SelfTrainingConfig

    return {"policy_gradient": TrainerConfig, "self_training": SelfTrainingConfig,
            "online_preference": OnlineDPOConfig}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_env_arguments(parser)
    parser.add_argument("--model", required=True, help="a transformers causal LM directory (from_pretrained)")
    parser.add_argument("--algorithm", default="grpo",
                        help="policy gradient: reinforce_pp, reinforce_pp_baseline, rloo, grpo, dr_grpo, dapo, gspo, "
                             "cispo, ppo, ppo_klpen, trpo; self-training: raft, rest, star; online_dpo")
    parser.add_argument("--output", "--out", dest="output", required=True, type=Path, help="output directory")
    add_config_flags(parser, family_configs(), FLAGS)
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
    """The family's config fields from the flags given (``--set`` last; nested settings merge)."""
    config = config_values(args, family, FLAGS, read_elsewhere=VECTOR_ENV_FLAGS)
    if family == "policy_gradient":
        config["output_dir"] = str(args.output)
    for key, value in parse_assignments(args.set, "--set").items():
        merge = isinstance(value, dict) and isinstance(config.get(key), dict)
        config[key] = {**config[key], **value} if merge else value
    return config


def run(args: argparse.Namespace) -> int:
    from rlenv.inference import local_model
    from rlenv.trainers import gold_examples, make_trainer, sft
    from rlenv.trainers.launch import ENV_FAMILIES, family_of

    model_path = local_model(args.model)
    family = family_of(args.algorithm)
    if family not in ENV_FAMILIES:
        raise ValueError(f"--algorithm {args.algorithm} trains on rows, not on an environment: "
                         f"use rlenv.trainers.train({args.algorithm!r}, model, tokenizer, data=rows)")
    ranks = int(os.environ.get("WORLD_SIZE", "1"))
    if ranks > 1 and family != "policy_gradient":
        raise ValueError(f"--algorithm {args.algorithm} trains in one process, but this is one of {ranks} launched "
                         "(torchrun / accelerate launch would run that many independent copies into one output "
                         "directory): launch it with plain `rlenv train`")
    env = make_env_from_args(args)
    config = _config(args, family)
    options: dict[str, Any] = {}
    if family == "policy_gradient":
        options["algorithm_overrides"] = parse_assignments(args.algo_set, "--algo-set")
    elif args.algo_set or args.resume is not None:
        raise ValueError(f"--algo-set and --resume are for the policy-gradient algorithms, not {args.algorithm}")
    from accelerate import PartialState
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_path, padding_side="left")
    from rlenv.trainers.precision import torch_dtype

    dtype = torch_dtype(config.get("dtype", "float32"))  # loaded in the trained dtype: no fp32 copy first
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype=dtype).to(PartialState().device)
    if args.sft_steps and args.resume is None:  # before the Trainer copies the reference model and critic
        size = env.unwrapped.source.size
        wanted = args.sft_steps * 16
        examples = gold_examples(env, range(wanted if size is None else min(size, wanted)))
        seed = config.get("seed", family_configs()[family]().seed)
        sft(model, tokenizer, examples, steps=args.sft_steps, batch_size=16, lr=args.sft_lr, seed=seed, progress=True)
    single_env = env
    if family != "policy_gradient":  # these sample groups from a vector env
        from rlenv.multiturn import MultiTurnEnv
        from rlenv.vector import MultiTurnVectorEnv, TextVectorEnv

        pg = family_configs()["policy_gradient"]()  # the vector env's size: the policy-gradient flags and defaults
        size = {"num_tasks": vars(args).get("num_tasks", pg.num_tasks), "group_size": vars(args).get("group_size") or 4}
        env = (MultiTurnVectorEnv.from_env(env, **size) if isinstance(env.unwrapped, MultiTurnEnv)
               else TextVectorEnv(env, **size))
    trainer = make_trainer(args.algorithm, model, tokenizer, env, config, **options)
    from rlenv.trainers import distributed

    warm_up = {"sft_steps": args.sft_steps if args.resume is None else 0, "sft_lr": args.sft_lr}
    if family == "policy_gradient":
        try:
            history = trainer.train(resume_from=args.resume)  # the Trainer writes DIR/manifest.json as it starts
        except KeyboardInterrupt:
            raise Interrupted(_interrupted(trainer, args)) from None
        trainer.save_checkpoint(args.output / f"checkpoint-{trainer.step}")
        if distributed.rank() == 0:
            _add_to_manifest(args.output, {"warm_up": warm_up})
    else:
        if distributed.rank() == 0:
            _write_manifest(args, single_env, trainer, warm_up)
        history = trainer.train()

    final = args.output / "final"
    if family == "policy_gradient":  # merged (LoRA) or gathered (FSDP: every rank takes part)
        trainer.save_model(final)
    if distributed.rank() == 0:
        if family != "policy_gradient":
            trainer.policy.save_pretrained(final)
            tokenizer.save_pretrained(final)
        logger.info("saved the trained policy to %s", final)
        if family != "policy_gradient":  # the policy-gradient Trainer writes its own, step by step
            _write_metrics(args.output, history)
        if history:  # metrics.jsonl exists once a step ran
            from rlenv.report import REPORT_FILE, write_report

            write_report([args.output], args.output / REPORT_FILE, title=f"rlenv train: {args.id} ({args.algorithm})")
        last = history[-1] if history else {}
        steps = trainer.step if family == "policy_gradient" else len(history)
        summary = {"algorithm": args.algorithm, "steps": steps, "final": str(final), "last": last}
        (args.output / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        shown = [f"{key} {last[key]:.4g}" for key in SHOWN_METRICS if isinstance(last.get(key), (int, float))]
        sys.stdout.write(f"rlenv train: {args.algorithm} on {args.id}, {steps} steps\n"
                         + (f"  last step: {', '.join(shown)}\n" if shown else "")
                         + f"  model: {final}\n  metrics: {args.output / 'metrics.jsonl'} (rlenv report "
                         f"{args.output})\n  summary: {args.output / SUMMARY_FILE}\n")
    return 0


def _write_metrics(output: Path, history: list[dict[str, Any]]) -> None:
    """``output/metrics.jsonl`` of a self-training or online-preference run: one row per round, as
    ``step`` (from 1), so that ``rlenv report`` reads it as it reads a policy-gradient run's."""
    with (output / "metrics.jsonl").open("w", encoding="utf-8") as fh:
        for metrics in history:
            fh.write(json.dumps({**metrics, "step": metrics["round"] + 1}) + "\n")


def _interrupted(trainer: Any, args: argparse.Namespace) -> str:
    """Save a checkpoint of the steps done (the step in flight is lost) and say how to resume."""
    if not trainer.step:
        return f"no step finished: nothing saved in {args.output}"
    path = trainer.save_checkpoint(args.output / f"checkpoint-{trainer.step}")
    return (f"step {trainer.step} of {trainer.config.steps} done, saved to {path}; resume with the same command and "
            f"--resume {path}")


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
