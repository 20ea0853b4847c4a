"""``--model`` of ``rlenv eval`` and ``rlenv train``: a local path that does not exist, a directory
that holds no model, or a hub id the Hub does not know or cannot be asked about, is an immediate
one-line ``rlenv CMD: error:`` naming it (no hub retries, no traceback)."""

import http.server
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import rlenv
from rlenv.cli import main
from tests.waiting import PATIENCE_S, scaled


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "runs" / "grpo" / "checkpoint-2").mkdir(parents=True)
    (tmp_path / "runs" / "grpo" / "checkpoint-2" / "trainer_state.pt").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _cli(command: str, model: str, tmp_path) -> list[str]:
    out = ["--out", str(tmp_path / "eval")] if command == "eval" else ["--output", str(tmp_path / "train")]
    return [command, "rlenv/ExactMatch-v0", "--model", model, *out]


@pytest.mark.parametrize("command", ["eval", "train"])
@pytest.mark.parametrize("model", ["runs/grpo/finl", "runs/typo", "./typo", "/nonexistent/model"])
def test_a_local_path_that_does_not_exist_is_a_one_line_error(workdir, capsys, command, model):
    assert main(_cli(command, model, workdir)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rlenv {command}: error: --model {model}: no such directory") and err.count("\n") == 1
    assert not (workdir / "eval").exists() and not (workdir / "train").exists()


@pytest.mark.parametrize("command", ["eval", "train"])
def test_a_directory_without_a_model_says_so(workdir, capsys, command):
    assert main(_cli(command, "runs/grpo", workdir)) == 2
    err = capsys.readouterr().err
    assert f"rlenv {command}: error: --model runs/grpo: " in err and "no config.json" in err
    assert "it holds: checkpoint-2" in err


class HubStandIn:
    """A real HTTP server on 127.0.0.1 in the Hub's place (``HF_ENDPOINT``) that knows no model: it
    answers every request as the Hub answers for an unknown repository (404, ``RepoNotFound``) and
    counts the requests."""

    def __init__(self):
        self.requests: list[str] = []
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                hub.requests.append(self.path)
                body = b'{"error": "Repository Not Found"}'
                self.send_response(404)
                self.send_header("X-Error-Code", "RepoNotFound")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_HEAD = do_GET  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli_with_hub(args: list[str], endpoint: str, tmp_path) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HOME": str(tmp_path / "hf-home"),
           "PYTHONPATH": os.pathsep.join([str(Path(rlenv.__file__).resolve().parents[1]),
                                          os.environ.get("PYTHONPATH", "")])}
    env.pop("HF_HUB_OFFLINE", None)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "rlenv", *args], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=PATIENCE_S)
    return proc, time.monotonic() - start


@pytest.mark.parametrize("command", ["eval", "train"])
def test_a_hub_id_the_hub_does_not_know_is_a_one_line_error_after_one_request(tmp_path, command):
    hub = HubStandIn()
    try:
        proc, elapsed = _cli_with_hub(_cli(command, "nobody/tiny-modle", tmp_path), hub.url, tmp_path)
    finally:
        hub.close()
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith(f"rlenv {command}: error: --model nobody/tiny-modle: no such local directory")
    assert "no model 'nobody/tiny-modle' on the Hugging Face Hub at " + hub.url in proc.stderr
    asked = [path for path in hub.requests if path.startswith("/api/models/")]
    assert proc.stderr.count("\n") == 1 and asked == ["/api/models/nobody/tiny-modle"]  # once, no traceback
    assert elapsed < scaled(15)
    assert not (tmp_path / "eval").exists() and not (tmp_path / "train").exists()


@pytest.mark.parametrize("command", ["eval", "train"])
def test_a_hub_id_when_the_hub_cannot_be_reached_is_a_one_line_error_at_once(tmp_path, command):
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    proc, elapsed = _cli_with_hub(_cli(command, "tiny-modle", tmp_path), endpoint, tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.startswith(f"rlenv {command}: error: --model tiny-modle: no such local directory")
    assert f"the Hugging Face Hub at {endpoint} cannot be reached" in proc.stderr
    assert "give a local model directory" in proc.stderr and proc.stderr.count("\n") == 1
    assert elapsed < scaled(15)
