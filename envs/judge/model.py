"""The judge model: any generation backend of :mod:`rlenv.inference`, behind a verdict cache, with usage counted.

:class:`JudgeModel` asks a batch of judge prompts of ``hf`` (a local checkpoint), ``vllm`` (an
in-process engine) or ``openai`` (any OpenAI-compatible server, hosted APIs included: its
concurrency limit, rate limit, retries with backoff and per-request timeout are the options of
:class:`~rlenv.inference.openai_server.OpenAICompleter`). A request that still fails comes back as
a :class:`JudgeReply` with an ``error`` (the verifiers make it a status ``error``). With ``cache``
set, replies are stored in a :class:`~rlenv.envs.judge.cache.VerdictCache` and a prompt asked
again is answered from it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rlenv.envs.judge.cache import VerdictCache, verdict_key
from rlenv.errors import check_choice
from rlenv.evaluation.results import usage_totals
from rlenv.inference import BACKENDS, Sampling, make_completer

logger = logging.getLogger(__name__)

#: Greedy, short replies: a verdict is a few tokens.
JUDGE_SAMPLING = Sampling(max_new_tokens=256, temperature=0.0)


@dataclasses.dataclass(frozen=True)
class JudgeReply:
    """The judge's reply to one prompt.

    Attributes:
        text: The reply ("" when the request failed).
        error: Why the request failed after its retries (None when it did not).
        cached: Whether the reply came from the cache (no request was made).
        prompt_chars: Length of the prompt sent (or that would have been sent), for cost accounting.
        tokens: The server's token counts of the request (``prompt_tokens``, ``completion_tokens``),
            when the backend reports them (``openai``).
    """

    text: str
    error: str | None = None
    cached: bool = False
    prompt_chars: int = 0
    tokens: Mapping[str, int] | None = None

    def usage(self) -> dict[str, int]:
        """This reply's contribution to :func:`judge_usage` (tokens 0 where the backend reports none)."""
        asked = not self.cached
        tokens = dict(self.tokens or {}) if asked else {}
        return {"requests": int(asked), "cache_hits": int(self.cached), "failures": int(self.error is not None),
                "prompt_chars": self.prompt_chars if asked else 0, "reply_chars": len(self.text) if asked else 0,
                "prompt_tokens": tokens.get("prompt_tokens", 0), "completion_tokens": tokens.get("completion_tokens", 0)}


def judge_usage(results: Sequence[Any]) -> dict[str, int]:
    """Totals of the ``details["judge_usage"]`` of judge :class:`~rlenv.types.RewardResult` objects:
    ``requests`` made, ``cache_hits``, ``failures``, ``prompt_chars`` and ``reply_chars`` sent and received,
    and the ``prompt_tokens`` and ``completion_tokens`` the server counted (``openai`` backend)."""
    return {**dict.fromkeys(JudgeReply("").usage(), 0), **usage_totals(r.details for r in results)}


class JudgeModel:
    """A judge: ``ask(prompts) -> list[JudgeReply]``.

    Args:
        backend: one of :data:`rlenv.inference.BACKENDS`.
        model: a checkpoint directory (``hf``, ``vllm``) or the served model's name (``openai``).
        sampling: the judge's sampling (default: greedy, 256 new tokens).
        chat: ``"on"``/``"auto"`` sends system and user messages (the model's chat template applies);
            ``"off"`` sends one text prompt (a base model, or a model without a chat template).
        cache: path of a :class:`VerdictCache` file (None: no cache).
        options: the backend's options (``base_url``, ``api_key``, ``concurrency``, ``rate_limit``,
            ``max_retries``, ``timeout`` for ``openai``; see :func:`rlenv.inference.make_completer`).

    The backend is built on first use and not pickled, so a verifier holding a judge can be sent to
    worker processes and Ray actors (each builds its own).
    """

    def __init__(self, backend: str, model: str, sampling: Sampling = JUDGE_SAMPLING, chat: str = "auto",
                 cache: str | Path | None = None, **options: Any):
        check_choice("backend", backend, BACKENDS)
        check_choice("chat", chat, ("auto", "on", "off"))
        self.backend = backend
        self.model = str(model)
        self.sampling = sampling
        self.chat = chat
        self.cache_path = None if cache is None else Path(cache)
        self.options: Mapping[str, Any] = dict(options)
        self._completer: Any = None

    def identity(self) -> dict[str, Any]:
        """What makes two judges give the same reply to the same prompt (the cache key's judge part)."""
        return {"backend": self.backend, "model": self.model, "chat": self.chat,
                "sampling": dataclasses.asdict(self.sampling)}

    @property
    def wants_chat(self) -> bool:
        """Whether prompts are rendered as chat messages."""
        return self.chat != "off"

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_completer": None}

    def _complete(self, prompts: Sequence[Any]) -> list[Any]:
        if self._completer is None:
            self._completer = make_completer(self.backend, self.model, self.sampling, chat=self.chat, **self.options)
        return list(self._completer(list(prompts)))

    def close(self) -> None:
        """Close the backend, if one was built (an in-process vLLM engine is shut down); the next
        question builds it again."""
        close = getattr(self._completer, "close", None)
        if close is not None:
            close()
        self._completer = None

    def ask(self, prompts: Sequence[str | list[dict[str, str]]]) -> list[JudgeReply]:
        """One reply per prompt, in order: from the cache when there, else from the backend (a prompt
        repeated within ``prompts`` is asked once; its repeats count as cache hits)."""
        sizes = [len(p) if isinstance(p, str) else sum(len(m["content"]) for m in p) for p in prompts]
        cache = None if self.cache_path is None else VerdictCache(self.cache_path)
        keys = [verdict_key(self.identity(), p) for p in prompts]
        hits = cache.get_many(keys) if cache is not None else {}
        first: dict[str, int] = {}  # each prompt not cached -> its first position
        for i, key in enumerate(keys):
            if key not in hits:
                first.setdefault(key, i)
        fresh: dict[str, JudgeReply] = {}
        if first:
            completions = self._complete([prompts[i] for i in first.values()])
            for (key, i), completion in zip(first.items(), completions, strict=True):
                fresh[key] = JudgeReply(str(completion), getattr(completion, "error", None), False, sizes[i],
                                        getattr(completion, "usage", None))
            if cache is not None:
                cache.put_many({key: reply.text for key, reply in fresh.items() if reply.error is None})
        if hits:
            logger.debug("judge %s: %d of %d prompts answered from the cache", self.model, len(hits), len(keys))
        return [JudgeReply(hits[key], None, True, size) if key in hits else
                fresh[key] if first[key] == i else dataclasses.replace(fresh[key], cached=True)
                for i, (key, size) in enumerate(zip(keys, sizes, strict=True))]
