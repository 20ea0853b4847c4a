"""Scoring on a real two-node Ray cluster (ray.cluster_utils.Cluster on 127.0.0.1): the same results as
the local executors for math, code (Docker, node-local sandbox pools) and a tiny safety reward model;
an actor killed mid-batch loses nothing."""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import rlenv
from rlenv import RewardResult, Status, Task, score_tasks
from rlenv.ray_executor import RayExecutor

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

NODE = {"num_cpus": 2, "object_store_memory": 120 * 1024 * 1024}


@pytest.fixture(scope="module")
def cluster():
    cluster = Cluster(initialize_head=True, head_node_args=NODE)
    cluster.add_node(**NODE)
    cluster.wait_for_nodes()
    # the actors import this module's test verifiers
    ray.init(address=cluster.address, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(Path(__file__).resolve().parent)}})
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def cluster_address() -> str:
    return ray.get_runtime_context().gcs_address


@pytest.fixture(scope="module")
def executor(cluster):
    executor = RayExecutor(chunk_size=16, num_cpus=0.25)
    yield executor
    executor.shutdown()


def same(a: list[RewardResult], b: list[RewardResult]) -> bool:
    return [(r.status, round(r.value, 6), r.verifier) for r in a] == [(r.status, round(r.value, 6), r.verifier) for r in b]


def test_actors_spread_over_both_nodes_and_code_goes_to_docker_nodes(executor, docker_ready):
    from rlenv.ray_executor import verifier_placement

    assert len(executor.actors) == 2 and len(set(executor.node_ids())) == 2
    same_cluster = RayExecutor(cluster_address(), num_cpus=0.25)  # the cluster this process is connected to
    assert len(same_cluster.actors) == 2
    same_cluster.shutdown()
    with pytest.raises(ValueError, match="already connected to the Ray cluster"):
        RayExecutor("127.0.0.1:1")
    from rlenv.envs.code import CodeVerifier

    assert len(set(executor.node_ids("docker", CodeVerifier.node_ready))) == 2  # Docker with the image on both
    assert len(set(executor.node_ids("model"))) == 2  # no GPU: actors_per_node on every node
    assert verifier_placement(rlenv.make("rlenv/HumanEval-v0").unwrapped.verifier) == "docker"
    assert verifier_placement(rlenv.make("rlenv/Arithmetic-v0").unwrapped.verifier) == "cpu"
    gated = rlenv.make("rlenv/Format-v0", answer_check="exact_match").unwrapped.verifier
    assert verifier_placement(gated) == "cpu"


def test_math_on_ray_equals_local(executor):
    env = rlenv.make("rlenv/Arithmetic-v0", level=2)
    tasks = [env.unwrapped.source[i] for i in range(300)]
    completions = [f"#### {t.reference}" if i % 3 else f"#### {t.reference}1" for i, t in enumerate(tasks)]
    completions[7] = "no answer"
    local = score_tasks(env.unwrapped.verifier, tasks, completions, executor="serial")
    remote = score_tasks(env.unwrapped.verifier, tasks, completions, executor=executor)
    assert same(local, remote)
    assert {r.status for r in remote} == {Status.CORRECT, Status.INCORRECT, Status.UNPARSABLE}


@pytest.mark.docker
def test_code_on_ray_equals_local(executor, docker_ready):
    env = rlenv.make("rlenv/HumanEval-v0")
    tasks = [env.unwrapped.source[i] for i in range(8)]
    completions = [t.gold_completion if i % 2 else "    return None\n" for i, t in enumerate(tasks)]
    local = score_tasks(env.unwrapped.verifier, tasks, completions, executor="thread")
    remote = score_tasks(env.unwrapped.verifier, tasks, completions, executor=executor)
    assert same(local, remote) and [r.status for r in remote].count(Status.CORRECT) == 4


def test_a_tiny_safety_reward_model_on_ray_equals_local(executor, tmp_path):
    from rlenv.envs.safety import RewardModelVerifier
    from rlenv.trainers.tiny import save_tiny, tiny_sequence_classifier, tiny_tokenizer

    tok = tiny_tokenizer()
    path = str(save_tiny(tiny_sequence_classifier(tok, hidden_size=32, seed=1), tok, tmp_path / "rm"))
    verifier = RewardModelVerifier(path, batch_size=4)
    tasks = [Task(str(i), f"question {i}?") for i in range(40)]
    completions = [f"answer {i % 7}" for i in range(40)]
    local = score_tasks(verifier, tasks, completions, executor="serial")
    remote = score_tasks(verifier, tasks, completions, executor=executor)
    assert [r.status for r in local] == [r.status for r in remote]
    assert max(abs(a.value - b.value) for a, b in zip(local, remote, strict=True)) < 1e-5


class Slow:
    """A verifier that takes 20 ms per item; correct when the completion is the task id."""

    name, version = "slow", "1"

    def __call__(self, task, completion):
        time.sleep(0.02)
        if completion == "raise":
            raise ValueError("a verifier error stays one item's error")
        ok = completion == task.id
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier="slow")


def test_killing_an_actor_mid_batch_loses_nothing(cluster):
    executor = RayExecutor(chunk_size=8, max_workers=1, num_cpus=0.25)
    tasks = [Task(str(i), "?") for i in range(240)]
    completions = [str(i) if i % 4 else "wrong" for i in range(240)]
    completions[5] = "raise"
    out: dict = {}
    worker = threading.Thread(target=lambda: out.update(results=executor.score(Slow(), tasks, completions)))
    worker.start()
    time.sleep(1.0)
    victim = executor.actors[0]
    ray.kill(victim)
    worker.join(timeout=120)
    assert not worker.is_alive(), "the batch did not finish after its actor was killed"
    results = out["results"]
    assert executor.actors[0] is not victim  # replaced (the cpu pool: Slow declares no placement)
    assert len(results) == 240 and all(isinstance(r, RewardResult) for r in results)
    assert same(results, score_tasks(Slow(), tasks, completions, executor="thread"))
    assert results[5].status is Status.ERROR and "stays one item's error" in results[5].details["error"]
    executor.shutdown()


def test_a_verifier_the_nodes_cannot_load_gives_error_results(executor, tmp_path, monkeypatch):
    """Its module is on the driver's path only: every item comes back as an error naming the cause."""
    (tmp_path / "driver_only.py").write_text(
        "from rlenv import RewardResult, Status\n"
        "class Always:\n"
        "    def __call__(self, task, completion):\n"
        "        return RewardResult(1.0, Status.CORRECT)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from driver_only import Always

    results = score_tasks(Always(), [Task(str(i), "?") for i in range(40)], ["x"] * 40, executor=executor)
    assert len(results) == 40 and {r.status for r in results} == {Status.ERROR}
    assert "driver_only" in results[0].details["error"]
    sys.modules.pop("driver_only", None)


def test_cli_scores_through_the_cluster(cluster, tmp_path):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"index": i, "completion": f"#### {i}"}) + "\n" for i in range(20)))
    rows = {}
    for executor in ("thread", "ray"):
        extra = ["--ray-address", cluster.address] if executor == "ray" else []
        run = subprocess.run([sys.executable, "-m", "rlenv", "score", "rlenv/Arithmetic-v0", "--samples", str(samples),
                              "--out", str(tmp_path / f"{executor}.jsonl"), "--executor", executor, *extra],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        rows[executor] = [(r["status"], r["reward"]) for r in
                          map(json.loads, (tmp_path / f"{executor}.jsonl").read_text().splitlines())]
    assert rows["thread"] == rows["ray"] and len(rows["ray"]) == 20


def test_vector_envs_and_trl_reward_funcs_take_the_ray_executor(executor):
    from rlenv.integrations.trl import reward_funcs, to_dataset

    steps = {}
    for name, chosen in (("thread", "thread"), ("ray", executor)):
        vec = rlenv.make_vec("rlenv/Arithmetic-v0", num_tasks=4, group_size=2, executor=chosen)
        vec.reset(seed=3)
        answers = [f"#### {task.reference}" if i % 2 else "#### 1000" for i, task in enumerate(vec.tasks)]
        _, rewards, _, _, infos = vec.step(answers)
        steps[name] = (list(rewards), list(infos["status"]))
        vec.close()
    assert steps["thread"] == steps["ray"] and "correct" in steps["ray"][1]
    env = rlenv.make("rlenv/ExactMatch-v0")
    ds = to_dataset(env)
    kwargs = dict(prompts=ds["prompt"][:3], completions=[env.unwrapped.source[0].reference, "no", "no"],
                  task_id=ds["task_id"][:3], completion_ids=[[1]] * 3, trainer_state=None,
                  log_metric=lambda *a: None, log_extra=lambda *a: None)
    assert reward_funcs(env, executor=executor)[0](**kwargs) == reward_funcs(env)[0](**kwargs) == [1.0, 0.0, 0.0]
