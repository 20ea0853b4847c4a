"""The job channel: jobs reach the runner over a unix socket from the host, nothing else can connect
to it, and where the runner cannot reach it jobs use the attach stream with a warning."""

import json
import logging
import os
import socket
import uuid

import pytest

from rlenv.sandbox import ContainerSpec, IOCase, Limits, ProgramJob, SandboxPool
from rlenv.sandbox.channel import MOUNT_POINT, HostChannel
from rlenv.sandbox.container import ContainerError, ContainerSession
from rlenv.sandbox.pool import docker_client

pytestmark = pytest.mark.docker

ROOMY = Limits(timeout_s=120.0, test_timeout_s=60.0, memory_mb=256)
#: A program that reports what it sees of the channel: the mounted directory (the host made it 0700, so
#: the job user cannot even list it), whether it can connect to the socket's path (its seccomp filter
#: refuses it unix sockets), and whether the channel's variables reached it.
PROBE = f"""
import json, os, socket
seen = {{"environment": sorted(k for k in os.environ if k.startswith("RLENV_CHANNEL"))}}
try:
    seen["listing"] = os.listdir({MOUNT_POINT!r})
except OSError as exc:
    seen["listing"] = type(exc).__name__
try:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # candidates get no unix sockets at all
    probe.connect({MOUNT_POINT!r} + "/runner.sock")
    seen["connect"] = "connected"
except OSError as exc:
    seen["connect"] = type(exc).__name__
print(json.dumps(seen))
"""


def probe_job() -> ProgramJob:
    return ProgramJob(PROBE, [IOCase("", "")], limits=ROOMY)


def run_probe(pool: SandboxPool) -> dict:
    result = pool.run(probe_job())
    return json.loads(result.tests[0].stdout)


@pytest.fixture
def session(docker_ready):
    started = ContainerSession(docker_client(), ContainerSpec(), uuid.uuid4().hex)
    started.start()
    yield started
    started.kill()


def test_a_job_cannot_see_or_reach_the_channel(pool):
    # the shared pool's containers use the channel (test_pool checks the mount); a job reaches none of it
    seen = run_probe(pool)
    assert seen == {"environment": [], "listing": "PermissionError", "connect": "PermissionError"}, seen


def test_the_ready_line_names_the_channel(session):
    assert session.ready_info["channel"] == "socket"


def test_without_the_channel_jobs_use_the_attach_stream(docker_ready):
    with SandboxPool(1, ContainerSpec(job_channel=False)) as pool:
        assert pool.run(ProgramJob("print(6 * 7)", [IOCase("", "42")], limits=ROOMY)).ok
        (name,) = pool.container_names()
        assert docker_client().api.inspect_container(name)["Mounts"] == []


def test_a_runner_that_cannot_reach_the_channel_falls_back_with_a_warning(docker_ready, monkeypatch, caplog):
    real = HostChannel.environment
    monkeypatch.setattr(HostChannel, "environment",
                        property(lambda self: dict(real.fget(self), RLENV_CHANNEL=f"{MOUNT_POINT}/elsewhere.sock")))
    with caplog.at_level(logging.WARNING, logger="rlenv.sandbox.container"):
        with SandboxPool(1) as pool:
            assert pool.run(ProgramJob("print(6 * 7)", [IOCase("", "42")], limits=ROOMY)).ok
    warnings = [r.getMessage() for r in caplog.records if "could not reach its job channel" in r.getMessage()]
    assert warnings and "elsewhere.sock" in warnings[0], caplog.text


def test_a_connection_without_the_token_is_refused(docker_ready, monkeypatch):
    # an impostor connects before the container even starts: the session refuses that connection
    real_init, impostors = HostChannel.__init__, []

    def init_then_impostor(self):
        real_init(self)
        impostor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        impostor.connect(os.path.join(self.directory, "runner.sock"))
        impostor.sendall(b"not-the-token\n")
        impostors.append(impostor)

    monkeypatch.setattr(HostChannel, "__init__", init_then_impostor)
    session = ContainerSession(docker_client(), ContainerSpec(), uuid.uuid4().hex)
    with pytest.raises(ContainerError, match="token"):
        session.start()
    assert session.container_id is None  # killed and removed
    for impostor in impostors:
        impostor.close()


def test_the_channel_directory_is_private_and_removed(tmp_path):
    channel = HostChannel()
    assert os.stat(channel.directory).st_mode & 0o777 == 0o700
    assert channel.environment["RLENV_CHANNEL"] == f"{MOUNT_POINT}/runner.sock"
    assert channel.binds == {channel.directory: {"bind": MOUNT_POINT, "mode": "ro"}}
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(os.path.join(channel.directory, "runner.sock"))
    connection = channel.accept()
    assert not os.path.exists(channel.directory)
    with pytest.raises(OSError, match="already accepted"):
        channel.accept()
    connection.close()
    client.close()
    channel.close()
