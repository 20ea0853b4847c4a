"""Scale-out: the same math scoring batch locally, on a Ray cluster, and through the reward service.

* **local vs Ray** (the baseline is the local thread executor of ``rlenv.score_tasks``): ``--items``
  ``rlenv/Arithmetic-v0`` completions (half right), scored ``--repeats`` times each way after one
  warm-up; on one machine the ratio is Ray's overhead (object store, actor calls, chunking).
  ``--ray-address`` joins an existing cluster instead of starting a local one.
* **service**: ``rlenv serve`` in-process (uvicorn on 127.0.0.1) over the same env; ``--clients``
  concurrent clients send ``--requests`` requests each of ``--items-per-request`` items;
  requests/s, items/s and p50/p99 latency.

Prints a table. Run: ``python benchmarks/scale_out.py [--items 2000]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import logging
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rlenv  # noqa: E402
from rlenv.ray_executor import RayExecutor  # noqa: E402
from rlenv.service import create_app  # noqa: E402

ENV_ID = "rlenv/Arithmetic-v0"


def batch(items: int, offset: int) -> tuple[list, list[str]]:
    """``items`` distinct tasks from ``offset`` on, half answered right (boxed LaTeX), half wrong (``####``)."""
    source = rlenv.make(ENV_ID, level=3).unwrapped.source
    tasks = [source[offset + i] for i in range(items)]
    completions = [f"So the result is $\\boxed{{{t.reference}}}$." if i % 2 else f"#### {int(t.reference) + 1 + i % 7}"
                   for i, t in enumerate(tasks)]
    return tasks, completions


def timed(score, items: int, repeats: int) -> tuple[float, list]:
    """Median seconds of ``score(tasks, completions)`` over ``repeats`` fresh batches (no cache helps),
    after a warm-up batch (worker processes, actors)."""
    times, results = [], None
    for k in range(repeats + 1):
        tasks, completions = batch(items, offset=k * items)
        start = time.perf_counter()
        results = score(tasks, completions)
        if k:
            times.append(time.perf_counter() - start)
    return statistics.median(times), results


def service_load(clients: int, requests: int, per_request: int) -> dict[str, float]:
    import httpx
    import uvicorn

    env = rlenv.make(ENV_ID, level=3)
    tasks = [env.unwrapped.source[i] for i in range(200)]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app([ENV_ID], env_kwargs={ENV_ID: {"level": 3}}), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)

    def client(c: int) -> tuple[list[float], int]:
        latencies, wrong = [], 0
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
            for r in range(requests):
                picked = [(c * requests + r) * per_request % 200 + k for k in range(per_request)]
                body = [{"env_id": ENV_ID, "index": i % 200, "completion": f"#### {tasks[i % 200].reference}"}
                        for i in picked]
                start = time.perf_counter()
                rows = http.post("/score", json=body).json()
                latencies.append(time.perf_counter() - start)
                wrong += sum(row["status"] != "correct" for row in rows) + abs(len(rows) - per_request)
        return latencies, wrong

    try:
        client(0)  # warm-up
        start = time.perf_counter()
        with cf.ThreadPoolExecutor(clients) as pool:
            outcomes = list(pool.map(client, range(clients)))
        elapsed = time.perf_counter() - start
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    latencies = sorted(x for lat, _ in outcomes for x in lat)
    total = clients * requests
    return {"requests": total, "seconds": elapsed, "requests_per_s": total / elapsed,
            "items_per_s": total * per_request / elapsed, "p50_ms": 1000 * statistics.median(latencies),
            "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
            "wrong_or_lost": sum(w for _, w in outcomes)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ray-address", default=None)
    parser.add_argument("--chunk-size", type=int, default=250)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--items-per-request", type=int, default=4)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    verifier = rlenv.make(ENV_ID, level=3).unwrapped.verifier
    local_s, local = timed(lambda t, c: rlenv.score_tasks(verifier, t, c, executor="thread"), args.items, args.repeats)
    ray_executor = RayExecutor(args.ray_address, chunk_size=args.chunk_size)
    ray_s, remote = timed(lambda t, c: rlenv.score_tasks(verifier, t, c, executor=ray_executor), args.items,
                          args.repeats)
    same = [(r.status, r.value) for r in local] == [(r.status, r.value) for r in remote]
    nodes = len({n for n in ray_executor.node_ids()})
    ray_executor.shutdown()
    load = service_load(args.clients, args.requests, args.items_per_request)

    print(f"\nscoring {args.items} math items ({ENV_ID} level 3), median of {args.repeats}; "
          f"Ray: {nodes} node(s), chunks of {args.chunk_size}")
    print("| executor | seconds | items/s | ratio vs local |")
    print("|---|---|---|---|")
    print(f"| local threads (baseline) | {local_s:.2f} | {args.items / local_s:,.0f} | 1.00x |")
    print(f"| ray | {ray_s:.2f} | {args.items / ray_s:,.0f} | {ray_s / local_s:.2f}x |")
    print(f"results identical: {same}")
    print(f"\nreward service: {args.clients} clients x {args.requests} requests x {args.items_per_request} items")
    print("| requests | seconds | requests/s | items/s | p50 ms | p99 ms | wrong or lost |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {load['requests']} | {load['seconds']:.1f} | {load['requests_per_s']:.0f} | {load['items_per_s']:.0f} | "
          f"{load['p50_ms']:.1f} | {load['p99_ms']:.1f} | {load['wrong_or_lost']} |")


if __name__ == "__main__":
    main()
