"""LoRA adapters on the policy (``peft``): only the adapters train, the base weights stay frozen.

- :func:`add_adapters` wraps a causal LM in a ``peft`` LoRA model (``TrainerConfig.lora_r`` > 0).
- The reference policy of the KL term is the same model with its adapters disabled
  (:func:`adapters_disabled`): the base weights are never copied.
- :func:`~rlenv.inference.adapters.merged_state_dict` gives the weights of the adapted model under the base model's names
  (base + scaled ``B @ A``), without merging in place: what a vLLM rollout engine loads.
- Checkpoints of a LoRA policy hold its adapters (``adapter_config.json``,
  ``adapter_model.safetensors``); :func:`merge_adapters` (``rlenv merge-lora``) writes the merged
  model, loadable with ``from_pretrained``.

``peft`` is an optional dependency (``pip install rlenv-lm[lora]``), imported when LoRA is used.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rlenv.inference.adapters import base_causal_lm, is_lora, merged_state_dict, save_merged


def add_adapters(model: Any, r: int, alpha: float, dropout: float, target_modules: str) -> Any:
    """``model`` wrapped in LoRA adapters of rank ``r`` on ``target_modules`` (comma-separated module
    names, or ``"all-linear"``: every linear layer but the LM head); only the adapters require grad."""
    from peft import LoraConfig, get_peft_model

    if r < 1:
        raise ValueError(f"lora_r must be >= 1 to add adapters, got {r}")
    names = [name.strip() for name in target_modules.split(",") if name.strip()]
    if not names:
        raise ValueError(f"lora_target_modules names no module: {target_modules!r}")
    config = LoraConfig(r=r, lora_alpha=alpha,  # type: ignore[arg-type]  # peft takes any number lora_dropout=dropout, task_type="CAUSAL_LM",
                        target_modules="all-linear" if names == ["all-linear"] else names)
    return get_peft_model(model, config)


@contextlib.contextmanager
def adapters_disabled(model: Any) -> Iterator[None]:
    """Within the block, ``model`` computes with its base weights only (the LoRA reference policy)."""
    with model.disable_adapter():
        yield


def merge_adapters(adapters: str | Path, output: str | Path, base: str | Path | None = None) -> Path:
    """Load the base model (``base``, else the adapters' ``base_model_name_or_path``) and the LoRA
    ``adapters`` directory (a checkpoint of a LoRA run), and write the merged model and the
    adapters' tokenizer (when saved with them) at ``output``. Returns ``output``."""
    from peft import PeftConfig, PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    adapters, output = Path(adapters), Path(output)
    if not (adapters / "adapter_config.json").is_file():
        raise FileNotFoundError(f"{adapters} holds no LoRA adapters (no adapter_config.json)")
    base = base or PeftConfig.from_pretrained(str(adapters)).base_model_name_or_path
    if not base:
        raise ValueError(f"the adapters at {adapters} do not name their base model: pass base=")
    model = AutoModelForCausalLM.from_pretrained(str(base))
    merged = PeftModel.from_pretrained(model, str(adapters)).merge_and_unload()
    merged.save_pretrained(output)
    if (adapters / "tokenizer_config.json").is_file():
        AutoTokenizer.from_pretrained(str(adapters)).save_pretrained(output)
    return output


__all__ = ["adapters_disabled", "add_adapters", "base_causal_lm", "is_lora", "merge_adapters", "merged_state_dict",
           "save_merged"]
