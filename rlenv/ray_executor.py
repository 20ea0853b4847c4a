"""Scoring on a Ray cluster: ``executor="ray"`` wherever an executor is accepted.

A :class:`RayExecutor` keeps scoring actors on the cluster's nodes, one pool per *placement* a
verifier declares (:func:`verifier_placement`: its ``placement`` attribute, or one of the
verifiers it combines):

* ``"cpu"`` (math, format, exact match, ...): ``actors_per_node`` on every alive node;
* ``"docker"`` (code): one actor on each node where the verifier class's ``node_ready()`` is true
  (the code verifier's: Docker runs and has the sandbox image; probed once per node), so the warm
  container pool in that actor is node-local;
* ``"model"`` (reward models, guards, PRMs): one actor per GPU (``num_gpus=1``) when the cluster
  has GPUs, else ``actors_per_node`` per node; the model loads once per actor.

A batch is cut into chunks; each chunk is scored by one actor with :func:`rlenv.score_tasks` in
that actor's process (the math worker pool, the sandbox pool and the model are the actor's own).
The verifier travels through the object store and is unpickled once per actor (cached by the
digest of its pickle).

Nothing is lost: a chunk whose actor died (killed, OOM, node gone) is given to a new actor,
up to ``max_retries`` times; after that its items come back as status ``error`` naming the failure.
Verifier errors stay per-item ``error`` results, as with the local executors. Results come back in
input order. ``ray`` is imported only when an executor is built (``pip install 'rlenv-lm[ray]'``).
"""

from __future__ import annotations

import collections
import hashlib
import logging
import pickle
import threading
from collections.abc import Sequence
from typing import Any

from tqdm.auto import tqdm

from rlenv.scoring import score_tasks, verifier_identity
from rlenv.types import RewardResult, Task

logger = logging.getLogger(__name__)

_SHARED: dict[str | None, RayExecutor] = {}
#: Placements, strongest first: a verifier combining several needs the first one it has.
PLACEMENTS = ("docker", "model", "cpu")
#: Seconds without a finished chunk before a warning says the actors may not be scheduled.
WAIT_WARNING_S = 60
_SHARED_LOCK = threading.Lock()


def verifier_placement(verifier: Any) -> str:
    """Where ``verifier`` must run: ``"docker"``, ``"model"`` or ``"cpu"``, from the ``placement``
    attribute it or a verifier it combines (a weighted sum, a gate, a wrapper's inner verifier) declares."""
    return _placement(verifier)[0]


def _placement(verifier: Any) -> tuple[str, Any]:
    """``(placement, probe)``: the placement and the ``node_ready()`` check of the class declaring it
    (None: every node can)."""
    found: dict[str, Any] = {}
    pending, seen = [verifier], set()
    while pending and len(seen) < 256:
        item = pending.pop()
        if id(item) in seen or isinstance(item, (str, bytes, int, float, type)) or item is None:
            continue
        seen.add(id(item))
        placement = getattr(type(item), "placement", None)
        if placement in PLACEMENTS:
            found.setdefault(placement, getattr(type(item), "node_ready", None))
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif hasattr(item, "__dict__"):
            pending.extend(vars(item).values())
    placement = next((p for p in PLACEMENTS if p in found), "cpu")
    return placement, found.get(placement)


class _ScoringActor:
    """One scoring process on a node: caches verifiers by digest, scores chunks with score_tasks."""

    def __init__(self, max_workers: int | None):
        self.max_workers = max_workers
        self.verifiers: dict[str, Any] = {}

    def score(self, digest: str, payload: bytes, tasks: list[Task], completions: list[str]) -> list[RewardResult]:
        if digest not in self.verifiers:  # once per actor: a model verifier loads its model here, once
            self.verifiers[digest] = pickle.loads(payload)
        return score_tasks(self.verifiers[digest], tasks, completions, executor="thread", max_workers=self.max_workers)

    def node_id(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()


class RayExecutor:
    """Scores batches on a Ray cluster (see the module docstring).

    Args:
        address: the cluster to join (``ray.init(address=...)``: ``"auto"``, ``"ray://host:10001"``...);
            None joins the cluster this process is already connected to, or starts a local one.
        actors_per_node: scoring actors on each alive node.
        chunk_size: items per actor call.
        max_workers: threads per actor for verifiers without ``score_batch``.
        num_cpus, num_gpus: resources of each actor (``num_gpus`` for reward-model verifiers).
        max_retries: attempts of a chunk on new actors after its actor died.
        init_kwargs: more ``ray.init`` arguments when this executor starts or joins the cluster.
    """

    def __init__(self, address: str | None = None, *, actors_per_node: int = 1, chunk_size: int = 64,
                 max_workers: int | None = None, num_cpus: float = 1, num_gpus: float = 0, max_retries: int = 3,
                 init_kwargs: dict[str, Any] | None = None):
        try:
            import ray
        except ImportError as exc:
            raise ImportError("executor='ray' needs Ray: pip install 'rlenv-lm[ray]'") from exc
        if actors_per_node < 1 or chunk_size < 1 or max_retries < 0:
            raise ValueError(f"actors_per_node and chunk_size must be >= 1 and max_retries >= 0, got "
                             f"{actors_per_node}, {chunk_size}, {max_retries}")
        self._ray = ray
        if ray.is_initialized():
            current = ray.get_runtime_context().gcs_address
            if address not in (None, "auto", current):
                raise ValueError(f"this process is already connected to the Ray cluster at {current}, not {address!r}")
        else:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False, **(init_kwargs or {}))
        self.chunk_size, self.max_retries = chunk_size, max_retries
        self.actors_per_node, self._max_workers = actors_per_node, max_workers
        self._resources = (num_cpus, num_gpus)
        self._lock = threading.Lock()
        self._lost = tuple(getattr(ray.exceptions, name) for name in
                           ("RayActorError", "ActorUnavailableError", "ObjectLostError") if hasattr(ray.exceptions, name))
        self._pools: dict[str, list[tuple[Any, Any]]] = {}  # placement -> [(actor, how to start another)]
        self._pool("cpu")  # started at once: a wrong address or a full cluster shows here

    def _nodes(self) -> list[str]:
        return [n["NodeID"] for n in self._ray.nodes() if n.get("Alive")]

    def _start(self, options: dict[str, Any]) -> Any:
        actor_class = self._ray.remote(num_cpus=options.get("num_cpus", self._resources[0]),
                                       num_gpus=options.get("num_gpus", self._resources[1]))(_ScoringActor)
        return actor_class.options(scheduling_strategy=options["strategy"]).remote(self._max_workers)

    def _pool(self, placement: str, probe: Any = None) -> list[Any]:
        """The actors of ``placement`` (started on first use, on the nodes where ``probe()`` is true
        for a ``"docker"`` placement); empty when no node can host them."""
        if placement not in self._pools:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            ray = self._ray
            plans: list[dict[str, Any]] = []
            if placement == "docker":
                nodes = self._nodes()
                ready = [True] * len(nodes) if probe is None else ray.get([
                    ray.remote(num_cpus=0)(probe).options(
                        scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False)).remote() for n in nodes])
                plans = [{"strategy": NodeAffinitySchedulingStrategy(n, soft=False)}
                         for n, ok in zip(nodes, ready, strict=True) if ok]
            elif placement == "model" and ray.cluster_resources().get("GPU", 0) >= 1:
                plans = [{"strategy": "SPREAD", "num_gpus": 1}] * int(ray.cluster_resources()["GPU"])
            else:
                plans = [{"strategy": "SPREAD"}] * (max(1, len(self._nodes())) * self.actors_per_node)
            self._pools[placement] = [(self._start(plan), plan) for plan in plans]
        return [actor for actor, _ in self._pools[placement]]

    def node_ids(self, placement: str = "cpu", probe: Any = None) -> list[str]:
        """The node of each actor of ``placement`` (started with ``probe`` if not yet), in order."""
        return self._ray.get([actor.node_id.remote() for actor in self._pool(placement, probe)])

    def score(self, verifier: Any, tasks: Sequence[Task], completions: Sequence[str],
              progress: bool = False) -> list[RewardResult]:
        """Score ``completions[i]`` against ``tasks[i]`` on the cluster; results in input order."""
        if len(tasks) != len(completions):
            raise ValueError(f"got {len(tasks)} tasks but {len(completions)} completions")
        if not tasks:
            return []
        data = pickle.dumps(verifier)
        digest, payload = hashlib.sha256(data).hexdigest(), self._ray.put(data)
        chunks = [(start, list(tasks[start:start + self.chunk_size]), [str(c) for c in
                   completions[start:start + self.chunk_size]]) for start in range(0, len(tasks), self.chunk_size)]
        results: list[RewardResult | None] = [None] * len(tasks)
        placement, probe = _placement(verifier)
        with self._lock:
            pool = self._pool(placement, probe)
        if not pool:
            failed = RewardResult.error(f"no node of the Ray cluster can run this verifier (placement {placement!r}: "
                                        "no node has a Docker engine with the sandbox image)",
                                        *verifier_identity(verifier))
            return [failed] * len(tasks)
        with self._lock, tqdm(total=len(tasks), desc="scoring (ray)", unit="sample",
                              disable=None if progress else True, leave=False) as bar:
            self._run(self._pools[placement], chunks, digest, payload, results, verifier, bar)
        return results  # type: ignore[return-value]

    def _run(self, pool: list[tuple[Any, Any]], chunks: list[tuple[int, list[Task], list[str]]], digest: str,
             payload: Any, results: list[RewardResult | None], verifier: Any, bar: Any) -> None:
        ray = self._ray
        pending = collections.deque(range(len(chunks)))
        attempts = [0] * len(chunks)
        idle = list(range(len(pool)))
        running: dict[Any, tuple[int, int]] = {}  # object ref -> (chunk, actor slot)
        while pending or running:
            while pending and idle:
                chunk, slot = pending.popleft(), idle.pop()
                _, tasks, completions = chunks[chunk]
                running[pool[slot][0].score.remote(digest, payload, tasks, completions)] = (chunk, slot)
            done, _ = ray.wait(list(running), num_returns=1, timeout=WAIT_WARNING_S)
            if not done:
                logger.warning("no scoring chunk finished in %d s: are the actors scheduled? each needs %s CPU(s) "
                               "and %s GPU(s) (cluster resources: %s)", WAIT_WARNING_S, self._resources[0],
                               self._resources[1], ray.available_resources())
                continue
            chunk, slot = running.pop(done[0])
            start, tasks, _ = chunks[chunk]
            try:
                chunk_results = ray.get(done[0])
            except ray.exceptions.RayTaskError as exc:  # the actor lives: e.g. the verifier does not unpickle there
                text = f"scoring on the cluster failed: {exc.cause!r}" if exc.cause is not None else str(exc)
                chunk_results = [RewardResult.error(text[:2000], *verifier_identity(verifier))] * len(tasks)
            except self._lost as exc:
                logger.warning("scoring actor %d died (%s): chunk of %d items goes to a new actor", slot,
                               type(exc).__name__, len(tasks))
                pool[slot] = (self._start(pool[slot][1]), pool[slot][1])
                attempts[chunk] += 1
                if attempts[chunk] > self.max_retries:
                    failed = RewardResult.error(f"scoring actor died {attempts[chunk]} times: {exc}",
                                                *verifier_identity(verifier))
                    chunk_results = [failed] * len(tasks)
                else:
                    pending.appendleft(chunk)
                    idle.append(slot)
                    continue
            results[start:start + len(chunk_results)] = chunk_results
            bar.update(len(chunk_results))
            idle.append(slot)

    @property
    def actors(self) -> list[Any]:
        """The actors of the ``"cpu"`` placement (the others: :meth:`node_ids` of a placement)."""
        return [actor for actor, _ in self._pools.get("cpu", [])]

    def shutdown(self, wait: bool = True) -> None:
        """Kill this executor's actors (the cluster itself keeps running)."""
        for pool in self._pools.values():
            for actor, _ in pool:
                self._ray.kill(actor)
        self._pools = {}


def shared_ray_executor(address: str | None = None) -> RayExecutor:
    """The process's :class:`RayExecutor` for ``address`` (built on first use, then reused)."""
    with _SHARED_LOCK:
        executor = _SHARED.get(address)
        if executor is None or not executor.actors:
            executor = _SHARED[address] = RayExecutor(address)
        return executor
