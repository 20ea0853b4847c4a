"""The pool: hardening flags, one result per job, backpressure, replacement of crashed or wedged
containers, laziness, sharing, and clean-up on close, Ctrl-C and kill -9."""

import concurrent.futures as cf
import os
import signal
import subprocess
import sys
import textwrap
import time

import docker
import pytest

import rlenv.sandbox
from rlenv.sandbox import (
    ContainerSpec,
    FunctionJob,
    IOCase,
    JobStatus,
    Limits,
    ProgramJob,
    SandboxBusy,
    SandboxPool,
    SandboxUnavailable,
)
from rlenv.sandbox.channel import MOUNT_POINT
from rlenv.sandbox.container import (
    LABEL,
    POOL_LABEL,
    RUNNER_CAPABILITIES,
    ContainerSession,
    leaked_containers,
    owner_id,
    sandbox_containers,
)
from tests.interrupts import default_sigint
from tests.waiting import PATIENCE_S, scaled, wait_until

pytestmark = pytest.mark.docker

#: Limits of the jobs that must pass: far above what they need even on a loaded machine (there, a candidate's
#: set-up alone can take a second). Jobs that must time out set their own.
ROOMY = Limits(timeout_s=120.0, test_timeout_s=60.0, memory_mb=256)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def client(docker_ready):
    return docker.from_env()


def pool_containers(client, pool_id: str) -> list:
    return client.containers.list(all=True, ignore_removed=True, filters={"label": f"{POOL_LABEL}={pool_id}"})


def process_count(client, name: str) -> int:
    """How many processes run in container ``name`` (a job adds its candidate's to the runner's and grader's)."""
    return len(client.containers.get(name).top()["Processes"])


def kill_and_wait(client, name: str) -> None:
    """Kill container ``name`` and wait until the engine reports it stopped (or already removed)."""
    container = client.containers.get(name)
    container.kill()
    try:
        container.wait(timeout=PATIENCE_S)
    except docker.errors.NotFound:
        pass


def test_containers_run_with_the_hardened_flags(pool, client):
    for name in pool.container_names():
        attrs = client.api.inspect_container(name)
        host, config = attrs["HostConfig"], attrs["Config"]
        assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
        assert host["Memory"] == host["MemorySwap"] == pool.spec.memory_mb << 20
        assert host["PidsLimit"] == pool.spec.pids_limit and host["NanoCpus"] == int(pool.spec.cpus * 1e9)
        assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
        assert sorted(host["CapAdd"]) == sorted(RUNNER_CAPABILITIES)  # the runner's; jobs drop them all
        assert not host.get("Privileged")
        # one mount from the host: the job channel's directory, read-only, removed from the host once
        # the runner connected (so the container sees it empty and nothing can connect again)
        (mount,) = attrs["Mounts"]
        assert mount["Destination"] == MOUNT_POINT and mount["RW"] is False and not os.path.exists(mount["Source"])
        assert set(host["Tmpfs"]) == {"/tmp", "/dev/shm"} and all("noexec" in o and "nr_inodes" in o for o in host["Tmpfs"].values())
        assert config["User"] == "0:0" and config["StdinOnce"] is True and host["AutoRemove"] is True
        assert config["Labels"][LABEL] == owner_id() and config["Labels"][POOL_LABEL] == pool.pool_id
        # no log driver: what candidates print reaches the host through the attach stream only, never a
        # log file on the host's disk that grows with every job of a long training run
        assert host["LogConfig"]["Type"] == "none"


def test_only_the_tmpfs_is_writable(pool):
    code = """
        def writable_mounts():
            mounts = []
            for line in open("/proc/self/mountinfo"):
                fields = line.split()
                point, options, fstype = fields[4], fields[5], fields[fields.index("-") + 1]
                if "rw" in options.split(",") and fstype not in ("proc", "sysfs", "cgroup", "devpts", "mqueue"):
                    mounts.append((point, fstype))
            return sorted(mounts)
        """
    result = pool.run(FunctionJob(textwrap.dedent(code), ["writable = dict(writable_mounts())\n"
                                                          "assert writable['/tmp'] == 'tmpfs' and writable['/dev/shm'] == 'tmpfs'\n"
                                                          "assert '/' not in writable"], limits=ROOMY))
    assert result.ok, result


def test_every_job_gets_exactly_one_result(pool):
    jobs = []
    for i in range(48):
        kind = i % 4
        if kind == 0:
            jobs.append((JobStatus.OK, ProgramJob(f"print({i} * 2)", [IOCase("", str(i * 2))], limits=ROOMY)))
        elif kind == 1:
            jobs.append((JobStatus.FAILED, FunctionJob("def f(x):\n    return -x\n", [f"assert f({i}) == {i}"],
                                                       limits=ROOMY)))
        elif kind == 2:
            jobs.append((JobStatus.OK, FunctionJob("def f(x):\n    return x * 2\n", [f"assert f({i}) == {2 * i}"],
                                                   limits=ROOMY)))
        else:
            jobs.append((JobStatus.TIMEOUT, ProgramJob("while True: pass", limits=Limits(timeout_s=2, test_timeout_s=0.3))))
    calls = []
    futures = []
    for _, job in jobs:
        future = pool.submit(job)
        future.add_done_callback(calls.append)
        futures.append(future)
    results = [f.result(timeout=PATIENCE_S) for f in futures]
    assert [r.status for r in results] == [status for status, _ in jobs]
    assert len(calls) == len(jobs) and all(f.done() for f in futures)
    assert all({"queued_s", "run_s", "job_s"} <= set(r.timings) and r.container for r in results)
    assert pool.map([ProgramJob("print(1)", limits=ROOMY)] * 3) and pool.stats()["alive"] == 2


def test_submit_applies_backpressure(docker_ready):
    with SandboxPool(1, queue_size=2, pipeline=2) as small:
        slow = ProgramJob("import time\ntime.sleep(1)", limits=Limits(timeout_s=5, test_timeout_s=3))
        accepted = []
        with pytest.raises(SandboxBusy, match="no room"):
            for _ in range(10):  # room: 2 in the queue, at most 2 sent to the container
                accepted.append(small.submit(slow, timeout=0.2))
        assert 2 <= len(accepted) <= 4
        assert [f.result(timeout=PATIENCE_S).status for f in accepted] == [JobStatus.OK] * len(accepted)


def test_a_killed_container_is_replaced(docker_ready, client):
    with SandboxPool(1) as single:
        assert single.run(ProgramJob("print(1)", limits=ROOMY)).ok
        kill_and_wait(client, single.container_names()[0])
        result = single.run(ProgramJob("print(2)", [IOCase("", "2")], limits=ROOMY))
        assert result.ok and single.replaced == 1


def test_a_container_dying_mid_job_gives_a_sandbox_error_and_is_replaced(docker_ready, client):
    with SandboxPool(1) as single:
        single.start()
        name = single.container_names()[0]
        idle = process_count(client, name)
        future = single.submit(ProgramJob("import time\ntime.sleep(60)", limits=Limits(timeout_s=90, test_timeout_s=80)))
        assert wait_until(lambda: process_count(client, name) > idle)  # the job is running
        client.containers.get(name).kill()
        result = future.result(timeout=PATIENCE_S)
        assert result.status is JobStatus.SANDBOX_ERROR and "exited" in result.error
        assert single.run(ProgramJob("print(3)", [IOCase("", "3")], limits=ROOMY)).ok
        assert single.replaced == 1 and name not in single.container_names()


def test_a_job_sent_ahead_to_a_dying_container_is_retried_elsewhere(docker_ready, client):
    with SandboxPool(1, pipeline=2) as single:
        single.start()
        name = single.container_names()[0]
        idle = process_count(client, name)
        running = single.submit(ProgramJob("import time\ntime.sleep(60)", limits=Limits(timeout_s=90, test_timeout_s=80)))
        waiting = single.submit(ProgramJob("print(5)", [IOCase("", "5")], limits=ROOMY))  # sent ahead, not started
        assert wait_until(lambda: process_count(client, name) > idle)  # the first job is running
        client.containers.get(name).kill()
        assert running.result(timeout=PATIENCE_S).status is JobStatus.SANDBOX_ERROR
        retried = waiting.result(timeout=PATIENCE_S)
        assert retried.ok and retried.container != name and single.replaced == 1


def test_a_wedged_container_is_replaced(docker_ready, client):
    with SandboxPool(1, reply_grace_s=1.0) as single:
        single.start()
        name = single.container_names()[0]
        client.containers.get(name).pause()  # frozen: the runner cannot answer
        began = time.monotonic()
        result = single.run(ProgramJob("print(1)", limits=Limits(timeout_s=1, test_timeout_s=1)))
        assert result.status is JobStatus.SANDBOX_ERROR and "wedged" in result.error
        assert time.monotonic() - began < scaled(15)
        assert single.run(ProgramJob("print(4)", [IOCase("", "4")], limits=ROOMY)).ok
        assert single.replaced == 1
        assert wait_until(lambda: not client.containers.list(all=True, ignore_removed=True, filters={"name": name}))


def test_pool_starts_lazily_and_close_removes_its_containers(docker_ready, client):
    lazy = SandboxPool(2)
    assert not lazy.started and lazy.container_names() == [] and pool_containers(client, lazy.pool_id) == []
    assert lazy.run(ProgramJob("print(1)", limits=ROOMY)).ok
    assert lazy.started and len(pool_containers(client, lazy.pool_id)) == 2
    waiting = [lazy.submit(ProgramJob("import time\ntime.sleep(2)", limits=Limits(timeout_s=5, test_timeout_s=4)))
               for _ in range(6)]
    lazy.close()
    statuses = [f.result(timeout=PATIENCE_S).status for f in waiting]
    assert len(statuses) == 6 and JobStatus.SANDBOX_ERROR in statuses
    assert wait_until(lambda: pool_containers(client, lazy.pool_id) == [])
    with pytest.raises(RuntimeError, match="closed"):
        lazy.submit(ProgramJob("print(1)"))


def test_shared_pool_is_one_per_process(docker_ready):
    shared = rlenv.sandbox.shared_pool()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        child = rlenv.sandbox.shared_pool()
        os.write(write, b"own" if child is not shared and child.pid == os.getpid() else b"parent's")
        os._exit(0)
    os.waitpid(pid, 0)
    os.close(write)
    assert os.read(read, 100) == b"own"
    os.close(read)
    assert rlenv.sandbox.shared_pool() is shared


def test_a_pool_refuses_to_run_in_a_forked_child(docker_ready):
    parent_pool = SandboxPool(1)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            parent_pool.submit(ProgramJob("print(1)"))
            os.write(write, b"ran")
        except RuntimeError as exc:
            os.write(write, str(exc).encode()[:200])
        os._exit(0)
    os.waitpid(pid, 0)
    os.close(write)
    assert b"after a fork" in os.read(read, 300)
    os.close(read)


def test_a_job_needing_more_memory_than_the_containers_is_refused(pool):
    with pytest.raises(ValueError, match="use a bigger ContainerSpec"):
        pool.submit(ProgramJob("print(1)", limits=Limits(memory_mb=4096)))


def test_a_bug_in_a_worker_still_resolves_the_job(docker_ready, monkeypatch):
    from rlenv.sandbox import jobs

    original = jobs.JobResult.from_report
    calls = []

    def broken_once(report, timings, container):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("injected worker bug")
        return original(report, timings, container)

    monkeypatch.setattr(jobs.JobResult, "from_report", staticmethod(broken_once))
    with SandboxPool(1) as single:
        first = single.submit(ProgramJob("print(1)", limits=ROOMY)).result(timeout=PATIENCE_S)
        assert first.status is JobStatus.SANDBOX_ERROR and "injected worker bug" in first.error
        assert single.run(ProgramJob("print(2)", [IOCase("", "2")], limits=ROOMY)).ok


def test_missing_image_is_a_clear_error(docker_ready):
    with pytest.raises(SandboxUnavailable, match="rlenv sandbox build"):
        SandboxPool(1, ContainerSpec(image="rlenv-sandbox:does-not-exist")).start()


def test_missing_engine_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(SandboxUnavailable, match="no Docker engine"):
        SandboxPool(1).start()


SCRIPT = """
import sys, time
sys.path.insert(0, {repo!r})
from rlenv.sandbox import Limits, ProgramJob, SandboxPool
pool = SandboxPool(2).start()
job = pool.submit(ProgramJob("import time\\ntime.sleep(60)", limits=Limits(timeout_s=90, test_timeout_s=80)))
print(pool.pool_id, flush=True)
job.result()
"""


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL])
def test_containers_are_removed_on_ctrl_c_and_on_kill(docker_ready, client, how):
    process = subprocess.Popen([sys.executable, "-c", SCRIPT.format(repo=REPO)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, preexec_fn=default_sigint)
    try:
        pool_id = process.stdout.readline().strip()
        assert pool_id and len(pool_containers(client, pool_id)) == 2
        process.send_signal(how)  # a job is in flight in one container
        process.wait(timeout=PATIENCE_S)
        left = [] if wait_until(lambda: pool_containers(client, pool_id) == []) else \
            [(c.name, c.status, c.logs(tail=5)) for c in pool_containers(client, pool_id)]
        assert left == []
    finally:
        if process.poll() is None:
            process.kill()


def test_leaked_containers_are_found_and_cleaned(docker_ready, client):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    leaked = client.containers.create(ContainerSpec().image, ["true"], labels={LABEL: owner_id(dead.pid)})
    try:
        assert leaked.id in {c.id for c in leaked_containers(client)}
        output = subprocess.run([sys.executable, "-m", "rlenv", "sandbox", "doctor", "--clean", "--no-run"],
                                capture_output=True, text=True, cwd=REPO, timeout=PATIENCE_S)
        assert "removed" in output.stdout and output.returncode == 0, output.stdout + output.stderr
        assert leaked.id not in {c.id for c in sandbox_containers(client)}
    finally:
        try:
            leaked.remove(force=True)
        except docker.errors.NotFound:
            pass


class _RefusingAPI:
    """Test double for the engine's own removal race ("unable to remove filesystem ...: directory not empty"),
    which no real engine produces on demand: refuses the first ``refusals`` removals, then hands each to the
    real engine's API."""

    def __init__(self, api, refusals: int):
        self.api, self.refusals, self.calls = api, refusals, 0

    def remove_container(self, container_id, **kwargs):
        self.calls += 1
        if self.calls <= self.refusals:
            raise docker.errors.APIError(f"driver failed to remove container {container_id}: unlinkat: directory not empty")
        return self.api.remove_container(container_id, **kwargs)


class _Client:
    def __init__(self, api):
        self.api = api


@pytest.mark.parametrize(("refusals", "removed"), [(2, True), (9, False)])
def test_a_removal_the_engine_refuses_is_tried_again(docker_ready, client, refusals, removed, caplog):
    created = client.containers.create(ContainerSpec().image, ["true"], labels={LABEL: owner_id()})
    api = _RefusingAPI(client.api, refusals)
    session = ContainerSession(_Client(api), ContainerSpec(), "test-pool")
    session.container_id = created.id
    try:
        session.kill()
        assert (created.id not in {c.id for c in sandbox_containers(client)}) is removed
        assert api.calls == (refusals + 1 if removed else 4)
        assert ("could not remove sandbox container" in caplog.text) is not removed
    finally:
        try:
            created.remove(force=True)
        except docker.errors.NotFound:
            pass


def test_soak_with_hostile_jobs_keeps_the_pool_healthy(pool, client):
    hostile = [
        ProgramJob("while True: pass", limits=Limits(timeout_s=2, test_timeout_s=0.3)),
        ProgramJob("import os\nos._exit(0)", [IOCase("", "1")], limits=ROOMY),
        ProgramJob("x = bytearray(1 << 34)", limits=ROOMY),
        ProgramJob("print('x' * (1 << 21))", limits=ROOMY),
        FunctionJob("import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGKILL)\n", ["f()"], limits=ROOMY),
    ]
    expected_hostile = [JobStatus.TIMEOUT, JobStatus.FAILED, JobStatus.MEMORY, JobStatus.OUTPUT_LIMIT, JobStatus.FAILED]
    jobs, expected = [], []
    for i in range(300):
        if i % 10 == 9:
            jobs.append(hostile[(i // 10) % len(hostile)])
            expected.append(expected_hostile[(i // 10) % len(hostile)])
        else:
            jobs.append(FunctionJob("def f(x):\n    return x + 1\n", [f"assert f({i}) == {i + 1}"], limits=ROOMY))
            expected.append(JobStatus.OK)
    with cf.ThreadPoolExecutor(4) as submitters:
        results = list(submitters.map(pool.run, jobs))
    assert len(results) == 300 and [r.status for r in results] == expected
    assert pool.stats()["alive"] == 2 and pool.replaced == 0
    assert len(pool_containers(client, pool.pool_id)) == 2
