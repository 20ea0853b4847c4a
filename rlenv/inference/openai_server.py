"""Generation from any OpenAI-compatible server (``vllm serve``, SGLang, a hosted API).

Prompts go to the chat endpoint, text prompts as one user message, so that the server applies
the model's chat template (``chat="off"`` sends text prompts to the completions endpoint instead,
for a base model). The identical observations of one call (the samples of one task) go out as one
request with ``n`` choices (one prefill; one choice when sampling is greedy), seeded by :func:`request_seed`: the same ``Sampling.seed``
gives the same samples again. A server that answers fewer choices than ``n`` (it ignores ``n``) gets
one request per sample from then on, each with its own seed (a warning says so once). Requests run concurrently up to ``concurrency``; the ``openai``
client retries connection errors, timeouts, 408/409/429 and 5xx answers with exponential backoff
(``max_retries``); ``rate_limit`` spaces request starts to at most that many per second (a
hosted API's quota). A request that still fails, or whose answer has no text, becomes
``Completion.failed(...)`` (status ``error`` in evaluation); any other 4xx answer would fail the
same way again, so it stops the run at once with the server's message
(:class:`~rlenv.errors.RequestRejectedError`). The server's reachability and the model name are
checked once, up front, with a clear error.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Sequence
from typing import Any

from rlenv.deprecation import moved_names
from rlenv.errors import RequestRejectedError
from rlenv.inference.sampling import Sampling, chat_observations, openai_endpoint, request_seed
from rlenv.types import Completion

logger = logging.getLogger(__name__)

#: ``(text, finish reason, structured tool calls)`` of one choice of an answer.
Choice = tuple[Any, Any, list[dict[str, Any]] | None]
#: 4xx answers the ``openai`` client retries; any other 4xx stops the run.
RETRYABLE_4XX = (408, 409, 429)


class OpenAICompleter:
    """``generate(observations) -> list[Completion]`` through an OpenAI-compatible server.

    Args:
        base_url: the server's API root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the served model's name (as ``GET /v1/models`` lists it).
        sampling: a :class:`~rlenv.inference.Sampling`; its ``seed`` seeds every request
            (:func:`request_seed`).
        chat: ``"auto"``/``"on"`` send text prompts to the chat endpoint as a user message (the
            server applies the model's chat template); ``"off"`` sends them to the completions
            endpoint. Chat observations always go to the chat endpoint.
        api_key: the bearer token (servers without auth accept any).
        concurrency: requests in flight at once.
        max_retries: retries of a failed request (with exponential backoff).
        timeout: seconds per request attempt.
        rate_limit: most requests started per second, across calls (None: no limit).
    """

    def __init__(self, base_url: str, model: str, sampling: Sampling, chat: str = "auto", api_key: str | None = None,
                 concurrency: int = 16, max_retries: int = 4, timeout: float = 120.0, rate_limit: float | None = None):
        try:
            import openai
        except ImportError as exc:
            raise ImportError("the openai backend needs the openai client: pip install 'rlenv-lm[inference]'") from exc
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if sampling.top_k:
            raise ValueError(f"OpenAI-compatible servers take no top_k, got {sampling.top_k}")
        if max_retries < 0 or not timeout > 0:
            raise ValueError(f"max_retries must be >= 0 and timeout > 0, got {max_retries} and {timeout}")
        if rate_limit is not None and not rate_limit > 0:
            raise ValueError(f"rate_limit must be > 0 requests per second (or None), got {rate_limit!r}")
        self.openai = openai
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.sampling = sampling
        self.wrap = openai_endpoint(chat) == "chat"
        self.api_key = api_key or "EMPTY"
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.timeout = timeout
        self.rate_limit = rate_limit
        self._next_start = 0.0  # time.monotonic() before which no request may start (rate_limit)
        self._pacing = asyncio.Lock()  # replaced per call: a lock belongs to one event loop
        self._checked = False
        self._rejected: RequestRejectedError | None = None
        #: The server answered fewer choices than ``n``: one request per sample from then on.
        self.one_choice_per_request = False

    @property
    def _retries(self) -> str:
        return "1 retry" if self.max_retries == 1 else f"{self.max_retries} retries"

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

    def __call__(self, observations: Sequence[Any], tools: Sequence[dict[str, Any]] | None = None,
                 ) -> list[Completion]:
        """One completion per observation. With ``tools`` (OpenAI function schemas), chat requests
        offer them to the model and the server's structured ``message.tool_calls`` come back in
        :attr:`Completion.tool_calls <rlenv.types.Completion>` (the server must parse calls:
        ``vllm serve --enable-auto-tool-choice --tool-call-parser ...``)."""
        return asyncio.run(self._generate(chat_observations(observations, self.wrap), list(tools or [])))

    async def _generate(self, observations: Sequence[Any], tools: list[dict[str, Any]]) -> list[Completion]:
        groups: dict[str, list[int]] = {}  # identical observations: one request with n choices
        for i, observation in enumerate(observations):
            groups.setdefault(json.dumps(observation, sort_keys=True), []).append(i)
        async with self._client() as client:
            if not self._checked:
                await self._check_model(client)
                self._checked = True
            gate = asyncio.Semaphore(self.concurrency)
            self._pacing = asyncio.Lock()
            answers = await asyncio.gather(*(self._request(client, gate, observations[positions[0]], len(positions),
                                                           tools)
                                             for positions in groups.values()))
        if self._rejected is not None:
            raise self._rejected
        completions: list[Completion] = [Completion.failed("not generated")] * len(observations)
        for positions, answer in zip(groups.values(), answers, strict=True):
            for position, completion in zip(positions, answer, strict=True):
                completions[position] = completion
        return completions

    async def _request(self, client: Any, gate: asyncio.Semaphore, observation: Any, n: int,
                       tools: list[dict[str, Any]]) -> list[Completion]:
        if self.sampling.temperature == 0 or n == 1:  # greedy: the n samples are one
            only = (await self._choices(client, gate, observation, 1, tools))[0]
            # the request's usage stays on the first sample only
            return [only] + [Completion(str(only), only.truncated, only.error, only.tool_calls)] * (n - 1)
        if not self.one_choice_per_request:
            answers = await self._choices(client, gate, observation, n, tools)
            if len(answers) == n:
                return answers
        return await self._one_per_request(client, gate, observation, n, tools)

    async def _pace(self) -> None:
        """Wait until a request may start under ``rate_limit``."""
        if self.rate_limit is None:
            return
        async with self._pacing:
            wait = self._next_start - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._next_start = max(time.monotonic(), self._next_start) + 1.0 / self.rate_limit

    async def _one_per_request(self, client: Any, gate: asyncio.Semaphore, observation: Any, n: int,
                               tools: list[dict[str, Any]]) -> list[Completion]:
        """The ``n`` samples of ``observation`` as ``n`` requests of one choice, sample ``i`` seeded with
        :func:`request_seed` of ``[observation, i]``."""
        answers = await asyncio.gather(*(self._choices(client, gate, observation, 1, tools, sample=i)
                                         for i in range(n)))
        return [answer[0] for answer in answers]

    async def _choices(self, client: Any, gate: asyncio.Semaphore, observation: Any, n: int,
                       tools: list[dict[str, Any]], sample: int | None = None) -> list[Completion]:
        """``n`` choices for ``observation`` in one request, or ``[]`` when the server ignores ``n``
        (then :attr:`one_choice_per_request` is set, with a warning once: the caller asks per sample).
        ``tools``: offered to a chat model; ``sample``: the request is that one sample's (its own seed)."""
        s = self.sampling
        seed = request_seed(s.seed, observation if sample is None else [observation, sample])
        common = dict(model=self.model, max_tokens=s.max_new_tokens, temperature=s.temperature, top_p=s.top_p,
                      stop=list(s.stop) or None, n=n, seed=seed)
        async with gate:
            if self._rejected is not None:  # an earlier request was refused: this one would be too
                return [Completion.failed("not sent")] * n
            if n > 1 and self.one_choice_per_request:  # learnt while this request waited
                return []
            await self._pace()
            try:
                if isinstance(observation, str):
                    response = await client.completions.create(prompt=observation, **common)
                    choices: list[Choice] = [(c.text, c.finish_reason, None)
                                             for c in sorted(response.choices, key=lambda c: c.index)]
                else:
                    response = await client.chat.completions.create(messages=observation, **common,
                                                                    **({"tools": tools} if tools else {}))
                    choices = [_chat_choice(c) for c in sorted(response.choices, key=lambda c: c.index)]
            except self.openai.APIStatusError as exc:
                if 400 <= exc.status_code < 500 and exc.status_code not in RETRYABLE_4XX:
                    hint = "" if isinstance(observation, str) else \
                        "; a model without a chat template takes text prompts on the completions endpoint: --chat off"
                    self._rejected = RequestRejectedError(
                        f"the server at {self.base_url} rejected a request with HTTP {exc.status_code}: {exc.message} "
                        f"(not retried: every request would be rejected the same way{hint})")
                    return [Completion.failed("rejected")] * n
                return [Completion.failed(f"HTTP {exc.status_code} after {self._retries}: {exc.message}")] * n
            except self.openai.APIError as exc:  # connection errors, timeouts, undecodable bodies
                return [Completion.failed(f"{type(exc).__name__} after {self._retries}: {exc}")] * n
            except (AttributeError, IndexError, TypeError, ValueError) as exc:  # a malformed answer
                return [Completion.failed(f"malformed response: {type(exc).__name__}: {exc}")] * n
        if 0 < len(choices) < n:
            if not self.one_choice_per_request:
                self.one_choice_per_request = True
                logger.warning("the server at %s answered %d choice(s) to a request for n=%d: it ignores n, so each "
                               "sample is its own request from now on (one prefill per sample)", self.base_url,
                               len(choices), n)
            return []
        counted = getattr(response, "usage", None)
        usage = None if counted is None else {"prompt_tokens": counted.prompt_tokens or 0,
                                              "completion_tokens": counted.completion_tokens or 0}
        return _completions(choices, n, usage)


def _chat_choice(choice: Any) -> Choice:
    """``(text, finish reason, structured tool calls)`` of a chat choice: a message with tool calls may have no text."""
    calls = [call.model_dump() for call in choice.message.tool_calls] if choice.message.tool_calls else None
    text = choice.message.content
    return ("" if text is None and calls else text), choice.finish_reason, calls


def _completions(choices: list[Choice], n: int, usage: dict[str, int] | None) -> list[Completion]:
    """``(text, finish reason, tool calls)`` of each choice as completions (the request's token ``usage``
    on the first); a failure each when the answer is malformed."""
    if len(choices) != n:
        return [Completion.failed(f"malformed response: asked for n={n} choices, got {len(choices)}")] * n
    return [Completion(text, truncated=reason == "length", tool_calls=calls, usage=usage if i == 0 else None)
            if isinstance(text, str) else Completion.failed(f"malformed response: the choice has no text ({text!r:.80})")
            for i, (text, reason, calls) in enumerate(choices)]


#: Deprecated names (one release).
__getattr__ = moved_names(__name__, {"OpenAIGenerate": "rlenv.inference.openai_server.OpenAICompleter"})
