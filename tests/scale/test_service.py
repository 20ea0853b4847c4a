"""The reward service over real HTTP on 127.0.0.1 (uvicorn): the documented API, authentication,
every kind of bad input, and ``RemoteVerifier`` behind TRL reward functions, vector envs and verl."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import gymnasium
import httpx
import pytest

import rlenv
from rlenv import registry
from rlenv.integrations.trl import reward_funcs
from rlenv.integrations.verl import compute_score
from rlenv.scoring import score_tasks
from rlenv.service import RewardService, create_app
from rlenv.service.client import RemoteScoringError, RemoteVerifier
from rlenv.types import RewardResult, Status
from rlenv.wrappers.base import RewardWrapper
from tests.waiting import PATIENCE_S

MATH = "rlenv/Arithmetic-v0"
EXACT = "rlenv/ExactMatch-v0"
RAISING = "rlenv-test/RaisingExactMatch-v0"
BAD_WRAPPER = "rlenv-test/BadWrapper-v0"
REMOTE = "rlenv-test/RemoteArithmetic-v0"
TOKEN = "s3cret-token"


class RaisingVerifier:
    """ExactMatch, except that a completion containing ``boom`` makes it raise, and one containing
    ``lone`` is scored with details whose text is not valid Unicode (a candidate's exception text
    with lone surrogates, as a verifier may pass it on)."""

    name = "raising"
    version = "1"

    def __call__(self, task, completion):
        if "boom" in completion:
            raise RuntimeError(f"verifier exploded on {completion!r}")
        if "lone" in completion:
            return RewardResult(0.0, Status.INCORRECT, verifier=self.name, verifier_version=self.version,
                                details={"error": "ValueError: candidate said \udcff\ud800"})
        return rlenv.make(EXACT).unwrapped.verifier(task, completion)


class FailingOutcome(RewardWrapper):
    """A reward wrapper that fails (outside the verifier) on completions containing ``kaboom``."""

    def transform(self, task, completion, reward, truncated, info):
        if "kaboom" in completion:
            raise ValueError("the wrapper cannot shape this")
        return reward, info


def make_raising_env():
    return rlenv.TextEnv(rlenv.make(EXACT).unwrapped.source, RaisingVerifier())


def make_bad_wrapper_env():
    return FailingOutcome(rlenv.make(EXACT))


@pytest.fixture(scope="module", autouse=True)
def test_envs():
    rlenv.register(RAISING, make_raising_env)
    rlenv.register(BAD_WRAPPER, make_bad_wrapper_env)
    yield
    for env_id in (RAISING, BAD_WRAPPER, REMOTE):
        registry._REGISTRY.pop(env_id, None)
        gymnasium.registry.pop(env_id, None)


@pytest.fixture(scope="module")
def service():
    return RewardService([MATH, EXACT, RAISING, BAD_WRAPPER], {MATH: {"level": 2}})


@pytest.fixture(scope="module")
def url(serve_app, service):
    return serve_app(create_app(service, max_body_bytes=64 * 1024, max_items=50))


@pytest.fixture(scope="module")
def secured(serve_app, service):
    return serve_app(create_app(service, token=TOKEN))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, path, body, **kwargs):
    content = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return httpx.post(url + path, content=content, headers={"Content-Type": "application/json", **kwargs}, timeout=PATIENCE_S)


def math_env():
    return rlenv.make(MATH, level=2)


def test_score_returns_the_local_results_in_order_for_every_way_of_naming_a_task(url):
    env, exact = math_env(), rlenv.make(EXACT)
    tasks = [env.unwrapped.source[i] for i in range(6)]
    items = []
    for i, task in enumerate(tasks):
        completion = task.gold_completion if i % 2 else "#### -1"
        items += [{"env_id": MATH, "task_id": task.id, "completion": completion},
                  {"env_id": EXACT, "index": i, "completion": exact.unwrapped.source[i].reference},
                  {"env_id": MATH, "index": i, "completion": completion}]
    items.append({"env_id": MATH, "reference": "42", "prompt": "6 * 7?", "metadata": {"k": 1},
                  "completion": "#### 42"})
    response = post(url, "/score", items)
    assert response.status_code == 200
    out = response.json()
    assert len(out) == len(items)
    for item, row in zip(items, out):
        base = rlenv.make(item["env_id"], **({"level": 2} if item["env_id"] == MATH else {})).unwrapped
        task = base.source[base.resolve_index({k: item[k] for k in ("task_id", "index") if k in item})] \
            if "reference" not in item else None
        if task is None:
            assert row["task_id"] == "inline" and row["status"] == "correct"
            continue
        local = base.verifier(task, item["completion"])
        assert row["env_id"] == item["env_id"] and row["task_id"] == task.id
        assert RewardResult.from_dict({k: row[k] for k in local.to_dict()}) == local
        assert row["reward"] == local.value and row["truncated"] is False
    assert {r["status"] for r in out} == {"correct", "incorrect"}
    health = httpx.get(url + "/health", timeout=PATIENCE_S).json()
    assert health == {"status": "ok", "envs": [MATH, EXACT, RAISING, BAD_WRAPPER]}
    envs = {e["env_id"]: e for e in httpx.get(url + "/envs", timeout=PATIENCE_S).json()}
    assert envs[MATH] == {"env_id": MATH, "verifier": "math", "verifier_version": "2", "placement": "cpu",
                          "tasks": None}
    assert envs[EXACT]["tasks"] == 8


def test_openrlhf_get_reward_is_reward_func(url):
    env = rlenv.make(EXACT)
    tasks = [env.unwrapped.source[i] for i in range(3)]
    prompts = [f"Q: {t.prompt}\nA:" for t in tasks]
    queries = [p + " " + a + "<|im_end|>" for p, a in zip(prompts, [tasks[0].reference, "nope", tasks[2].reference])]
    body = {"query": queries, "prompts": prompts, "labels": [t.id for t in tasks]}
    response = post(url, f"/get_reward?env_id={EXACT}", body)
    assert response.status_code == 200, response.text
    expected = rlenv.integrations.openrlhf.RewardFunc(EXACT).rewards(queries, prompts, body["labels"])
    assert response.json() == expected
    assert expected["rewards"] == [1.0, 0.0, 1.0] and expected["extra_logs"]["status/incorrect"] == [0.0, 1.0, 0.0]
    by_reference = post(url, f"/get_reward?env_id={EXACT}&label=reference",
                        {**body, "labels": [t.reference for t in tasks]})
    assert by_reference.json()["rewards"] == [1.0, 0.0, 1.0]


def test_authentication(secured):
    assert httpx.get(secured + "/health", timeout=PATIENCE_S).status_code == 200  # liveness stays open
    for method, path in (("GET", "/envs"), ("POST", "/score"), ("POST", f"/get_reward?env_id={EXACT}")):
        missing = httpx.request(method, secured + path, content="[]")
        assert missing.status_code == 401 and "missing bearer token" in missing.json()["error"]
        assert missing.headers["www-authenticate"] == "Bearer"
        wrong = httpx.request(method, secured + path, content="[]", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.json() == {"error": "wrong bearer token"}
    item = [{"env_id": EXACT, "index": 0, "completion": "x"}]
    assert post(secured, "/score", item, Authorization=f"Bearer {TOKEN}").status_code == 200
    task = rlenv.make(EXACT).unwrapped.source[0]
    assert RemoteVerifier(secured, EXACT, token=TOKEN)(task, task.reference).correct
    with pytest.raises(RemoteScoringError, match="HTTP 401: missing bearer token"):
        RemoteVerifier(secured, EXACT, token="")(task, task.reference)


BAD_SCORE_BODIES = [
    (b'[{"env_id": ', 400, "malformed JSON"),
    (b"\xff\xfe", 400, "malformed JSON"),
    ({"env_id": EXACT}, 422, "must be a JSON list of items, got a JSON dict"),
    ([{"env_id": EXACT, "index": 0, "completion": 7}], 422, "item 0, field completion: Input should be a valid string"),
    ([{"env_id": EXACT, "index": "0", "completion": "x"}], 422, "item 0, field index: Input should be a valid integer"),
    ([{"env_id": EXACT, "index": 0, "completion": "x"}, {"env_id": EXACT, "completion": "x"}], 422,
     "item 1: give exactly one of task_id, index or reference (got none)"),
    ([{"env_id": EXACT, "index": 0, "task_id": "a", "completion": "x"}], 422,
     "give exactly one of task_id, index or reference (got ['task_id', 'index'])"),
    ([{"env_id": EXACT, "index": 0, "prompt": "p", "completion": "x"}], 422, "prompt only go with reference"),
    ([{"env_id": EXACT, "index": 0, "completion": "x", "extra": 1}], 422,
     "item 0, field extra: Extra inputs are not permitted"),
    (["not an item"], 422, "item 0: Input should be a valid dictionary"),
    ([{"env_id": "nope/Nothing-v0", "index": 0, "completion": "x"}], 404,
     f"item 0: unknown env_id 'nope/Nothing-v0'; this service scores ['{MATH}', '{EXACT}'"),
    ([{"env_id": EXACT, "task_id": "no-such-task", "completion": "x"}], 404,
     "item 0: env 'rlenv/ExactMatch-v0' has no such task: unknown task_id 'no-such-task'"),
    ([{"env_id": EXACT, "index": 99, "completion": "x"}], 404, "out of range for 8 tasks"),
    ([{"env_id": EXACT, "index": 0, "completion": "x"}] * 51, 413, "51 items in one request, over the limit of 50"),
    ([{"env_id": EXACT, "index": 0, "completion": "x" * 70_000}], 413, "over the limit of 65536"),
    ([{"env_id": BAD_WRAPPER, "index": 0, "completion": "kaboom"}], 500,
     "scoring the items of rlenv-test/BadWrapper-v0 failed: ValueError: the wrapper cannot shape this"),
]


@pytest.mark.parametrize(("body", "status", "message"), BAD_SCORE_BODIES)
def test_bad_input_is_a_json_error_naming_the_problem_and_the_service_keeps_serving(url, body, status, message):
    response = post(url, "/score", body)
    assert response.status_code == status, response.text
    assert message in response.json()["error"]
    good = [{"env_id": EXACT, "index": i, "completion": rlenv.make(EXACT).unwrapped.source[i].reference}
            for i in range(8)]
    assert [r["status"] for r in post(url, "/score", good).json()] == ["correct"] * 8


def test_an_oversized_body_without_content_length_is_refused_while_streaming(url):
    def chunks():
        yield b'[{"env_id": "rlenv/ExactMatch-v0", "index": 0, "completion": "'
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}]'

    response = httpx.post(url + "/score", content=chunks(), timeout=PATIENCE_S)  # chunked: no Content-Length
    assert response.status_code == 413 and "exceeds the limit of 65536 bytes" in response.json()["error"]


def test_a_verifier_that_raises_gives_per_item_errors_in_place(url):
    items = [{"env_id": RAISING, "index": i, "completion": "boom" if i % 3 == 0 else
              rlenv.make(EXACT).unwrapped.source[i].reference} for i in range(8)]
    out = post(url, "/score", items).json()
    assert [r["status"] for r in out] == ["error" if i % 3 == 0 else "correct" for i in range(8)]
    assert out[3]["details"]["error"] == "RuntimeError: verifier exploded on 'boom'"


def test_text_that_is_not_valid_unicode_does_not_void_the_batch(url):
    items = [{"env_id": RAISING, "index": i, "completion": "lone" if i == 1 else
              rlenv.make(EXACT).unwrapped.source[i].reference} for i in range(3)]
    response = post(url, "/score", items)
    assert response.status_code == 200, response.text
    assert [r["status"] for r in response.json()] == ["correct", "incorrect", "correct"]


BAD_REWARD_REQUESTS = [
    ("", {"query": ["a"], "prompts": ["a"], "labels": ["x"]}, 422, "this service scores several envs: add ?env_id="),
    (f"?env_id={EXACT}", {"query": ["a"], "prompts": ["a"]}, 422, "body, field labels: Field required"),
    (f"?env_id={EXACT}", {"query": ["a", "b"], "prompts": ["a"], "labels": ["capital-fr"]}, 422,
     "got 2 queries, 1 prompts and 1 labels"),
    (f"?env_id={EXACT}", {"query": [1], "prompts": ["a"], "labels": ["x"]}, 422,
     "body, field query.0: Input should be a valid string"),
    (f"?env_id={EXACT}&label=answer", {"query": ["a"], "prompts": ["a"], "labels": ["x"]}, 422,
     "label must be one of ('task_id', 'reference')"),
    (f"?env_id={EXACT}", {"query": ["a"], "prompts": ["a"], "labels": ["no-such-task"]}, 404,
     "unknown task_id 'no-such-task'"),
    ("?env_id=nope/Nothing-v0", {"query": ["a"], "prompts": ["a"], "labels": ["x"]}, 404, "unknown env_id"),
]


@pytest.mark.parametrize(("query", "body", "status", "message"), BAD_REWARD_REQUESTS)
def test_bad_get_reward_requests(url, query, body, status, message):
    response = post(url, "/get_reward" + query, body)
    assert response.status_code == status, response.text
    assert message in response.json()["error"]


def local_and_remote(url, by="task_id"):
    return math_env(), rlenv.make(MATH, level=2, verifier=RemoteVerifier(url, MATH, by=by, batch_size=5))


@pytest.mark.parametrize("by", ["task_id", "reference"])
def test_remote_verifier_in_trl_reward_funcs_and_vector_envs(url, by):
    local, remote = local_and_remote(url, by)
    tasks = [local.unwrapped.source[i] for i in range(12)]
    completions = [t.gold_completion if i % 3 else "#### 0.5" for i, t in enumerate(tasks)]
    (trl_local,), (trl_remote,) = reward_funcs(local), reward_funcs(remote)
    metrics = {}
    args = {"prompts": [""] * 12, "completions": completions, "task_id": [t.id for t in tasks]}
    assert trl_remote(**args, log_metric=metrics.__setitem__) == trl_local(**args)  # 3 requests of 5, 5, 2
    assert metrics["rlenv/remote(rlenv/Arithmetic-v0)/correct"] == pytest.approx(8 / 12)
    vectors = [rlenv.TextVectorEnv(env, num_tasks=4, group_size=3) for env in (local, remote)]
    outs = []
    for vec in vectors:
        vec.reset(options={"indices": [0, 1, 2, 3]})
        outs.append(vec.step(completions))
    assert outs[1][1].tolist() == outs[0][1].tolist()
    assert list(outs[1][4]["status"]) == list(outs[0][4]["status"])
    assert score_tasks(remote.unwrapped.verifier, tasks, completions) == score_tasks(local.unwrapped.verifier, tasks,
                                                                                      completions)


def test_remote_verifier_in_verl_compute_score(url):
    rlenv.register(REMOTE, "rlenv.envs.math.arithmetic:make_arithmetic_env", level=2,
                   verifier=RemoteVerifier(url, MATH))
    task = math_env().unwrapped.source[5]
    info = {"task_id": task.id, "env_kwargs": "{}"}
    assert compute_score(REMOTE, task.gold_completion, None, info) == {"score": 1.0, "acc": 1.0,
                                                                         "verifier_failure": 0.0}
    assert compute_score(REMOTE, "#### 0.25", None, info)["acc"] == 0.0


def test_remote_verifier_failures_name_the_problem(url):
    local, remote = local_and_remote(url)
    ghost = local.unwrapped.source[0].__class__("no-such-task", "p", reference="1")
    results = score_tasks(remote.unwrapped.verifier, [ghost], ["#### 1"])
    assert results[0].status is Status.ERROR and "HTTP 404" in results[0].details["error"]
    unreachable = RemoteVerifier(f"http://127.0.0.1:{free_port()}", MATH, retries=1)  # nothing listens there
    with pytest.raises(RemoteScoringError, match="cannot reach the reward service"):
        unreachable(local.unwrapped.source[0], "#### 1")
    with pytest.raises(TypeError, match="by='reference' sends each task's reference"):
        RemoteVerifier(url, MATH, by="reference")(ghost.__class__("t", "p", reference=object()), "x")
    with pytest.raises(ValueError, match="by must be one of"):
        RemoteVerifier(url, MATH, by="index")


def test_rlenv_serve_command(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "RLENV_SERVE_TOKEN"}
    server = subprocess.Popen([sys.executable, "-m", "rlenv", "serve", "--env", MATH, "--env", EXACT,
                               "--env-arg", MATH, "level=3", "--port", str(port), "--token-file", str(token_file)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + PATIENCE_S
        while True:
            assert server.poll() is None, server.stdout.read()
            try:
                if httpx.get(url + "/health", timeout=PATIENCE_S).status_code == 200:
                    break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "rlenv serve did not start"
                time.sleep(0.2)
        task = rlenv.make(MATH, level=3).unwrapped.source[0]
        headers = {"Authorization": f"Bearer {TOKEN}"}
        out = httpx.post(url + "/score", json=[{"env_id": MATH, "task_id": task.id, "completion": task.gold_completion}],
                         headers=headers, timeout=PATIENCE_S).json()
        assert out[0]["status"] == "correct" and out[0]["task_id"] == task.id  # level=3 reached the env
        assert httpx.get(url + "/envs", timeout=PATIENCE_S).status_code == 401
    finally:
        server.terminate()
        server.wait(timeout=PATIENCE_S)
    bad = subprocess.run([sys.executable, "-m", "rlenv", "serve", "--env", MATH, "--env-arg", EXACT, "a=1"],
                         capture_output=True, text=True, timeout=PATIENCE_S)
    assert bad.returncode == 2 and "--env-arg names 'rlenv/ExactMatch-v0', which is not served" in bad.stderr
