"""Generation backends for evaluation: ``generate(observations) -> list[rlenv.Completion]``.

One interface, three backends, the same sampling settings (:class:`Sampling`):

* ``hf`` — ``transformers`` ``generate`` on a local checkpoint (:class:`~rlenv.inference.policy.HFGenerator`; needs torch);
* ``vllm`` — an in-process ``vllm.LLM`` on a local checkpoint (:class:`~rlenv.inference.vllm_engine.VLLMGenerate`);
* ``openai`` — any OpenAI-compatible server (``vllm serve``, SGLang, a hosted API), chat or
  completion endpoint, with concurrency limits, retries with backoff and timeouts
  (:class:`~rlenv.inference.openai_server.OpenAIGenerate`).

Each returns one :class:`~rlenv.types.Completion` per observation, with ``truncated`` set when
generation stopped at the length limit; a request that still fails after its retries comes back
as ``Completion.failed(message)`` and is recorded as status ``error``, never as a crash that
loses the samples already scored. Trainer rollouts (token ids and sampler log-probs) use
:func:`rlenv.inference.policy.make_generator` instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from rlenv.errors import check_choice

#: Backends of :func:`make_generate`.
BACKENDS = ("hf", "vllm", "openai")
#: How text prompts are shown to a chat model: ``on`` wraps them as one user message, ``off``
#: never does, ``auto`` does when the model has a chat template (``hf``/``vllm``) — an
#: ``openai`` server's template is unknown, so ``auto`` means ``off`` there.
CHAT_MODES = ("auto", "on", "off")


@dataclasses.dataclass(frozen=True)
class Sampling:
    """Sampling settings shared by every backend.

    Attributes:
        max_tokens: completion length limit (tokens).
        temperature: softmax temperature; 0 is greedy.
        top_p: nucleus sampling mass (1.0 = off).
        stop: strings that end a completion (not included in it).
        seed: the engine's seed (``hf``/``vllm``); OpenAI-compatible servers get none, so that
            the samples of one prompt differ.
    """

    max_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0 (0 = greedy), got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        object.__setattr__(self, "stop", tuple(self.stop))


def chat_observations(observations: Sequence[Any], wrap: bool) -> list[Any]:
    """Observations as the model sees them: text wrapped as one user message when ``wrap``."""
    return [[{"role": "user", "content": o}] if wrap and isinstance(o, str) else o for o in observations]


def make_generate(backend: str, model: str, sampling: Sampling, chat: str = "auto", **options: Any) -> Any:
    """A generate function ``observations -> list[Completion]`` of ``backend`` for ``model``.

    Args:
        backend: one of :data:`BACKENDS`.
        model: a checkpoint directory (``hf``, ``vllm``) or the served model's name (``openai``).
        sampling: a :class:`Sampling`.
        chat: one of :data:`CHAT_MODES`.
        **options: the backend's own settings: ``device`` (``hf``); engine arguments (``vllm``);
            ``base_url``, ``api_key``, ``concurrency``, ``max_retries``, ``timeout`` (``openai``).
    """
    check_choice("backend", backend, BACKENDS)
    check_choice("chat", chat, CHAT_MODES)
    if backend == "openai":
        from rlenv.inference.openai_server import OpenAIGenerate

        return OpenAIGenerate(model=model, sampling=sampling, chat=chat, **options)
    if backend == "vllm":
        from rlenv.inference.vllm_engine import VLLMGenerate

        return VLLMGenerate(model, sampling, chat=chat, **options)
    from rlenv.inference.hf import HFGenerate

    return HFGenerate(model, sampling, chat=chat, **options)
