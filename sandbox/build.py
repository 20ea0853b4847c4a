"""Building the sandbox image ``rlenv-sandbox:<version>``.

Two recipes produce an image with a full Python 3 standard library and a non-root default user:

* :func:`build_dockerfile`: ``docker build`` of ``sandbox/Dockerfile`` (``FROM`` an official
  Python image: needs a registry, unless ``base`` names a local image).
* :func:`build_offline`: ``debootstrap`` a minimal Debian root filesystem with the full
  ``python3`` package from the Debian mirror apt uses, then ``docker import`` it. Needs root and
  ``debootstrap``, but no registry.

``<version>`` is a hash of both recipes, so a recipe change gives a new tag, and building is
skipped when the image for the current recipes already exists. The job runner is not part of
the image: it is passed to ``python3 -c`` when a container starts.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
from importlib.resources import files
from typing import Any

from rlenv.sandbox.errors import SandboxError

logger = logging.getLogger(__name__)

IMAGE_REPOSITORY = "rlenv-sandbox"
#: Label carrying the recipe hash on images built by either recipe.
RECIPE_LABEL = "org.rlenv.sandbox.recipe-hash"
#: The offline recipe (part of the image version hash).
OFFLINE_RECIPE: dict[str, Any] = {
    "suite": "bookworm",
    "variant": "minbase",
    "packages": ["python3"],
    "prune": ["var/cache/apt/archives/*.deb", "var/lib/apt/lists/*", "usr/share/doc", "usr/share/man",
              "usr/share/info", "usr/share/locale"],
    "env": {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"},
    "user": "65534:65534",
    "workdir": "/tmp",
}
DEFAULT_MIRROR = "http://deb.debian.org/debian"
#: Modules the runner needs; the image check imports them.
REQUIRED_MODULES = ("json", "resource", "ctypes", "select", "fcntl", "signal", "_signal", "_operator", "base64", "socket")


class BuildError(SandboxError):
    """The image could not be built; the message says what to do."""


@dataclasses.dataclass(frozen=True)
class BuildResult:
    """What :func:`build_offline` / :func:`build_dockerfile` did."""

    image: str
    built: bool  #: False when the image was already there
    seconds: float
    recipe: str


def dockerfile_text() -> str:
    return (files("rlenv.sandbox") / "Dockerfile").read_text()


def recipe_hash() -> str:
    """Hash of both recipes (12 hex digits): the image version."""
    data = json.dumps(OFFLINE_RECIPE, sort_keys=True) + "\n" + dockerfile_text()
    return hashlib.sha256(data.encode()).hexdigest()[:12]


def default_image() -> str:
    """``rlenv-sandbox:<recipe hash>``: the image pools use unless told otherwise."""
    return f"{IMAGE_REPOSITORY}:{recipe_hash()}"


def image_exists(client: Any, image: str) -> bool:
    import docker.errors

    try:
        client.images.get(image)
        return True
    except docker.errors.ImageNotFound:
        return False


def debian_mirror() -> str:
    """The Debian mirror apt uses on this machine (``deb.debian.org`` if none is configured)."""
    candidates = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path) as handle:
            text = handle.read()
        for block in text.split("\n\n"):
            if re.search(r"^Types:.*\bdeb\b", block, re.M) and not re.search(r"^Enabled:\s*no", block, re.M | re.I):
                candidates += re.findall(r"^URIs:\s*(\S+)", block, re.M)
    for path in ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*.list"))]:
        if os.path.exists(path):
            with open(path) as handle:
                candidates += re.findall(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)", handle.read(), re.M)
    for uri in candidates:
        if uri.startswith(("http://", "https://")) and "security" not in uri and "debian" in uri:
            return uri
    return DEFAULT_MIRROR


def _run(command: list[str], what: str) -> None:
    logger.info("%s: %s", what, " ".join(command))
    process = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if process.returncode != 0:
        raise BuildError(f"{what} failed (exit {process.returncode}): {' '.join(command)}\n{process.stdout[-3000:]}")


def check_image(client: Any, image: str) -> str:
    """Run the image hardened and import the runner's modules; returns its Python version."""
    code = f"import sys, {', '.join(REQUIRED_MODULES)}; print(sys.version.split()[0])"
    output = client.containers.run(image, ["python3", "-I", "-S", "-c", code], remove=True, network_mode="none",
                                   user=OFFLINE_RECIPE["user"], cap_drop=["ALL"], read_only=True)
    version = output.decode().strip()
    if tuple(int(p) for p in version.split(".")[:2]) < (3, 10):
        raise BuildError(f"image {image} has Python {version}; the sandbox runner needs 3.10 or newer")
    return version


def build_offline(client: Any, image: str | None = None, mirror: str | None = None, force: bool = False) -> BuildResult:
    """Build ``image`` (default :func:`default_image`) with debootstrap + ``docker import``.

    Skipped when the image exists, unless ``force``. Needs root, ``debootstrap`` and ``tar``;
    ``mirror`` defaults to :func:`debian_mirror`.
    """
    image = image or default_image()
    began = time.monotonic()
    if not force and image_exists(client, image):
        return BuildResult(image, False, time.monotonic() - began, "offline")
    for tool in ("debootstrap", "tar"):
        if shutil.which(tool) is None:
            raise BuildError(f"the offline build needs {tool!r}: install it (apt-get install {tool})")
    if os.geteuid() != 0:
        raise BuildError("the offline build runs debootstrap, which needs root: run it with sudo, "
                         "or use the Dockerfile recipe on a machine with a registry")
    recipe, mirror = OFFLINE_RECIPE, mirror or debian_mirror()
    repository, _, tag = image.rpartition(":")
    with tempfile.TemporaryDirectory(prefix="rlenv-sandbox-build-") as tmp:
        rootfs = os.path.join(tmp, "rootfs")
        _run(["debootstrap", f"--variant={recipe['variant']}", f"--include={','.join(recipe['packages'])}",
              recipe["suite"], rootfs, mirror], "debootstrap")
        for pattern in recipe["prune"]:
            for path in glob.glob(os.path.join(rootfs, pattern)):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
        archive = os.path.join(tmp, "rootfs.tar")
        _run(["tar", "--numeric-owner", "-C", rootfs, "-cf", archive, "."], "tar")
        changes = [f"ENV {key}={value}" for key, value in recipe["env"].items()]
        changes += [f"USER {recipe['user']}", f"WORKDIR {recipe['workdir']}",
                    f"LABEL {RECIPE_LABEL}={recipe_hash()}", "LABEL org.rlenv.sandbox.recipe=offline"]
        logger.info("docker import %s", image)
        client.api.import_image(src=archive, repository=repository or IMAGE_REPOSITORY, tag=tag, changes=changes)
    version = check_image(client, image)
    logger.info("built %s (Python %s) in %.0f s", image, version, time.monotonic() - began)
    return BuildResult(image, True, time.monotonic() - began, "offline")


def build_dockerfile(client: Any, image: str | None = None, base: str | None = None, force: bool = False) -> BuildResult:
    """``docker build`` ``sandbox/Dockerfile`` into ``image``; ``base`` overrides its ``FROM``
    (default ``python:3.12-slim``, pulled from the registry). Skipped when the image exists,
    unless ``force``."""
    import docker.errors

    image = image or default_image()
    began = time.monotonic()
    if not force and image_exists(client, image):
        return BuildResult(image, False, time.monotonic() - began, "dockerfile")
    with tempfile.TemporaryDirectory(prefix="rlenv-sandbox-build-") as tmp:
        with open(os.path.join(tmp, "Dockerfile"), "w") as handle:
            handle.write(dockerfile_text())
        buildargs = {"BASE": base} if base else {}
        try:
            client.images.build(path=tmp, tag=image, buildargs=buildargs, labels={RECIPE_LABEL: recipe_hash()},
                                rm=True, forcerm=True, pull=False)
        except (docker.errors.BuildError, docker.errors.APIError) as exc:
            raise BuildError(f"docker build of {image} failed: {exc}. Without a registry, use the offline "
                             "recipe (rlenv sandbox build --offline)") from exc
    version = check_image(client, image)
    logger.info("built %s (Python %s) in %.0f s", image, version, time.monotonic() - began)
    return BuildResult(image, True, time.monotonic() - began, "dockerfile")
