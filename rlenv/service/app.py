"""The reward service: an HTTP API over registered environments (FastAPI, served by uvicorn).

Endpoints:

* ``POST /score`` — a JSON list of ``{"env_id", "task_id" | "index" | "reference", "completion"}``
  (``prompt`` optional with ``reference``) → a JSON list, in the same order, of
  ``{"reward", "status", "value", "components", "details", "verifier", ...}`` (the verifier's
  :class:`~rlenv.types.RewardResult` plus ``reward``, the value after the env's reward wrappers).
* ``POST /get_reward`` (and ``/get_reward/{env_id}``) — OpenRLHF's remote reward-model protocol:
  ``{"query", "prompts", "labels"}`` → ``{"rewards", "scores", "extra_logs"}``, labels being task ids
  of the first (or the named) environment, so ``--remote_rm_url http://host:port/get_reward`` works.
* ``GET /health``, ``GET /envs``.

Bad input (malformed JSON, a body that is not what the endpoint takes, an unknown env or task,
wrong types, a body over ``max_body_bytes`` or ``max_items``) is a 4xx JSON ``{"error": ...}`` naming
the problem and the item; a verifier that raises is that item's ``error`` status, never a lost
batch. Scoring runs on ``executor`` (threads by default, or a Ray cluster); requests are served
concurrently.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

import rlenv
from rlenv.integrations.openrlhf import RewardFunc, reward_response
from rlenv.scoring import score_tasks
from rlenv.types import Task

logger = logging.getLogger(__name__)

#: Default limits of one request.
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_ITEMS = 4096


class BadRequest(ValueError):
    """A request the service refuses (HTTP ``status``), with a message naming the problem."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class Scorer:
    """The environments of a service and how their items are scored."""

    def __init__(self, env_ids: Sequence[str], executor: Any = "thread", max_workers: int | None = None,
                 env_kwargs: dict[str, dict[str, Any]] | None = None):
        if not env_ids:
            raise ValueError("a reward service needs at least one env id")
        self.envs = {env_id: rlenv.make(env_id, **(env_kwargs or {}).get(env_id, {})) for env_id in env_ids}
        self.executor, self.max_workers = executor, max_workers
        self.reward_funcs = {env_id: RewardFunc(env_id, executor=executor, max_workers=max_workers,
                                                **(env_kwargs or {}).get(env_id, {})) for env_id in env_ids}
        for env_id, func in self.reward_funcs.items():
            func._env = self.envs[env_id]  # one env per id, shared by both protocols

    def task(self, n: int, item: dict[str, Any]) -> tuple[str, Task, str]:
        """``(env_id, task, completion)`` of item ``n``; a :class:`BadRequest` naming what is wrong."""
        if not isinstance(item, dict):
            raise BadRequest(f"item {n}: expected an object, got {type(item).__name__}")
        env_id, completion = item.get("env_id"), item.get("completion")
        if not isinstance(env_id, str):
            raise BadRequest(f"item {n}: 'env_id' must be a string, got {env_id!r:.80}")
        if env_id not in self.envs:
            raise BadRequest(f"item {n}: unknown env {env_id!r}; this service scores {sorted(self.envs)}", 404)
        if not isinstance(completion, str):
            raise BadRequest(f"item {n}: 'completion' must be a string, got {type(completion).__name__}")
        keys = [k for k in ("task_id", "index", "reference") if k in item]
        if len(keys) != 1:
            raise BadRequest(f"item {n}: give exactly one of 'task_id', 'index', 'reference' (got {keys or 'none'})")
        base = self.envs[env_id].unwrapped
        key, value = keys[0], item[keys[0]]
        if key == "reference":
            prompt = item.get("prompt", "")
            if not isinstance(prompt, str):
                raise BadRequest(f"item {n}: 'prompt' must be a string, got {type(prompt).__name__}")
            return env_id, Task(f"request-{n}", prompt, reference=value), completion
        if key == "index" and (not isinstance(value, int) or isinstance(value, bool)):
            raise BadRequest(f"item {n}: 'index' must be an integer, got {value!r:.80}")
        if key == "task_id" and not isinstance(value, str):
            raise BadRequest(f"item {n}: 'task_id' must be a string, got {value!r:.80}")
        try:
            return env_id, base.source[base.resolve_index({key: value})], completion
        except (KeyError, IndexError, ValueError) as exc:
            raise BadRequest(f"item {n}: {exc.args[0] if exc.args else exc}", 404) from None

    def score(self, items: Any) -> list[dict[str, Any]]:
        """Score a ``POST /score`` body; results in the order of the items."""
        if not isinstance(items, list):
            raise BadRequest(f"the body must be a JSON list of items, got {type(items).__name__}")
        parsed = [self.task(n, item) for n, item in enumerate(items)]
        out: list[dict[str, Any] | None] = [None] * len(parsed)
        for env_id, env in self.envs.items():
            mine = [n for n, (item_env, _, _) in enumerate(parsed) if item_env == env_id]
            if not mine:
                continue
            base = env.unwrapped
            clipped = [base.clip_completion(parsed[n][2]) for n in mine]
            tasks = [parsed[n][1] for n in mine]
            results = score_tasks(base.verifier, tasks, [text for text, _ in clipped], executor=self.executor,
                                  max_workers=self.max_workers)
            outcome = env.get_wrapper_attr("episode_outcome")
            for n, task, (text, cut), result in zip(mine, tasks, clipped, results, strict=True):
                reward, _ = outcome(task, text, result, cut)
                out[n] = {"reward": float(reward), "truncated": bool(cut), **result.to_dict()}
        return out  # type: ignore[return-value]

    def get_reward(self, body: Any, env_id: str | None) -> dict[str, Any]:
        """Answer OpenRLHF's ``{"query", "prompts", "labels"}``."""
        env_id = env_id or next(iter(self.envs))
        if env_id not in self.envs:
            raise BadRequest(f"unknown env {env_id!r}; this service scores {sorted(self.envs)}", 404)
        if not isinstance(body, dict):
            raise BadRequest(f"the body must be a JSON object with 'query', 'prompts', 'labels', got {type(body).__name__}")
        fields = {}
        for key in ("query", "prompts", "labels"):
            value = body.get(key)
            if not isinstance(value, list) or (key != "labels" and not all(isinstance(v, str) for v in value)):
                raise BadRequest(f"'{key}' must be a list{' of strings' if key != 'labels' else ''}, got {value!r:.80}")
            fields[key] = value
        try:
            rewards, statuses = self.reward_funcs[env_id].score(fields["query"], fields["prompts"], fields["labels"])
        except (KeyError, IndexError, ValueError) as exc:
            raise BadRequest(str(exc.args[0] if exc.args else exc)) from None
        return reward_response(rewards, statuses)


def create_app(env_ids: Sequence[str], *, token: str | None = None, max_body_bytes: int = MAX_BODY_BYTES,
               max_items: int = MAX_ITEMS, executor: Any = "thread", max_workers: int | None = None,
               env_kwargs: dict[str, dict[str, Any]] | None = None) -> FastAPI:
    """The reward service's FastAPI app over ``env_ids`` (see the module docstring).

    Args:
        env_ids: registered env ids (built once, at start).
        token: when set, every endpoint but ``/health`` needs ``Authorization: Bearer <token>``.
        max_body_bytes, max_items: request limits (413 beyond them).
        executor, max_workers: how items are scored (see :func:`rlenv.score_tasks`; ``"ray"`` too).
        env_kwargs: ``{env_id: kwargs}`` for :func:`rlenv.make`.
    """
    scorer = Scorer(env_ids, executor, max_workers, env_kwargs)
    app = FastAPI(title="rlenv reward service", version=rlenv.__version__)

    def authorize(request: Request) -> None:
        if token is not None and not secrets.compare_digest(request.headers.get("authorization", "").encode(),
                                                            f"Bearer {token}".encode()):
            raise BadRequest("missing or wrong bearer token (Authorization: Bearer <token>)", 401)

    async def read_json(request: Request) -> Any:
        authorize(request)
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body_bytes:
            raise BadRequest(f"the body is {declared} bytes, over this service's limit of {max_body_bytes}", 413)
        body = bytearray()
        async for part in request.stream():
            body += part
            if len(body) > max_body_bytes:
                raise BadRequest(f"the body is over this service's limit of {max_body_bytes} bytes", 413)
        try:
            return json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BadRequest(f"the body is not valid JSON: {exc}") from None

    @app.exception_handler(BadRequest)
    async def bad_request(request: Request, exc: BadRequest) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    @app.exception_handler(Exception)
    async def failure(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("request %s %s failed", request.method, request.url.path)
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "envs": len(scorer.envs)}

    @app.get("/envs")
    async def envs(request: Request) -> list[dict[str, Any]]:
        authorize(request)
        return [{"id": env_id, "description": rlenv.spec(env_id).description} for env_id in scorer.envs]

    @app.post("/score")
    async def score(request: Request) -> JSONResponse:
        items = await read_json(request)
        if isinstance(items, list) and len(items) > max_items:
            raise BadRequest(f"{len(items)} items, over this service's limit of {max_items} per request", 413)
        return JSONResponse(await run_in_threadpool(scorer.score, items))

    @app.post("/get_reward")
    async def get_reward(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(scorer.get_reward, await read_json(request), None))

    @app.post("/get_reward/{env_id:path}")
    async def get_reward_of(env_id: str, request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(scorer.get_reward, await read_json(request), env_id))

    return app
