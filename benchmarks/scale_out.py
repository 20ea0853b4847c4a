"""Scoring scaled out: the same batch locally, on Ray, and through the reward service, on one machine.

Baseline: ``rlenv.scoring.score_tasks(verifier, tasks, completions)`` with the local executor (the math
verifier's worker pool on every core of this process), warm. Besides wall time, the math table
gives the CPU time of the whole process tree (this process, its math workers, Ray's daemons, the
actor and its workers): on a machine shared with other jobs it varies less than wall time.

* ``math``: ``--items`` (default 2000) generated arithmetic problems (levels 1-5; answers as
  ``#### n``, ``\\boxed{n}``, ``\\boxed{\\frac{2n}{2}}``, a quarter wrong), scored locally and with
  ``executor="ray"`` on a single-node Ray instance started here: the ratio is Ray's overhead
  (chunking, pickling, actor round trips), not a speed-up. Both are warm (workers and actors
  started on an earlier batch; the Ray cold start is reported apart) and every repeat scores new
  problems (no cache of an earlier run helps). Median of ``--repeats``.
* ``service``: ``rlenv serve`` in its own process: the same batch through ``RemoteVerifier``
  (``--batch`` items per request), and ``--clients`` concurrent clients sending
  ``--requests`` requests each of 1 item and of ``--batch`` items (requests/s, latency).
* ``code`` (when Docker and the sandbox image are there; ``--code-jobs 0`` skips): HumanEval gold
  solutions in the sandbox, locally and on Ray: jobs/s and the measured cost of one job in
  container-seconds, the number that sizes a cluster (see docs/scale-out.md).

Run: ``python benchmarks/scale_out.py [--items 2000] [--repeats 3] [--clients 16] [--requests 50]
[--batch 256] [--code-jobs 64]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import logging
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rlenv  # noqa: E402
from rlenv.envs.math.arithmetic import make_arithmetic_env  # noqa: E402
from rlenv.scoring import score_tasks  # noqa: E402
from rlenv.scoring.worker_pool import default_num_workers  # noqa: E402
from rlenv.service import RemoteVerifier  # noqa: E402
from rlenv.types import Task  # noqa: E402

FORMS = (
    lambda a: f"Adding it up.\n#### {a}",
    lambda a: f"So the result is $\\boxed{{{a}}}$.",
    lambda a: f"Therefore the answer is $\\boxed{{\\frac{{{2 * a}}}{{2}}}}$.",
)


def math_items(count: int, seed: int) -> tuple[list[Task], list[str]]:
    """``count`` problems of levels 1-5 from task family ``seed`` (a new seed: problems no run has seen)."""
    rng = random.Random(seed)
    envs = [make_arithmetic_env(level=level, seed=seed, negative=True).unwrapped for level in range(1, 6)]
    tasks, completions = [], []
    for i in range(count):
        task = envs[i % 5].source[i]
        answer = int(task.reference) + (1 if rng.random() < 0.25 else 0)
        tasks.append(task)
        completions.append(FORMS[i % len(FORMS)](answer))
    return tasks, completions


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    began = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - began, out


def cpu_seconds() -> float:
    """CPU time of this process and all its descendants (math workers, Ray's daemons, actors and their workers)."""
    total = 0.0
    for process in [psutil.Process(), *psutil.Process().children(recursive=True)]:
        try:
            total += sum(process.cpu_times()[:2])
        except psutil.NoSuchProcess:
            pass
    return total


def timed_cpu(fn, *args, **kwargs) -> tuple[float, float, object]:
    """``(wall s, CPU s of the whole process tree, result)``."""
    cpu = cpu_seconds()
    wall, out = timed(fn, *args, **kwargs)
    return wall, cpu_seconds() - cpu, out


def table(title: str, rows: list[tuple], unit: str) -> None:
    """Rows ``(method, wall s, rate, wall ratio[, CPU s, CPU ratio])``."""
    cpu = len(rows[0]) > 4
    print(f"\n## {title}\n")
    print(f"| {'method':<48} | {'wall s':>7} | {unit + '/s':>9} | {'vs local':>8} |"
          + (f" {'CPU s':>6} | {'vs local':>8} |" if cpu else ""))
    print(f"|{'-' * 50}|{'-' * 9}|{'-' * 11}|{'-' * 10}|" + (f"{'-' * 8}|{'-' * 10}|" if cpu else ""))
    for name, wall, rate, ratio, *more in rows:
        print(f"| {name:<48} | {wall:7.3f} | {rate:9.0f} | {ratio:>8} |"
              + (f" {more[0]:6.3f} | {more[1]:>8} |" if cpu else ""))


def bench_math(items: int, repeats: int) -> tuple[list[tuple], float]:
    import ray

    verifier = rlenv.make("rlenv/Arithmetic-v0").unwrapped.verifier
    score_tasks(verifier, *math_items(200, seed=10_000))  # local workers started
    cold, _ = timed(score_tasks, verifier, *math_items(200, seed=10_001), executor="ray")
    local, remote = [], []
    for r in range(repeats):
        tasks, completions = math_items(items, seed=2 * r)
        wall, cpu, expected = timed_cpu(score_tasks, verifier, tasks, completions)
        local.append((wall, cpu))
        tasks, completions = math_items(items, seed=2 * r + 1)
        wall, cpu, got = timed_cpu(score_tasks, verifier, tasks, completions, executor="ray")
        remote.append((wall, cpu))
        assert got == score_tasks(verifier, tasks, completions), "Ray and local results differ"
        assert len(got) == len(expected) == items
    base, base_cpu = (statistics.median(x) for x in zip(*local))
    ray_wall, ray_cpu = (statistics.median(x) for x in zip(*remote))
    rows = [("local executor (worker pool, all cores)", base, items / base, "1.00x", base_cpu, "1.00x"),
            (f"executor='ray' (1 node, {int(ray.cluster_resources()['CPU'])} CPUs)", ray_wall, items / ray_wall,
             f"{ray_wall / base:.2f}x", ray_cpu, f"{ray_cpu / base_cpu:.2f}x")]
    return rows, cold


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server() -> tuple[subprocess.Popen, str]:
    import httpx

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "rlenv", "serve", "--env", "rlenv/Arithmetic-v0",
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url + "/health").raise_for_status()
            return process, url
        except httpx.TransportError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"rlenv serve did not start: {process.stderr.read().decode()[-2000:]}") from None
            time.sleep(0.2)


def load(url: str, clients: int, requests: int, per_request: int, seed: int) -> tuple[float, float, float]:
    """``clients`` threads x ``requests`` POST /score of ``per_request`` new items: (wall s, p50 ms, p99 ms)."""
    import httpx

    tasks, completions = math_items(clients * requests * per_request, seed)
    bodies = [[{"env_id": "rlenv/Arithmetic-v0", "reference": t.reference, "completion": c}
               for t, c in zip(tasks[i:i + per_request], completions[i:i + per_request])]
              for i in range(0, len(tasks), per_request)]

    def client(c: int) -> list[float]:
        latencies = []
        with httpx.Client(base_url=url, timeout=120) as http:
            for body in bodies[c * requests:(c + 1) * requests]:
                began = time.perf_counter()
                response = http.post("/score", json=body)
                response.raise_for_status()
                assert len(response.json()) == len(body)
                latencies.append(time.perf_counter() - began)
        return latencies

    began = time.perf_counter()
    with cf.ThreadPoolExecutor(clients) as pool:
        latencies = [x for per in pool.map(client, range(clients)) for x in per]
    wall = time.perf_counter() - began
    q = statistics.quantiles(latencies, n=100)
    return wall, q[49] * 1000, q[98] * 1000


def bench_service(items: int, clients: int, requests: int, batch: int) -> None:
    """The reward service: tasks are sent inline (``by="reference"``), so every run has new problems."""
    process, url = start_server()
    try:
        verifier = rlenv.make("rlenv/Arithmetic-v0").unwrapped.verifier
        remote = RemoteVerifier(url, "rlenv/Arithmetic-v0", by="reference", batch_size=batch)
        score_tasks(remote, *math_items(256, seed=20_000))  # connection and server workers warm
        local, expected = timed(score_tasks, verifier, *math_items(items, seed=20_001))
        tasks, completions = math_items(items, seed=20_002)
        wall, got = timed(score_tasks, remote, tasks, completions)
        assert [r.status for r in got] == [r.status for r in score_tasks(verifier, tasks, completions)]
        table(f"the same batch through the reward service ({items} items, {batch} per request)",
              [("local executor", local, items / local, "1.00x"),
               (f"RemoteVerifier -> rlenv serve ({batch}/request)", wall, items / wall, f"{wall / local:.2f}x")],
              "items")
        print(f"\n## rlenv serve under {clients} concurrent clients x {requests} requests\n")
        print(f"| {'items/request':>13} | {'requests/s':>10} | {'items/s':>8} | {'p50 ms':>7} | {'p99 ms':>7} |")
        print(f"|{'-' * 15}|{'-' * 12}|{'-' * 10}|{'-' * 9}|{'-' * 9}|")
        for per_request, seed in ((1, 20_003), (batch // 8, 20_004)):
            wall, p50, p99 = load(url, clients, requests, per_request, seed)
            n = clients * requests
            print(f"| {per_request:>13} | {n / wall:10.0f} | {n * per_request / wall:8.0f} | {p50:7.1f} | {p99:7.1f} |")
    finally:
        process.terminate()
        process.wait(timeout=30)


def bench_code(jobs: int) -> None:
    from rlenv.sandbox.doctor import diagnose

    problems = [c.detail for c in diagnose(run_job=False) if c.name in ("engine", "image") and c.ok is False]
    if problems:
        print(f"\n(code skipped: {'; '.join(problems)})")
        return
    env = rlenv.make("rlenv/HumanEval-v0")
    source = env.unwrapped.source
    tasks = [source[i % source.size] for i in range(jobs)]
    completions = [t.gold_completion for t in tasks]
    verifier = env.unwrapped.verifier
    score_tasks(verifier, tasks[:8], completions[:8])  # containers started
    score_tasks(verifier, tasks[:8], completions[:8], executor="ray")
    local, results = timed(score_tasks, verifier, tasks, completions)
    remote, ray_results = timed(score_tasks, verifier, tasks, completions, executor="ray")
    assert [r.status for r in ray_results] == [r.status for r in results]
    containers = os.cpu_count() or 1
    table(f"code: {jobs} HumanEval gold solutions in the sandbox ({containers} containers per node)",
          [("local executor (SandboxPool)", local, jobs / local, "1.00x"),
           ("executor='ray' (sandbox actor on the node)", remote, jobs / remote, f"{remote / local:.2f}x")], "jobs")
    print(f"\nmeasured cost of one job: {containers * local / jobs:.3f} container-seconds "
          f"({sum(r.correct for r in results)}/{jobs} correct)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=50, help="requests per client in the load runs")
    parser.add_argument("--batch", type=int, default=256, help="items per request of RemoteVerifier")
    parser.add_argument("--code-jobs", type=int, default=64)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    import ray

    ray.init(num_cpus=default_num_workers(), include_dashboard=False, object_store_memory=300 * 2**20,
             logging_level=logging.WARNING)
    print(f"{platform.python_implementation()} {platform.python_version()}, ray {ray.__version__}, "
          f"{default_num_workers()} cores")
    rows, cold = bench_math(args.items, args.repeats)
    table(f"math: {args.items} items, median of {args.repeats} runs", rows, "items")
    print(f"\nRay cold start (first 200-item batch, actor and its worker pool started): {cold:.2f} s")
    bench_service(args.items, args.clients, args.requests, args.batch)
    if args.code_jobs:
        bench_code(args.code_jobs)
    ray.shutdown()


if __name__ == "__main__":
    main()
