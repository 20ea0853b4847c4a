"""Bounded checking: deadlines enforced from outside, any calling context, no processes left behind."""

import asyncio
import concurrent.futures as cf
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from rlenv import Status, Task
from rlenv.envs.math import MathVerifier
from tests.waiting import PATIENCE_S, scaled, wait_until

REPO = Path(__file__).resolve().parents[3]
DEADLINE = 1.5
NESTED_POWER = r"\boxed{\dfrac{5^{\left(5^{\left(5^{\left(5^5\right)}\right)} - 4\right)} - 5}{16}}"
TOWER = r"The answer is $9^{9^{9^{9}}}$."
MEGABYTE = "lorem ipsum " * 87_382 + r"\boxed{5}"
TASK = Task("t", "q", reference="5")


@pytest.fixture(scope="module")
def verifier(bounded_verifier):
    return bounded_verifier


def alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_gone(pids):
    """The processes of ``pids`` still alive once they are all gone or :data:`PATIENCE_S` has passed."""
    wait_until(lambda: not any(alive(p) for p in pids))
    return [p for p in pids if alive(p)]


def timed_checks(verifier):
    """Score each pathological completion alone; returns [(result, seconds)]."""
    out = []
    for completion in (NESTED_POWER, TOWER, MEGABYTE):
        start = time.monotonic()
        result = verifier(TASK, completion)
        out.append((result, time.monotonic() - start))
    return out


def check_pathological(verifier, outcomes, before):
    statuses = [r.status for r, _ in outcomes]
    assert statuses == [Status.TIMEOUT, Status.TIMEOUT, Status.UNPARSABLE]
    assert all(seconds <= DEADLINE + scaled(1.0) for _, seconds in outcomes), outcomes
    assert "deadline" in outcomes[0][0].details["reason"] and "max_completion_chars" in outcomes[2][0].details["reason"]
    after = verifier.pool.worker_pids()
    killed = set(before) - set(after)
    assert len(killed) == 2 and len(after) == 2  # both stuck workers were killed and replaced
    assert wait_gone(killed) == []  # killed and reaped, no zombies
    children = {p.pid for p in psutil.Process().children(recursive=True)}
    assert not killed & children
    assert all(alive(p) for p in after)


def test_pathological_inputs_hit_the_deadline_from_the_main_thread(verifier):
    assert threading.current_thread() is threading.main_thread()
    before = verifier.pool.worker_pids()
    check_pathological(verifier, timed_checks(verifier), before)


def test_pathological_inputs_hit_the_deadline_from_a_worker_thread(verifier):
    verifier.pool.start()  # the replacements of the last test's killed workers are ready
    before = verifier.pool.worker_pids()
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("out", timed_checks(verifier)))
    thread.start()
    thread.join(PATIENCE_S)
    check_pathological(verifier, box["out"], before)
    assert verifier(TASK, r"\boxed{5}").correct  # the pool still works after its worker thread ended


def test_signal_alarms_of_the_caller_survive_a_check(verifier):
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        assert verifier(TASK, r"\boxed{5}").correct
        time.sleep(1.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert fired == [True]  # math-verify's own alarm would have cancelled it


def test_a_completion_just_under_the_length_cap_is_searched():
    verifier = MathVerifier(max_completion_chars=200_000, num_workers=2)
    assert verifier(TASK, "x " * 99_000 + r"\boxed{5}").correct
    capped = verifier(TASK, "x " * 100_001 + r"\boxed{5}")
    assert capped.status is Status.UNPARSABLE and "max_completion_chars" in capped.details["reason"]


def test_the_memory_cap_stops_a_huge_power_before_its_deadline():
    capped = MathVerifier(timeout=2 * scaled(60), num_workers=1, max_memory_mb=300)
    start = time.monotonic()
    result = capped(TASK, r"\boxed{2^{2^{40}}}")
    assert result.status in (Status.INCORRECT, Status.ERROR) and time.monotonic() - start < scaled(60)
    assert capped(TASK, r"\boxed{5}").correct  # the worker survived (or was replaced)
    capped.pool.close()


def test_a_worker_that_dies_mid_check_gives_an_error_and_is_replaced():
    verifier = MathVerifier(timeout=60.0, num_workers=1)
    verifier.pool.start()
    (pid,) = verifier.pool.worker_pids()

    def kill_once_busy():  # mid-check: the worker is busy with the stuck check
        wait_until(lambda: psutil.Process(pid).cpu_percent(0.2) > 2)
        os.kill(pid, signal.SIGKILL)

    threading.Thread(target=kill_once_busy, daemon=True).start()
    result = verifier(TASK, NESTED_POWER)
    assert result.status is Status.ERROR and "died" in result.details["error"]
    assert verifier(TASK, r"\boxed{5}").correct
    assert verifier.pool.worker_pids() != [pid]
    verifier.pool.close()


def test_many_threads_share_the_workers(verifier):
    tasks = [Task(str(i), "q", reference=str(i)) for i in range(40)]

    def run(offset):
        completions = [f"#### {i + offset}" for i in range(40)]
        return [r.correct for r in verifier.score_batch(tasks, completions)]

    with cf.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(run, [0, 1, 0, 1, 0, 1]))
    assert results == [[True] * 40, [False] * 40] * 3


def test_works_inside_an_event_loop(verifier):
    async def main():
        direct = verifier(TASK, r"\boxed{5}")  # a blocking call inside a coroutine is fine
        batch = await verifier.ascore_batch([TASK] * 3, [r"\boxed{5}", "#### 4", NESTED_POWER])
        return direct, batch

    direct, batch = asyncio.run(main())
    assert direct.correct
    assert [r.status for r in batch] == [Status.CORRECT, Status.INCORRECT, Status.TIMEOUT]


def test_pickles_to_a_fresh_handle_without_live_processes(verifier):
    data = pickle.dumps(verifier)
    assert len(data) < 2_000
    clone = pickle.loads(data)
    assert clone.config == verifier.config and clone.timeout == verifier.timeout
    assert clone(TASK, r"\boxed{5}").correct


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_works_in_a_process_pool_executor(verifier, method):
    verifier.pool.start()
    parent_pids = verifier.pool.worker_pids()
    one_worker = MathVerifier(timeout=DEADLINE, num_workers=1)
    with cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method)) as pool:
        results = list(pool.map(one_worker, [TASK, TASK], [r"\boxed{5}", NESTED_POWER]))
    assert [r.status for r in results] == [Status.CORRECT, Status.TIMEOUT]
    assert verifier.pool.worker_pids() == parent_pids  # a forked child never touches the parent's workers
    assert verifier(TASK, "#### 5").correct


def test_works_in_a_daemonic_multiprocessing_pool(verifier):
    with multiprocessing.get_context("fork").Pool(1) as pool:
        result = pool.apply(MathVerifier(num_workers=1), (TASK, "The answer is 5."))
    assert result.correct


def run_script(body, **kwargs):
    script = textwrap.dedent(f"""
        import sys, threading, time
        sys.path.insert(0, {str(REPO)!r})
        from rlenv.envs.math import MathVerifier
        from rlenv import Task
        task = Task("t", "q", reference="5")
    """) + textwrap.dedent(body)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, **kwargs)


def test_workers_exit_with_their_parent_on_normal_exit():
    proc = run_script("""
        verifier = MathVerifier(num_workers=1)
        assert verifier(task, "#### 5").correct
        print(*verifier.pool.worker_pids(), flush=True)
    """)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert proc.wait(PATIENCE_S) == 0 and len(pids) == 1
    assert wait_gone(pids) == []


def test_workers_die_when_the_parent_is_killed_even_mid_check():
    proc = run_script(f"""
        verifier = MathVerifier(num_workers=2, timeout=120)
        verifier.pool.start()
        threading.Thread(target=verifier, args=(task, {NESTED_POWER!r}), daemon=True).start()
        print(*verifier.pool.worker_pids(), flush=True)
        time.sleep(600)
    """)
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2 and all(alive(p) for p in pids)
    # one worker gets stuck in C-level sympy code, the other stays idle (and uses no CPU at all)
    assert wait_until(lambda: sum(psutil.Process(p).cpu_percent(0.5) > 2 for p in pids) == 1), \
        "expected one worker busy with the stuck check"
    proc.kill()
    proc.wait()
    assert wait_gone(pids) == []
