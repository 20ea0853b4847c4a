"""Python tool sessions: calls/s and episode latency on the warm pool, against a fresh container
per call (one ``docker run`` of the same replay program), in one run.

An episode is ``--calls`` tool calls that build on each other (a variable, a function, an
import, a file, then results of all of them). Prints one table and the ratio of calls/s.

    python benchmarks/tool_sessions.py [--episodes 8] [--calls 5] [--docker-episodes 2] [--size 2]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import statistics
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rlenv.sandbox import ContainerSpec, Limits, SandboxPool  # noqa: E402
from rlenv.sandbox.session import PythonSession, replay_program  # noqa: E402

CELLS = ["x = 21", "def double(n):\n    return 2 * n", "import math", "open('note.txt', 'w').write('ok')",
         "double(x) + math.isqrt(16)", "open('note.txt').read()", "sorted(globals())[:3]", "x * 3"]
LIMITS = Limits(timeout_s=10, test_timeout_s=5)


def pooled_episode(pool: SandboxPool, calls: int) -> float:
    session = PythonSession(pool, limits=LIMITS)
    began = time.perf_counter()
    for code in CELLS[:calls]:
        result = session.run(code)
        assert result.status == "ok", result
    session.close()
    return time.perf_counter() - began


def docker_run_episode(spec: ContainerSpec, calls: int) -> float:
    """The same episode, each call one ``docker run`` of the program the session would send."""
    began = time.perf_counter()
    for done_calls in range(calls):
        name = f"rlenv-bench-{uuid.uuid4().hex[:12]}"
        try:
            done = subprocess.run(["docker", "run", "--rm", "-i", "--name", name, "--workdir", "/tmp",
                                   *spec.cli_flags(), spec.image, "python3", "-I", "-c",
                                   replay_program(CELLS[:done_calls + 1])],
                                  capture_output=True, text=True, timeout=120)
        except BaseException:
            subprocess.run(["docker", "rm", "-f", name], capture_output=True)
            raise
        assert done.returncode == 0, done.stderr
    return time.perf_counter() - began


def row(name: str, latencies: list[float], calls: int, seconds: float) -> tuple:
    return (name, len(latencies), f"{len(latencies) * calls / seconds:.1f}/s",
            f"{1000 * statistics.median(latencies):.0f}", f"{1000 * max(latencies):.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=8, help="episodes through the pool")
    parser.add_argument("--calls", type=int, default=5, choices=range(1, len(CELLS) + 1), help="tool calls per episode")
    parser.add_argument("--docker-episodes", type=int, default=2, help="episodes with one docker run per call")
    parser.add_argument("--size", type=int, default=os.cpu_count() or 1, help="pool containers (= concurrency)")
    args = parser.parse_args()
    spec = ContainerSpec()
    with SandboxPool(args.size) as pool:
        pool.start()
        pooled_episode(pool, args.calls)  # warm-up
        began = time.perf_counter()
        with cf.ThreadPoolExecutor(args.size) as executor:
            pooled = list(executor.map(lambda _: pooled_episode(pool, args.calls), range(args.episodes)))
        pooled_s = time.perf_counter() - began
    began = time.perf_counter()
    with cf.ThreadPoolExecutor(args.size) as executor:
        cold = list(executor.map(lambda _: docker_run_episode(spec, args.calls), range(args.docker_episodes)))
    cold_s = time.perf_counter() - began
    rows = [("method", "episodes", "calls/s", "episode p50 ms", "episode max ms"),
            row("session on the warm pool", pooled, args.calls, pooled_s),
            row("one `docker run` per call", cold, args.calls, cold_s)]
    widths = [max(len(str(r[i])) for r in rows) for i in range(5)]
    for line in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(line, widths)))
    ratio = (len(pooled) / pooled_s) / (len(cold) / cold_s)
    print(f"\n{args.calls} calls per episode, concurrency {args.size}; sessions / docker run per call: {ratio:.0f}x")


if __name__ == "__main__":
    main()
