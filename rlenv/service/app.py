"""The reward service behind ``rlenv serve``: rlenv environments scored over HTTP (FastAPI).

Endpoints (JSON in and out):

* ``POST /score``: a list of items ``{"env_id", "completion"}`` plus exactly one of ``task_id``,
  ``index`` (a task of the env's source) or ``reference`` (an inline task, with optional
  ``prompt`` and ``metadata``) -> one result per item, in order: ``env_id``, ``task_id``,
  ``reward`` (the env's reward, after its reward wrappers), ``truncated`` and the
  :class:`~rlenv.types.RewardResult` fields (``value``, ``status``, ``components``,
  ``step_rewards``, ``verifier``, ``verifier_version``, ``details``).
* ``POST /get_reward``: OpenRLHF's remote reward-model protocol (``--remote_rm_url
  http://HOST:PORT/get_reward``): ``{"query", "prompts", "labels"}`` -> ``{"rewards", "scores",
  "extra_logs"}``, computed by :class:`rlenv.integrations.openrlhf.RewardFunc`. Query parameters:
  ``env_id`` (needed when several envs are served) and ``label`` (``task_id``, the default, or
  ``reference``: what the labels hold).
* ``GET /envs``: the served envs (verifier, version, placement, number of tasks).
* ``GET /health``: liveness, without authentication.

With a token every endpoint but ``/health`` needs ``Authorization: Bearer <token>``. Bodies over
``max_body_bytes`` and requests of more than ``max_items`` items are refused (413). Every refusal
is a JSON ``{"error": "..."}`` naming the problem (the item and field for a bad item): 400
malformed JSON, 401 authentication, 404 unknown env or task, 413 too large, 422 wrong shape or
types, 500 a failure outside the verifier. A verifier that raises is not a request error: its
items get status ``error`` results, as everywhere in rlenv. Requests are scored concurrently (a
thread each) through the envs' own pools, or the Ray executor (``executor="ray"``).
"""

from __future__ import annotations

import collections
import json
import logging
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import (
    BaseModel,
    ConfigDict,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from starlette.concurrency import run_in_threadpool

from rlenv.integrations.openrlhf import LABEL_KINDS, RewardFunc
from rlenv.scoring import score_tasks, verifier_identity, verifier_placement
from rlenv.types import Task

logger = logging.getLogger(__name__)

#: Default limit of a request body, bytes.
MAX_BODY_BYTES = 16 * 2**20
#: Default limit of the items of one request.
MAX_ITEMS = 10_000
#: Validation errors quoted in one 422 answer at most.
MAX_QUOTED_ERRORS = 5


class ServiceError(Exception):
    """A request the service refuses: an HTTP status and a message naming the problem."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class ScoreItem(BaseModel):
    """One item of ``POST /score``."""

    model_config = ConfigDict(extra="forbid")

    env_id: StrictStr
    completion: StrictStr
    task_id: StrictStr | StrictInt | None = None
    index: StrictInt | None = None
    reference: Any = None
    prompt: StrictStr | None = None
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_task(self) -> ScoreItem:
        named = [k for k in ("task_id", "index", "reference") if k in self.model_fields_set]
        if len(named) != 1:
            raise ValueError(f"give exactly one of task_id, index or reference (got {named or 'none'})")
        inline = [k for k in ("prompt", "metadata") if k in self.model_fields_set]
        if inline and named != ["reference"]:
            raise ValueError(f"{' and '.join(inline)} only go with reference (an inline task)")
        return self


class OpenRLHFRequest(BaseModel):
    """The body OpenRLHF posts to a remote reward model."""

    model_config = ConfigDict(extra="ignore")

    query: list[StrictStr]
    prompts: list[StrictStr]
    labels: list[Any]


_ITEMS = TypeAdapter(list[ScoreItem])


def _validation_message(exc: ValidationError, what: str) -> str:
    parts = []
    for error in exc.errors()[:MAX_QUOTED_ERRORS]:
        loc = list(error["loc"])
        where = f"{what} {loc.pop(0)}" if what == "item" and loc and isinstance(loc[0], int) else what
        if loc:
            where += f", field {'.'.join(str(p) for p in loc)}"
        parts.append(f"{where}: {error['msg'].removeprefix('Value error, ')}")
    more = exc.error_count() - MAX_QUOTED_ERRORS
    return "; ".join(parts) + (f" (and {more} more errors)" if more > 0 else "")


class _Json(JSONResponse):
    """JSON that also carries what verifiers put in ``details`` beyond plain JSON types (as text)."""

    def render(self, content: Any) -> bytes:
        # ASCII JSON: any str, even one a verifier did not make valid Unicode, renders.
        return json.dumps(content, default=str, ensure_ascii=True).encode("ascii")


class RewardService:
    """The served envs and the scoring behind the endpoints (used by :func:`create_app`).

    Args:
        env_ids: Registered env ids to serve.
        env_kwargs: ``{env_id: kwargs for rlenv.make}``.
        executor, max_workers: How each request's batch is scored (see :func:`rlenv.scoring.score_tasks`).
    """

    def __init__(self, env_ids: Sequence[str], env_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
                 executor: Any = "thread", max_workers: int | None = None):
        env_kwargs = dict(env_kwargs or {})
        if not env_ids:
            raise ValueError("serve at least one env id")
        unknown = sorted(set(env_kwargs) - set(env_ids))
        if unknown:
            raise ValueError(f"env kwargs given for {unknown}, which are not served (served: {list(env_ids)})")
        self.funcs = {env_id: RewardFunc(env_id, executor=executor, max_workers=max_workers,
                                         **env_kwargs.get(env_id, {}))
                      for env_id in env_ids}
        for func in self.funcs.values():
            func.env  # noqa: B018  (build every env now: a bad id or argument fails at start, not on a request)
        self.executor = executor
        self.max_workers = max_workers

    def describe(self) -> list[dict[str, Any]]:
        """``GET /envs``."""
        out = []
        for env_id, func in self.funcs.items():
            base = func.env.unwrapped
            name, version = verifier_identity(base.verifier)
            out.append({"env_id": env_id, "verifier": name, "verifier_version": version,
                        "placement": verifier_placement(base.verifier), "tasks": base.source.size})
        return out

    def _func(self, env_id: str, where: str) -> RewardFunc:
        func = self.funcs.get(env_id)
        if func is None:
            raise ServiceError(404, f"{where}: unknown env_id {env_id!r}; this service scores {list(self.funcs)}")
        return func

    def _task(self, n: int, item: ScoreItem) -> Task:
        base = self._func(item.env_id, f"item {n}").env.unwrapped
        if "reference" in item.model_fields_set:
            return Task("inline", item.prompt or "", reference=item.reference, metadata=item.metadata or {})
        try:
            key = {"task_id": str(item.task_id)} if item.task_id is not None else {"index": item.index}
            return base.source[base.resolve_index(key)]
        except (KeyError, IndexError) as exc:
            raise ServiceError(404, f"item {n}: env {item.env_id!r} has no such task: "
                                    f"{exc.args[0] if exc.args else exc}") from None

    def score(self, items: Sequence[ScoreItem]) -> list[dict[str, Any]]:
        """``POST /score``: one result per item, in order (each env's items scored as one batch)."""
        tasks = [self._task(n, item) for n, item in enumerate(items)]
        by_env: dict[str, list[int]] = collections.defaultdict(list)
        for n, item in enumerate(items):
            by_env[item.env_id].append(n)
        out: list[dict[str, Any] | None] = [None] * len(items)
        for env_id, positions in by_env.items():
            env = self.funcs[env_id].env
            base = env.unwrapped
            clipped = [base.clip_completion(items[n].completion) for n in positions]
            try:
                results = score_tasks(base.verifier, [tasks[n] for n in positions], [text for text, _ in clipped],
                                      executor=self.executor, max_workers=self.max_workers)
                outcome = env.get_wrapper_attr("episode_outcome")
                for n, (text, cut), result in zip(positions, clipped, results, strict=True):
                    reward, _ = outcome(tasks[n], text, result, cut)
                    out[n] = {"env_id": env_id, "task_id": tasks[n].id, "reward": float(reward), "truncated": cut,
                              **result.to_dict()}
            except Exception as exc:  # outside the verifier (whose failures are results): a server error
                logger.exception("scoring %d items of %s failed", len(positions), env_id)
                raise ServiceError(500, f"scoring the items of {env_id} failed: {type(exc).__name__}: {exc}") from exc
        return out  # type: ignore[return-value]

    def get_reward(self, body: OpenRLHFRequest, env_id: str | None, label: str) -> dict[str, Any]:
        """``POST /get_reward`` (OpenRLHF's remote reward-model protocol)."""
        if label not in LABEL_KINDS:
            raise ServiceError(422, f"query parameter label must be one of {LABEL_KINDS}, got {label!r}")
        if env_id is None:
            if len(self.funcs) != 1:
                raise ServiceError(422, f"this service scores several envs: add ?env_id=ID (one of {list(self.funcs)})")
            env_id = next(iter(self.funcs))
        func = self._func(env_id, "get_reward")
        try:
            return func.rewards(body.query, body.prompts, body.labels, label=label)
        except KeyError as exc:
            raise ServiceError(404, f"get_reward: {exc.args[0] if exc.args else exc}") from None
        except (ValueError, TypeError) as exc:
            raise ServiceError(422, f"get_reward: {exc}") from None
        except Exception as exc:
            logger.exception("get_reward on %s failed", env_id)
            raise ServiceError(500, f"get_reward on {env_id} failed: {type(exc).__name__}: {exc}") from exc


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (413) as soon as it is known to exceed ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ServiceError(413, f"the request body has {declared} bytes, over the limit of {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ServiceError(413, f"the request body exceeds the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _parse_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ServiceError(400, f"malformed JSON: {exc}") from None


def create_app(service: RewardService, token: str | None = None, max_body_bytes: int = MAX_BODY_BYTES,
               max_items: int = MAX_ITEMS) -> FastAPI:
    """The FastAPI app serving ``service`` (run it with uvicorn; ``rlenv serve`` does).

    Args:
        service: The envs and how they are scored.
        token: When set, every endpoint but ``/health`` needs ``Authorization: Bearer <token>``.
        max_body_bytes: Largest request body accepted.
        max_items: Most items (``/score``) or queries (``/get_reward``) in one request.
    """
    if max_body_bytes < 1 or max_items < 1:
        raise ValueError(f"max_body_bytes and max_items must be positive, got {max_body_bytes} and {max_items}")
    app = FastAPI(title="rlenv reward service", description=__doc__)

    @app.exception_handler(ServiceError)
    async def _refused(request: Request, exc: ServiceError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse({"error": exc.message}, status_code=exc.status, headers=headers)

    def authorized(request: Request) -> None:
        if token is None:
            return
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given:
            raise ServiceError(401, "missing bearer token: send the header 'Authorization: Bearer <token>'")
        if not secrets.compare_digest(given.strip().encode(), token.encode()):
            raise ServiceError(401, "wrong bearer token")

    def check_count(count: int, what: str) -> None:
        if count > max_items:
            raise ServiceError(413, f"{count} {what} in one request, over the limit of {max_items}")

    @app.get("/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "envs": list(service.funcs)}

    @app.get("/envs", dependencies=[Depends(authorized)])
    def envs() -> list[dict[str, Any]]:
        return service.describe()

    @app.post("/score", dependencies=[Depends(authorized)])
    async def score(request: Request) -> _Json:
        data = _parse_json(await _read_body(request, max_body_bytes))
        if not isinstance(data, list):
            raise ServiceError(422, f"the body must be a JSON list of items, got a JSON {type(data).__name__}")
        check_count(len(data), "items")
        try:
            items = _ITEMS.validate_python(data)
        except ValidationError as exc:
            raise ServiceError(422, _validation_message(exc, "item")) from None
        return _Json(await run_in_threadpool(service.score, items))

    @app.post("/get_reward", dependencies=[Depends(authorized)])
    async def get_reward(request: Request, env_id: str | None = None, label: str = "task_id") -> _Json:
        data = _parse_json(await _read_body(request, max_body_bytes))
        try:
            body = OpenRLHFRequest.model_validate(data)
        except ValidationError as exc:
            raise ServiceError(422, _validation_message(exc, "body")) from None
        check_count(len(body.query), "queries")
        return _Json(await run_in_threadpool(service.get_reward, body, env_id, label))

    return app
