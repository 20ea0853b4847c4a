"""rlenv's compute_score driven by verl's own reward managers, reward loop, loader and RLHFDataset.

Run by ``test_verl.py`` in verl's own environment (``.venv-verl``, see there): verl needs
omegaconf, which needs antlr4 4.9, while math-verify's full LaTeX grammar needs antlr4 4.13, so
the two cannot share one environment. Everything here goes through verl's entry points: the
``pkg://`` loader of ``reward.custom_reward_function``, the registered managers, the reward-loop
worker and ``RLHFDataset``.
"""

import asyncio
import concurrent.futures as cf
import threading

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf
from verl import DataProto
from verl.trainer.ppo.reward import get_custom_reward_fn, load_reward_manager
from verl.workers.reward_manager import get_reward_manager_cls

import rlenv
from rlenv.integrations import verl as rlenv_verl
from rlenv.integrations.verl import compute_score, compute_score_value, to_verl_rows

ENV_ID = "rlenv/ExactMatch-v0"
ARITH = "rlenv/Arithmetic-v0"


@pytest.fixture(scope="module")
def tokenizer():
    from rlenv.trainers.tiny import tiny_tokenizer

    return tiny_tokenizer()


def reward_config(manager="naive", name="compute_score", model_path=None):
    """The parts of verl's trainer config its reward code reads."""
    return OmegaConf.create({
        "reward": {
            "custom_reward_function": {"path": "pkg://rlenv.integrations.verl", "name": name, "reward_kwargs": {}},
            "reward_manager": {"source": "register", "name": manager, "module": {"path": None, "name": None}},
            "reward_model": {"enable": False, "model_path": None},
            "reward_kwargs": {},
        },
        "actor_rollout_ref": {"model": {"path": model_path, "tokenizer_path": None}},
    })


def batch(tokenizer, rows, responses):
    """A DataProto as verl's rollout hands it to reward managers: left-padded prompts, right-padded responses."""
    def ids(text):
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    prompts = [ids(row["prompt"][-1]["content"]) for row in rows]
    answers = [ids(text) + [tokenizer.eos_token_id] for text in responses]
    p_len, r_len = max(map(len, prompts)), max(map(len, answers))
    pad = tokenizer.pad_token_id
    prompt_ids = torch.tensor([[pad] * (p_len - len(p)) + p for p in prompts])
    response_ids = torch.tensor([a + [pad] * (r_len - len(a)) for a in answers])
    mask = torch.tensor([[0] * (p_len - len(p)) + [1] * len(p) + [1] * len(a) + [0] * (r_len - len(a))
                         for p, a in zip(prompts, answers, strict=True)])
    return DataProto.from_dict(
        tensors={"prompts": prompt_ids, "responses": response_ids, "attention_mask": mask,
                 "input_ids": torch.cat([prompt_ids, response_ids], dim=1)},
        non_tensors={"data_source": np.array([row["data_source"] for row in rows], dtype=object),
                     "reward_model": np.array([row["reward_model"] for row in rows], dtype=object),
                     "extra_info": np.array([dict(row["extra_info"]) for row in rows], dtype=object)})


def right_and_wrong():
    rows = to_verl_rows(ENV_ID, range(4))
    env = rlenv.make(ENV_ID)
    responses = [env.unwrapped.source[0].reference, "wrong", env.unwrapped.source[2].reference, ""]
    return rows, responses


@pytest.fixture
def event_loop_for_verl():
    """A fresh current event loop: verl's reward-loop managers bind to it (and prime closes its own)."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()


def final_rewards(reward_tensor):
    """verl puts each response's reward on its last token: the row sums."""
    return [round(float(x), 6) for x in reward_tensor.sum(dim=-1)]


@pytest.mark.parametrize("manager", ["naive", "batch", "dapo"])
def test_verl_legacy_managers_with_compute_score_loaded_by_verl(tokenizer, manager):
    score = get_custom_reward_fn(reward_config(manager))  # verl's own pkg:// loader
    rows, responses = right_and_wrong()
    reward_manager = get_reward_manager_cls(manager)(tokenizer=tokenizer, num_examine=0, compute_score=score)
    out = reward_manager(batch(tokenizer, rows, responses), return_dict=True)
    assert final_rewards(out["reward_tensor"]) == [1.0, 0.0, 1.0, 0.0]
    assert list(out["reward_extra_info"]["acc"]) == [1.0, 0.0, 1.0, 0.0]
    assert list(out["reward_extra_info"]["verifier_failure"]) == [0.0] * 4


def test_verl_prime_manager_with_the_float_function(tokenizer):
    score = get_custom_reward_fn(reward_config("prime", name="compute_score_value"))
    rows, responses = right_and_wrong()
    reward_manager = get_reward_manager_cls("prime")(tokenizer=tokenizer, num_examine=0, compute_score=score)
    out = reward_manager(batch(tokenizer, rows, responses), return_dict=True)
    assert final_rewards(out["reward_tensor"]) == [1.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("manager", ["naive", "dapo"])
def test_verl_reward_loop_worker(tokenizer, tmp_path, manager, event_loop_for_verl):
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    tokenizer.save_pretrained(tmp_path / "tok")
    worker = RewardLoopWorker(reward_config(manager, model_path=str(tmp_path / "tok")))
    rows, responses = right_and_wrong()
    outputs = event_loop_for_verl.run_until_complete(worker.compute_score_batch(batch(tokenizer, rows, responses)))
    assert [o["reward_score"] for o in outputs] == [1.0, 0.0, 1.0, 0.0]
    assert [o["reward_extra_info"]["acc"] for o in outputs] == [1.0, 0.0, 1.0, 0.0]


def test_verl_load_reward_manager_entry_point(tokenizer, event_loop_for_verl):
    manager = load_reward_manager(reward_config("naive"), tokenizer)
    rows, responses = right_and_wrong()
    result = event_loop_for_verl.run_until_complete(manager.run_single(batch(tokenizer, rows[:1], responses[:1])))
    assert result["reward_score"] == 1.0


def test_verl_rlhf_dataset_reads_to_verl_rows_parquet(tokenizer, tmp_path):
    import datasets
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from rlenv.trainers.tiny import tiny_tokenizer

    chat_tokenizer = tiny_tokenizer(chat_template=True)
    path = tmp_path / "train.parquet"
    datasets.Dataset.from_list(to_verl_rows(ARITH, range(6), level=2)).to_parquet(str(path))
    config = OmegaConf.create({"prompt_key": "prompt", "max_prompt_length": 256, "truncation": "error",
                               "filter_overlong_prompts": False, "return_raw_chat": True, "cache_dir": str(tmp_path)})
    dataset = RLHFDataset(data_files=str(path), tokenizer=chat_tokenizer, config=config)
    assert len(dataset) == 6
    item = dataset[3]
    assert item["data_source"] == ARITH
    env = rlenv.make(ARITH, level=2)
    task = env.unwrapped.source[3]
    assert item["extra_info"]["task_id"] == task.id
    assert compute_score(item["data_source"], env.unwrapped.gold_completion(task), item["reward_model"]["ground_truth"],
                         item["extra_info"])["acc"] == 1.0


def test_verl_preprocessed_rows_score_from_ground_truth_not_their_index():
    # verl's own preprocessing writes extra_info {"split", "index"}: the index is its row number, not ours
    env = rlenv.make(ARITH)
    task = env.unwrapped.source[5]
    verl_row_info = {"split": "train", "index": 0}
    assert compute_score(ARITH, env.unwrapped.gold_completion(task), task.reference, verl_row_info)["acc"] == 1.0
    assert compute_score(ARITH, "#### -1", task.reference, {"split": "train", "index": 10**9})["acc"] == 0.0
    with pytest.raises(ValueError, match="no ground_truth"):
        compute_score(ARITH, "#### 1", None, {"split": "train", "index": 3})


def test_verl_batch_form_mixes_envs_and_falls_back_to_verl_for_other_sources():
    rows, responses = right_and_wrong()
    sources = [row["data_source"] for row in rows] + ["openai/gsm8k", "openai/gsm8k"]
    truths = [row["reward_model"]["ground_truth"] for row in rows] + ["72", "72"]
    infos = [row["extra_info"] for row in rows] + [{}, {}]
    out = compute_score(data_sources=sources, solution_strs=responses + ["so #### 72", "#### 71"],
                        ground_truths=truths, extra_infos=infos)
    assert [o["score"] for o in out[:4]] == [1.0, 0.0, 1.0, 0.0]
    assert out[4:] == [1.0, 0.0]  # verl's default_compute_score for its own GSM8K data source
    assert compute_score_value(ENV_ID, responses[0], truths[0], infos[0]) == 1.0
    with pytest.raises(ValueError, match="equally long"):
        compute_score(data_sources=sources, solution_strs=responses)
    with pytest.raises(TypeError, match="not both"):
        compute_score(ENV_ID, "x", data_sources=[ENV_ID], solution_strs=["x"])


def test_verl_env_cache_builds_one_env_per_key_under_concurrent_first_calls(monkeypatch):
    built = []
    lock = threading.Lock()
    real_make = rlenv.make

    def counting_make(env_id, **kwargs):
        with lock:
            built.append(env_id)
        return real_make(env_id, **kwargs)

    rows = to_verl_rows(ARITH, range(16), level=4)
    env = real_make(ARITH, level=4)
    gold = [env.unwrapped.gold_completion(env.unwrapped.source[i]) for i in range(16)]
    monkeypatch.setattr(rlenv_verl, "_envs", {})
    monkeypatch.setattr(rlenv_verl.rlenv, "make", counting_make)
    barrier = threading.Barrier(16)

    def score(i):
        barrier.wait()
        return compute_score(ARITH, gold[i], rows[i]["reward_model"]["ground_truth"], rows[i]["extra_info"])

    with cf.ThreadPoolExecutor(16) as pool:
        results = list(pool.map(score, range(16)))
    assert [r["acc"] for r in results] == [1.0] * 16
    assert built == [ARITH]
