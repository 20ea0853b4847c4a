"""Soak: many jobs, ~10% of them hostile, through one pool.

Checks that every job gets exactly one result with the expected status, that the pool is
healthy afterwards (every container alive, a canary job passes, no container needed replacing),
and that no container is left once the pool is closed.

    python benchmarks/sandbox_soak.py [--jobs 2000] [--size N]
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "sandbox")]

import docker  # noqa: E402
from redteam_cases import hostile_jobs  # noqa: E402  (the red-team suite's cases)

from rlenv.sandbox import FunctionJob, IOCase, JobStatus, Limits, ProgramJob, SandboxPool  # noqa: E402
from rlenv.sandbox.container import POOL_LABEL  # noqa: E402

QUICK = Limits(timeout_s=6.0, test_timeout_s=1.0, memory_mb=256)
HOSTILE = [
    ("infinite loop", JobStatus.TIMEOUT, ProgramJob("while True:\n    pass", limits=Limits(timeout_s=2, test_timeout_s=0.3))),
    ("swallowed timeout", JobStatus.TIMEOUT, FunctionJob(
        "def f():\n    try:\n        while True:\n            x = 1\n    except BaseException:\n        return 1\n",
        ["assert f() == 1"], limits=Limits(timeout_s=2, test_timeout_s=0.3))),
    ("memory bomb", JobStatus.MEMORY, ProgramJob("x = bytearray(1 << 34)", limits=QUICK)),
    ("fork bomb", JobStatus.TIMEOUT, ProgramJob(
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        limits=Limits(timeout_s=2, test_timeout_s=0.5))),
    ("output flood", JobStatus.OUTPUT_LIMIT, ProgramJob("while True:\n    print('x' * 4096)", limits=QUICK)),
    ("os._exit before output", JobStatus.FAILED, ProgramJob("import os\nos._exit(0)\nprint(4)", [IOCase("", "4")],
                                                            limits=QUICK)),
    ("sys.exit before tests", JobStatus.FAILED, FunctionJob("import sys\ndef f():\n    return 0\nsys.exit(0)\n",
                                                            ["assert f() == 1"], limits=QUICK)),
    ("always-true __eq__", JobStatus.FAILED, FunctionJob(
        "class E:\n    def __eq__(self, other):\n        return True\ndef f():\n    return E()\n",
        ["assert f() == 1"], limits=QUICK)),
    ("grader killed", JobStatus.FAILED, FunctionJob(
        "import os, signal\ndef f():\n    for p in os.listdir('/proc'):\n"
        "        if p.isdigit() and int(p) not in (1, os.getpid()):\n            os.kill(int(p), signal.SIGKILL)\n"
        "    return 1\n", ["assert f() == 1"], limits=QUICK)),
    ("background process + files", JobStatus.OK, ProgramJob(
        "import os, time\nopen('/tmp/x', 'w').write('x')\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\n"
        "print('ok')", [IOCase("", "ok")], limits=QUICK)),
    ("network", JobStatus.FAILED, FunctionJob(
        "import socket\ndef f():\n    socket.create_connection(('1.1.1.1', 53), timeout=1)\n    return 1\n",
        ["assert f() == 1"], limits=QUICK)),
]
#: A red-team case may end in any of the candidate's own failures, never a pass or a sandbox error.
CANDIDATE_FAILURE = "candidate failure"
_CANDIDATE_FAILURES = {JobStatus.FAILED, JobStatus.TIMEOUT, JobStatus.MEMORY, JobStatus.OUTPUT_LIMIT}
HOSTILE += [(f"red team: {name}", CANDIDATE_FAILURE, job) for name, job in hostile_jobs().items()]


def right(expected: JobStatus | str, status: JobStatus) -> bool:
    return status in _CANDIDATE_FAILURES if expected == CANDIDATE_FAILURE else status is expected


def benign(i: int) -> tuple[str, JobStatus, ProgramJob | FunctionJob]:
    if i % 2:
        return "benign function", JobStatus.OK, FunctionJob(
            "def f(x):\n    return x * 3\n", [f"assert f({i}) == {3 * i}"], limits=QUICK)
    return "benign program", JobStatus.OK, ProgramJob("print(sum(map(int, input().split())))",
                                                      [IOCase(f"{i} 1\n", str(i + 1))], limits=QUICK)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--size", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    plan = [HOSTILE[(i // 10) % len(HOSTILE)] if i % 10 == 9 else benign(i) for i in range(args.jobs)]
    client = docker.from_env()
    began = time.perf_counter()
    with SandboxPool(args.size) as pool:
        with cf.ThreadPoolExecutor(8) as submitters:
            results = list(submitters.map(pool.run, [job for _, _, job in plan]))
        elapsed = time.perf_counter() - began
        canary = pool.run(FunctionJob("def f():\n    return 42\n", ["assert f() == 42"], limits=QUICK))
        stats = pool.stats()
        pool_id = pool.pool_id
    left = client.containers.list(all=True, ignore_removed=True, filters={"label": f"{POOL_LABEL}={pool_id}"})
    deadline = time.monotonic() + 20
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = client.containers.list(all=True, ignore_removed=True, filters={"label": f"{POOL_LABEL}={pool_id}"})

    table = collections.OrderedDict()
    for (name, expected, _), result in zip(plan, results, strict=True):
        row = table.setdefault(name, {"jobs": 0, "expected": str(expected), "right": 0, "got": collections.Counter()})
        row["jobs"] += 1
        row["right"] += right(expected, result.status)
        row["got"][result.status.value] += 1
    print(f"\nsoak: {len(results)} results for {args.jobs} jobs in {elapsed:.1f} s on {args.size} containers "
          f"({args.jobs / elapsed:.0f} jobs/s)\n")
    print(f"| {'job kind':<58} | {'jobs':>5} | {'expected':>17} | {'right':>5} | statuses")
    print(f"|{'-' * 60}|{'-' * 7}|{'-' * 19}|{'-' * 7}|{'-' * 30}")
    for name, row in table.items():
        print(f"| {name:<58} | {row['jobs']:>5} | {row['expected']:>17} | {row['right']:>5} | {dict(row['got'])}")
    hostile = sum(1 for _, _, job in plan if job in [h[2] for h in HOSTILE])
    wrong = sum(row["jobs"] - row["right"] for row in table.values())
    print(f"\nhostile jobs: {hostile} ({100 * hostile / args.jobs:.0f}%); wrong verdicts: {wrong}; "
          f"containers alive after: {stats['alive']}/{stats['size']}; replaced: {stats['replaced']}; "
          f"canary after: {canary.status.value}; containers left after close: {len(left)}")
    healthy = (len(results) == args.jobs and wrong == 0 and stats["alive"] == stats["size"] and canary.ok
               and not left and stats["replaced"] == 0)
    print("SOAK PASSED" if healthy else "SOAK FAILED")
    sys.exit(0 if healthy else 1)


if __name__ == "__main__":
    main()
