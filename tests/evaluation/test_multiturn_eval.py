"""``rlenv eval`` on a multi-turn tool env through every backend: HF ``generate``, an in-process vLLM
engine and a real vLLM OpenAI-compatible server on 127.0.0.1 that parses the calls itself
(structured ``tool_calls``, ``--tool-call-parser hermes`` or ``llama3_json``).

The policies are tiny local Llamas trained for a few seconds to call the Python tool, with a
Qwen2-style and a Llama-3-style chat template that take ``tools``
(:mod:`tests.evaluation.tool_policy`). Each episode runs its call in the Docker sandbox and is
graded by the math verifier; decoding is greedy, so every backend must play the same episodes.
"""

import json
import os
import signal
import subprocess
import sys

import pytest

from rlenv.cli import main
from tests.evaluation.test_backends import free_port, rows, wait_for
from tests.evaluation.tool_policy import (
    CALLS,
    CODE,
    ENV,
    FORMATS,
    QUESTIONS,
    train_tool_policy,
    write_questions,
)
from tests.waiting import PATIENCE_S

pytest.importorskip("vllm")
pytestmark = pytest.mark.docker

SERVED_NAME = "tiny-tools"
COMMON = ["-n", "1", "--temperature", "0", "--max-new-tokens", "80", "--no-plot"]


@pytest.fixture(scope="module")
def questions(tmp_path_factory):
    return write_questions(tmp_path_factory.mktemp("data") / "questions.jsonl")


@pytest.fixture(scope="module")
def qwen2(questions, tmp_path_factory):
    return train_tool_policy("qwen2", questions, tmp_path_factory.mktemp("qwen2"))


@pytest.fixture(scope="module")
def llama3(questions, tmp_path_factory):
    return train_tool_policy("llama3", questions, tmp_path_factory.mktemp("llama3"))


def serve(checkpoint, parser, log):
    """vLLM's OpenAI-compatible server on ``checkpoint``, parsing its calls into ``tool_calls`` with ``parser``."""
    port = free_port()
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(checkpoint),
             "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
             "--max-model-len", "1024", "--enforce-eager", "--gpu-memory-utilization", "0.2",
             "--enable-auto-tool-choice", "--tool-call-parser", parser],
            stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1"},
            start_new_session=True)
    try:
        wait_for(f"http://127.0.0.1:{port}/v1/models", PATIENCE_S, process)
    except (RuntimeError, TimeoutError) as exc:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail(f"{exc}\n{log.read_text()[-3000:]}")
    yield f"http://127.0.0.1:{port}/v1"
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=PATIENCE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def qwen2_server(qwen2, tmp_path_factory):
    yield from serve(qwen2, "hermes", tmp_path_factory.mktemp("server") / "server.log")


@pytest.fixture(scope="module")
def llama3_server(llama3, tmp_path_factory):
    yield from serve(llama3, "llama3_json", tmp_path_factory.mktemp("server") / "server.log")


def evaluate(style, questions, out, *backend):
    assert main(["eval", ENV, "--data", str(questions), "--env-arg", "chat=true",
                 "--env-arg", f"tool_format={FORMATS[style]}", *backend, *COMMON, "--out", str(out)]) == 0
    return rows(out)


def check_episodes(results):
    """Every episode: one call of ``python`` that ran in the sandbox and printed 42, then ``\\boxed{42}``."""
    assert [r["status"] for r in results] == ["correct" if answer == "42" else "incorrect" for _, answer in QUESTIONS]
    for row in results:
        episode = row["episode"]
        assert episode["turns"] == 2 and episode["limit"] is None, episode
        assert episode["tool_metrics"]["calls"] == 1 and episode["tool_metrics"]["errors"] == 0, episode
        assert [m["role"] for m in episode["messages"]] == ["assistant", "tool", "assistant"]
        assert episode["messages"][1]["content"] == "42\n"
        assert row["completion"] == episode["messages"][2]["content"] == "The answer is \\boxed{42}."
    return [[(m["role"], m["content"]) for m in r["episode"]["messages"]] for r in results]


def check_structured(results):
    """The server parsed each call: the turn's text is empty, the call structured, and the result answers its id."""
    for row in results:
        call, result, _ = row["episode"]["messages"]
        assert call["content"] == "" and len(call["tool_calls"]) == 1
        assert call["tool_calls"][0]["function"]["name"] == "python"
        assert json.loads(call["tool_calls"][0]["function"]["arguments"]) == {"code": CODE}
        assert result["tool_call_id"] == call["tool_calls"][0]["id"]


@pytest.mark.parametrize("style", ["qwen2", "llama3"])
def test_hf_vllm_and_a_served_model_with_structured_tool_calls_play_the_same_episodes(style, questions, tmp_path,
                                                                                      request):
    policy, server = request.getfixturevalue(style), request.getfixturevalue(f"{style}_server")
    hf = check_episodes(evaluate(style, questions, tmp_path / "hf", "--model", str(policy)))
    assert hf[0][0] == ("assistant", CALLS[style])
    in_process = evaluate(style, questions, tmp_path / "vllm", "--model", str(policy), "--backend", "vllm")
    assert check_episodes(in_process) == hf
    served = evaluate(style, questions, tmp_path / "openai", "--model", SERVED_NAME, "--base-url", server)
    check_episodes(served)
    check_structured(served)
    report = (tmp_path / "openai" / "report.html").read_text()
    assert "tool_metrics" in report and "tool_call_id" in report
