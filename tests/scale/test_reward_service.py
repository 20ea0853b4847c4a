"""The reward service over real HTTP on 127.0.0.1 (uvicorn): the documented API, OpenRLHF's own client,
auth, every bad-input case, RemoteVerifier in TRL's reward functions, and a bounded load test."""

import asyncio
import concurrent.futures as cf
import contextlib
import logging
import socket
import statistics
import threading
import time
import types

import httpx
import pytest
import uvicorn

import rlenv
from rlenv import RemoteVerifier, RewardResult, Status, TextEnv
from rlenv.service import create_app

TOKEN = "s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EXACT, ARITH, CRASH = "rlenv/ExactMatch-v0", "rlenv/Arithmetic-v0", "svc/Crash-v0"
logger = logging.getLogger(__name__)


def crashing_verifier(task, completion):
    if completion == "boom":
        raise RuntimeError("the verifier raised on this item")
    return RewardResult(1.0, Status.CORRECT, verifier="crash")


def make_crash_env():
    base = rlenv.make(EXACT).unwrapped
    return TextEnv(base.source, crashing_verifier)


@contextlib.contextmanager
def serving(app):
    """``app`` served by uvicorn on a free port of 127.0.0.1; yields its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def service():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rlenv.register(CRASH, "test_reward_service:make_crash_env")
    with serving(create_app([EXACT, ARITH, CRASH], token=TOKEN, max_body_bytes=64 * 1024, max_items=100,
                            env_kwargs={EXACT: {"chat": True}})) as url:
        yield url


def post(url, path, body, headers=AUTH, **kwargs):
    return httpx.post(url + path, headers=headers, timeout=60, **kwargs,
                      **({"content": body} if isinstance(body, (str, bytes)) else {"json": body}))


def test_score_answers_every_item_in_order_as_local_scoring_does(service):
    arith = rlenv.make(ARITH)
    exact = rlenv.make(EXACT, chat=True)
    items, expected = [], []
    for i in range(12):
        task = arith.unwrapped.source[i]
        completion = f"#### {task.reference}" if i % 2 else "#### -1"
        items.append({"env_id": ARITH, "index": i, "completion": completion})
        expected.append(rlenv.score(arith, [{"index": i, "completion": completion}], executor="serial")[0])
        e_task = exact.unwrapped.source[i % 3]
        key = {"task_id": e_task.id} if i % 3 else {"reference": e_task.reference, "prompt": "?"}
        items.append({"env_id": EXACT, **key, "completion": e_task.reference if i % 4 else "nope"})
        expected.append(rlenv.score(exact, [{"index": i % 3, "completion": items[-1]["completion"]}],
                                    executor="serial")[0])
    response = post(service, "/score", items)
    assert response.status_code == 200, response.text
    rows = response.json()
    assert len(rows) == 24
    assert [(r["status"], r["value"]) for r in rows] == [(e.status.value, e.value) for e in expected]
    assert all(r["reward"] == r["value"] for r in rows) and rows[1]["verifier"] == "exact_match"
    assert httpx.get(service + "/health").json() == {"status": "ok", "envs": 3}
    assert [e["id"] for e in httpx.get(service + "/envs", headers=AUTH).json()] == [EXACT, ARITH, CRASH]


def test_openrlhf_single_turn_executor_gets_rewards_from_the_service():
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    from rlenv.integrations.openrlhf import to_openrlhf_rows
    from rlenv.trainers.tiny import tiny_tokenizer

    tokenizer = tiny_tokenizer(chat_template=True)
    rows = to_openrlhf_rows(EXACT, range(3), chat=True)
    env = rlenv.make(EXACT)
    responses = [env.unwrapped.source[0].reference, "Lyon", env.unwrapped.source[2].reference]

    class Engine:
        async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
            ids = tokenizer(responses.pop(0), add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
            return types.SimpleNamespace(outputs=[types.SimpleNamespace(token_ids=ids, finish_reason="stop",
                                                                        logprobs=None)])

    params = types.SimpleNamespace(max_tokens=32, logprobs=None)

    async def run(executor):
        outputs = []
        for row in rows:
            prompt = tokenizer.apply_chat_template(row["prompt"], tokenize=False, add_generation_prompt=True)
            outputs.append(await executor.execute(prompt, row["label"], params, 512, tokenizer, Engine()))
        return outputs

    # OpenRLHF's own HTTP client (aiohttp) sends no token: a service without one, as users run it for OpenRLHF
    with serving(create_app([EXACT], env_kwargs={EXACT: {"chat": True}})) as url:
        outputs = asyncio.run(run(SingleTurnAgentExecutor(remote_rm_url=f"{url}/get_reward")))
    assert [o["reward"] for o in outputs] == [[1.0], [0.0], [1.0]]
    assert [o["extra_logs"]["status/correct"] for o in outputs] == [[1.0], [0.0], [1.0]]


def test_auth_is_required_except_for_health(service):
    item = [{"env_id": EXACT, "index": 0, "completion": "x"}]
    assert post(service, "/score", item, headers={}).status_code == 401
    wrong = post(service, "/score", item, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and "bearer token" in wrong.json()["error"]
    assert httpx.get(service + "/envs").status_code == 401
    assert httpx.get(service + "/health").status_code == 200


@pytest.mark.parametrize(("body", "status", "names"), [
    ("{not json", 400, "not valid JSON"),
    ({"env_id": EXACT}, 400, "must be a JSON list"),
    ([{"env_id": "nope/Env-v0", "index": 0, "completion": "x"}], 404, "unknown env 'nope/Env-v0'"),
    ([{"env_id": EXACT, "index": 0, "completion": "x"}, {"env_id": EXACT, "index": 0, "completion": 7}], 400,
     "item 1: 'completion' must be a string"),
    ([{"env_id": EXACT, "index": "zero", "completion": "x"}], 400, "item 0: 'index' must be an integer"),
    ([{"env_id": EXACT, "task_id": "no-such-task", "completion": "x"}], 404, "item 0"),
    ([{"env_id": EXACT, "completion": "x"}], 400, "give exactly one of"),
    ([{"env_id": EXACT, "index": 0, "completion": "x"}] * 101, 413, "over this service's limit of 100"),
    ("[" + ",".join(['{"env_id": "x", "index": 0, "completion": "' + "y" * 1000 + '"}'] * 80) + "]", 413,
     "over this service's limit of 65536"),
])
def test_bad_input_is_a_json_error_naming_the_problem_and_the_service_keeps_serving(service, body, status, names):
    response = post(service, "/score", body)
    assert response.status_code == status and names in response.json()["error"], response.text
    good = post(service, "/score", [{"env_id": ARITH, "index": 0, "completion": "#### 0"}])
    assert good.status_code == 200 and len(good.json()) == 1


def test_a_verifier_that_raises_is_one_items_error(service):
    rows = post(service, "/score", [{"env_id": CRASH, "index": i, "completion": c}
                                    for i, c in enumerate(["a", "boom", "b"])]).json()
    assert [r["status"] for r in rows] == ["correct", "error", "correct"]
    assert "raised on this item" in rows[1]["details"]["error"]
    bad = post(service, "/get_reward", {"query": ["q"], "prompts": "p", "labels": [0]})
    assert bad.status_code == 400 and "'prompts' must be a list" in bad.json()["error"]


def test_remote_verifier_works_in_trl_reward_funcs(service):
    from rlenv.integrations.trl import reward_funcs, to_dataset

    local = rlenv.make(EXACT)
    remote = TextEnv(local.unwrapped.source, RemoteVerifier(service, EXACT, token=TOKEN))
    ds = to_dataset(local)
    completions = [local.unwrapped.source[0].reference, "wrong", local.unwrapped.source[2].reference]
    kwargs = dict(prompts=ds["prompt"][:3], completions=completions, task_id=ds["task_id"][:3],
                  completion_ids=[[1]] * 3, trainer_state=None, log_metric=lambda *a: None, log_extra=lambda *a: None)
    assert reward_funcs(remote)[0](**kwargs) == reward_funcs(local)[0](**kwargs) == [1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="refused the batch \\(401\\)"):
        RemoteVerifier(service, EXACT)(local.unwrapped.source[0], "x")
    with pytest.raises(ConnectionError, match="failed 1 times"):
        RemoteVerifier("http://127.0.0.1:9", EXACT, max_retries=0)(local.unwrapped.source[0], "x")


def test_load_16_clients_x_200_requests_lose_nothing(service):
    env = rlenv.make(ARITH)
    tasks = [env.unwrapped.source[i] for i in range(50)]

    def client(c):
        latencies, wrong = [], 0
        with httpx.Client(base_url=service, headers=AUTH, timeout=60) as http:
            for r in range(200):
                i = (c * 200 + r) % 50
                correct = (c + r) % 2 == 0
                completion = f"#### {tasks[i].reference}" if correct else "#### -1"
                start = time.perf_counter()
                rows = http.post("/score", json=[{"env_id": ARITH, "index": i, "completion": completion}]).json()
                latencies.append(time.perf_counter() - start)
                wrong += len(rows) != 1 or rows[0]["status"] != ("correct" if correct else "incorrect")
        return latencies, wrong

    start = time.perf_counter()
    with cf.ThreadPoolExecutor(16) as pool:
        outcomes = list(pool.map(client, range(16)))
    elapsed = time.perf_counter() - start
    latencies = sorted(x for lat, _ in outcomes for x in lat)
    assert len(latencies) == 3200 and sum(w for _, w in outcomes) == 0
    p50, p99 = statistics.median(latencies), latencies[int(0.99 * len(latencies))]
    logger.warning("reward service load: 3200 requests in %.1f s (%.0f req/s), p50 %.1f ms, p99 %.1f ms",
                   elapsed, 3200 / elapsed, 1000 * p50, 1000 * p99)
    assert p99 < 10.0
