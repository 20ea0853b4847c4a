"""The sampling settings every generator reads: :class:`Sampling` (no torch needed).

One type for the evaluation backends (:func:`rlenv.inference.make_completer`) and the trainers'
rollouts (:func:`rlenv.inference.make_rollout_generator`); where the tokens come from (the
backend, its batch size and engine options) is an argument of those factories, not a sampling
setting.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from rlenv.deprecation import renamed_fields, warn_moved
from rlenv.errors import check_choice

#: How text prompts are shown to a chat model: ``on`` wraps them as one user message, ``off``
#: never does, ``auto`` does when the model has a chat template (``hf``/``vllm``); an ``openai``
#: server applies the served model's template on its chat endpoint, so ``auto`` means ``on``
#: there (:func:`openai_endpoint`).
CHAT_MODES = ("auto", "on", "off")
#: Backends of :func:`rlenv.inference.make_rollout_generator`.
ROLLOUT_BACKENDS = ("hf", "vllm")


@dataclasses.dataclass(frozen=True)
class Sampling:
    """How completions are sampled, whatever generates them.

    Attributes:
        max_new_tokens: completion length limit (tokens).
        temperature: softmax temperature; 0 is greedy.
        top_p: nucleus sampling mass (1.0 = off).
        top_k: top-k sampling (0 = off; not offered by OpenAI-compatible servers).
        stop: strings that end a completion (not included in it; not supported by the ``hf`` backends).
        seed: the engine's seed (``vllm``); the ``hf`` completer seeds each batch from it and an
            OpenAI-compatible server gets a seed per prompt derived from it (:func:`request_seed`),
            with the ``n`` samples of that prompt in one request, so that they differ and a rerun
            repeats them.
    """

    max_new_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    stop: tuple[str, ...] = ()
    seed: int = 0

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0 (0 = greedy), got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.top_k < 0:
            raise ValueError(f"top_k must be >= 0 (0 = off), got {self.top_k}")
        object.__setattr__(self, "stop", tuple(self.stop))


renamed_fields(Sampling, {"max_tokens": "max_new_tokens"})  # the old spelling, for one release


@dataclasses.dataclass
class SamplingConfig:
    """Deprecated (one release): the rollouts' sampling settings, now :class:`Sampling` plus the
    ``backend``, ``batch_size`` and backend options of :func:`rlenv.inference.make_rollout_generator`.
    Generators still accept one."""

    max_new_tokens: int = 64
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    batch_size: int | None = None
    backend: str = "hf"
    backend_options: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        warn_moved("SamplingConfig", "rlenv.inference.Sampling (with make_rollout_generator's backend, "
                   "batch_size and options)")
        check_choice("backend", self.backend, ROLLOUT_BACKENDS)
        if self.backend == "hf" and self.backend_options:
            raise ValueError(f"backend_options are for the vllm backend; hf takes none, got {self.backend_options}")
        self.sampling()

    def sampling(self) -> Sampling:
        """These settings as a :class:`Sampling`."""
        return Sampling(max_new_tokens=self.max_new_tokens, temperature=self.temperature, top_p=self.top_p,
                        top_k=self.top_k)


def rollout_settings(sampling: Sampling | SamplingConfig | None) -> tuple[Sampling, dict[str, Any]]:
    """``(sampling, generator options)`` from a :class:`Sampling` (no options) or a deprecated
    :class:`SamplingConfig` (its ``backend``, ``batch_size`` and ``backend_options``)."""
    if sampling is None:
        return Sampling(), {}
    if isinstance(sampling, SamplingConfig):
        options = dict(sampling.backend_options)
        seed = options.pop("seed", 0)  # the vLLM generator's seed is the sampling's now
        return (dataclasses.replace(sampling.sampling(), seed=seed),
                {"backend": sampling.backend, "batch_size": sampling.batch_size, **options})
    return sampling, {}


def chat_observations(observations: Sequence[Any], wrap: bool) -> list[Any]:
    """Observations as the model sees them: text wrapped as one user message when ``wrap``."""
    return [[{"role": "user", "content": o}] if wrap and isinstance(o, str) else o for o in observations]


def request_seed(seed: int, observation: Any) -> int:
    """A seed for sampling ``observation`` (a prompt, or a batch of them): a function of ``seed``
    and the prompt only, so that each prompt has its own seed and a rerun, or a resumed run, uses
    the same one. A non-negative 31-bit integer, as servers accept."""
    digest = hashlib.sha256(json.dumps([seed, observation], sort_keys=True).encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def openai_endpoint(chat: str) -> str:
    """The endpoint an OpenAI-compatible server gets text prompts on for ``chat``: ``"chat"``
    (the server applies the model's chat template) unless ``chat`` is ``"off"``."""
    check_choice("chat", chat, CHAT_MODES)
    return "completions" if chat == "off" else "chat"
