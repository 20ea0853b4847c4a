"""A real vLLM OpenAI-compatible server on 127.0.0.1, started for tests (``python -m
vllm.entrypoints.openai.api_server``, the package's own server, on the CPU backend)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.waiting import PATIENCE_S


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, deadline_s: float, process: subprocess.Popen | None = None) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before answering {url}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer within {deadline_s} s")


@contextlib.contextmanager
def vllm_openai_server(checkpoint: Path, served_name: str, log: Path, max_model_len: int = 256) -> Iterator[str]:
    """Serve ``checkpoint`` as ``served_name``; yields the API root ``http://127.0.0.1:PORT/v1``
    (the test fails with the server's log if it does not come up)."""
    port = free_port()
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1"}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(checkpoint),
             "--served-model-name", served_name, "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
             "--max-model-len", str(max_model_len), "--enforce-eager", "--gpu-memory-utilization", "0.2"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        wait_for(f"http://127.0.0.1:{port}/v1/models", PATIENCE_S, process)
    except (RuntimeError, TimeoutError) as exc:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail(f"{exc}\n{log.read_text()[-3000:]}")
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=PATIENCE_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
