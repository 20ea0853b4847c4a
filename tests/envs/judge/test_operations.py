"""Operations of served judges: the verdict cache, concurrency and rate limits, usage accounting in
the run's summary and manifest. The judge is the deterministic judge double (a test double of an LLM
judge, :mod:`tests.envs.judge.judge_server`) on a real server at 127.0.0.1."""

import json
import time

import httpx
import pytest

from rlenv.cli import main
from rlenv.envs.judge import JudgeModel, ScoreJudge, judge_usage
from rlenv.envs.judge.cache import VerdictCache
from rlenv.inference import Sampling
from rlenv.types import Status, Task
from tests.envs.judge.judge_server import judge_app
from tests.waiting import PATIENCE_S, scaled

TASK = Task("t", "Describe the weather.")


def requests_served(url: str) -> dict:
    return httpx.get(url.removesuffix("/v1") + "/stats", timeout=PATIENCE_S).json()


def test_the_cache_answers_a_prompt_asked_again_across_judges_and_never_stores_failures(serve_app, tmp_path):
    url = serve_app(judge_app()) + "/v1"
    cache = tmp_path / "verdicts.sqlite"
    texts = ["good", "bad", "good good", "good"]  # the duplicate is asked once
    first = ScoreJudge(JudgeModel("openai", "fair", base_url=url, cache=cache)).score_batch([TASK] * 4, texts)
    assert requests_served(url)["requests"] == 3 and len(VerdictCache(cache)) == 3
    assert [r.details["judge_usage"]["cache_hits"] for r in first] == [0, 0, 0, 1]
    again = ScoreJudge(JudgeModel("openai", "fair", base_url=url, cache=cache)).score_batch([TASK] * 4, texts)
    assert requests_served(url)["requests"] == 3  # nothing asked: every verdict from the cache
    assert [r.to_dict()["value"] for r in again] == [r.value for r in first]
    assert judge_usage(again) == {"requests": 0, "cache_hits": 4, "failures": 0, "prompt_chars": 0, "reply_chars": 0,
                                  "prompt_tokens": 0, "completion_tokens": 0}
    asked = judge_usage(first)
    assert asked["requests"] == 3 and asked["completion_tokens"] == 3  # "<score>N</score>" is one word
    assert asked["prompt_tokens"] > 3 * 50 and asked["prompt_chars"] > asked["prompt_tokens"]
    other_sampling = JudgeModel("openai", "fair", base_url=url, cache=cache, sampling=Sampling(max_new_tokens=8, temperature=0))
    ScoreJudge(other_sampling)(TASK, "good")
    assert requests_served(url)["requests"] == 4  # another judge setting is another key
    slow_url = serve_app(judge_app(delay_s=scaled(1.0) + 0.5)) + "/v1"
    slow = ScoreJudge(JudgeModel("openai", "fair", base_url=slow_url, cache=cache, max_retries=0, timeout=0.5))
    assert slow(TASK, "bad bad").details["kind"] == "judge_unavailable"
    assert len(VerdictCache(cache)) == 4  # the failure was not stored


def test_concurrency_is_capped_and_requests_are_paced_by_the_rate_limit(serve_app):
    url = serve_app(judge_app(delay_s=0.2)) + "/v1"
    texts = [f"good answer {i}" for i in range(12)]
    results = ScoreJudge(JudgeModel("openai", "fair", base_url=url, concurrency=3)).score_batch([TASK] * 12, texts)
    assert all(r.status is Status.CORRECT for r in results)
    assert 2 <= requests_served(url)["max_in_flight"] <= 3
    paced = ScoreJudge(JudgeModel("openai", "fair", base_url=serve_app(judge_app()) + "/v1", rate_limit=20))
    start = time.monotonic()
    paced.score_batch([TASK] * 10, [f"answer {i}" for i in range(10)])
    assert time.monotonic() - start >= 9 / 20  # ten starts at most 1/20 s apart
    with pytest.raises(ValueError, match="rate_limit must be > 0"):
        ScoreJudge(JudgeModel("openai", "fair", base_url=url, rate_limit=0))(TASK, "x")


def test_usage_is_in_the_eval_summary_and_the_judge_in_the_manifest(serve_app, tmp_path, entry_point_path):
    url = serve_app(judge_app()) + "/v1"
    code = main(["eval", "rlenv/Judge-v0", "--model", "fair", "--base-url", url, "--env-arg", "judge_model=fair",
                 "--env-arg", "judge_options=" + json.dumps({"base_url": url}), "--num-tasks", "3", "-n", "2",
                 "--temperature", "0", "--no-plot", "--no-report", "--out", str(tmp_path)])
    assert code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["judge_usage"]["requests"] + summary["judge_usage"]["cache_hits"] == 6
    assert summary["judge_usage"]["prompt_chars"] > 0 and summary["judge_usage"]["prompt_tokens"] > 0
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    judge = manifest["env"]["verifier"]["judge"]
    assert (judge["backend"], judge["model"], judge["scale"]) == ("openai", "fair", [1.0, 10.0])
    assert "untrusted" not in judge["template"]["system"]  # the notice is not part of the replaceable template
