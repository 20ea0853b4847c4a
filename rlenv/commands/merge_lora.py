"""``rlenv merge-lora CHECKPOINT --output DIR [--base MODEL]``: a LoRA run's adapters merged into their base model.

A checkpoint of a run with ``lora_r > 0`` holds the adapters only; the merged directory loads with
``from_pretrained`` (``rlenv eval --model DIR``, vLLM). The base model defaults to the one the
adapters name (``base_model_name_or_path`` of ``adapter_config.json``: the ``--model`` of ``rlenv train``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

NAME = "merge-lora"
HELP = "merge a LoRA checkpoint's adapters into its base model (a from_pretrained directory)"
logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", type=Path, help="a checkpoint directory of a LoRA run (adapter_config.json)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="where the merged model goes")
    parser.add_argument("--base", default=None,
                        help="the base model directory (default: the one named in the adapters' config)")


def run(args: argparse.Namespace) -> int:
    from rlenv.trainers.lora import merge_adapters

    output = merge_adapters(args.checkpoint, args.output, args.base)
    sys.stdout.write(f"rlenv merge-lora: merged {args.checkpoint} into {output}\n")
    return 0
