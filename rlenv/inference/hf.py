"""The ``hf`` evaluation backend: ``transformers`` ``generate`` on a local checkpoint (needs torch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlenv.inference import Sampling, chat_observations
from rlenv.types import Completion


def policy_generate(model: Any, tokenizer: Any, sampling: Any, chat: str = "auto") -> Any:
    """``generate(observations) -> list[Completion]`` from a loaded causal LM, via :class:`~rlenv.inference.policy.HFGenerator`.

    ``sampling`` is a :class:`~rlenv.inference.policy.SamplingConfig`; ``chat`` as in :class:`HFGenerate`.
    """
    from rlenv.inference.policy import HFGenerator, decode_completions

    has_template = getattr(tokenizer, "chat_template", None) is not None
    if chat == "on" and not has_template:
        raise ValueError("chat='on' needs a tokenizer with a chat_template")
    wrap = chat == "on" or (chat == "auto" and has_template)
    generator = HFGenerator(model, tokenizer, sampling)

    def generate(observations: Sequence[Any]) -> list[Completion]:
        out = generator(chat_observations(observations, wrap))
        texts = decode_completions(tokenizer, out.completion_ids, out.completion_mask)
        return [Completion(t, truncated=bool(cut)) for t, cut in zip(texts, out.truncated.tolist(), strict=True)]

    return generate


class HFGenerate:
    """``generate(observations) -> list[Completion]`` from the checkpoint ``model`` with ``transformers``.

    Args:
        model: a checkpoint directory (``AutoModelForCausalLM.from_pretrained``).
        sampling: a :class:`~rlenv.inference.Sampling` (``stop`` is not supported here).
        chat: ``"on"``/``"auto"``/``"off"``: whether text prompts go through the tokenizer's chat
            template as a user message (``auto``: when it has one).
        device: the torch device.
        batch_size: prompts per ``generate`` call (None = all at once).
    """

    def __init__(self, model: str, sampling: Sampling, chat: str = "auto", device: str = "cpu",
                 batch_size: int | None = None):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from rlenv.inference.policy import SamplingConfig

        if sampling.stop:
            raise ValueError(f"the hf backend does not support stop strings, got {sampling.stop}")
        torch.manual_seed(sampling.seed)
        tokenizer = AutoTokenizer.from_pretrained(model)
        policy = AutoModelForCausalLM.from_pretrained(model).to(device)
        config = SamplingConfig(max_new_tokens=sampling.max_tokens, temperature=sampling.temperature,
                                top_p=sampling.top_p, batch_size=batch_size)
        self._generate = policy_generate(policy, tokenizer, config, chat)

    def __call__(self, observations: Sequence[Any]) -> list[Completion]:
        return self._generate(observations)
