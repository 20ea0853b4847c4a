"""Weights of ``peft``-adapted models as a plain model's: what an inference engine loads.

A LoRA policy (a trainer with ``lora_r > 0``) is a ``peft`` model whose base weights are
frozen; vLLM rollouts and ``from_pretrained`` directories need the adapted model's weights under
the base model's names, merged (``W + scale * B @ A``), without merging the trained model in place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch


def is_lora(model: Any) -> bool:
    """True when ``model`` is a ``peft`` model (its trainable weights are adapters)."""
    return hasattr(model, "disable_adapter") and hasattr(model, "get_base_model")


def base_causal_lm(model: Any) -> Any:
    """The ``transformers`` causal LM inside a ``peft`` model (its adapters injected in place), or ``model``."""
    return model.get_base_model() if is_lora(model) else model


@torch.no_grad()
def merged_state_dict(model: Any) -> dict[str, torch.Tensor]:
    """The adapted model's weights under the base model's parameter names (``W + scale * B @ A`` for
    each adapted layer), computed without touching ``model``."""
    from peft.tuners.lora import LoraLayer

    base = base_causal_lm(model)
    layers = {name: module for name, module in base.named_modules() if isinstance(module, LoraLayer)}
    merged = {}
    for key, tensor in base.state_dict().items():
        if ".lora_" in key:
            continue
        name = key.replace(".base_layer.", ".")
        module_name, _, attribute = name.rpartition(".")
        layer = layers.get(module_name)
        if layer is not None and attribute == "weight" and not layer.disable_adapters and not layer.merged:
            for adapter in layer.active_adapters:
                tensor = tensor + layer.get_delta_weight(adapter).to(tensor.dtype)  # type: ignore[attr-defined]
        merged[name] = tensor
    return merged


def save_merged(model: Any, path: str | Path) -> None:
    """Write the adapted ``model`` merged into its base weights at ``path`` (``from_pretrained`` loads it)."""
    base_causal_lm(model).save_pretrained(path, state_dict=merged_state_dict(model))
