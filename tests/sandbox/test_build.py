"""Image recipes and the ``rlenv sandbox build|doctor`` commands."""

import os
import subprocess
import sys
import textwrap

import docker
import pytest

from rlenv.sandbox import ContainerSpec, FunctionJob, IOCase, ProgramJob, SandboxPool, build
from tests.waiting import PATIENCE_S

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rlenv", "sandbox", *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def test_the_image_version_is_a_hash_of_both_recipes(monkeypatch):
    assert build.default_image() == f"rlenv-sandbox:{build.recipe_hash()}" and len(build.recipe_hash()) == 12
    before = build.recipe_hash()
    monkeypatch.setitem(build.OFFLINE_RECIPE, "packages", ["python3", "gcc"])
    assert build.recipe_hash() != before
    monkeypatch.undo()
    monkeypatch.setattr(build, "dockerfile_text", lambda: "FROM scratch\n")
    assert build.recipe_hash() != before


def test_dockerfile_recipe_uses_an_official_python_image_and_a_non_root_user():
    text = build.dockerfile_text()
    assert "ARG BASE=python:3.12-slim" in text and "FROM ${BASE}" in text and "USER 65534:65534" in text


def test_debian_mirror_is_an_http_url():
    assert build.debian_mirror().startswith(("http://", "https://"))


def test_cli_help_lists_build_and_doctor():
    output = cli("--help")
    assert output.returncode == 0 and "build" in output.stdout and "doctor" in output.stdout


@pytest.mark.docker
def test_offline_build_is_skipped_when_the_image_is_up_to_date(docker_ready):
    output = cli("build", "--offline")
    assert output.returncode == 0 and "up to date" in output.stdout and build.default_image() in output.stdout


@pytest.mark.docker
def test_dockerfile_recipe_builds_a_working_image(docker_ready):
    client = docker.from_env()
    tag = "rlenv-sandbox:test-dockerfile-recipe"
    try:
        result = build.build_dockerfile(client, tag, base=build.default_image(), force=True)  # local base: no registry
        assert result.built and result.recipe == "dockerfile"
        assert client.images.get(tag).labels[build.RECIPE_LABEL] == build.recipe_hash()
        with SandboxPool(1, ContainerSpec(image=tag)) as pool:
            program = pool.run(ProgramJob("print(sum(range(5)))", [IOCase("", "10")]))
            function = pool.run(FunctionJob("def f():\n    return 'ok'\n", ["assert f() == 'ok'"]))
        assert program.ok and function.ok
        assert not build.build_dockerfile(client, tag, base=build.default_image()).built  # idempotent
    finally:
        client.images.remove(tag, force=True)


@pytest.mark.docker
def test_doctor_reports_a_ready_sandbox(docker_ready):
    output = cli("doctor")
    assert output.returncode == 0, output.stdout + output.stderr
    assert "the sandbox is ready" in output.stdout and "test job: two trivial jobs passed" in output.stdout


@pytest.mark.docker
def test_doctor_says_how_to_get_a_missing_image(docker_ready):
    output = cli("doctor", "--image", "rlenv-sandbox:not-built", "--no-run")
    assert output.returncode == 1
    assert "MISSING image: image rlenv-sandbox:not-built is missing: run `rlenv sandbox build`" in output.stdout


def test_doctor_says_when_there_is_no_engine():
    output = cli("doctor", env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert output.returncode == 1 and "MISSING engine: no Docker engine answers" in output.stdout


def test_build_without_an_engine_fails_clearly():
    output = cli("build", "--offline", env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert output.returncode == 1 and "no Docker engine" in output.stdout


def test_with_ci_true_docker_tests_fail_instead_of_skipping(tmp_path):
    # A Docker test run where the engine is unreachable: it must error with CI=true, skip without.
    (tmp_path / "sandbox").mkdir()
    probe = tmp_path / "sandbox" / "test_sandbox_probe_needs_docker.py"
    probe.write_text(textwrap.dedent("""
        def test_needs_docker(pool):
            assert pool.run is not None
    """))
    for name in ("conftest.py", "waiting.py", os.path.join("sandbox", "conftest.py")):  # the repo's tests/ layout
        (tmp_path / name).write_text(open(os.path.join(REPO, "tests", name)).read())
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock", "PYTHONPATH": REPO}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(probe)]
    in_ci = subprocess.run(command, capture_output=True, text=True, env={**env, "CI": "true"}, timeout=PATIENCE_S)
    assert in_ci.returncode != 0 and "1 error" in in_ci.stdout and "CI=true" in in_ci.stdout, in_ci.stdout
    local = subprocess.run(command, capture_output=True, text=True, env={**env, "CI": "false"}, timeout=PATIENCE_S)
    assert local.returncode == 0 and "1 skipped" in local.stdout, local.stdout


@pytest.mark.parametrize("error,advice", [
    (PermissionError(13, "Permission denied"), "add your user to the 'docker' group"),
    (ConnectionError("('Connection aborted.', FileNotFoundError(2, 'No such file or directory'))"),
     "install it (apt-get install docker.io) and start it"),
    (RuntimeError("server gave HTTP 500"), "is not usable: server gave HTTP 500"),
])
def test_doctor_words_for_engine_problems(error, advice):
    from rlenv.sandbox.doctor import _engine_problem

    assert advice in _engine_problem(error)
