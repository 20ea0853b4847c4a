"""``rlenv eval`` through every generation backend: HF ``generate``, an in-process vLLM engine and a
real vLLM OpenAI-compatible server on 127.0.0.1 give the same results file; a misbehaving server
(HTTP errors, malformed answers) gives per-sample ``error`` rows and loses nothing.

The policy is a tiny random Llama with one attention head of 64 (vLLM's CPU attention needs >= 64);
decoding is greedy, so every backend must produce the same completions.
"""

import json
import threading

import pytest

from rlenv.cli import main
from rlenv.errors import RequestRejectedError
from rlenv.inference import Sampling
from rlenv.inference.openai_server import OpenAICompleter
from tests.vllm_server import free_port, vllm_openai_server, wait_for
from tests.waiting import PATIENCE_S

pytest.importorskip("vllm")

ENV = "rlenv/Arithmetic-v0"
COMMON = ["-n", "2", "--num-tasks", "3", "--temperature", "0", "--max-new-tokens", "6", "--chat", "off", "--no-plot"]
SERVED_NAME = "tiny"


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    import torch

    from rlenv.trainers.tiny import save_tiny, tiny_causal_lm, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=64, num_heads=1, seed=5)
    with torch.no_grad():  # spread the logits so that greedy completions differ from prompt to prompt
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(10.0)
    return save_tiny(model, tokenizer, tmp_path_factory.mktemp("policy"))


@pytest.fixture(scope="module")
def vllm_server(checkpoint, tmp_path_factory):
    """``python -m vllm.entrypoints.openai.api_server`` on 127.0.0.1 (the package's own server)."""
    with vllm_openai_server(checkpoint, SERVED_NAME, tmp_path_factory.mktemp("server") / "server.log") as url:
        yield url


def rows(out_dir):
    return [json.loads(line) for line in (out_dir / "results.jsonl").read_text().splitlines()]


def test_every_backend_writes_the_same_results(checkpoint, vllm_server, tmp_path):
    runs = {
        "hf": ["--model", str(checkpoint)],
        "vllm": ["--model", str(checkpoint), "--backend", "vllm"],
        "openai": ["--model", SERVED_NAME, "--base-url", vllm_server],
    }
    from vllm.distributed.parallel_state import model_parallel_is_initialized

    results = {}
    for name, args in runs.items():
        assert main(["eval", ENV, *args, *COMMON, "--out", str(tmp_path / name)]) == 0
        assert not model_parallel_is_initialized()  # the run shut its in-process engine down as it ended
        results[name] = rows(tmp_path / name)
    hf = results["hf"]
    assert len(hf) == 6 and len({r["completion"] for r in hf}) > 1
    for name in ("vllm", "openai"):
        assert [set(r) for r in results[name]] == [set(r) for r in hf], name
        assert [(r["task_id"], r["sample"], r["completion"], r["truncated"], r["status"]) for r in results[name]] == \
            [(r["task_id"], r["sample"], r["completion"], r["truncated"], r["status"]) for r in hf], name
    config = json.loads((tmp_path / "openai" / "config.json").read_text())
    assert config["backend"] == "openai" and config["base_url"] == vllm_server


def test_the_vllm_backend_computes_in_the_checkpoints_precision(checkpoint):
    """vLLM's ``dtype="auto"`` runs a float32 checkpoint in bfloat16 where the CPU supports it; the backend
    keeps the checkpoint's float32, as ``hf`` does, unless told otherwise."""
    import torch

    from rlenv.inference.vllm_engine import VLLMCompleter, checkpoint_dtype

    assert checkpoint_dtype(str(checkpoint)) == "float32"
    completer = VLLMCompleter(str(checkpoint), Sampling(max_new_tokens=2, temperature=0), chat="off", device="cpu")
    try:
        assert completer.llm.llm_engine.model_config.dtype == torch.float32
    finally:
        completer.close()


def test_chat_requests_go_to_the_chat_endpoint(vllm_server):
    generate = OpenAICompleter(vllm_server, SERVED_NAME, Sampling(max_new_tokens=4, temperature=0), max_retries=0,
                              chat="off")
    (text,) = generate(["hi"])
    assert text.error is None and len(text) > 0
    # the tiny tokenizer has no chat template, so the server refuses the chat request, and the run stops
    with pytest.raises(RequestRejectedError, match="HTTP 400.*chat template.*--chat off"):
        generate([[{"role": "user", "content": "hi"}]])


def test_clear_errors_for_a_wrong_url_or_model(vllm_server, tmp_path, capsys):
    closed = f"http://127.0.0.1:{free_port()}/v1"
    assert main(["eval", ENV, "--model", SERVED_NAME, "--base-url", closed, *COMMON, "--max-retries", "0",
                 "--out", str(tmp_path / "a")]) == 2
    assert f"cannot reach the OpenAI-compatible server at {closed}" in capsys.readouterr().err
    assert main(["eval", ENV, "--model", "nope", "--base-url", vllm_server, *COMMON, "--out", str(tmp_path / "b")]) == 2
    assert f"model 'nope' is not served at {vllm_server}; it serves ['{SERVED_NAME}']" in capsys.readouterr().err
    assert main(["eval", ENV, "--model", SERVED_NAME, "--base-url", vllm_server, "--api-key-env", "RLENV_NO_SUCH_VAR",
                 *COMMON, "--out", str(tmp_path / "c")]) == 2
    assert "RLENV_NO_SUCH_VAR" in capsys.readouterr().err


class FlakyServer:
    """An OpenAI-compatible server (FastAPI + uvicorn on 127.0.0.1) that misbehaves on chosen prompts:
    HTTP 500 when the prompt has a ``5``, a body without ``choices`` when it has a ``7``, else ``#### 1``."""

    def __init__(self):
        import uvicorn
        from fastapi import FastAPI, Request
        from fastapi.responses import JSONResponse

        app = FastAPI()
        self.requests = 0

        @app.get("/v1/models")
        def models():
            return {"object": "list", "data": [{"id": "flaky", "object": "model", "owned_by": "test"}]}

        @app.post("/v1/completions")
        async def completions(request: Request):
            body = await request.json()
            self.requests += 1
            if "5" in body["prompt"]:
                return JSONResponse({"error": {"message": "boom"}}, status_code=500)
            if "7" in body["prompt"]:
                return {"id": "x", "object": "text_completion", "created": 0, "model": "flaky"}
            return {"id": "x", "object": "text_completion", "created": 0, "model": "flaky",
                    "choices": [{"index": i, "text": "#### 1", "finish_reason": "stop", "logprobs": None}
                                for i in range(body.get("n", 1))]}

        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self):
        self.thread.start()
        wait_for(f"http://127.0.0.1:{self.port}/v1/models", PATIENCE_S)
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=PATIENCE_S)


def test_server_failures_become_error_rows_and_nothing_is_lost(tmp_path):
    import rlenv

    env = rlenv.make(ENV, level=1)
    prompts = [env.unwrapped.format_prompt(env.unwrapped.source[i]) for i in range(12)]
    failing = sum("5" in p for p in prompts)
    malformed = sum("7" in p and "5" not in p for p in prompts)
    assert failing and malformed  # the chosen tasks exercise both failures
    with FlakyServer() as url:
        args = ["eval", ENV, "--env-arg", "level=1", "--model", "flaky", "--base-url", url, "--num-tasks", "12",
                "-n", "2", "--max-retries", "1", "--chat", "off", "--no-plot", "--out", str(tmp_path / "run")]
        assert main(args) == 0
        results = rows(tmp_path / "run")
        assert len(results) == 24
        errors = [r for r in results if r["status"] == "error"]
        assert len(errors) == 2 * (failing + malformed)
        assert all("generation failed" in r["details"]["error"] for r in errors)
        assert any("HTTP 500 after 1 retry:" in r["details"]["error"] for r in errors)
        assert any("malformed response" in r["details"]["error"] for r in errors)
        assert {r["status"] for r in results} - {"error"} <= {"correct", "incorrect"}
        assert main(args) == 0  # a rerun scores nothing new and keeps every row
        assert rows(tmp_path / "run") == results
