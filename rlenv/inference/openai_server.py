"""Generation from any OpenAI-compatible server (``vllm serve``, SGLang, a hosted API).

Text prompts go to the completions endpoint (or, with ``chat="on"``, to the chat endpoint as
one user message); chat observations go to the chat endpoint. Requests run concurrently up to
``concurrency``; the ``openai`` client retries connection errors, timeouts, 408/409/429 and 5xx
answers with exponential backoff (``max_retries``). A request that still fails, or whose answer
has no text, becomes ``Completion.failed(...)`` (status ``error`` in evaluation); the server's
reachability and the model name are checked once, up front, with a clear error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from rlenv.inference import Sampling, chat_observations
from rlenv.types import Completion

logger = logging.getLogger(__name__)


class OpenAIGenerate:
    """``generate(observations) -> list[Completion]`` through an OpenAI-compatible server.

    Args:
        base_url: the server's API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the served model's name (as ``GET /v1/models`` lists it).
        sampling: a :class:`~rlenv.inference.Sampling`.
        chat: ``"on"`` sends text prompts to the chat endpoint as a user message; ``"auto"`` and
            ``"off"`` send them to the completions endpoint.
        api_key: the bearer token (servers without auth accept any).
        concurrency: requests in flight at once.
        max_retries: retries of a failed request (with exponential backoff).
        timeout: seconds per request attempt.
    """

    def __init__(self, base_url: str, model: str, sampling: Sampling, chat: str = "auto", api_key: str | None = None,
                 concurrency: int = 16, max_retries: int = 4, timeout: float = 120.0):
        try:
            import openai
        except ImportError as exc:
            raise ImportError("the openai backend needs the openai client: pip install 'rlenv-lm[inference]'") from exc
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if max_retries < 0 or not timeout > 0:
            raise ValueError(f"max_retries must be >= 0 and timeout > 0, got {max_retries} and {timeout}")
        self.openai = openai
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.sampling = sampling
        self.wrap = chat == "on"
        self.api_key = api_key or "EMPTY"
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.timeout = timeout
        self._checked = False

    def _client(self) -> Any:
        return self.openai.AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=self.max_retries,
                                       timeout=self.timeout)

    async def _check_model(self, client: Any) -> None:
        try:
            served = [m.id async for m in client.models.list()]
        except self.openai.APIConnectionError as exc:
            raise ConnectionError(f"cannot reach the OpenAI-compatible server at {self.base_url}: {exc} "
                                  "(is it running, and is the URL its /v1 root?)") from None
        except self.openai.APIStatusError as exc:
            raise ConnectionError(f"the server at {self.base_url} answered GET /models with HTTP "
                                  f"{exc.status_code}: {exc.message}") from None
        if self.model not in served:
            raise ValueError(f"model {self.model!r} is not served at {self.base_url}; it serves {served}")

    def __call__(self, observations: Sequence[Any]) -> list[Completion]:
        return asyncio.run(self._generate(chat_observations(observations, self.wrap)))

    async def _generate(self, observations: Sequence[Any]) -> list[Completion]:
        async with self._client() as client:
            if not self._checked:
                await self._check_model(client)
                self._checked = True
            gate = asyncio.Semaphore(self.concurrency)
            return list(await asyncio.gather(*(self._one(client, gate, o) for o in observations)))

    async def _one(self, client: Any, gate: asyncio.Semaphore, observation: Any) -> Completion:
        s = self.sampling
        common = dict(model=self.model, max_tokens=s.max_tokens, temperature=s.temperature, top_p=s.top_p,
                      stop=list(s.stop) or None, n=1)
        async with gate:
            try:
                if isinstance(observation, str):
                    response = await client.completions.create(prompt=observation, **common)
                    choice = response.choices[0]
                    text = choice.text
                else:
                    response = await client.chat.completions.create(messages=observation, **common)
                    choice = response.choices[0]
                    text = choice.message.content
            except self.openai.APIStatusError as exc:
                return Completion.failed(f"HTTP {exc.status_code} after {self.max_retries} retries: {exc.message}")
            except self.openai.APIError as exc:  # connection errors, timeouts, undecodable bodies
                return Completion.failed(f"{type(exc).__name__} after {self.max_retries} retries: {exc}")
            except (AttributeError, IndexError, TypeError, ValueError) as exc:  # a malformed answer
                return Completion.failed(f"malformed response: {type(exc).__name__}: {exc}")
        if not isinstance(text, str):
            return Completion.failed(f"malformed response: the choice has no text ({text!r:.80})")
        return Completion(text, truncated=choice.finish_reason == "length")
