"""Worker processes that run checks under a hard wall-clock deadline enforced from outside.

math-verify's own timeouts use ``SIGALRM``: they fail off the main thread, cannot interrupt
C-level sympy work and cancel the caller's alarms. So every check runs in a worker *process*
and the parent enforces the deadline: a worker that overruns is killed (``SIGKILL``) and a new
one is started, and the check reports ``timeout``.

Properties:

* callable from any thread (several threads share the workers fairly), from a process of a
  ``multiprocessing`` / ``concurrent.futures`` pool and from code running in an event loop;
* workers are plain ``subprocess`` children (no ``multiprocessing`` bootstrap, so no
  ``if __name__ == "__main__"`` requirement and no "daemonic processes" restriction);
* no orphans: workers are killed when their pool is garbage-collected or the interpreter
  exits; if the parent dies abruptly, an idle worker exits on end-of-file of its pipe and a busy
  one is killed by the kernel (Linux ``PR_SET_PDEATHSIG``; workers are started from one
  long-lived thread because that signal follows the *thread* that forked the child);
* after ``os.fork()`` a child process never touches its parent's workers; it starts its own.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import ctypes
import dataclasses
import importlib
import logging
import math
import os
import pickle
import queue
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from rlenv.deprecation import moved_names
from rlenv.errors import RlenvError

logger = logging.getLogger(__name__)

#: Directory that holds the ``rlenv`` package; put on the workers' ``PYTHONPATH``.
_IMPORT_ROOT = str(Path(__file__).resolve().parents[2])
#: Items sent to a worker in one message at most.
MAX_CHUNK = 64
#: A second message is queued behind a running one only when it is at most this many bytes (and
#: at most a quarter of the socket's send buffer), so a send never blocks on a busy worker.
PIPELINE_BYTES = 64 * 1024
#: Seconds between two wake-ups of a batch while all its workers have queued work.
MIN_WAKE_INTERVAL = 0.002
_PR_SET_PDEATHSIG = 1


class WorkerStartError(RlenvError, RuntimeError):
    """A worker process exited or hung before it was ready (its traceback is on stderr)."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What happened to one item.

    Attributes:
        kind: ``"ok"`` (``value`` is the handler's return value), ``"error"`` (the handler raised
            or the worker died; ``value`` is the error text) or ``"timeout"`` (the worker was
            killed at the deadline; ``value`` is None).
        value: See ``kind``.
    """

    kind: str
    value: Any = None


def default_num_workers() -> int:
    """The number of CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# ----------------------------------------------------------------------------------------------
# worker side
# ----------------------------------------------------------------------------------------------
def _die_with_parent(parent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the death signal was armed
        os._exit(0)


def resolve_handler(path: str) -> Callable[..., Any]:
    """Import ``"package.module:function"``."""
    module_name, _, attr = path.partition(":")
    if not attr:
        raise ValueError(f"handler {path!r} must look like 'package.module:function'")
    return getattr(importlib.import_module(module_name), attr)


def worker_main() -> None:
    """Entry point of a worker process: ``argv = [fd, parent_pid, handler, initializer, memory_limit]``.

    Caps its address space at ``memory_limit`` bytes (when not 0), calls the initializer (when
    not empty), then

    receives ``(config, [(job_id, payload), ...])`` messages and answers each item with
    ``(job_id, (kind, value))`` as soon as it is done, so the parent can time every item.
    """
    fd, parent_pid, handler_path, initializer, memory_limit = sys.argv[1:6]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's business
    _die_with_parent(int(parent_pid))
    if int(memory_limit):
        resource.setrlimit(resource.RLIMIT_AS, (int(memory_limit), int(memory_limit)))
    conn = Connection(int(fd))
    if initializer:
        resolve_handler(initializer)()
    handler = resolve_handler(handler_path)
    conn.send(("ready", os.getpid()))
    while True:
        try:
            config, items = conn.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe or died
        for job_id, payload in items:
            try:
                outcome = ("ok", handler(config, payload))
            except Exception as exc:  # a failing check is a result, not a dead worker
                outcome = ("error", f"{type(exc).__name__}: {exc}")
            conn.send((job_id, outcome))


# ----------------------------------------------------------------------------------------------
# parent side
# ----------------------------------------------------------------------------------------------
class _Spawner:
    """Starts subprocesses from one long-lived daemon thread (see the module docstring)."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="rlenv-worker-spawner", daemon=True).start()

    def _serve(self) -> None:
        while True:
            args, kwargs, future = self._requests.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(subprocess.Popen(*args, **kwargs))
                except BaseException as exc:
                    future.set_exception(exc)

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen:
        future: cf.Future = cf.Future()
        self._requests.put((args, kwargs, future))
        return future.result()


_spawner: _Spawner | None = None
_spawner_lock = threading.Lock()


def _get_spawner() -> _Spawner:
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = _Spawner()
        return _spawner


class _Worker:
    """One worker process and the parent's view of it."""

    def __init__(self, handler: str, initializer: str, memory_limit: int):
        parent_sock, child_sock = socket.socketpair()
        parent_sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        self.pipeline_bytes = min(PIPELINE_BYTES, parent_sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) // 4)
        parent_conn = Connection(parent_sock.detach())
        fd = child_sock.fileno()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_IMPORT_ROOT, env.get("PYTHONPATH")) if p)
        command = [sys.executable, "-c", "from rlenv.scoring.worker_pool import worker_main; worker_main()",
                   str(fd), str(os.getpid()), handler, initializer, str(memory_limit)]
        try:
            self.proc = _get_spawner().popen(command, pass_fds=(fd,), stdin=subprocess.DEVNULL, env=env)
        except BaseException:
            parent_conn.close()
            raise
        finally:
            child_sock.close()
        self.conn = parent_conn
        self.ready = False
        self.spawned_at = time.monotonic()
        self.inflight: collections.deque[int] = collections.deque()  # item ids sent, not answered
        self.chunks: collections.deque[int] = collections.deque()  # unanswered items per message
        self.started_at = 0.0  # when the check at the head of ``inflight`` started

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill(self) -> None:
        """Kill the process, reap it and close the pipe."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.conn.close()

    def abandon(self) -> None:
        """Forget the worker without touching the process (used in a forked child)."""
        self.conn.close()


def _kill_all(workers: set[_Worker]) -> None:
    for worker in list(workers):
        worker.kill()
    workers.clear()


_POOLS: weakref.WeakSet[WorkerPool] = weakref.WeakSet()


class WorkerPool:
    """A fixed-size set of worker processes running ``handler(config, payload)``.

    Args:
        handler: ``"package.module:function"``, imported once per worker at start-up. It must
            return a picklable value.
        initializer: Optional ``"package.module:function"`` called with no arguments when a
            worker starts (e.g. to configure logging).
        memory_limit: Address-space cap of each worker in bytes (``RLIMIT_AS``; 0 for none), so
            a check that tries to build a huge number fails with ``MemoryError`` instead of
            exhausting the machine before its deadline.
        num_workers: Worker processes (default: the CPU cores this process may use).
        startup_timeout: Seconds a new worker may take to import the handler.

    Workers start lazily on first use (or with :meth:`start`) and are shared by all threads.
    """

    def __init__(self, handler: str, num_workers: int | None = None, initializer: str = "",
                 memory_limit: int = 0, startup_timeout: float = 120.0):
        if num_workers is not None and (not isinstance(num_workers, int) or num_workers < 1):
            raise ValueError(f"num_workers must be a positive int or None, got {num_workers!r}")
        self.handler = handler
        self.initializer = initializer
        self.memory_limit = memory_limit
        self.num_workers = num_workers or default_num_workers()
        self.startup_timeout = startup_timeout
        self._cond = threading.Condition()
        self._reset_state()
        _POOLS.add(self)

    def _reset_state(self) -> None:
        self._workers: set[_Worker] = set()
        self._idle: list[_Worker] = []
        self._waiting = 0
        self._finalizer = weakref.finalize(self, _kill_all, self._workers)

    # -- life cycle ----------------------------------------------------------------------------
    def start(self, wait_ready: bool = True) -> None:
        """Start the workers now; with ``wait_ready``, return once all have imported the handler."""
        with self._cond:
            self._ensure_workers()
            starting = [w for w in self._idle if not w.ready]
            self._idle = [w for w in self._idle if w.ready]
        try:
            for worker in starting if wait_ready else ():
                self._await_ready(worker)
        finally:
            self._checkin(starting)

    def close(self) -> None:
        """Kill every worker. A later call starts new ones."""
        with self._cond:
            self._finalizer()
            self._idle.clear()
            self._finalizer = weakref.finalize(self, _kill_all, self._workers)

    def worker_pids(self) -> list[int]:
        """Process ids of the current workers."""
        with self._cond:
            return sorted(w.pid for w in self._workers)

    def _abandon_after_fork(self) -> None:
        for worker in self._workers:
            worker.abandon()
        self._finalizer.detach()
        self._cond = threading.Condition()
        self._reset_state()

    def _ensure_workers(self) -> None:
        while len(self._workers) < self.num_workers:
            worker = _Worker(self.handler, self.initializer, self.memory_limit)
            self._workers.add(worker)
            self._idle.append(worker)

    def _replace(self, worker: _Worker) -> _Worker:
        worker.kill()
        fresh = _Worker(self.handler, self.initializer, self.memory_limit)
        with self._cond:
            self._workers.discard(worker)
            self._workers.add(fresh)
        return fresh

    def _await_ready(self, worker: _Worker) -> None:
        remaining = worker.spawned_at + self.startup_timeout - time.monotonic()
        if not worker.conn.poll(max(0.0, remaining)):
            worker.kill()
            raise WorkerStartError(f"worker {worker.pid} was not ready after {self.startup_timeout} s")
        self._receive_ready(worker)

    def _receive_ready(self, worker: _Worker) -> None:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            code = worker.proc.wait()
            with self._cond:
                self._workers.discard(worker)
                if worker in self._idle:
                    self._idle.remove(worker)
            worker.kill()
            raise WorkerStartError(
                f"worker process for {self.handler!r} exited with code {code} before it was ready "
                "(its traceback, if any, is on stderr)") from None
        if message[0] != "ready":
            raise RuntimeError(f"worker {worker.pid} sent {message!r} before 'ready'")
        worker.ready = True

    # -- checkout ------------------------------------------------------------------------------
    def _checkout(self, block: bool, limit: int) -> list[_Worker]:
        with self._cond:
            self._ensure_workers()
            if not block and self._waiting:
                return []  # let the threads that wait have the next free worker
            if block:
                self._waiting += 1
                try:
                    while not self._idle:
                        self._cond.wait()
                        self._ensure_workers()
                finally:
                    self._waiting -= 1
            for worker in [w for w in self._idle if not w.ready and w.conn.poll()]:
                self._receive_ready(worker)
            self._idle.sort(key=lambda w: not w.ready)  # ready workers first
            taken, self._idle = self._idle[:limit], self._idle[limit:]
            return taken

    def _checkin(self, workers: Sequence[_Worker]) -> None:
        for n, worker in enumerate(workers):
            if worker.inflight or worker.conn.closed:  # interrupted mid-check: state unknown
                workers = list(workers)
                workers[n] = self._replace(worker)
        with self._cond:
            self._idle.extend(w for w in workers if w in self._workers)
            self._cond.notify_all()

    # -- running -------------------------------------------------------------------------------
    def run(self, config: Any, payloads: Sequence[Any], timeout: float,
            groups: Sequence[Any] | None = None) -> list[Outcome]:
        """Run ``handler(config, payload)`` for every payload, each under ``timeout`` seconds.

        Args:
            config: Picklable, sent once per message to a worker.
            payloads: Picklable items; results come back in this order.
            timeout: Wall-clock seconds allowed per item, measured by this process from the
                moment the item's worker starts it.
            groups: Optional hashable key per payload. Adjacent payloads with one key go to one
                worker in one message when the group is no bigger than a message would be
                without groups (so a worker reuses what it cached for the group); a bigger group
                is split across workers.

        Returns:
            One :class:`Outcome` per payload.
        """
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if groups is not None and len(groups) != len(payloads):
            raise ValueError(f"got {len(groups)} groups for {len(payloads)} payloads")
        return _Batch(self, config, payloads, timeout, groups).run()


class _Batch:
    """The state of one :meth:`WorkerPool.run` call."""

    def __init__(self, pool: WorkerPool, config: Any, payloads: Sequence[Any], timeout: float,
                 groups: Sequence[Any] | None = None):
        self.pool = pool
        self.config = config
        self.payloads = payloads
        self.timeout = timeout
        self.groups = groups
        self.group_sizes = collections.Counter(groups or ())
        self.outcomes: list[Outcome | None] = [None] * len(payloads)
        self.pending = collections.deque(range(len(payloads)))
        self.held: tuple[list[int], bytes] | None = None  # a packed chunk waiting for a free worker
        self.woke_at = 0.0
        self.mine: list[_Worker] = []

    def run(self) -> list[Outcome]:
        try:
            while self.pending or self.held or any(w.inflight for w in self.mine):
                if self.pending or self.held:
                    wanted = len(self.pending) + (self.held is not None)
                    self.mine += self.pool._checkout(block=not self.mine, limit=wanted)
                self._dispatch()
                self._wait()
                self._enforce_deadlines()
                self._release_idle()
        finally:
            self.pool._checkin(self.mine)
            self.mine = []
        return self.outcomes  # type: ignore[return-value]

    def _dispatch(self) -> None:
        """Send chunks to ready workers: up to two messages each, the second only if small."""
        if not (self.pending or self.held):
            return
        chunk = max(1, min(MAX_CHUNK, math.ceil(len(self.pending) / (2 * len(self.mine)))))
        now = time.monotonic()
        for worker in list(self.mine):
            while (self.pending or self.held) and worker.ready and len(worker.chunks) < 2:
                ids, data = self.held or self._pack(chunk)
                self.held = None
                if worker.chunks and len(data) > worker.pipeline_bytes:
                    self.held = (ids, data)  # too big to queue behind a running check
                    break
                try:
                    worker.conn.send_bytes(data)
                except (BrokenPipeError, ConnectionResetError, EOFError):
                    self.held = (ids, data)  # it died: the chunk goes to another (or a new) worker
                    self._lost(worker)
                    break
                if not worker.inflight:
                    worker.started_at = now
                worker.inflight.extend(ids)
                worker.chunks.append(len(ids))

    def _pack(self, size: int) -> tuple[list[int], bytes]:
        count = min(size, len(self.pending))
        if self.groups is not None:
            count = self._group_cut(self.groups, count, size)
        ids = [self.pending.popleft() for _ in range(count)]
        return ids, pickle.dumps((self.config, [(i, self.payloads[i]) for i in ids]), pickle.HIGHEST_PROTOCOL)

    def _group_cut(self, groups: Sequence[Any], count: int, size: int) -> int:
        """How many pending items to send so no group of at most ``size`` items is cut in two.

        The message grows to the end of the group it would cut (up to :data:`MAX_CHUNK` items),
        else stops before that group; a group bigger than ``size`` is cut as it falls.
        """
        pending = self.pending
        if count == len(pending) or groups[pending[count - 1]] != groups[pending[count]]:
            return count
        group = groups[pending[count]]
        if self.group_sizes[group] > size:
            return count
        end = count
        while end < len(pending) and groups[pending[end]] == group:
            end += 1
        if end <= MAX_CHUNK:
            return end
        start = count - 1
        while start > 0 and groups[pending[start - 1]] == group:
            start -= 1
        return start or count

    def _wait(self) -> None:
        """Sleep until a worker answers or a deadline passes, then take in every answer waiting.

        While every worker still has queued work, wake-ups are at least :data:`MIN_WAKE_INTERVAL`
        apart, so many answers are taken in per wake-up instead of one.
        """
        busy = [w for w in self.mine if w.inflight or not w.ready]
        if not busy:
            return
        if all(len(w.chunks) > 1 for w in self.mine):
            time.sleep(max(0.0, self.woke_at + MIN_WAKE_INTERVAL - time.monotonic()))
        now = time.monotonic()
        deadlines = [w.started_at + self.timeout if w.ready else w.spawned_at + self.pool.startup_timeout
                     for w in busy]
        for conn in wait([w.conn for w in busy], timeout=max(0.0, min(deadlines) - now)):
            worker = next(w for w in busy if w.conn is conn)
            self._receive(worker)
        self.woke_at = time.monotonic()

    def _receive(self, worker: _Worker) -> None:
        if not worker.ready:
            self.pool._receive_ready(worker)
            return
        while True:
            try:
                if not worker.conn.poll():
                    return
                job_id, (kind, value) = worker.conn.recv()
            except (EOFError, OSError):
                self._lost(worker)
                return
            now = time.monotonic()
            expected = worker.inflight.popleft()
            if job_id != expected:
                raise RuntimeError(f"worker {worker.pid} answered item {job_id}, expected {expected}")
            worker.chunks[0] -= 1
            if not worker.chunks[0]:
                worker.chunks.popleft()
            self.outcomes[job_id] = Outcome(kind, value)
            worker.started_at = now

    def _lost(self, worker: _Worker) -> None:
        code = worker.proc.wait()
        if worker.inflight:
            head = worker.inflight.popleft()
            self.outcomes[head] = Outcome("error", f"the worker process died (exit code {code}) during this check")
            self._requeue(worker)
        logger.warning("worker %d exited with code %s; starting a new one", worker.pid, code)
        self._swap(worker, self.pool._replace(worker))

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for worker in list(self.mine):
            if not worker.ready and now >= worker.spawned_at + self.pool.startup_timeout:
                worker.kill()
                raise WorkerStartError(f"worker {worker.pid} was not ready after {self.pool.startup_timeout} s")
            if worker.ready and worker.inflight and now >= worker.started_at + self.timeout:
                head = worker.inflight.popleft()
                self.outcomes[head] = Outcome("timeout")
                self._requeue(worker)
                logger.info("check %d exceeded %.3g s; killing worker %d", head, self.timeout, worker.pid)
                self._swap(worker, self.pool._replace(worker))

    def _requeue(self, worker: _Worker) -> None:
        """Put the worker's unanswered items back at the front of the queue."""
        self.pending.extendleft(reversed(worker.inflight))
        worker.inflight.clear()
        worker.chunks.clear()

    def _swap(self, old: _Worker, new: _Worker) -> None:
        self.mine[self.mine.index(old)] = new

    def _release_idle(self) -> None:
        idle = [w for w in self.mine if w.ready and not w.inflight]
        if not idle:
            return
        if not self.pending and not self.held:
            keep = []
        elif self.pool._waiting and len(self.mine) > 1 and not self.held:
            keep = idle[1:]  # hand one worker to a waiting thread
        else:
            return
        released = [w for w in idle if w not in keep]
        self.mine = [w for w in self.mine if w not in released]
        self.pool._checkin(released)


_registry: dict[tuple[str, int | None, str, int], WorkerPool] = {}
_registry_lock = threading.Lock()


def shared_worker_pool(handler: str, num_workers: int | None = None, initializer: str = "", memory_limit: int = 0) -> WorkerPool:
    """The process-wide pool for these settings (see :class:`WorkerPool`), created on first use."""
    key = (handler, num_workers, initializer, memory_limit)
    with _registry_lock:
        pool = _registry.get(key)
        if pool is None:
            pool = _registry[key] = WorkerPool(handler, num_workers, initializer, memory_limit)
        return pool


def _after_fork_in_child() -> None:
    global _spawner, _spawner_lock, _registry_lock
    _spawner, _spawner_lock, _registry_lock = None, threading.Lock(), threading.Lock()
    for pool in list(_POOLS):
        pool._abandon_after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)


#: Deprecated names (one release): ``shared_pool`` is ``shared_worker_pool`` (distinct from the sandbox's).
__getattr__ = moved_names(__name__, {"shared_pool": "rlenv.scoring.worker_pool.shared_worker_pool"})
