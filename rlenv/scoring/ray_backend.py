"""Scoring on a Ray cluster: ``executor="ray"`` wherever rlenv takes an executor.

A batch is cut into chunks that go to long-lived *scoring actors*, placed by the verifier's
``placement`` (:func:`rlenv.scoring.verifier_placement`):

* ``"cpu"`` (math, format, exact match...): one actor per node. Inside it the verifier runs as it
  does locally, so math checks use that node's own worker pool (:mod:`rlenv.scoring.worker_pool`).
* ``"docker"`` (code): one actor per node where the verifier can run (its ``node_problems()``,
  asked once per node: a Docker engine with the sandbox image). The code verifier's sandbox pool
  lives in that actor's process: containers are node-local.
* ``"model"`` (safety reward models, guards, PRMs): one actor per GPU (``num_gpus=1``) when the
  cluster has GPUs, else one per node. The actor loads the model once and keeps it; forward
  passes are batched as locally (give the verifier ``device="auto"`` to use the GPU).

Each actor scores its chunk with :func:`rlenv.scoring.local.score_locally`, the local code path, so the
results are the local ones, and they come back in input order. An actor or node that dies
mid-batch loses nothing: its chunks go to the other actors. They run there alone, and one that
fails again is split, so an item that kills its process cannot take its neighbours with it: that
item alone ends as an ``error`` result, after ``max_retries`` retries. A verifier exception stays
the per-item ``error`` result it is locally. Dead actors are replaced at the next batch (at once when none is left).

Verifiers are sent to the actors once (by object identity, the last :data:`MAX_VERIFIERS` used)
and kept there: a verifier must not be mutated after its first distributed batch.

Ray is imported with this module, which :func:`rlenv.scoring.make_executor` imports only for
``"ray"``. ``pip install 'rlenv-lm[ray]'``; every node needs rlenv installed, and model
checkpoints must be readable on every node (a shared path or a hub name).
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import math
import os
import socket
import sys
import threading
import uuid
from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from rlenv.errors import RlenvError
from rlenv.scoring.local import node_problems, score_locally, verifier_identity, verifier_placement
from rlenv.types import RewardResult, Task, Verifier

try:
    import ray
    from ray._private.authentication.authentication_constants import (
        TOKEN_AUTH_ENABLED_BUT_NO_TOKEN_FOUND_ERROR_MESSAGE,
        TOKEN_INVALID_ERROR_MESSAGE,
    )
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"executor='ray' needs Ray ({exc}): pip install 'rlenv-lm[ray]'") from exc

logger = logging.getLogger(__name__)

#: Verifiers kept on the actors at most (least recently used ones are dropped first).
MAX_VERIFIERS = 32
#: Seconds without a finished call before a warning says the actors may not be scheduled.
WAIT_WARNING_S = 60
#: Seconds a Ray cluster's port may take to answer a connection attempt.
CONNECT_TIMEOUT_S = 10.0
#: Modules shipped to the workers when this process connected (:func:`connect`).
_shipped: set[str] = set()


class NoScoringNodes(RlenvError, RuntimeError):
    """No live node of the cluster can run a verifier of this placement (e.g. no node has Docker)."""


class RayConnectionError(RlenvError, ConnectionError):
    """This process cannot connect to the Ray cluster; the message says what to do."""


def _address(address: str | None) -> tuple[str | None, str]:
    """The cluster ``ray.init(address)`` would connect to, and where that came from: ``address``
    itself, the ``RAY_ADDRESS`` variable, or the record of a cluster started on this machine
    (``ray start``); ``(None, ...)`` when ``ray.init`` would start a new local cluster."""
    from ray._common.utils import get_ray_address_file  # where `ray start` records its cluster

    if address not in (None, "auto"):
        return address, "--ray-address"
    if os.environ.get("RAY_ADDRESS"):
        return os.environ["RAY_ADDRESS"], "RAY_ADDRESS"
    record = get_ray_address_file(None)
    if os.path.exists(record):
        with open(record, encoding="utf-8") as fh:
            return fh.read().strip(), record
    if address == "auto":
        raise RayConnectionError("no Ray cluster runs on this machine (address 'auto'): start one with "
                                 "`ray start --head`, or name one with --ray-address / RAY_ADDRESS")
    return None, "a new local cluster"


def _check_reachable(address: str, origin: str) -> None:
    """Fail within :data:`CONNECT_TIMEOUT_S` when nothing answers on the cluster's GCS port."""
    if "://" in address or address == "local":  # Ray Client addresses and explicit local starts
        return
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except (OSError, ValueError) as exc:
        if origin not in ("--ray-address", "RAY_ADDRESS"):
            raise RayConnectionError(
                f"a Ray cluster started on this machine is recorded at {address} ({origin}) but does not answer "
                f"({exc}): it was stopped without `ray stop`. Start it again (`ray start --head`), delete {origin} "
                "to start a new local cluster, or name a cluster with --ray-address / RAY_ADDRESS") from None
        raise RayConnectionError(
            f"cannot reach the Ray cluster at {address} ({origin}) within {CONNECT_TIMEOUT_S:g} s: {exc}. Is "
            "`ray start --head` running there, and is its port (6379 by default) open to this machine?") from None


def _refused_token(exc: Exception) -> bool:
    """Whether ``exc`` (raised while connecting) is Ray's token authentication refusing this process:
    an ``AuthenticationError``, or the ``RuntimeError`` whose text ends with the last connection
    error's traceback (Ray gives no other sign of it)."""
    text = str(exc)
    return isinstance(exc, ray.exceptions.AuthenticationError) or any(
        sign in text for sign in (TOKEN_AUTH_ENABLED_BUT_NO_TOKEN_FOUND_ERROR_MESSAGE, TOKEN_INVALID_ERROR_MESSAGE,
                                  "AuthenticationError", "InvalidAuthToken", "UNAUTHENTICATED"))


def connect(address: str | None = None, modules: Sequence[str] = ()) -> None:
    """Connect this process to the Ray cluster at ``address`` (``ray.init``'s rules when None: the
    ``RAY_ADDRESS`` variable, a cluster started on this machine, else a new local one), shipping
    the imported ``modules`` (e.g. one that registers an env, ``--import``) to the workers through
    the job's runtime environment (``py_modules``).

    Every attempt is bounded: a recorded or named cluster that does not answer its port within
    :data:`CONNECT_TIMEOUT_S` is a :class:`RayConnectionError` saying what to do, and so is a
    token the cluster refuses (Ray's token authentication: see docs/scale-out.md).
    Already connected: nothing happens, unless ``address`` names another cluster or ``modules``
    were not shipped when this process connected (a ``ValueError``).
    """
    if ray.is_initialized():
        current = ray.get_runtime_context().gcs_address
        if address not in (None, "auto", current):
            raise ValueError(f"this process is already connected to the Ray cluster at {current}, not {address!r}")
        missing = sorted(set(modules) - _shipped)
        if missing:
            raise ValueError(f"this process connected to Ray without the modules {missing}: they cannot be shipped "
                             "to the workers now (connect with them first)")
        return
    target, origin = _address(address)
    if target is not None:
        _check_reachable(target, origin)
    runtime_env = {"py_modules": [sys.modules[name] for name in modules]} if modules else None
    try:
        ray.init(address=target, logging_level=logging.WARNING, runtime_env=runtime_env)
    except (ConnectionError, RuntimeError) as exc:
        cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
        if not _refused_token(cause):
            raise RayConnectionError(f"cannot connect to the Ray cluster at {target} ({origin}): "
                                     f"{type(cause).__name__}: {str(cause).splitlines()[0]}") from None
        raise RayConnectionError(
            f"the Ray cluster at {target} ({origin}) refused this process's authentication token: "
            f"{str(exc).splitlines()[0]}. Give this process the cluster's token: RAY_AUTH_MODE=token and "
            "RAY_AUTH_TOKEN=<the token> (`ray get-auth-token` on the head node prints it; or RAY_AUTH_TOKEN_PATH, "
            "default ~/.ray/auth_token)") from None
    _shipped.update(modules)
    logger.info("connected to the Ray cluster at %s (%d live nodes)", ray.get_runtime_context().gcs_address,
                len(_live_nodes()))


def _live_nodes() -> list[dict[str, Any]]:
    return [node for node in ray.nodes() if node.get("Alive")]


@ray.remote(num_cpus=0, max_retries=0)
def _node_problems(boxed: list[Any]) -> list[str]:
    """:func:`rlenv.scoring.node_problems` of the verifier in ``boxed[0]``, on the node this runs on."""
    return node_problems(ray.get(boxed[0]))


@ray.remote(max_restarts=0, max_concurrency=8)  # type: ignore[call-overload]  # ray's stubs omit actor options
class ScoringActor:
    """Holds verifiers and scores chunks with :func:`rlenv.scoring.local.score_locally` in its node's pools."""

    def __init__(self) -> None:
        self._verifiers: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._scored = 0

    def node_id(self) -> str:
        """The id of the node this actor runs on."""
        return ray.get_runtime_context().get_node_id()

    def scored(self) -> int:
        """Items this actor has scored."""
        return self._scored

    def score(self, key: str, boxed: list[Any], tasks: list[Task], completions: list[str]) -> list[RewardResult]:
        """Score a chunk with the verifier stored under ``key`` (fetched from ``boxed[0]`` on first use)."""
        with self._lock:
            verifier = self._verifiers.get(key)
            if verifier is None:
                verifier = self._verifiers[key] = ray.get(boxed[0])
        results = score_locally(verifier, tasks, completions, executor="thread")
        with self._lock:
            self._scored += len(results)
        return results

    def forget(self, key: str) -> None:
        """Drop a verifier (and, for a model verifier, its model once no other verifier uses it)."""
        with self._lock:
            self._verifiers.pop(key, None)


@dataclasses.dataclass
class _Chunk:
    positions: list[int]
    attempts: int = 0  # > 0: a suspect (its actor died while scoring it)


def chunk_positions(tasks: Sequence[Task], size: int, whole_groups: bool) -> list[list[int]]:
    """The positions of ``tasks`` cut into chunks of about ``size``; with ``whole_groups``, the
    positions of one task id stay in one chunk (a chunk then holds at least one whole group)."""
    if not whole_groups:
        return [list(range(s, min(s + size, len(tasks)))) for s in range(0, len(tasks), size)]
    groups: dict[str, list[int]] = {}
    for i, task in enumerate(tasks):
        groups.setdefault(task.id, []).append(i)
    chunks: list[list[int]] = [[]]
    for members in groups.values():
        if chunks[-1] and len(chunks[-1]) + len(members) > size:
            chunks.append([])
        chunks[-1].extend(members)
    return chunks


class _Batch:
    """The chunks of one batch on the actors: fresh chunks pipelined ``in_flight`` deep per actor;
    suspects (chunks whose actor died) run alone on an idle actor, so a death among them is theirs."""

    def __init__(self, chunks: Sequence[list[int]], in_flight: int):
        self.pending = collections.deque(_Chunk(positions) for positions in chunks)
        self.suspects: collections.deque[_Chunk] = collections.deque()
        self.running: dict[Any, tuple[Any, _Chunk]] = {}  # object ref -> (actor, chunk)
        self.in_flight = in_flight
        self._load: collections.Counter = collections.Counter()
        self._alone: set[Any] = set()

    @property
    def unfinished(self) -> bool:
        return bool(self.pending or self.suspects or self.running)

    def dispatch(self, actors: Sequence[Any], send: Any) -> list[Any]:
        """Give each actor work: a suspect when it is idle, else fresh chunks up to ``in_flight``.
        Returns the actors Ray refused a call to (dead before this batch reached them: Ray raises
        at submission); their chunks went back where they came from."""
        refused = []
        for actor in actors:
            if actor in self._alone:
                continue
            if self.suspects and not self._load[actor]:
                if self._start(actor, self.suspects, send):
                    self._alone.add(actor)
                else:
                    refused.append(actor)
                continue
            while self.pending and self._load[actor] < self.in_flight:
                if not self._start(actor, self.pending, send):
                    refused.append(actor)
                    break
        return refused

    def _start(self, actor: Any, queue: collections.deque[_Chunk], send: Any) -> bool:
        """Send ``queue``'s first chunk to ``actor``; False (the chunk left in ``queue``) when Ray refuses the call."""
        try:
            ref = send(actor, queue[0])
        except Exception as exc:  # ray raises a bare Exception for a call to an actor it knows is dead
            logger.warning("Ray refused a call to a scoring actor (%s); its work goes to the other actors",
                           str(exc).splitlines()[0])
            return False
        self.running[ref] = (actor, queue.popleft())
        self._load[actor] += 1
        return True

    def finished(self, ref: Any) -> tuple[Any, _Chunk]:
        actor, chunk = self.running.pop(ref)
        self._load[actor] -= 1
        self._alone.discard(actor)
        return actor, chunk


class _ActorGroup:
    """The scoring actors of one placement, one per eligible slot (node, or GPU for models)."""

    def __init__(self, placement: str, actor_options: dict[str, Any], probe: list[Any] | None):
        self.placement = placement
        self.actor_options = actor_options
        self.actors: dict[Any, str] = {}  # actor handle -> node id
        self._probe = probe  # the boxed verifier whose node_problems() decide where "docker" actors go
        self._usable: dict[str, bool] = {}

    def _slots(self) -> list[tuple[str, dict[str, Any]]]:
        nodes = _live_nodes()
        if self.placement == "docker" and self._probe is not None:
            unknown = [n["NodeID"] for n in nodes if n["NodeID"] not in self._usable]
            probes = [_node_problems.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False))
                      .remote(self._probe) for node in unknown]
            for node, problems in zip(unknown, ray.get(probes)):
                self._usable[node] = not problems
                if problems:
                    logger.warning("Ray node %s cannot run %s verifiers: %s", node, self.placement, "; ".join(problems))
            nodes = [n for n in nodes if self._usable[n["NodeID"]]]
        if self.placement == "model" and any(n["Resources"].get("GPU", 0) >= 1 for n in nodes):
            return [(n["NodeID"], {"num_gpus": 1}) for n in nodes for _ in range(int(n["Resources"].get("GPU", 0)))]
        return [(n["NodeID"], {}) for n in nodes]

    def refresh(self) -> None:
        """Start an actor on every eligible slot that has none (after node joins and actor deaths)."""
        have = collections.Counter(self.actors.values())
        for node, resources in self._slots():
            if have[node] > 0:
                have[node] -= 1
                continue
            options = {"num_cpus": 0, **self.actor_options, **resources,
                       "scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=False)}
            self.actors[ScoringActor.options(**options).remote()] = node  # type: ignore[attr-defined]  # an ActorClass
            logger.info("started a %s scoring actor on Ray node %s", self.placement, node)

    def drop(self, actor: Any) -> None:
        self.actors.pop(actor, None)


class RayExecutor:
    """Scores batches on a Ray cluster; see the module docstring. Pass it (or ``"ray"``) as ``executor``.

    Args:
        chunk_size: Most items in one actor call. A batch is cut into chunks of at most this size,
            small enough that every actor gets ``in_flight`` of them; big chunks keep the per-call
            cost (a round trip, pickling) small against cheap checks such as math.
        in_flight: Chunks sent ahead to each actor (so it never idles on the round trip).
        max_retries: Times an item is retried after the actor scoring it alone died, before it gets
            an ``error`` result.
        actor_options: Extra ``ray.remote`` options of the scoring actors (e.g. ``{"num_cpus": 1}``:
            by default they reserve no CPU, their work runs in the node's worker processes and
            containers, which Ray does not schedule).
        shared: Whether this is the process's shared executor (``"ray"``): never shut down by the
            functions that use it.

    The cluster is the one this process is connected to (:func:`connect` is called on first use).
    Thread-safe: several threads (e.g. the reward service's) may score at once.
    """

    def __init__(self, chunk_size: int = 256, in_flight: int = 2, max_retries: int = 3,
                 actor_options: dict[str, Any] | None = None, shared: bool = False):
        for name, value in (("chunk_size", chunk_size), ("in_flight", in_flight)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        self.chunk_size, self.in_flight, self.max_retries = chunk_size, in_flight, max_retries
        self.actor_options = dict(actor_options or {})
        self.shared = shared
        self.job_id: str | None = None
        self.retried_chunks = 0
        self.failed_calls = 0
        self._groups: dict[str, _ActorGroup] = {}
        self._verifiers: collections.OrderedDict[int, tuple[Any, str, Any]] = collections.OrderedDict()
        self._lock = threading.RLock()
        self._closed = False
        self._warned: set[str] = set()  # failures already logged: each once

    # -- actors and verifiers
    def _group(self, verifier: Verifier) -> tuple[_ActorGroup, str, list[Any]]:
        """The actor group of ``verifier``'s placement (started or refreshed), and the verifier's key
        and boxed object ref on the actors."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this RayExecutor was shut down")
            if self.job_id is None:
                connect()
                self.job_id = ray.get_runtime_context().get_job_id()
            key, boxed = self._stored(verifier)
            placement = verifier_placement(verifier)
            group = self._groups.get(placement)
            if group is None:
                group = self._groups[placement] = _ActorGroup(placement, self.actor_options, boxed)
            group.refresh()
            if not group.actors:
                raise NoScoringNodes(f"no live node of the Ray cluster can score {placement!r} verifiers"
                                     + (" (see the warnings above: e.g. no node has a Docker engine with the "
                                        "sandbox image, `rlenv sandbox doctor` says why)" if placement == "docker" else ""))
            return group, key, boxed

    def actors(self, verifier: Verifier) -> list[Any]:
        """The live scoring actors that would score ``verifier`` (started if needed)."""
        return list(self._group(verifier)[0].actors)

    def _stored(self, verifier: Verifier) -> tuple[str, list[Any]]:
        """The key and boxed object ref of ``verifier`` on the actors (stored on first use)."""
        with self._lock:
            entry = self._verifiers.get(id(verifier))
            if entry is not None and entry[0] is verifier:
                self._verifiers.move_to_end(id(verifier))
                return entry[1], [entry[2]]
            try:
                ref = ray.put(verifier)
            except Exception as exc:
                raise TypeError(f"verifier {verifier!r:.100} cannot be sent to Ray actors (it must pickle): "
                                f"{type(exc).__name__}: {exc}") from exc
            key = uuid.uuid4().hex
            self._verifiers[id(verifier)] = (verifier, key, ref)
            while len(self._verifiers) > MAX_VERIFIERS:
                _, (_, old_key, _) = self._verifiers.popitem(last=False)
                for group in self._groups.values():
                    for actor in group.actors:
                        actor.forget.remote(old_key)
            return key, [ref]

    # -- scoring
    def score(self, verifier: Verifier, tasks: Sequence[Task], completions: Sequence[str],
              max_workers: int | None = None, progress: bool = False) -> list[RewardResult]:
        """Score ``completions[i]`` against ``tasks[i]`` on the cluster; one result per item, in input order.

        ``max_workers`` caps the scoring actors used for this batch.
        """
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        if max_workers is not None and (not isinstance(max_workers, int) or max_workers < 1):
            raise ValueError(f"max_workers must be a positive int or None, got {max_workers!r}")
        if not tasks:
            return []
        group, key, boxed = self._group(verifier)
        placement = group.placement
        tasks, completions = list(tasks), list(completions)
        with self._lock:
            actors = list(group.actors)[:max_workers]
            nodes = dict(group.actors)
        size = max(1, min(self.chunk_size, math.ceil(len(tasks) / (len(actors) * self.in_flight))))
        batch = _Batch(chunk_positions(tasks, size, bool(getattr(verifier, "whole_groups", False))), self.in_flight)
        results: list[RewardResult | None] = [None] * len(tasks)
        bar = tqdm(total=len(tasks), desc=f"scoring on Ray ({placement})", unit="sample",
                   disable=None if progress else True, leave=False)

        def send(actor: Any, chunk: _Chunk) -> Any:
            return actor.score.remote(key, boxed, [tasks[i] for i in chunk.positions],
                                      [completions[i] for i in chunk.positions])

        try:
            while batch.unfinished:
                refused = batch.dispatch(actors, send)
                if refused:
                    with self._lock:
                        self.failed_calls += len(refused)
                        for actor in refused:
                            group.drop(actor)
                    actors = [a for a in actors if a not in refused]
                if not batch.running:  # every actor died: start new ones on the nodes still alive
                    actors, nodes = self._replace_all(group, max_workers)
                    continue
                done, _ = ray.wait(list(batch.running), num_returns=1, timeout=WAIT_WARNING_S)
                if not done:
                    logger.warning("no Ray scoring call finished in %d s: are the %s actors scheduled? they ask "
                                   "for %s (free in the cluster: %s)", WAIT_WARNING_S, placement,
                                   {"num_cpus": 0, **self.actor_options}, ray.available_resources())
                    continue
                actor, chunk = batch.finished(done[0])
                scored = self._collect(done[0], verifier, chunk, actor, nodes[actor], group)
                if scored is None:
                    actors = [a for a in actors if a is not actor]
                    batch.suspects.extend(self._retry(chunk, verifier, results))
                    continue
                for i, result in zip(chunk.positions, scored, strict=True):
                    results[i] = result
                bar.update(len(chunk.positions))
        finally:
            bar.close()
        return results  # type: ignore[return-value]

    def _collect(self, ref: Any, verifier: Verifier, chunk: _Chunk, actor: Any, node: str,
                 group: _ActorGroup) -> list[RewardResult] | None:
        """A finished chunk's results; None when its actor died (the chunk must be retried)."""
        try:
            scored = ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # the actor method itself raised: a per-item error
            message = _remote_failure(exc, node)
            with self._lock:
                first = message not in self._warned
                self._warned.add(message)
            if first:
                logger.warning("a Ray scoring call failed: %s", message)
            return [RewardResult.error(f"Ray scoring failed: {message}", *verifier_identity(verifier))
                    for _ in chunk.positions]
        except ray.exceptions.RayError as exc:  # the actor or its node died
            logger.warning("a Ray scoring actor on node %s failed (%s: %s); its %d items go to another actor",
                           node, type(exc).__name__, str(exc).splitlines()[0],
                           len(chunk.positions))
            with self._lock:
                self.failed_calls += 1
                group.drop(actor)
            return None
        if len(scored) != len(chunk.positions):  # score_tasks guarantees it; checked so nothing is lost silently
            return [RewardResult.error(f"a Ray actor returned {len(scored)} results for {len(chunk.positions)} items",
                                       *verifier_identity(verifier)) for _ in chunk.positions]
        return scored

    def _retry(self, chunk: _Chunk, verifier: Verifier, results: list[RewardResult | None]) -> list[_Chunk]:
        """What to run again after ``chunk``'s actor died: the chunk as a suspect after its first
        failure (it may have died with a neighbour), its halves after a failure alone, a single item
        again until it has died alone ``max_retries + 1`` times (then it gets its ``error`` result here)."""
        with self._lock:
            self.retried_chunks += 1
        if not chunk.attempts:
            return [_Chunk(chunk.positions, 1)]
        if len(chunk.positions) > 1:
            half = len(chunk.positions) // 2
            return [_Chunk(chunk.positions[:half], 1), _Chunk(chunk.positions[half:], 1)]
        chunk.attempts += 1
        if chunk.attempts > self.max_retries + 1:
            results[chunk.positions[0]] = RewardResult.error(
                f"the Ray actor scoring this item alone died {chunk.attempts - 1} times (its verifier may crash "
                "the process)", *verifier_identity(verifier))
            return []
        return [chunk]

    def _replace_all(self, group: _ActorGroup, max_workers: int | None) -> tuple[list[Any], dict[Any, str]]:
        with self._lock:
            group.refresh()
            if not group.actors:
                raise NoScoringNodes(f"every Ray node that could score {group.placement!r} verifiers is gone")
            return list(group.actors)[:max_workers], dict(group.actors)

    def shutdown(self, wait: bool = True) -> None:
        """Kill the scoring actors (their models, worker pools and containers go with them)."""
        with self._lock:
            self._closed = True
            groups, self._groups = self._groups, {}
            self._verifiers.clear()
        if not ray.is_initialized():
            return
        for group in groups.values():
            for actor in group.actors:
                ray.kill(actor)


def _remote_failure(exc: Any, node: str) -> str:
    """One line for an exception raised in a scoring actor: its cause and the node, without Ray's
    forwarded traceback and colour codes."""
    cause = getattr(exc, "cause", None) or exc
    lines = str(cause).strip().splitlines() or [type(cause).__name__]
    if isinstance(cause, ImportError):
        return (f"{lines[-1]} on node {node} (a module this process imports but that node cannot: pass it to "
                "--import, or ray.init(runtime_env={'py_modules': [module]}), or install it on every node)")
    return f"{type(cause).__name__}: {lines[-1]} on node {node}"


_shared: RayExecutor | None = None
_shared_lock = threading.Lock()


def shared_executor() -> RayExecutor:
    """The process's shared :class:`RayExecutor` (what ``executor="ray"`` means), for the Ray session
    this process is connected to (a new one after ``ray.shutdown()`` and ``ray.init()``)."""
    global _shared
    with _shared_lock:
        connect()
        job = ray.get_runtime_context().get_job_id()
        if _shared is None or _shared.job_id != job:
            _shared = RayExecutor(shared=True)
            _shared.job_id = job
        return _shared
