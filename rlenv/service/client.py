"""``RemoteVerifier``: a verifier that scores on a reward service (``rlenv serve``) over HTTP.

Give it to any env in place of its verifier and the env works as usual (TRL reward functions,
verl's ``compute_score``, vector envs, ``rlenv.score``), with the scoring done by the service::

    verifier = rlenv.service.RemoteVerifier("http://scorer:8000", "rlenv/GSM8K-v0")
    env = rlenv.make("rlenv/GSM8K-v0", verifier=verifier)

Each result is the service's verifier result (its ``value``; the local env's reward wrappers
apply on top, so serve the env unwrapped). httpx (the ``serve`` extra) is imported on first use.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from rlenv.errors import RlenvError, check_choice
from rlenv.types import RewardResult, Task

logger = logging.getLogger(__name__)

#: Ways to name a task to the service.
TASK_KEYS = ("task_id", "reference")
#: Environment variable holding the bearer token when none is passed.
TOKEN_ENV = "RLENV_SERVE_TOKEN"
#: HTTP statuses worth another try (the service or a proxy in front of it is overloaded or restarting).
RETRY_STATUSES = (502, 503, 504)
_RESULT_FIELDS = ("value", "status", "components", "step_rewards", "verifier", "verifier_version", "details")


class RemoteScoringError(RlenvError, RuntimeError):
    """The service refused a request or could not be reached (the message says which, and why)."""


class RemoteVerifier:
    """Scores ``(task, completion)`` with env ``env_id`` of the reward service at ``url``.

    Args:
        url: The service's base URL, e.g. ``http://10.0.0.5:8000``.
        env_id: The env of the service that scores (``GET /envs`` lists them).
        by: How tasks are named to the service: ``"task_id"`` (default; the service's env holds the
            same tasks) or ``"reference"`` (the task's reference, prompt and metadata are sent
            inline: they must be JSON-serializable).
        token: Bearer token (default: ``$RLENV_SERVE_TOKEN`` when set).
        timeout_s: Seconds allowed per request.
        batch_size: Items per request (a bigger batch is sent as several requests).
        concurrency: Requests of one batch in flight at once (the service scores them in parallel).
        retries: Extra tries after a connection failure or a 502/503/504 answer (scoring is idempotent).

    A request the service refuses (unknown env or task, bad input) raises
    :class:`RemoteScoringError` with the service's message; :func:`rlenv.scoring.score_tasks` turns that into
    ``error`` results of that batch. Thread-safe; pickles without its connection.
    """

    version = "1"

    def __init__(self, url: str, env_id: str, *, by: str = "task_id", token: str | None = None,
                 timeout_s: float = 120.0, batch_size: int = 512, concurrency: int = 4, retries: int = 2):
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")
        check_choice("by", by, TASK_KEYS)
        for label, value in (("batch_size", batch_size), ("concurrency", concurrency)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{label} must be a positive int, got {value!r}")
        if not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries must be an int >= 0, got {retries!r}")
        self.url = url.rstrip("/")
        self.env_id = env_id
        self.by = by
        self.token = token if token is not None else os.environ.get(TOKEN_ENV)
        self.timeout_s = float(timeout_s)
        self.batch_size = batch_size
        self.concurrency = concurrency
        self.retries = retries
        self.name = f"remote({env_id})"
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RemoteVerifier({self.url!r}, {self.env_id!r}, by={self.by!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_client", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _client=None, _lock=threading.Lock())

    @property
    def client(self) -> Any:
        """The ``httpx.Client`` (one connection pool shared by the threads of this process)."""
        with self._lock:
            if self._client is None:
                import httpx

                headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
                self._client = httpx.Client(base_url=self.url, headers=headers, timeout=self.timeout_s,
                                            limits=httpx.Limits(max_connections=64, max_keepalive_connections=64))
            return self._client

    def _item(self, task: Task, completion: str) -> dict[str, Any]:
        if self.by == "task_id":
            return {"env_id": self.env_id, "task_id": task.id, "completion": completion}
        return {"env_id": self.env_id, "reference": task.reference, "prompt": task.prompt,
                "metadata": dict(task.metadata), "completion": completion}

    def _body(self, tasks: Sequence[Task], completions: Sequence[str]) -> bytes:
        items = [self._item(t, c) for t, c in zip(tasks, completions, strict=True)]
        try:
            return json.dumps(items).encode("utf-8")
        except (TypeError, ValueError) as exc:
            raise TypeError(f"by='reference' sends each task's reference, prompt and metadata as JSON: {exc} "
                            "(use by='task_id' when the service's env holds the same tasks)") from None

    def _post(self, body: bytes, count: int) -> list[dict[str, Any]]:
        import httpx

        for attempt in range(self.retries + 1):
            try:
                response = self.client.post("/score", content=body, headers={"Content-Type": "application/json"})
            except httpx.TransportError as exc:
                problem = f"cannot reach the reward service at {self.url}: {type(exc).__name__}: {exc}"
            else:
                if response.status_code == 200:
                    results = response.json()
                    if not isinstance(results, list) or len(results) != count:
                        got = f"{len(results)} results" if isinstance(results, list) else type(results).__name__
                        raise RemoteScoringError(f"{self.url}/score answered {got} for {count} items")
                    return results
                problem = f"{self.url}/score answered HTTP {response.status_code}: {_error_text(response)}"
                if response.status_code not in RETRY_STATUSES:
                    raise RemoteScoringError(problem)
            if attempt < self.retries:
                logger.warning("%s; retrying (%d/%d)", problem, attempt + 1, self.retries)
                time.sleep(min(0.5 * 2**attempt, 5.0))
        raise RemoteScoringError(problem)

    def _score_chunk(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        rows = self._post(self._body(tasks, completions), len(tasks))
        return [RewardResult.from_dict({k: row[k] for k in _RESULT_FIELDS if k in row}) for row in rows]

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """Score on the service, ``batch_size`` items per request, ``concurrency`` requests at once;
        results in input order."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        chunks = [slice(start, start + self.batch_size) for start in range(0, len(tasks), self.batch_size)]
        if len(chunks) <= 1 or self.concurrency == 1:
            return [r for chunk in chunks for r in self._score_chunk(tasks[chunk], completions[chunk])]
        def score(chunk: slice) -> list[RewardResult]:
            return self._score_chunk(tasks[chunk], completions[chunk])

        with cf.ThreadPoolExecutor(min(self.concurrency, len(chunks)), thread_name_prefix="rlenv-remote") as pool:
            parts = pool.map(score, chunks)
            return [r for part in parts for r in part]

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]

    def close(self) -> None:
        """Close the connection pool (a later call opens a new one)."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def _error_text(response: Any) -> str:
    try:
        return str(response.json().get("error", response.text))
    except (ValueError, AttributeError):
        return response.text[:500]
