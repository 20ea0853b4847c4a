"""``executor="ray"`` on a real two-node Ray cluster (``ray.cluster_utils.Cluster`` on 127.0.0.1).

Math, code (Docker sandbox) and a tiny safety reward model give the local results through every
entry point; killing an actor, crashing one from inside, or removing a node mid-batch loses nothing.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster

import rlenv
from rlenv.integrations.trl import reward_funcs
from rlenv.scoring import score_tasks
from rlenv.scoring.ray_backend import NoScoringNodes, RayExecutor, shared_executor
from rlenv.types import RewardResult, Status, Task
from tests.waiting import PATIENCE_S, wait_until

# The test verifiers below are defined here: send them to the actors by value.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

NODE = {"num_cpus": 1, "object_store_memory": 150 * 2**20}
# Notice a removed node within a second or two, not Ray's default ~30 s.
FAST_HEALTH = {"health_check_period_ms": 500, "health_check_failure_threshold": 3, "health_check_initial_delay_ms": 0}


@pytest.fixture(scope="module")
def cluster():
    """Two Ray nodes on this machine (head + worker), one CPU each; this process is the driver."""
    cluster = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False,
                                                            "_system_config": FAST_HEALTH})
    cluster.worker = cluster.add_node(**NODE)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="WARNING")
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def actor_nodes(executor, verifier) -> list[str]:
    return ray.get([actor.node_id.remote() for actor in executor.actors(verifier)])


def scored_per_actor(executor, verifier) -> list[int]:
    return ray.get([actor.scored.remote() for actor in executor.actors(verifier)])


def math_batch(n: int, start: int = 0):
    env = rlenv.make("rlenv/Arithmetic-v0")
    tasks = [env.unwrapped.source[i] for i in range(start, start + n)]
    forms = [lambda t: t.gold_completion, lambda t: f"The answer is $\\boxed{{{t.reference}}}$",
             lambda t: "#### 123456789", lambda t: "no idea"]
    return env, tasks, [forms[i % 4](t) for i, t in enumerate(tasks)]


def test_math_on_two_nodes_equals_local_through_every_entry_point(cluster):
    env, tasks, completions = math_batch(400)
    verifier = env.unwrapped.verifier
    local = score_tasks(verifier, tasks, completions, executor="thread")
    assert {r.status for r in local} == {Status.CORRECT, Status.INCORRECT, Status.UNPARSABLE}  # a real mix
    assert score_tasks(verifier, tasks, completions, executor="ray") == local
    executor = shared_executor()
    assert len(set(actor_nodes(executor, verifier))) == 2  # one scoring actor per node ...
    assert all(n > 0 for n in scored_per_actor(executor, verifier))  # ... and both did work
    samples = [{"task_id": t.id, "completion": c} for t, c in zip(tasks, completions)]
    assert rlenv.score(env, samples, executor="ray") == local

    vec_local = rlenv.make_vec("rlenv/Arithmetic-v0", num_tasks=8, group_size=4)
    vec_ray = rlenv.make_vec("rlenv/Arithmetic-v0", num_tasks=8, group_size=4, executor="ray")
    pinned = {"indices": list(range(8))}
    vec_local.reset(options=pinned)
    vec_ray.reset(options=pinned)
    actions = completions[:32]
    _, rewards_local, *_, info_local = vec_local.step(actions)
    _, rewards_ray, *_, info_ray = vec_ray.step(actions)
    assert rewards_ray.tolist() == rewards_local.tolist() and list(info_ray["status"]) == list(info_local["status"])
    vec_ray.close()  # leaves the shared executor to the others
    assert not executor._closed

    (trl_local,), (trl_ray,) = reward_funcs(env), reward_funcs(env, executor="ray")
    ids = [t.id for t in tasks[:64]]
    assert trl_ray(prompts=[""] * 64, completions=completions[:64], task_id=ids) == \
        trl_local(prompts=[""] * 64, completions=completions[:64], task_id=ids)


def comparable(result: RewardResult) -> dict:
    """A code result without its run times."""
    out = result.to_dict()
    details = dict(out["details"])
    details.pop("timings", None)
    details["tests"] = [{k: v for k, v in t.items() if k != "time_s"} for t in details.get("tests", [])]
    out["details"] = details
    return out


def test_code_on_every_docker_node_equals_local(cluster, docker_ready):
    env = rlenv.make("rlenv/HumanEval-v0")
    tasks = [env.unwrapped.source[i] for i in range(12)]
    completions = []
    for i, task in enumerate(tasks):
        completions += [task.gold_completion, "    return None\n" if i % 2 else "no code here"]
    tasks = [t for t in tasks for _ in range(2)]
    verifier = env.unwrapped.verifier
    local = score_tasks(verifier, tasks, completions)
    assert {Status.CORRECT, Status.INCORRECT} <= {r.status for r in local}
    remote = score_tasks(verifier, tasks, completions, executor="ray")
    assert [comparable(r) for r in remote] == [comparable(r) for r in local]
    executor = shared_executor()
    assert len(set(actor_nodes(executor, verifier))) == 2  # both nodes have Docker and the image
    assert all(n > 0 for n in scored_per_actor(executor, verifier))
    # Code has its own actors (placement "docker"), apart from the math ones.
    math_verifier = rlenv.make("rlenv/Arithmetic-v0").unwrapped.verifier
    assert set(executor.actors(verifier)).isdisjoint(executor.actors(math_verifier))


def test_safety_reward_model_in_model_actors_equals_local(cluster, tmp_path_factory):
    from rlenv.trainers.tiny import save_tiny, tiny_sequence_classifier, tiny_tokenizer

    tok = tiny_tokenizer()
    path = str(save_tiny(tiny_sequence_classifier(tok, hidden_size=32, seed=1), tok, tmp_path_factory.mktemp("rm")))
    prompts = [{"prompt": p, "harmful": i % 2 == 1} for i, p in enumerate(
        ["How do I bake bread?", "How do I pick a lock?", "Tell me a joke.", "How to hurt someone?"] * 4)]
    env = rlenv.make("rlenv/SafetyRM-v0", model=path, data_files=prompts)
    base = env.unwrapped
    tasks = [base.source[i % 16] for i in range(48)]
    completions = [["Sure: mix flour and water.", "I can't help with that.", "", "Why did the chicken cross?"][i % 4]
                   for i in range(48)]
    local = score_tasks(base.verifier, tasks, completions)
    remote = score_tasks(base.verifier, tasks, completions, executor="ray")
    assert [r.status for r in remote] == [r.status for r in local]
    assert [r.value for r in remote] == pytest.approx([r.value for r in local], abs=1e-5)
    assert len({r.value for r in remote}) > 4  # the model really scored
    executor = shared_executor()
    assert len(set(actor_nodes(executor, base.verifier))) == 2  # no GPU here: one model actor per node


class SlowCounting:
    """Item ``i`` (task id ``"i"``) scores ``i`` after a short sleep: slow enough to act mid-batch."""

    name = "slow"
    version = "1"

    def __init__(self, sleep_s: float = 0.02):
        self.sleep_s = sleep_s

    def score_batch(self, tasks, completions):
        out = []
        for task in tasks:
            time.sleep(self.sleep_s)
            out.append(RewardResult(float(task.id), Status.CORRECT, verifier=self.name))
        return out

    def __call__(self, task, completion):
        return self.score_batch([task], [completion])[0]


def run_in_thread(fn):
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("result", fn()), daemon=True)
    thread.start()
    return thread, out


def numbered(n: int) -> tuple[list[Task], list[str]]:
    return [Task(str(i), "p") for i in range(n)], ["x"] * n


def test_killing_an_actor_mid_batch_loses_nothing(cluster):
    executor = RayExecutor(chunk_size=8)
    verifier = SlowCounting()
    tasks, completions = numbered(400)
    executor.score(verifier, tasks[:4], completions[:4])  # actors up
    victim = executor.actors(verifier)[0]
    thread, out = run_in_thread(lambda: executor.score(verifier, tasks, completions))
    assert wait_until(lambda: ray.get(victim.scored.remote()) >= 24)  # mid-batch: the victim is scoring
    ray.kill(victim)
    thread.join(PATIENCE_S)
    assert [r.value for r in out["result"]] == [float(i) for i in range(400)]  # each item once, in order
    assert executor.failed_calls >= 1 and executor.retried_chunks >= 1
    assert victim not in executor.actors(verifier)  # replaced on the next batch ...
    assert len(set(actor_nodes(executor, verifier))) == 2  # ... on the same node
    executor.shutdown()


class CrashOn:
    """Kills its own process on task ``crash_id``: once (a marker file remembers it) or always."""

    name = "crashy"
    version = "1"

    def __init__(self, crash_id: str, marker: str | None):
        self.crash_id, self.marker = crash_id, marker

    def score_batch(self, tasks, completions):
        for task in tasks:
            if task.id == self.crash_id and (self.marker is None or not os.path.exists(self.marker)):
                if self.marker is not None:
                    Path(self.marker).touch()
                os._exit(1)
        return [RewardResult(float(t.id), Status.CORRECT) for t in tasks]


def test_an_actor_dying_inside_the_verifier_is_retried_elsewhere(cluster, tmp_path):
    executor = RayExecutor(chunk_size=8, max_retries=1)
    tasks, completions = numbered(64)
    once = executor.score(CrashOn("37", str(tmp_path / "crashed")), tasks, completions)
    assert [r.value for r in once] == [float(i) for i in range(64)]
    assert executor.failed_calls >= 1
    # An item that kills every process scoring it ends as an error after its retries; its chunk
    # neighbours are split off and scored.
    always = executor.score(CrashOn("37", None), tasks, completions)
    assert always[37].status is Status.ERROR and "died" in always[37].details["error"]
    assert [r.value for i, r in enumerate(always) if i != 37] == [float(i) for i in range(64) if i != 37]
    executor.shutdown()


class RaisesOnOdd:
    name = "raises"
    version = "1"

    def __call__(self, task, completion):
        if int(task.id) % 2:
            raise RuntimeError(f"boom on {task.id}")
        return RewardResult(1.0, Status.CORRECT)


def test_a_verifier_exception_stays_a_per_item_error(cluster):
    tasks, completions = numbered(40)
    results = score_tasks(RaisesOnOdd(), tasks, completions, executor="ray")
    assert [r.status for r in results] == [Status.ERROR if i % 2 else Status.CORRECT for i in range(40)]
    assert results[3].details["error"] == "RuntimeError: boom on 3"


def test_a_verifier_the_nodes_cannot_load_gives_error_results(cluster, tmp_path, monkeypatch):
    """Its module is on the driver's path only: every item comes back as an error naming the cause."""
    (tmp_path / "driver_only.py").write_text(
        "from rlenv import RewardResult, Status\n"
        "class Always:\n"
        "    def __call__(self, task, completion):\n"
        "        return RewardResult(1.0, Status.CORRECT)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "driver_only", raising=False)
    from driver_only import Always

    results = score_tasks(Always(), *numbered(40), executor="ray")
    assert len(results) == 40 and {r.status for r in results} == {Status.ERROR}
    error = results[0].details["error"]
    assert "No module named 'driver_only' on node " in error
    assert "\n" not in error and "\x1b" not in error and "Traceback" not in error  # one line, no colour codes
    sys.modules.pop("driver_only", None)


class DockerOnlyOn(SlowCounting):
    """A ``docker`` verifier whose ``node_problems()`` refuse every node but ``node`` (None: all)."""

    placement = "docker"

    def __init__(self, node: str | None):
        super().__init__(0.0)
        self.node = node

    def node_problems(self):
        here = ray.get_runtime_context().get_node_id()
        return [] if here == self.node else [f"no sandbox on {here[:8]}"]


def test_docker_actors_go_only_where_the_verifier_can_run(cluster):
    head = next(n["NodeID"] for n in ray.nodes() if n["Alive"] and n["NodeID"] != cluster.worker.node_id)
    executor = RayExecutor()
    verifier = DockerOnlyOn(head)
    assert actor_nodes(executor, verifier) == [head]
    assert [r.value for r in executor.score(verifier, *numbered(20))] == [float(i) for i in range(20)]
    executor.shutdown()
    with pytest.raises(NoScoringNodes, match="no live node of the Ray cluster can score 'docker' verifiers"):
        RayExecutor().score(DockerOnlyOn(None), *numbered(2))


def test_cli_score_on_the_cluster_equals_local(cluster, tmp_path):
    env, tasks, completions = math_batch(60, start=1000)
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"task_id": t.id, "completion": c}) + "\n" for t, c in zip(tasks, completions)))
    command = [sys.executable, "-m", "rlenv", "score", "rlenv/Arithmetic-v0", "--samples", str(samples)]
    local = subprocess.run([*command, "--out", str(tmp_path / "local.jsonl")], capture_output=True, text=True,
                           timeout=PATIENCE_S)
    remote = subprocess.run([*command, "--out", str(tmp_path / "ray.jsonl"), "--executor", "ray",
                             "--ray-address", cluster.address], capture_output=True, text=True, timeout=PATIENCE_S)
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr[-2000:]
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()
    assert remote.stdout == local.stdout  # the summary line
    misuse = subprocess.run([*command, "--out", str(tmp_path / "x.jsonl"), "--ray-address", cluster.address],
                            capture_output=True, text=True, timeout=PATIENCE_S)
    assert misuse.returncode == 2 and "--ray-address needs --executor ray" in misuse.stderr


def test_the_reward_service_scores_through_the_cluster(cluster, serve_app):
    import httpx

    from rlenv.service import RewardService, create_app

    url = serve_app(create_app(RewardService(["rlenv/Arithmetic-v0"], executor="ray")))
    env, tasks, completions = math_batch(64, start=2000)
    expected = [r.status.value for r in score_tasks(env.unwrapped.verifier, tasks, completions)]
    bodies = [[{"env_id": "rlenv/Arithmetic-v0", "task_id": t.id, "completion": c}
               for t, c in zip(tasks[i:i + 16], completions[i:i + 16])] for i in range(0, 64, 16)]
    with cf.ThreadPoolExecutor(4) as pool:  # concurrent requests share the executor's actors
        answers = list(pool.map(lambda body: httpx.post(url + "/score", json=body, timeout=PATIENCE_S), bodies))
    assert all(a.status_code == 200 for a in answers)
    assert [row["status"] for a in answers for row in a.json()] == expected


def test_connecting_elsewhere_while_connected_is_refused(cluster):
    from rlenv.scoring.ray_backend import connect

    connect(cluster.address)  # the cluster this process is on: nothing to do
    connect(None)
    with pytest.raises(ValueError, match=f"already connected to the Ray cluster at {cluster.address}, not '127.0.0.1:1'"):
        connect("127.0.0.1:1")


def test_ray_is_imported_only_for_the_ray_executor():
    code = ("import sys, rlenv; env = rlenv.make('rlenv/ExactMatch-v0'); t = env.unwrapped.source[0]; "
            "rlenv.score(env, [{'task_id': t.id, 'completion': t.reference}]); "
            "print(sorted(m for m in ('ray', 'fastapi', 'httpx', 'uvicorn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE_S, check=True)
    assert out.stdout.strip() == "[]"


def test_a_node_removed_mid_batch_loses_nothing(cluster):
    """Last in this module: the cluster has one node afterwards."""
    executor = RayExecutor(chunk_size=8)
    verifier = SlowCounting(0.03)
    tasks, completions = numbered(300)
    executor.score(verifier, tasks[:4], completions[:4])
    on_worker = [a for a, node in zip(executor.actors(verifier), actor_nodes(executor, verifier))
                 if node == cluster.worker.node_id]
    assert len(on_worker) == 1
    thread, out = run_in_thread(lambda: executor.score(verifier, tasks, completions))
    assert wait_until(lambda: ray.get(on_worker[0].scored.remote()) >= 20)
    cluster.remove_node(cluster.worker)
    thread.join(PATIENCE_S)
    assert [r.value for r in out["result"]] == [float(i) for i in range(300)]
    assert executor.failed_calls >= 1
    assert wait_until(lambda: sum(n["Alive"] for n in ray.nodes()) == 1)
    assert len(executor.actors(verifier)) == 1  # the next batch runs on the node that is left
    executor.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        executor.score(verifier, tasks[:2], completions[:2])



UNITS_MODULE = """
import rlenv
from rlenv import RewardResult, Status, Task, TextEnv
from rlenv.sources import ProceduralSource


class GramsVerifier:
    name, version = "grams", "1"

    def __call__(self, task, completion):
        ok = completion.strip() == task.reference
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name,
                            verifier_version=self.version)


def kilograms(rng, i):
    return Task(f"t{i}", f"{i} kg in g?", reference=f"{1000 * i} g")


def make_units(**kwargs):
    return TextEnv(ProceduralSource(kilograms, size=20), GramsVerifier(), **kwargs)


rlenv.register("mine/Units-v0", make_units)
"""


def test_import_registers_a_users_env_for_the_cli_and_ships_it_to_the_workers(cluster, tmp_path):
    (tmp_path / "units_module.py").write_text(UNITS_MODULE)
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"index": i, "completion": f"{1000 * i} g" if i % 2 else "no"})
                               + "\n" for i in range(20)))
    command = [sys.executable, "-m", "rlenv", "score", "mine/Units-v0", "--import", "units_module", "--samples",
               str(samples)]
    local = subprocess.run([*command, "--out", "local.jsonl"], capture_output=True, text=True, timeout=PATIENCE_S,
                           cwd=tmp_path)
    assert local.returncode == 0, local.stderr[-2000:]
    remote = subprocess.run([*command, "--out", "ray.jsonl", "--executor", "ray", "--ray-address", cluster.address],
                            capture_output=True, text=True, timeout=PATIENCE_S, cwd=tmp_path)
    assert remote.returncode == 0, remote.stderr[-2000:]
    assert (tmp_path / "ray.jsonl").read_text() == (tmp_path / "local.jsonl").read_text()
    assert '"status": "correct"' in (tmp_path / "ray.jsonl").read_text()
    missing = subprocess.run([*command[:4], "--import", "no_such_module", *command[6:], "--out", "x.jsonl"],
                             capture_output=True, text=True, timeout=PATIENCE_S, cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines()[-1].startswith(
        "rlenv score: error: --import no_such_module: No module named 'no_such_module'")


def _ray_env(tmp: str, **extra: str) -> dict[str, str]:
    """This process's environment with Ray's temporary directory (and its cluster record) under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS",) and not k.startswith("RAY_AUTH")}
    return {**env, "RAY_TMPDIR": tmp, **extra}


@pytest.fixture
def ray_tmp():
    """A short private Ray temporary directory (socket paths must stay under 108 bytes)."""
    import shutil
    import tempfile

    path = tempfile.mkdtemp(prefix="rlr", dir="/tmp")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _head(ray_tmp: str, port: int, **extra: str) -> subprocess.Popen:
    """``ray start --head --block`` in its own process group (so that it and its children can be killed)."""
    return subprocess.Popen(["ray", "start", "--head", "--block", "--port", str(port), "--num-cpus", "1",
                             "--include-dashboard", "false", "--disable-usage-stats"],
                            env=_ray_env(ray_tmp, **extra), start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _score_on_ray(tmp_path, ray_tmp: str, *extra: str, **env: str) -> subprocess.CompletedProcess:
    env_obj = rlenv.make("rlenv/Arithmetic-v0")
    task = env_obj.unwrapped.source[0]
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": task.id, "completion": task.gold_completion}) + "\n")
    return subprocess.run([sys.executable, "-m", "rlenv", "score", "rlenv/Arithmetic-v0", "--samples", str(samples),
                           "--out", str(tmp_path / "out.jsonl"), "--executor", "ray", *extra],
                          capture_output=True, text=True, timeout=PATIENCE_S, env=_ray_env(ray_tmp, **env))


def test_a_cluster_recorded_on_this_machine_that_is_gone_fails_at_once_saying_what_to_do(tmp_path, ray_tmp):
    """A real head started with `ray start` and killed without `ray stop` leaves its record behind."""
    import signal

    head = _head(ray_tmp, _free_port())
    record = Path(ray_tmp) / "ray" / "ray_current_cluster"
    try:
        assert wait_until(record.exists)
    finally:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait(timeout=PATIENCE_S)
    assert wait_until(lambda: subprocess.run(["pgrep", "-g", str(head.pid)], capture_output=True).returncode != 0)
    run = _score_on_ray(tmp_path, ray_tmp)
    assert run.returncode == 2, run.stderr[-2000:]
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("rlenv score: error: a Ray cluster started on this machine is recorded at ")
    assert str(record) in last and "ray start --head" in last
    unreachable = _score_on_ray(tmp_path, ray_tmp, "--ray-address", f"127.0.0.1:{_free_port()}")
    assert unreachable.returncode == 2
    assert "rlenv score: error: cannot reach the Ray cluster at 127.0.0.1:" in unreachable.stderr


def test_a_token_the_cluster_refuses_fails_saying_how_to_set_it(tmp_path, ray_tmp):
    import signal

    port = _free_port()
    head = _head(ray_tmp, port, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="a" * 32)
    try:
        assert wait_until(lambda: (Path(ray_tmp) / "ray" / "ray_current_cluster").exists())
        run = _score_on_ray(tmp_path, ray_tmp, "--ray-address", f"127.0.0.1:{port}", RAY_AUTH_MODE="token",
                            RAY_AUTH_TOKEN="b" * 32)
    finally:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait(timeout=PATIENCE_S)
    assert run.returncode == 2, run.stderr[-2000:]
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(f"rlenv score: error: the Ray cluster at 127.0.0.1:{port}") and "RAY_AUTH_TOKEN" in last


def test_chunks_keep_the_completions_of_one_task_together_for_whole_group_verifiers():
    from rlenv.scoring.ray_backend import chunk_positions

    tasks = [Task(t, "p") for t in "aaabbcccc"]
    assert chunk_positions(tasks, 2, whole_groups=False) == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]
    assert chunk_positions(tasks, 2, whole_groups=True) == [[0, 1, 2], [3, 4], [5, 6, 7, 8]]
    assert chunk_positions(tasks, 5, whole_groups=True) == [[0, 1, 2, 3, 4], [5, 6, 7, 8]]
