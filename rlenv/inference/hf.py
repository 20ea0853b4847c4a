"""The ``hf`` evaluation backend: ``transformers`` ``generate`` on a local checkpoint (needs torch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlenv.deprecation import moved_names
from rlenv.inference.sampling import Sampling, chat_observations, request_seed
from rlenv.types import Completion


def policy_generate(model: Any, tokenizer: Any, sampling: Any, chat: str = "auto", batch_size: int | None = None) -> Any:
    """``generate(observations) -> list[Completion]`` from a loaded causal LM, via
    :class:`~rlenv.inference.policy.HFRolloutGenerator`.

    ``sampling`` is a :class:`~rlenv.inference.Sampling`; ``chat`` as in :class:`HFCompleter`.
    """
    from rlenv.inference.policy import HFRolloutGenerator, decode_completions

    has_template = getattr(tokenizer, "chat_template", None) is not None
    if chat == "on" and not has_template:
        raise ValueError("chat='on' needs a tokenizer with a chat_template")
    wrap = chat == "on" or (chat == "auto" and has_template)
    generator = HFRolloutGenerator(model, tokenizer, sampling, batch_size=batch_size)

    def generate(observations: Sequence[Any], tools: Sequence[dict[str, Any]] | None = None) -> list[Completion]:
        out = generator(chat_observations(observations, wrap), tools)
        texts = decode_completions(tokenizer, out.completion_ids, out.completion_mask)
        return [Completion(t, truncated=bool(cut)) for t, cut in zip(texts, out.truncated.tolist(), strict=True)]

    return generate


class HFCompleter:
    """``generate(observations) -> list[Completion]`` from the checkpoint ``model`` with ``transformers``.

    Args:
        model: a checkpoint directory (``AutoModelForCausalLM.from_pretrained``).
        sampling: a :class:`~rlenv.inference.Sampling` (``stop`` is not supported here).
        chat: ``"on"``/``"auto"``/``"off"``: whether text prompts go through the tokenizer's chat
            template as a user message (``auto``: when it has one).
        device: the torch device.
        batch_size: prompts per ``generate`` call (None = all at once).

    Each call is seeded from ``sampling.seed`` and its observations, so that a batch gives the
    same samples whatever ran before it (a resumed evaluation repeats the uninterrupted one).
    """

    def __init__(self, model: str, sampling: Sampling, chat: str = "auto", device: str = "cpu",
                 batch_size: int | None = None):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if sampling.stop:
            raise ValueError(f"the hf backend does not support stop strings, got {sampling.stop}")
        self.seed = sampling.seed
        tokenizer = AutoTokenizer.from_pretrained(model)
        policy = AutoModelForCausalLM.from_pretrained(model).to(device)  # type: ignore[arg-type]  # transformers' decorator on .to drops self
        self._generate = policy_generate(policy, tokenizer, sampling, chat, batch_size)

    def __call__(self, observations: Sequence[Any], tools: Sequence[dict[str, Any]] | None = None,
                 ) -> list[Completion]:
        """One completion per observation; chat observations are rendered with ``tools`` (OpenAI
        function schemas, for the chat template) when given."""
        import torch

        # seeded by the batch, not by what ran before it: a resumed run samples what the uninterrupted one did
        torch.manual_seed(request_seed(self.seed, list(observations)))
        return self._generate(observations, tools)


#: Deprecated names (one release).
__getattr__ = moved_names(__name__, {"HFGenerate": "rlenv.inference.hf.HFCompleter"})
