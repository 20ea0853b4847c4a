"""A pool of warm sandbox containers that runs jobs concurrently.

* One worker thread per container takes jobs from a bounded queue (backpressure: ``submit``
  blocks while the queue is full). Each container runs one job at a time.
* Every submitted job resolves to exactly one :class:`~rlenv.sandbox.jobs.JobResult`; engine or
  container failures become ``sandbox_error`` results, never exceptions from the future.
* A container that dies, breaks the protocol or does not answer by the job's deadline plus
  ``reply_grace_s`` (wedged) is killed and replaced before the worker's next job.
* Containers start lazily on the first job. :func:`shared_pool` gives the one pool shared by
  every environment of a process. Pools remove their containers on ``close()``, at interpreter
  exit (including after Ctrl-C), and — through ``stdin_once`` — when the process dies.
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures as cf
import dataclasses
import itertools
import logging
import os
import queue
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from tqdm.auto import tqdm

from rlenv.sandbox.container import (
    ContainerError,
    ContainerSession,
    ContainerSpec,
    leaked_containers,
    remove_containers,
)
from rlenv.sandbox.errors import SandboxError
from rlenv.sandbox.jobs import Job, JobResult, encode_header, encode_parts

logger = logging.getLogger(__name__)

_STOP = object()
#: Container memory kept for the runner and the grader, MiB.
RUNNER_RESERVE_MB = 96
#: Jobs larger than this (encoded) are never sent while another job runs in the container.
PIPELINE_MAX_BYTES = 32 << 10
_LIVE_POOLS: weakref.WeakSet[SandboxPool] = weakref.WeakSet()


class SandboxUnavailable(SandboxError):
    """No sandbox container could be started (engine missing, image missing, ...)."""


class SandboxBusy(SandboxError):
    """``submit(timeout=...)`` waited that long for room in the queue."""


def docker_client(timeout_s: float = 60.0) -> Any:
    """A Docker client from the environment (``DOCKER_HOST`` or the default socket)."""
    import docker

    return docker.from_env(timeout=int(timeout_s))


class SandboxPool:
    """Warm hardened containers running jobs concurrently.

    Args:
        size: Number of containers (= jobs in flight). Default: the CPU count.
        spec: Container image and resources (default :class:`~rlenv.sandbox.container.ContainerSpec`).
        queue_size: Jobs that may wait for a container before ``submit`` blocks
            (default ``4 * size``).
        start_timeout_s: How long a container may take to start, seconds.
        reply_grace_s: How long past a job's own time limit the host waits for the runner's
            answer before it declares the container wedged, seconds.
        pipeline: Jobs sent ahead to each container (the next one waits in its input while the
            current one runs, so the container never idles on the round trip); 1 disables it.
            A job that was sent ahead to a container that then failed is retried once.
        client_factory: Builds the Docker client (default :func:`docker_client`).

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, size: int | None = None, spec: ContainerSpec | None = None, queue_size: int | None = None,
                 start_timeout_s: float = 60.0, reply_grace_s: float = 10.0, pipeline: int = 2,
                 client_factory: Callable[[], Any] = docker_client):
        size = (os.cpu_count() or 1) if size is None else size
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive int, got {size!r}")
        self.size = size
        self.spec = spec or ContainerSpec()
        self.queue_size = queue_size or 4 * size
        self.start_timeout_s = start_timeout_s
        self.reply_grace_s = reply_grace_s
        if not isinstance(pipeline, int) or pipeline < 1:
            raise ValueError(f"pipeline must be a positive int, got {pipeline!r}")
        self.pipeline = pipeline
        self.client_factory = client_factory
        self.pool_id = uuid.uuid4().hex
        self.pid = os.getpid()
        self.replaced = 0
        self.jobs_done = 0
        self._client: Any = None
        self._queue: queue.Queue = queue.Queue(self.queue_size)
        self._sessions: list[ContainerSession | None] = [None] * size
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._api_lock = threading.Lock()
        self._ids = itertools.count()
        self._started = False
        self._closed = False
        _LIVE_POOLS.add(self)

    # -- lifecycle
    @property
    def started(self) -> bool:
        return self._started

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_process(self) -> None:
        if os.getpid() != self.pid:
            raise RuntimeError(f"this SandboxPool belongs to process {self.pid}; after a fork use "
                               "rlenv.sandbox.shared_pool() or create a new pool in the child")

    def start(self) -> SandboxPool:
        """Start every container now (otherwise the first job does it); idempotent.

        Raises :class:`SandboxUnavailable` (with what to do) if no container can start.
        """
        self._check_process()
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox pool is closed")
            if self._started:
                return self
            try:
                self._client = self.client_factory()
                self._client.ping()
            except Exception as exc:
                raise SandboxUnavailable(f"no Docker engine reachable: {exc}. Start it (e.g. `sudo systemctl start "
                                         "docker` or `dockerd &`) and check with `rlenv sandbox doctor`") from exc
            stale = leaked_containers(self._client)
            if stale:
                logger.warning("removing %d sandbox containers leaked by dead processes", remove_containers(stale))
            with cf.ThreadPoolExecutor(self.size) as starter:
                outcomes = list(starter.map(self._try_start, range(self.size)))
            errors = [o for o in outcomes if isinstance(o, Exception)]
            if len(errors) == self.size:
                raise SandboxUnavailable(str(errors[0])) from errors[0]
            for error in errors:
                logger.warning("a sandbox container failed to start (its worker retries on its first job): %s", error)
            for slot in range(self.size):
                thread = threading.Thread(target=self._work, args=(slot,), name=f"sandbox-worker-{slot}", daemon=True)
                thread.start()
                self._threads.append(thread)
            self._started = True
            logger.info("sandbox pool started: %d containers of %s", self.size - len(errors), self.spec.image)
        return self

    def _new_session(self) -> ContainerSession:
        session = ContainerSession(self._client, self.spec, self.pool_id, self._api_lock)
        session.start(self.start_timeout_s)
        return session

    def _try_start(self, slot: int) -> Exception | None:
        try:
            self._sessions[slot] = self._new_session()
        except ContainerError as exc:
            return exc
        return None

    def close(self) -> None:
        """Resolve waiting jobs as ``sandbox_error``, stop the workers, remove the containers."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if os.getpid() != self.pid:
            return  # a forked child: the containers belong to the parent
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not _STOP:
                _resolve(item[2], JobResult.sandbox_error("the sandbox pool was closed before the job ran"))
        for session in list(self._sessions):
            if session is not None:
                session.kill()
        for _ in self._threads:
            self._queue.put(_STOP)
        for thread in self._threads:
            thread.join(timeout=10)
        self._sessions = [None] * self.size

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- jobs
    def submit(self, job: Job, timeout: float | None = None) -> cf.Future:
        """Queue ``job``; the future resolves to its :class:`~rlenv.sandbox.jobs.JobResult`.

        Blocks while the queue is full (up to ``timeout`` seconds, then raises
        :class:`SandboxBusy`). Starts the pool on first use.
        """
        parts = encode_parts(job)  # a malformed job raises here, in the caller
        room = self.spec.memory_mb - self.spec.held_outside_processes_mb - RUNNER_RESERVE_MB
        if job.limits.memory_mb > room:
            raise ValueError(f"the job asks for {job.limits.memory_mb} MiB but this pool's containers leave {room} MiB "
                             f"to a job (ContainerSpec.memory_mb={self.spec.memory_mb}, tmpfs_mb={self.spec.tmpfs_mb}, "
                             f"shm_mb={self.spec.shm_mb}): use a bigger ContainerSpec")
        self._check_process()
        if not self._started:
            self.start()
        if self._closed:
            raise RuntimeError("the sandbox pool is closed")
        future: cf.Future = cf.Future()
        try:
            self._queue.put((job, parts, future, time.monotonic()), timeout=timeout)
        except queue.Full:
            raise SandboxBusy(f"no room in the sandbox queue ({self.queue_size} jobs) after {timeout} s") from None
        return future

    def run(self, job: Job) -> JobResult:
        """Run one job and wait for its result."""
        return self.submit(job).result()

    def map(self, jobs: Iterable[Job], progress: bool = False, desc: str = "sandbox") -> list[JobResult]:
        """Run ``jobs`` concurrently; results in input order. ``progress`` shows a tqdm bar."""
        jobs = list(jobs)
        bar = tqdm(total=len(jobs), desc=desc, unit="job", disable=not progress, leave=False)
        futures = []
        try:
            for job in jobs:
                future = self.submit(job)
                future.add_done_callback(lambda _f: bar.update())
                futures.append(future)
            return [f.result() for f in futures]
        finally:
            bar.close()

    def stats(self) -> dict[str, Any]:
        """Containers alive, jobs done, containers replaced."""
        return {"size": self.size, "alive": sum(1 for s in self._sessions if s is not None and s.running),
                "jobs_done": self.jobs_done, "replaced": self.replaced,
                "containers": [s.name for s in self._sessions if s is not None]}

    def container_names(self) -> list[str]:
        return [s.name for s in self._sessions if s is not None]

    # -- workers: each owns one container and keeps up to ``pipeline`` jobs sent to it
    def _work(self, slot: int) -> None:
        inflight: collections.deque[_Item] = collections.deque()
        retry: collections.deque[_Item] = collections.deque()
        stopping = False
        while True:
            item = None
            try:
                while not stopping and len(inflight) < self.pipeline:
                    item = retry.popleft() if retry else self._take(block=not inflight)
                    if item is None:
                        break
                    if item is _STOP:
                        stopping = True
                        break
                    if not self._send(slot, item, inflight, retry):
                        retry.appendleft(item)
                        break
                    item = None
                if inflight:
                    self._receive(slot, inflight, retry)
                elif stopping:
                    for waiting in retry:
                        self._finish(waiting, JobResult.sandbox_error("the sandbox pool was closed before the job ran"))
                    return
            except Exception as exc:  # a bug here must still give every job its one result
                logger.exception("sandbox worker %d failed", slot)
                error = JobResult.sandbox_error(f"sandbox worker error: {type(exc).__name__}: {exc}")
                for lost in [*inflight, *([item] if isinstance(item, _Item) and item not in retry else [])]:
                    if not lost.future.done():
                        self._finish(lost, error)
                inflight.clear()
                if (broken := self._sessions[slot]) is not None:
                    self._replace(slot, broken, exc)

    def _take(self, block: bool):
        """The next job from the queue (None when there is none and ``block`` is False)."""
        while True:
            try:
                raw = self._queue.get(block=block)
            except queue.Empty:
                return None
            if raw is _STOP:
                return _STOP
            job, parts, future, queued_at = raw
            if future.set_running_or_notify_cancel():
                return _Item(job, parts, future, queued_at)

    def _session(self, slot: int) -> ContainerSession:
        session = self._sessions[slot]
        if session is not None and session.idle_check():
            return session
        if session is not None:
            self._replace(slot, session, ContainerError(f"container {session.name} died while idle"))
        if self._closed:
            raise ContainerError("the sandbox pool was closed")
        session = self._new_session()
        self._sessions[slot] = session
        return session

    def _busy_session(self, slot: int) -> ContainerSession:
        """The container of a slot with jobs in flight (it has one until they are answered)."""
        session = self._sessions[slot]
        if session is None:
            raise ContainerError(f"sandbox slot {slot} has jobs in flight but no container")
        return session

    def _replace(self, slot: int, session: ContainerSession, why: Exception) -> None:
        logger.warning("replacing sandbox container %s: %s", session.name, why)
        session.kill()
        if self._sessions[slot] is session:
            self._sessions[slot] = None
        self.replaced += 1

    def _finish(self, item: _Item, result: JobResult) -> None:
        self.jobs_done += 1
        item.future.set_result(result)

    def _requeue(self, items: Iterable[_Item], retry: collections.deque, why: str) -> None:
        """Jobs sent to a container that failed before running them: retry once elsewhere."""
        for item in reversed(list(items)):
            item.attempts += 1
            if item.attempts > 1:
                self._finish(item, JobResult.sandbox_error(why))
            else:
                retry.appendleft(item)

    def _send(self, slot: int, item: _Item, inflight: collections.deque, retry: collections.deque) -> bool:
        """Send ``item`` (or resolve it when no container can take it); False when it must wait
        because it is too big to be sent while another job runs."""
        item.job_id = f"{self.pool_id[:8]}-{next(self._ids)}"
        payload = encode_header(item.job, item.job_id) + item.parts
        if inflight and len(payload) > PIPELINE_MAX_BYTES:
            return False  # it could fill the container's input while the container is busy
        if inflight:
            session = self._busy_session(slot)  # its liveness shows when the head job is answered
        else:
            try:
                session = self._session(slot)
            except ContainerError as exc:
                self._finish(item, JobResult.sandbox_error(str(exc), {"queued_s": round(time.monotonic() - item.queued_at, 6)}))
                return True
        try:
            session.send(payload)
        except ContainerError as exc:  # the container died: the job in flight there fails, the others retry
            self._replace(slot, session, exc)
            if inflight:
                head = inflight.popleft()
                self._finish(head, JobResult.sandbox_error(str(exc), container=session.name))
            self._requeue([*inflight, item], retry, str(exc))
            inflight.clear()
            return True
        if not inflight:
            item.head_since = time.monotonic()
        inflight.append(item)
        return True

    def _receive(self, slot: int, inflight: collections.deque, retry: collections.deque) -> None:
        session, head = self._busy_session(slot), inflight[0]
        deadline = head.head_since + head.job.limits.timeout_s + 2.0 + self.reply_grace_s
        timings = {"queued_s": round(head.head_since - head.queued_at, 6)}
        try:
            report = session.receive(head.job_id, deadline)
        except ContainerError as exc:
            self._replace(slot, session, exc)
            inflight.popleft()
            timings["run_s"] = round(time.monotonic() - head.head_since, 6)
            self._finish(head, JobResult.sandbox_error(str(exc), timings, session.name))
            self._requeue(inflight, retry, str(exc))
            inflight.clear()
            return
        now = time.monotonic()
        timings["run_s"] = round(now - head.head_since, 6)
        try:
            result = JobResult.from_report(report, timings, session.name)
        except ValueError as exc:
            result = JobResult.sandbox_error(str(exc), timings, session.name)
        inflight.popleft()  # only now: until it has its result, a failure here resolves it
        if inflight:
            inflight[0].head_since = now
        if report.get("fatal"):
            self._replace(slot, session, ContainerError(str(report["fatal"])))
            self._requeue(inflight, retry, str(report["fatal"]))
            inflight.clear()
        self._finish(head, result)


@dataclasses.dataclass
class _Item:
    """A job taken from the queue by a worker."""

    job: Job
    parts: bytes  #: its encoded candidate and grader parts
    future: cf.Future
    queued_at: float
    job_id: str = ""
    head_since: float = 0.0  #: when it became the oldest unanswered job of its container
    attempts: int = 0


def _resolve(future: cf.Future, result: JobResult) -> None:
    if future.set_running_or_notify_cancel():
        future.set_result(result)


_shared: SandboxPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> SandboxPool:
    """The process-wide pool shared by every environment (created on first call, containers
    started on its first job; a forked child gets its own)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared.closed or _shared.pid != os.getpid():
            _shared = SandboxPool()
        return _shared


def set_shared_pool(pool: SandboxPool | None) -> SandboxPool | None:
    """Replace the shared pool (e.g. with a bigger one); returns the previous one (not closed)."""
    global _shared
    with _shared_lock:
        previous, _shared = _shared, pool
        return previous


@atexit.register
def close_all_pools() -> None:
    """Close every pool of this process (runs at interpreter exit, also after Ctrl-C)."""
    for pool in list(_LIVE_POOLS):
        if pool.pid == os.getpid():
            pool.close()
