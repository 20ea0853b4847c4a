"""Served-judge throughput: verdicts per second at concurrency 1 (the baseline) vs 16, and the cache.

The judge is the deterministic judge double of the tests (``tests/envs/judge/judge_server.py``: an
OpenAI-compatible server on 127.0.0.1 whose verdicts are computed from the prompt) with a fixed
latency per request (``--latency``), standing in for a remote judge's network and generation time.
The same N completions are scored by a :class:`~rlenv.envs.judge.ScoreJudge` at concurrency 1 and
16 (the scores are checked to agree), then again through a verdict cache: a first pass fills it, a
second pass is answered from it.

Usage: PYTHONPATH=. python benchmarks/judge_served.py [--completions 96] [--latency 0.05]   (from the repository root)
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
from pathlib import Path

import uvicorn

from rlenv.envs.judge import JudgeModel, ScoreJudge, judge_usage
from rlenv.types import Task
from tests.envs.judge.judge_server import judge_app


def serve(latency: float) -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(judge_app(delay_s=latency), log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def timed_pass(judge: JudgeModel, tasks: list[Task], texts: list[str]) -> tuple[list, float]:
    start = time.perf_counter()
    results = ScoreJudge(judge).score_batch(tasks, texts)
    return results, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--completions", type=int, default=96)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds the judge server takes per request")
    args = parser.parse_args()
    url = serve(args.latency)
    tasks = [Task(f"t{i % 8}", f"Question {i % 8}?") for i in range(args.completions)]
    texts = [f"answer {i}: " + "good " * (i % 5) + "bad " * (i % 3) for i in range(args.completions)]
    rates = {}
    scores = {}
    for concurrency in (1, 16):
        results, seconds = timed_pass(JudgeModel("openai", "fair", base_url=url, concurrency=concurrency), tasks, texts)
        rates[concurrency] = len(texts) / seconds
        scores[concurrency] = [r.value for r in results]
        print(f"concurrency {concurrency:>2}: {rates[concurrency]:8.1f} verdicts/s ({seconds:.2f} s)")
    assert scores[1] == scores[16], "the verdicts differ between concurrency levels"
    print(f"speed-up of concurrency 16 over 1: {rates[16] / rates[1]:.1f}x")
    with tempfile.TemporaryDirectory() as tmp:
        cached = JudgeModel("openai", "fair", base_url=url, concurrency=16, cache=Path(tmp) / "verdicts.sqlite")
        _, cold = timed_pass(cached, tasks, texts)
        results, warm = timed_pass(cached, tasks, texts)
    usage = judge_usage(results)
    print(f"cache: cold pass {len(texts) / cold:8.1f} verdicts/s, warm pass {len(texts) / warm:8.1f} verdicts/s "
          f"({usage['cache_hits']} of {len(texts)} from the cache, {usage['requests']} requests)")


if __name__ == "__main__":
    main()
