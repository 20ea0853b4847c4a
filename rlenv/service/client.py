"""``RemoteVerifier``: a verifier that scores on an rlenv reward service (``rlenv serve``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from rlenv.types import RewardResult, Task

logger = logging.getLogger(__name__)


class RemoteVerifier:
    """Scores on a reward service: usable anywhere a verifier is (``rlenv.TextEnv``, vector envs, TRL
    reward functions, verl's ``compute_score``), with one request per batch (``score_batch``).

    Args:
        url: the service, e.g. ``http://127.0.0.1:8000``.
        env_id: the env that scores, one of the service's ``GET /envs``.
        key: what identifies a task to the service: ``"task_id"`` (the service's env has the same
            tasks) or ``"reference"`` (the task's reference and prompt are sent).
        token: the service's bearer token, if it has one.
        timeout: seconds per request.
        max_retries: attempts after a connection error or a 5xx answer (with backoff); a 4xx answer
            is an error at once, with the service's message.
    """

    version = "1"

    def __init__(self, url: str, env_id: str, *, key: str = "task_id", token: str | None = None,
                 timeout: float = 120.0, max_retries: int = 3):
        if key not in ("task_id", "reference"):
            raise ValueError(f"key must be 'task_id' or 'reference', got {key!r}")
        self.url, self.env_id, self.key = url.rstrip("/"), env_id, key
        self.token, self.timeout, self.max_retries = token, timeout, max_retries
        self.name = f"remote:{env_id}"
        self._client: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_client": None}  # a copy opens its own connections

    def _http(self) -> Any:
        if self._client is None:
            import httpx

            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            self._client = httpx.Client(base_url=self.url, headers=headers, timeout=self.timeout)
        return self._client

    def _item(self, task: Task, completion: str) -> dict[str, Any]:
        if self.key == "task_id":
            return {"env_id": self.env_id, "task_id": task.id, "completion": str(completion)}
        prompt = task.prompt if isinstance(task.prompt, str) else ""
        return {"env_id": self.env_id, "reference": task.reference, "prompt": prompt, "completion": str(completion)}

    def score_batch(self, tasks: Sequence[Task], completions: Sequence[str]) -> list[RewardResult]:
        """One ``POST /score`` for the batch; results in order."""
        import httpx

        body = [self._item(t, c) for t, c in zip(tasks, completions, strict=True)]
        for attempt in range(self.max_retries + 1):
            try:
                response = self._http().post("/score", json=body)
            except httpx.TransportError as exc:
                failure = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code < 400:
                    return [RewardResult.from_dict({k: v for k, v in row.items() if k not in ("reward", "truncated")})
                            for row in response.json()]
                message = response.json().get("error", response.text) if response.headers.get(
                    "content-type", "").startswith("application/json") else response.text
                if response.status_code < 500:
                    raise ValueError(f"the reward service at {self.url} refused the batch "
                                     f"({response.status_code}): {message}")
                failure = f"{response.status_code}: {message}"
            if attempt < self.max_retries:
                logger.warning("reward service %s: %s; retrying", self.url, failure)
                time.sleep(min(8.0, 0.5 * 2 ** attempt))
        raise ConnectionError(f"the reward service at {self.url} failed {self.max_retries + 1} times: {failure}")

    def __call__(self, task: Task, completion: str) -> RewardResult:
        return self.score_batch([task], [completion])[0]
