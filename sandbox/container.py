"""One hardened sandbox container running the job runner, driven over its job channel.

The container runs ``python3 -I -S -c <runner source>`` as PID 1 with:
``--network none``, a read-only root, a ``noexec`` tmpfs at ``/tmp`` (the only writable
place besides a small ``/dev/shm``), ``--pids-limit``, ``--memory`` = ``--memory-swap``, a CPU
quota, no log driver (what the runner prints reaches the host over its streams only,
never a log file that grows with every job), ``--cap-drop ALL`` but the few capabilities the runner needs to run jobs as another user
(:data:`RUNNER_CAPABILITIES`), ``no-new-privileges`` and one read-only mount from the host: the job channel's directory,
empty once the runner has connected (:mod:`rlenv.sandbox.channel`). The runner
starts as root only to drop privileges: the grader runs as ``grader_uid`` and every candidate
process as ``job_uid`` (two unprivileged users, no capabilities, a seccomp filter).

Jobs and reports travel the job channel, a unix socket to the runner (or, where the runner cannot
reach it, the engine's attach stream); the runner's stderr always comes over the attach stream.
Containers are labelled (:data:`LABEL`, owner host and pid) so leaks can be found and removed,
and are started with ``stdin_once`` + ``auto_remove``: when the host process dies, its
connections close, the runner sees end of file on its job stream and exits, and Docker removes
the container.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import os
import select
import socket
import struct
import threading
import time
import warnings
from typing import Any

from rlenv.sandbox import assembly
from rlenv.sandbox.assembly import runner_source
from rlenv.sandbox.build import default_image
from rlenv.sandbox.channel import HostChannel
from rlenv.sandbox.errors import SandboxError

logger = logging.getLogger(__name__)

#: Label on every sandbox container; its value is the owner (``host/pid``).
LABEL = "org.rlenv.sandbox.owner"
POOL_LABEL = "org.rlenv.sandbox.pool"
_NAMES = itertools.count()


#: Capabilities of the runner (root in the container, everything else dropped): changing user
#: (SETUID, SETGID), killing job processes (KILL), and creating and wiping job files owned by the
#: job user (CHOWN, DAC_OVERRIDE, FOWNER). The grader keeps only KILL; candidates keep none.
RUNNER_CAPABILITIES = ("CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID")
#: ``python3 -c`` program that compiles the runner source (its argument) and runs it. Passing the
#: source itself to ``-c`` would keep its syntax tree (megabytes) alive for the runner's whole
#: life, and every job's fork would copy it. The file name is the one a runner traceback shows
#: (the red-team suite looks for it in what candidates print).
RUNNER_BOOTSTRAP = "import sys; exec(compile(sys.argv.pop(1), 'sandbox/runner.py', 'exec'))"


def assemble_runner(runner: str, protocol: str) -> str:
    """Deprecated (for one release): the script of a runner that was one module, ``runner``, with the
    protocol's text ``protocol``; use :func:`rlenv.sandbox.assembly.assemble_runner`."""
    warnings.warn("rlenv.sandbox.container.assemble_runner is deprecated and will be removed in the next release: "
                  "use rlenv.sandbox.assembly.assemble_runner", DeprecationWarning, stacklevel=2)
    texts = {"runner.py": runner, "protocol.py": protocol}

    def read(path: str) -> str:
        if path not in texts:
            raise FileNotFoundError(path)
        return texts[path]

    return assembly.assemble_runner(read, entry=assembly.RUNNER_PACKAGE)


def runner_command() -> list[str]:
    """The command of a sandbox container: the runner as PID 1."""
    return ["python3", "-I", "-S", "-c", RUNNER_BOOTSTRAP, runner_source()]


def owner_id(pid: int | None = None) -> str:
    """``host/pid`` of a process that owns containers."""
    return f"{socket.gethostname()}/{os.getpid() if pid is None else pid}"


#: Seconds to wait before each retry of a removal the engine refused: its own race ("unable to remove filesystem
#: ...: directory not empty") leaves the container Dead, and a later removal succeeds.
REMOVE_RETRY_WAITS = (0.2, 0.5, 1.0)


class ContainerError(SandboxError):
    """A container could not start, died, or broke the protocol."""


@dataclasses.dataclass(frozen=True)
class ContainerSpec:
    """Resources and image of a sandbox container.

    Attributes:
        image: Image to run (default: :func:`rlenv.sandbox.build.default_image`).
        memory_mb: Memory limit of the whole container (``--memory`` = ``--memory-swap``),
            MiB. Must exceed a job's ``Limits.memory_mb`` plus ``tmpfs_mb`` plus ~100 MiB for
            the runner and grader.
        cpus: CPU quota (``--cpus``).
        pids_limit: Most processes and threads in the container (``--pids-limit``).
        tmpfs_mb: Size of the ``/tmp`` tmpfs (the jobs' work directories), MiB.
        shm_mb: Size of ``/dev/shm`` (a tmpfs), MiB; also the most System V shared memory.
        tmpfs_inodes: Most inodes (files, directories and hard links) on ``/tmp``: their
            kernel memory is bounded too.
        shm_inodes: Most inodes on ``/dev/shm``.
        job_uid: uid (and gid) of every candidate process: not root.
        grader_uid: uid (and gid) of the grader process: not root, not ``job_uid``.
        job_channel: Send jobs over a unix socket from the host (:mod:`rlenv.sandbox.channel`), not
            through the engine's attach stream: ~10% more trivial jobs per second. Where the
            runner cannot reach the socket (an engine in a VM or on another machine), jobs use
            the attach stream and a warning says so.
    """

    image: str = dataclasses.field(default_factory=default_image)
    memory_mb: int = 1024
    cpus: float = 1.0
    pids_limit: int = 64
    tmpfs_mb: int = 128
    shm_mb: int = 16
    tmpfs_inodes: int = 16384
    shm_inodes: int = 4096
    job_uid: int = 65534
    grader_uid: int = 65533
    job_channel: bool = True

    def __post_init__(self) -> None:
        for name in ("job_uid", "grader_uid"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 1 << 31:
                raise ValueError(f"ContainerSpec.{name} must be a non-root uid (a positive int), got {value!r}")
        if self.job_uid == self.grader_uid:
            raise ValueError(f"ContainerSpec.job_uid and grader_uid must differ, both are {self.job_uid}")
        for name in ("memory_mb", "cpus", "pids_limit", "tmpfs_mb", "shm_mb", "tmpfs_inodes", "shm_inodes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"ContainerSpec.{name} must be positive, got {getattr(self, name)!r}")
        if self.memory_mb < self.held_outside_processes_mb + 160:
            raise ValueError(f"ContainerSpec.memory_mb={self.memory_mb} leaves too little beside the "
                             f"{self.held_outside_processes_mb} MiB that files and shared memory may hold: give at "
                             "least tmpfs_mb + 2 * shm_mb + 160")

    @property
    def held_outside_processes_mb(self) -> int:
        """The most memory a job can make the kernel hold outside every process (files on
        ``/tmp`` and ``/dev/shm``, System V shared memory), MiB."""
        return self.tmpfs_mb + 2 * self.shm_mb

    @property
    def tmpfs_options(self) -> str:
        return f"rw,size={self.tmpfs_mb}m,nr_inodes={self.tmpfs_inodes},mode=1777,noexec,nosuid,nodev"

    @property
    def shm_options(self) -> str:
        return f"rw,size={self.shm_mb}m,nr_inodes={self.shm_inodes},mode=1777,noexec,nosuid,nodev"

    @property
    def sysctls(self) -> dict[str, str]:
        """Limits of the container's own IPC namespace: System V shared memory up to ``shm_mb``
        in all, few message queues."""
        return {"kernel.shmmax": str(self.shm_mb << 20), "kernel.shmall": str((self.shm_mb << 20) // 4096),
                "kernel.msgmni": "16"}

    @property
    def environment(self) -> dict[str, str]:
        return {"LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/tmp",
                "RLENV_JOB_UID": str(self.job_uid), "RLENV_GRADER_UID": str(self.grader_uid)}

    def create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``docker.APIClient.create_host_config`` for this spec."""
        return dict(network_mode="none", read_only=True, tmpfs={"/tmp": self.tmpfs_options, "/dev/shm": self.shm_options},
                    pids_limit=self.pids_limit, mem_limit=f"{self.memory_mb}m", memswap_limit=f"{self.memory_mb}m",
                    nano_cpus=int(self.cpus * 1e9), cap_drop=["ALL"], cap_add=list(RUNNER_CAPABILITIES),
                    security_opt=["no-new-privileges"], ipc_mode="private", sysctls=self.sysctls, auto_remove=True,
                    log_config={"type": "none", "config": {}})

    def cli_flags(self) -> list[str]:
        """``docker run`` flags for a one-off run of a program (benchmarks): the same hardening,
        the program running directly as ``job_uid`` with no capabilities (no runner)."""
        flags = ["--network", "none", "--read-only", "--tmpfs", f"/tmp:{self.tmpfs_options}",
                 "--tmpfs", f"/dev/shm:{self.shm_options}", "--pids-limit", str(self.pids_limit),
                 "--memory", f"{self.memory_mb}m", "--memory-swap", f"{self.memory_mb}m", "--cpus", str(self.cpus),
                 "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--ipc", "private",
                 "--user", f"{self.job_uid}:{self.job_uid}"]
        for key, value in self.sysctls.items():
            flags += ["--sysctl", f"{key}={value}"]
        for key, value in self.environment.items():
            flags += ["-e", f"{key}={value}"]
        return flags


class ContainerSession:
    """A started container with its runner, its job stream (the job channel or the attach stream)
    and its attach stream (the runner's stderr).

    Not thread-safe: one job at a time (the pool gives each session to one worker thread).
    """

    def __init__(self, client: Any, spec: ContainerSpec, pool_id: str, api_lock: threading.Lock | None = None):
        self.client = client
        self.spec = spec
        self.pool_id = pool_id
        self.api_lock = api_lock or threading.Lock()
        self.name = f"rlenv-sandbox-{os.getpid()}-{pool_id[:6]}-{next(_NAMES)}"
        self.container_id: str | None = None
        self._socket: Any = None
        self._attach: socket.socket | None = None
        self._jobs: socket.socket | None = None
        self._buffer = bytearray()
        self._pending = bytearray()
        self._stderr = bytearray()
        self.ready_info: dict[str, Any] = {}
        self.jobs_run = 0

    # -- lifecycle
    def start(self, timeout_s: float = 60.0) -> None:
        """Create, attach, start and wait for the runner's ready line."""
        channel = HostChannel() if self.spec.job_channel else None
        try:
            self._create(channel)
            deadline = time.monotonic() + timeout_s
            if channel is not None:
                self._connect(channel, deadline)
        finally:
            if channel is not None:
                channel.close()
        line = self._read_line(deadline)
        if line is None:
            stderr = self.stderr_tail()
            self.kill()
            raise ContainerError(f"sandbox container {self.name} did not become ready within {timeout_s:.0f} s"
                                 + (f"; its stderr: {stderr}" if stderr else ""))
        try:
            self.ready_info = json.loads(line)
        except ValueError:
            self.ready_info = {}
        if not self.ready_info.get("ready"):
            self.kill()
            raise ContainerError(f"sandbox container {self.name} sent {line[:200]!r} instead of its ready line")
        if channel is not None and self._jobs is self._attach:
            logger.warning("sandbox container %s could not reach its job channel, jobs use the engine's attach "
                           "stream (~10%% fewer trivial jobs/s): %s", self.name, self.ready_info.get("channel"))

    def _create(self, channel: HostChannel | None) -> None:
        """Create the container (mounting ``channel``'s directory, if any), attach to it and start it."""
        import docker.errors

        api = self.client.api
        labels = {LABEL: owner_id(), POOL_LABEL: self.pool_id}
        environment = {**self.spec.environment, **(channel.environment if channel else {})}
        try:
            with self.api_lock:
                host_config = api.create_host_config(**self.spec.create_kwargs(),
                                                     **({"binds": channel.binds} if channel else {}))
                created = api.create_container(
                    self.spec.image, runner_command(), name=self.name,
                    user="0:0", environment=environment, labels=labels, stdin_open=True,
                    detach=False, tty=False, network_disabled=True, working_dir="/tmp",  # detach=False: StdinOnce
                    host_config=host_config)
                self.container_id = created["Id"]
                self._socket = api.attach_socket(self.container_id, params={"stdin": 1, "stdout": 1, "stderr": 1,
                                                                              "stream": 1})
                self._attach = self._jobs = self._socket._sock if hasattr(self._socket, "_sock") else self._socket
                api.start(self.container_id)
        except docker.errors.ImageNotFound as exc:
            self.kill()
            raise ContainerError(f"sandbox image {self.spec.image} not found: build it with "
                                 "`rlenv sandbox build` (or `rlenv sandbox build --offline` without a registry)") from exc
        except docker.errors.DockerException as exc:
            self.kill()
            raise ContainerError(f"could not start a sandbox container from {self.spec.image}: {exc}") from exc

    def _connect(self, channel: HostChannel, deadline: float) -> None:
        """Until the runner's first line: accept the runner's connection on ``channel`` and check its
        token, unless the runner speaks on the attach stream first (it could not connect)."""
        listener = channel.listener
        if listener is None:
            raise ContainerError(f"sandbox container {self.name}: its job channel was already used")
        while self._attach is not None and not self._buffer:
            readable, _, _ = select.select([listener, self._attach], [], [], max(0.0, deadline - time.monotonic()))
            if not readable:
                return
            if listener in readable:
                self._jobs = channel.accept()
                token = self._read_line(deadline)
                if token != channel.token.encode():
                    self.kill()
                    raise ContainerError(f"sandbox container {self.name}: the job channel's first line was not "
                                         f"the runner's token ({(token or b'')[:40]!r})")
                return
            self._fill(deadline)

    def kill(self) -> None:
        """SIGKILL and remove the container (by id, so a dead client cannot leak it); a removal the engine refuses
        is tried again after each of :data:`REMOVE_RETRY_WAITS`."""
        import docker.errors

        for stream in {id(s): s for s in (self._jobs, self._attach, self._socket) if s is not None}.values():
            try:
                stream.close()
            except OSError:
                pass
        self._jobs = self._attach = self._socket = None
        if self.container_id is None:
            return
        container_id, self.container_id = self.container_id, None
        for wait in (0.0, *REMOVE_RETRY_WAITS):
            time.sleep(wait)
            with self.api_lock:
                try:
                    self.client.api.remove_container(container_id, force=True)
                    return
                except docker.errors.NotFound:
                    return
                except docker.errors.APIError as exc:
                    if "already in progress" in str(exc):
                        return
                    refused = exc
        logger.warning("could not remove sandbox container %s: %s", container_id[:12], refused)

    @property
    def running(self) -> bool:
        """The container was started and its job stream has not been seen to end (no I/O)."""
        return self._jobs is not None

    def idle_check(self) -> bool:
        """For the owning thread, with no job in flight: the stream is still open and silent."""
        if self._jobs is None:
            return False
        try:
            readable, _, _ = select.select([self._jobs], [], [], 0)
        except (OSError, ValueError):
            return False
        if readable:  # the runner never speaks unasked: data or EOF here means trouble
            self._fill(time.monotonic())
            return self._jobs is not None and not self._buffer
        return True

    def stderr_tail(self, limit: int = 2000, wait_s: float = 0.5) -> str:
        """The last ``limit`` characters the runner wrote to stderr (waiting up to ``wait_s`` for
        the attach stream's rest when jobs use the job channel)."""
        deadline = time.monotonic() + wait_s
        while self._attach is not None and self._attach is not self._jobs:
            try:
                readable, _, _ = select.select([self._attach], [], [], max(0.0, deadline - time.monotonic()))
                chunk = self._attach.recv(1 << 16) if readable else None
            except (OSError, ValueError):
                chunk = b""
            if chunk is None:
                break
            if not chunk:
                self._attach = None
                break
            self._demultiplex(chunk)
        return bytes(self._stderr[-limit:]).decode("utf-8", "replace")

    # -- jobs
    def send(self, payload: bytes) -> None:
        """Send one encoded job (the runner reads it when it is done with the previous one)."""
        if self._jobs is None:
            raise ContainerError(f"container {self.name} is not running")
        try:
            self._jobs.sendall(payload)
        except OSError as exc:
            raise ContainerError(f"container {self.name} stopped reading jobs: {exc}") from exc

    def receive(self, job_id: str, deadline: float) -> dict[str, Any]:
        """The runner's report on job ``job_id``, the oldest job sent and not yet answered.

        Raises :class:`ContainerError` when the container dies, breaks the protocol or does
        not answer by ``deadline`` (a ``time.monotonic()`` value); the caller must then
        :meth:`kill` it.
        """
        line = self._read_line(deadline)
        if line is None:
            if self._jobs is None:
                raise ContainerError(f"container {self.name} exited during the job; stderr: {self.stderr_tail()}")
            raise ContainerError(f"container {self.name} did not answer by the job's deadline (wedged)")
        try:
            report = json.loads(line)
        except ValueError as exc:
            raise ContainerError(f"container {self.name} sent a malformed report: {line[:200]!r}") from exc
        if not isinstance(report, dict) or report.get("id") != job_id:
            answered = report.get("id") if isinstance(report, dict) else "?"
            raise ContainerError(f"container {self.name} answered job {answered} instead of {job_id}")
        self.jobs_run += 1
        return report

    def _fill(self, deadline: float) -> bool:
        """Receive once from the job stream (waiting until ``deadline``); False on timeout or end of stream."""
        stream = self._jobs
        if stream is None:
            return False
        left = deadline - time.monotonic()
        try:
            readable, _, _ = select.select([stream], [], [], max(0.0, left))
            if not readable:
                return False
            chunk = stream.recv(1 << 16)
        except (OSError, ValueError):
            chunk = b""
        if not chunk:
            self._jobs = None
            if stream is self._attach:
                self._attach = None
            return False
        if stream is self._attach:
            self._demultiplex(chunk)
        else:
            self._buffer += chunk
        return True

    def _demultiplex(self, chunk: bytes) -> None:
        """Frames of the attach stream (8-byte headers: stream, 0, 0, 0, size): stdout to the job
        buffer when jobs use this stream, everything else to the stderr tail."""
        self._pending += chunk
        while len(self._pending) >= 8:
            stream, size = self._pending[0], struct.unpack(">I", self._pending[4:8])[0]
            if len(self._pending) < 8 + size:
                break
            data = bytes(self._pending[8:8 + size])
            del self._pending[:8 + size]
            if stream == 1 and self._jobs is self._attach:
                self._buffer += data
            else:
                self._stderr = (self._stderr + data)[-65536:]

    def _read_line(self, deadline: float) -> bytes | None:
        while b"\n" not in self._buffer:
            if self._jobs is None or not self._fill(deadline):
                if self._jobs is None or time.monotonic() >= deadline:
                    return None
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        return line


def sandbox_containers(client: Any) -> list[Any]:
    """Every sandbox container on the engine (running or not; one removed while this lists it is left out)."""
    return client.containers.list(all=True, ignore_removed=True, filters={"label": LABEL})


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def leaked_containers(client: Any) -> list[Any]:
    """Sandbox containers whose owner process (on this host) no longer exists."""
    host = socket.gethostname()
    leaked = []
    for container in sandbox_containers(client):
        owner_host, _, pid = container.labels.get(LABEL, "").rpartition("/")
        if owner_host == host and pid.isdigit() and not _pid_alive(int(pid)):
            leaked.append(container)
    return leaked


def remove_containers(containers: list[Any]) -> int:
    """Force-remove ``containers``; returns how many were removed."""
    import docker.errors

    removed = 0
    for container in containers:
        try:
            container.remove(force=True)
            removed += 1
        except docker.errors.NotFound:
            removed += 1
        except docker.errors.APIError as exc:
            logger.warning("could not remove container %s: %s", container.name, exc)
    return removed
