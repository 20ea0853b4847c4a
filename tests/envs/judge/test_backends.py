"""The judge over real generation backends with a tiny random local model: a real vLLM
OpenAI-compatible server on 127.0.0.1 and HF ``generate``. A random model writes no verdict, so every
result must take the judge-error path (status ``error``, ``details["kind"] == "judge_error"``, its
reply kept), never a score; the verdict logic itself is tested against the judge double."""

import pytest

from rlenv.envs.judge import JudgeModel, RankingJudge, ScoreJudge, judge_usage
from rlenv.inference import Sampling
from rlenv.types import Status, Task
from tests.vllm_server import vllm_openai_server

pytest.importorskip("vllm")

SERVED_NAME = "tiny-judge"
#: Judge prompts are long for a character-level tokenizer: a context of 4096 positions.
CONTEXT = 4096

SAMPLING = Sampling(max_new_tokens=6, temperature=0)
TASKS = [Task("t", "Describe the weather."), Task("t", "Describe the weather.")]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A tiny random Llama with one attention head of 64 (vLLM's CPU attention needs >= 64)."""
    from rlenv.trainers.tiny import save_tiny, tiny_causal_lm, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=64, num_heads=1, max_positions=CONTEXT, seed=5)
    return save_tiny(model, tokenizer, tmp_path_factory.mktemp("judge"))


@pytest.fixture(scope="module")
def vllm_server(checkpoint, tmp_path_factory):
    with vllm_openai_server(checkpoint, SERVED_NAME, tmp_path_factory.mktemp("server") / "server.log",
                            max_model_len=CONTEXT) as url:
        yield url


def assert_judge_errors(results):
    assert results and all(r.status is Status.ERROR and r.details["kind"] == "judge_error" for r in results), \
        [(r.status, r.details) for r in results]


def test_a_served_vllm_judge_gives_judge_errors_and_uses_the_cache(vllm_server, tmp_path):
    judge = JudgeModel("openai", SERVED_NAME, sampling=SAMPLING, chat="off", base_url=vllm_server,
                       cache=tmp_path / "cache.sqlite", max_retries=0)
    first = ScoreJudge(judge).score_batch(TASKS, ["sunny", "rainy"])
    assert_judge_errors(first)
    assert all(isinstance(r.details["reply"], str) and r.details["reply"] for r in first)
    assert judge_usage(first)["requests"] == 2
    assert judge_usage(first)["completion_tokens"] > 0 and judge_usage(first)["prompt_tokens"] > 2 * 300  # the server's count
    again = ScoreJudge(judge).score_batch(TASKS, ["sunny", "rainy"])
    assert [r.details["reply"] for r in again] == [r.details["reply"] for r in first]
    assert judge_usage(again)["cache_hits"] == 2
    assert_judge_errors(RankingJudge(judge).score_batch(TASKS, ["sunny", "rainy"]))


def test_a_local_hf_judge_gives_judge_errors(checkpoint):
    judge = JudgeModel("hf", str(checkpoint), sampling=SAMPLING, chat="off")
    assert_judge_errors(ScoreJudge(judge).score_batch(TASKS, ["sunny", "rainy"]))


def test_an_in_process_vllm_judge_gives_judge_errors_and_closing_its_env_shuts_the_engine_down(checkpoint):
    from rlenv.envs.judge.env import JudgeEnv

    env = JudgeEnv(str(checkpoint), judge_backend="vllm",
                   judge_options={"sampling": SAMPLING, "chat": "off", "dtype": "float32", "max_model_len": CONTEXT})
    try:
        results = env.verifier.score_batch(TASKS, ["sunny", "rainy"])
        engine = env.judge_model._completer  # built on first use
    finally:
        env.close()
    assert_judge_errors(results)
    assert judge_usage(results)["requests"] == 2
    assert engine.llm is None, "closing the env left the judge's vLLM engine running"
