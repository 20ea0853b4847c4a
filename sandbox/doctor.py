"""``rlenv sandbox doctor``: what the sandbox needs, and what is missing, in plain words."""

from __future__ import annotations

import dataclasses
import os
import shutil
import time
from typing import Any

from rlenv.sandbox.build import default_image, image_exists
from rlenv.sandbox.container import leaked_containers


@dataclasses.dataclass(frozen=True)
class Check:
    """One diagnostic: ``ok`` is True, False (a problem) or None (information only)."""

    name: str
    ok: bool | None
    detail: str


def _engine_problem(exc: Exception) -> str:
    text = str(exc)
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if "Permission denied" in text or isinstance(exc, PermissionError):
        return (f"permission denied on the Docker socket ({host}): add your user to the 'docker' group "
                "(sudo usermod -aG docker $USER, then log in again) or run as root")
    if "No such file" in text or "Connection refused" in text or "FileNotFoundError" in text:
        return (f"no Docker engine answers at {host}: install it (apt-get install docker.io) and start it "
                "(sudo systemctl start docker, or `dockerd &`)")
    return f"the Docker engine at {host} is not usable: {text}"


def diagnose(image: str | None = None, run_job: bool = True) -> list[Check]:
    """Check the engine, the image, leaked containers and (``run_job``) a real job."""
    import docker

    image = image or default_image()
    checks: list[Check] = []
    try:
        client = docker.from_env(timeout=10)
        client.ping()
        info = client.info()
    except Exception as exc:
        return [Check("engine", False, _engine_problem(exc))]
    security = ", ".join(str(s).split(",")[0].replace("name=", "") for s in info.get("SecurityOptions", [])) or "none"
    checks.append(Check("engine", True, f"Docker {info.get('ServerVersion')} (cgroup v{info.get('CgroupVersion', '?')}, "
                                        f"security: {security})"))
    if not image_exists(client, image):
        checks.append(Check("image", False, f"image {image} is missing: run `rlenv sandbox build` (with a registry) "
                                            "or `rlenv sandbox build --offline` (as root, needs debootstrap)"))
    else:
        checks.append(Check("image", True, f"{image} is present"))
    offline_tools = [t for t in ("debootstrap", "tar") if shutil.which(t) is None]
    checks.append(Check("offline build", None, "debootstrap and tar found" + ("" if os.geteuid() == 0 else
                                                                                 " (the offline build needs root)")
                        if not offline_tools else f"{' and '.join(offline_tools)} missing: the offline build "
                                                  "cannot run here (apt-get install debootstrap)"))
    leaked = leaked_containers(client)
    checks.append(Check("leaked containers", not leaked,
                        "none" if not leaked else f"{len(leaked)} containers of dead processes: remove them with "
                                                  "`rlenv sandbox doctor --clean`"))
    if run_job and all(c.ok is not False for c in checks if c.name in ("engine", "image")):
        checks.append(_smoke(image))
    return checks


def _smoke(image: str) -> Check:
    from rlenv.sandbox.container import ContainerSpec
    from rlenv.sandbox.jobs import FunctionJob, IOCase, ProgramJob
    from rlenv.sandbox.pool import SandboxPool

    began = time.monotonic()
    try:
        with SandboxPool(1, ContainerSpec(image=image)) as pool:
            program = pool.run(ProgramJob("print(sum(map(int, input().split())))", cases=[IOCase("40 2\n", "42")]))
            function = pool.run(FunctionJob("def f(x):\n    return x * 2\n", ["assert f(21) == 42"]))
    except Exception as exc:
        return Check("test job", False, f"a sandbox job could not run: {exc}")
    if not (program.ok and function.ok):
        bad = program if not program.ok else function
        return Check("test job", False, f"a trivial job did not pass: {bad.status.value}: {bad.error}")
    return Check("test job", True, f"two trivial jobs passed ({time.monotonic() - began:.1f} s including start-up)")


def problems(image: str | None = None, run_job: bool = False) -> list[str]:
    """The details of every failed check (empty when the sandbox is ready)."""
    return [f"{c.name}: {c.detail}" for c in diagnose(image, run_job) if c.ok is False and c.name != "leaked containers"]


def clean(client: Any = None) -> int:
    """Remove the containers leaked by dead processes; returns how many."""
    import docker

    from rlenv.sandbox.container import remove_containers

    client = client or docker.from_env(timeout=30)
    return remove_containers(leaked_containers(client))
