"""A bounded load test of ``rlenv serve``: 16 concurrent clients x 200 requests against a real uvicorn
server process on 127.0.0.1; every answer is checked (nothing lost, nothing wrong or reordered) and
the latency percentiles are printed."""

from __future__ import annotations

import concurrent.futures as cf
import socket
import statistics
import subprocess
import sys
import time

import httpx
import pytest

import rlenv
from tests.waiting import PATIENCE_S

ENV_ID = "rlenv/Arithmetic-v0"
CLIENTS = 16
REQUESTS = 200


@pytest.fixture(scope="module")
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "rlenv", "serve", "--env", ENV_ID, "--port", str(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + PATIENCE_S
    while True:
        assert process.poll() is None, process.stdout.read()
        try:
            httpx.get(url + "/health", timeout=PATIENCE_S).raise_for_status()
            break
        except httpx.TransportError:
            assert time.monotonic() < deadline, "rlenv serve did not start"
            time.sleep(0.2)
    yield url
    process.terminate()
    process.wait(timeout=PATIENCE_S)


def test_16_clients_x_200_requests_lose_nothing(server):
    source = rlenv.make(ENV_ID).unwrapped.source
    # Request r of client c scores task c * REQUESTS + r twice: its gold answer and a wrong one.
    tasks = [source[i] for i in range(CLIENTS * REQUESTS)]

    def client(c: int) -> list[float]:
        latencies = []
        with httpx.Client(base_url=server, timeout=PATIENCE_S) as http:
            for r in range(REQUESTS):
                task = tasks[c * REQUESTS + r]
                body = [{"env_id": ENV_ID, "task_id": task.id, "completion": task.gold_completion},
                        {"env_id": ENV_ID, "task_id": task.id, "completion": f"#### {task.reference}1"}]
                began = time.perf_counter()
                response = http.post("/score", json=body)
                latencies.append(time.perf_counter() - began)
                assert response.status_code == 200, response.text
                out = response.json()
                assert [(o["task_id"], o["status"]) for o in out] == [(task.id, "correct"), (task.id, "incorrect")]
        return latencies

    began = time.perf_counter()
    with cf.ThreadPoolExecutor(CLIENTS) as pool:
        latencies = [x for per_client in pool.map(client, range(CLIENTS)) for x in per_client]
    elapsed = time.perf_counter() - began
    assert len(latencies) == CLIENTS * REQUESTS
    p50, p99 = (statistics.quantiles(latencies, n=100)[k] * 1000 for k in (49, 98))
    print(f"\nrlenv serve load: {CLIENTS} clients x {REQUESTS} requests (2 math items each) in {elapsed:.1f} s: "
          f"{len(latencies) / elapsed:.0f} requests/s, latency p50 {p50:.1f} ms, p99 {p99:.1f} ms, 0 lost or wrong")
    assert p99 < 5000
