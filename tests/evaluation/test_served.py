"""``rlenv eval --base-url``: what is sent to an OpenAI-compatible server is what the user asked for.

:class:`RecordingServer` stands in for a real OpenAI-compatible server (``vllm serve``, a hosted
API): a real FastAPI app served by uvicorn on 127.0.0.1 that records every request (endpoint,
``seed``, ``n``) and answers as a seeded sampler would: the same seed gives the same choices, and
the ``n`` choices of one request differ. It can also reject requests with a 4xx, as vLLM does
when ``max_tokens`` exceeds the context length, or ignore ``n`` (one choice per request), as some
servers do.
"""

import json
import logging
import random
import socket
import threading
import urllib.request

import pytest

from rlenv.cli import main
from tests.waiting import PATIENCE_S, wait_until

pytest.importorskip("openai")
pytest.importorskip("uvicorn")

ENV = "rlenv/Arithmetic-v0"
NAME = "served"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


class RecordingServer:
    """A stand-in for a real OpenAI-compatible server that records ``(endpoint, seed, n)`` per request."""

    def __init__(self, reject: tuple[int, str] | None = None, context_length: int | None = None,
                 max_choices: int | None = None):
        import uvicorn
        from fastapi import FastAPI, Request
        from fastapi.responses import JSONResponse

        app = FastAPI()
        self.requests: list[dict] = []

        def choices(body: dict, chat: bool) -> list[dict]:
            rng = random.Random(body.get("seed"))  # no seed: a fresh random state per request
            texts = [f"#### {rng.randint(0, 999)}" for _ in range(min(body.get("n", 1), max_choices or 1_000))]
            if chat:
                return [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                        for i, t in enumerate(texts)]
            return [{"index": i, "text": t, "finish_reason": "stop", "logprobs": None} for i, t in enumerate(texts)]

        async def answer(request: Request, endpoint: str) -> object:
            body = await request.json()
            self.requests.append({"endpoint": endpoint, "seed": body.get("seed"), "n": body.get("n", 1)})
            refusal = reject
            if context_length is not None and body["max_tokens"] > context_length:
                refusal = (400, f"max_tokens ({body['max_tokens']}) is too large: the context length is "
                                f"{context_length}")
            if refusal is not None:
                return JSONResponse({"error": {"message": refusal[1], "code": refusal[0]}}, status_code=refusal[0])
            chat = endpoint == "chat"
            return {"id": "x", "object": "chat.completion" if chat else "text_completion", "created": 0,
                    "model": NAME, "choices": choices(body, chat)}

        @app.get("/v1/models")
        def models():
            return {"object": "list", "data": [{"id": NAME, "object": "model", "owned_by": "test"}]}

        @app.post("/v1/completions")
        async def completions(request: Request):
            return await answer(request, "completions")

        @app.post("/v1/chat/completions")
        async def chat_completions(request: Request):
            return await answer(request, "chat")

        self.port = _free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "RecordingServer":
        self.thread.start()
        assert wait_until(lambda: _up(f"http://127.0.0.1:{self.port}/v1/models"), PATIENCE_S)
        self.url = f"http://127.0.0.1:{self.port}/v1"
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=PATIENCE_S)


def _completions(out_dir) -> list[tuple[str, int, str]]:
    rows = [json.loads(line) for line in (out_dir / "results.jsonl").read_text().splitlines()]
    return sorted((r["task_id"], r["sample"], r["completion"]) for r in rows)


def _eval(url: str, out_dir, *extra: str) -> int:
    return main(["eval", ENV, "--model", NAME, "--base-url", url, "--num-tasks", "5", "-n", "4", "--no-plot",
                 "--no-report", "--out", str(out_dir), *extra])


def test_default_is_the_chat_endpoint_with_the_seed_and_n_samples_per_request(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="rlenv")
    with RecordingServer() as server:
        assert _eval(server.url, tmp_path / "a") == 0
        first = list(server.requests)
        assert _eval(server.url, tmp_path / "b") == 0
    assert {r["endpoint"] for r in first} == {"chat"}  # the model's chat template applies
    assert len(first) == 5 and {r["n"] for r in first} == {4}  # one request (one prefill) per task
    assert all(isinstance(r["seed"], int) for r in first)
    assert len({r["seed"] for r in first}) == 5  # each task its own seed, derived from --seed
    assert _completions(tmp_path / "a") == _completions(tmp_path / "b")  # same --seed, same samples
    per_task = {}
    for task_id, _, completion in _completions(tmp_path / "a"):
        per_task.setdefault(task_id, set()).add(completion)
    assert all(len(texts) > 1 for texts in per_task.values())  # the samples of one task differ
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["settings"]["seed"] == 0 and manifest["settings"]["endpoint"] == "chat"
    assert "chat endpoint" in caplog.text


def test_a_server_that_ignores_n_gets_one_request_per_sample_each_with_its_own_seed(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="rlenv")
    with RecordingServer(max_choices=1) as server:
        assert _eval(server.url, tmp_path / "a", "--concurrency", "1") == 0
        first = list(server.requests)
        assert _eval(server.url, tmp_path / "b") == 0  # concurrent requests this time
    rows = [json.loads(line) for line in (tmp_path / "a" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 20 and {r["status"] for r in rows} != {"error"} and all("error" not in r["details"] for r in rows)
    # the first task's request asked for n=4 and got one choice; from then on one request per sample
    assert [r["n"] for r in first] == [4] + [1] * 20
    assert len({r["seed"] for r in first[1:]}) == 20  # each sample its own seed
    assert _completions(tmp_path / "a") == _completions(tmp_path / "b")  # same --seed, same samples
    per_task = {}
    for task_id, _, completion in _completions(tmp_path / "a"):
        per_task.setdefault(task_id, set()).add(completion)
    assert all(len(texts) > 1 for texts in per_task.values())  # the samples of one task differ
    assert caplog.text.count("it ignores n") == 2  # once per run


def test_chat_off_sends_text_prompts_to_the_completions_endpoint(tmp_path):
    with RecordingServer() as server:
        assert _eval(server.url, tmp_path / "a", "--chat", "off", "--seed", "3") == 0
    assert {r["endpoint"] for r in server.requests} == {"completions"}
    assert {r["n"] for r in server.requests} == {4}
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["settings"]["endpoint"] == "completions" and manifest["settings"]["seed"] == 3


def test_a_rejected_request_stops_the_run_at_once_with_the_servers_message(tmp_path, capsys):
    message = "max_tokens (256) is too large: the context length is 128"
    with RecordingServer(reject=(400, message)) as server:
        assert _eval(server.url, tmp_path / "a", "--concurrency", "1") == 2
    assert len(server.requests) == 1  # nothing after the first 400
    err = capsys.readouterr().err
    assert "rlenv eval: error:" in err and "HTTP 400" in err and message in err
    assert "retries" not in err and "--retry-errors" not in err


@pytest.mark.parametrize("status", [408, 429])
def test_a_retryable_4xx_is_retried_and_recorded_as_an_error_row(tmp_path, status):
    with RecordingServer(reject=(status, "busy")) as server:
        assert _eval(server.url, tmp_path / "a", "--num-tasks", "1", "--max-retries", "1") == 2  # nothing scored
    assert len(server.requests) == 2  # the request and its one retry
    rows = [json.loads(line) for line in (tmp_path / "a" / "results.jsonl").read_text().splitlines()]
    assert {r["status"] for r in rows} == {"error"}
    assert all(f"HTTP {status} after 1 retry:" in r["details"]["error"] for r in rows)


def test_a_run_that_fails_before_producing_anything_leaves_nothing_behind(tmp_path, capsys):
    out = tmp_path / "a"
    with RecordingServer(context_length=64) as server:
        assert _eval(server.url, out, "--max-new-tokens", "256") == 2
        assert "context length is 64" in capsys.readouterr().err
        assert not out.exists() or not any(out.iterdir())
        assert _eval(server.url, out, "--max-new-tokens", "32") == 0  # the corrected rerun is not refused
    assert len(_completions(out)) == 20
    assert json.loads((out / "config.json").read_text())["max_new_tokens"] == 32


def test_a_samples_file_that_fails_to_resolve_leaves_nothing_behind(tmp_path, capsys):
    out = tmp_path / "a"
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "nope", "completion": "#### 1"}) + "\n")
    assert main(["eval", ENV, "--samples", str(samples), "--no-plot", "--no-report", "--out", str(out)]) == 2
    assert "nope" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())
    import rlenv

    first = rlenv.make(ENV).unwrapped.source[0].id
    fixed = tmp_path / "fixed.jsonl"
    fixed.write_text(json.dumps({"task_id": first, "completion": "#### 1"}) + "\n")
    assert main(["eval", ENV, "--samples", str(fixed), "--no-plot", "--no-report", "--out", str(out)]) == 0


def test_one_sample_is_one_sample(tmp_path, capsys):
    with RecordingServer() as server:
        assert _eval(server.url, tmp_path / "a", "-n", "1", "--num-tasks", "1") == 0
    out = capsys.readouterr().out
    assert "1 task, 1 sample per task (1 sample;" in out and "1 samples" not in out and "1 tasks" not in out
