import pytest
import torch

from rlenv import RewardResult, Status, StepReward, TextVectorEnv
from rlenv.inference.policy import (
    Generation,
    HFGenerator,
    SamplingConfig,
    completion_mask_from_ids,
    encode_prompts,
)
from rlenv.trainers.rollout import ScoreFnEnv, collect, run_episodes, zero_variance_groups
from tests.trainers.trainer_helpers import addition_env, tiny_policy


@pytest.fixture(scope="module")
def policy():
    return tiny_policy(seed=2)


def test_completion_mask_from_ids_uses_eos_position_not_pad_value():
    eos = 2
    ids = torch.tensor([[5, eos, eos, eos], [5, 6, 7, 8], [eos, 9, eos, 1]])
    mask, truncated = completion_mask_from_ids(ids, [eos])
    assert mask.tolist() == [[1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]]
    assert truncated.tolist() == [False, True, False]


def test_encode_prompts_left_pads_strings_and_chat(policy):
    _, tok = policy
    ids, mask = encode_prompts(tok, ["ab", "abcd"])
    assert mask.tolist() == [[0, 0, 1, 1], [1, 1, 1, 1]]
    assert ids[0, :2].tolist() == [tok.pad_token_id] * 2
    with pytest.raises(ValueError, match="chat_template"):
        encode_prompts(tok, [[{"role": "user", "content": "hi"}]])


def test_generator_masks_truncation_and_greedy_is_deterministic(policy):
    model, tok = policy
    greedy = HFGenerator(model, tok, SamplingConfig(max_new_tokens=5, temperature=0, batch_size=2))
    a, b = greedy(["1+1=", "22+3=", "9"]), greedy(["1+1=", "22+3=", "9"])
    assert torch.equal(a.completion_ids, b.completion_ids) and a.logprobs is None
    assert a.completion_ids.shape[0] == 3
    lengths = a.completion_mask.sum(1)
    for row, n, trunc in zip(a.completion_ids, lengths, a.truncated, strict=True):
        assert bool(trunc) == (tok.eos_token_id not in row[:n].tolist())
        assert not trunc or n == 5


def test_collect_scores_with_a_vector_env(policy):
    model, tok = policy
    vec = TextVectorEnv(addition_env(), num_tasks=3, group_size=2)
    gen = HFGenerator(model, tok, SamplingConfig(max_new_tokens=3, temperature=1.0))
    batch, stats = collect(vec, gen, tok, seed=0)
    assert len(batch) == 6 and batch.group_ids.tolist() == [0, 0, 1, 1, 2, 2]
    assert stats == {"groups_sampled": 3.0, "groups_kept": 3.0, "refills": 0.0}
    assert set(batch.infos["status"]) <= {"correct", "incorrect", "unparsable"}
    assert batch.infos["prompt"][0] == batch.infos["prompt"][1]
    again, _ = collect(vec, gen, tok, seed=0)
    assert torch.equal(again.completion_ids, batch.completion_ids)
    assert batch.rollout_logprobs is not None and batch.rollout_logprobs.shape == batch.completion_ids.shape


def user_generate(tok):
    """A user's own generator: fixed completions given as token lists."""
    def generate(observations):
        prompts = [tok.encode(o) for o in observations]
        completions = [tok.encode(str(len(o) % 3)) + [tok.eos_token_id] + [7, 7] for o in observations]
        return Generation.from_token_lists(prompts, completions, pad_token_id=tok.pad_token_id,
                                           eos_token_id=tok.eos_token_id)
    return generate


def test_score_fn_env_with_user_generator_and_dense_rewards(policy):
    _, tok = policy

    def score(prompts, completions):
        return [RewardResult(float(c == "1"), Status.CORRECT if c == "1" else Status.INCORRECT,
                             step_rewards=(StepReward(0.25, 0, 1),)) for c in completions]

    env = ScoreFnEnv(["ab", "abcd", "abc"], score, num_tasks=3, group_size=2)
    batch = run_episodes(env, user_generate(tok), tok, seed=0)
    assert batch.completion_mask.sum(1).tolist() == [2] * 6
    expected = [float(len(p) % 3 == 1) for p in batch.infos["prompt"]]
    assert batch.rewards.tolist() == expected
    assert batch.token_rewards[:, 0].tolist() == [0.25] * 6 and batch.token_rewards[:, 1:].abs().sum() == 0


def test_dynamic_sampling_drops_constant_groups_and_refills(policy):
    _, tok = policy
    rewards = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0, 0.0])
    groups = torch.tensor([0, 0, 1, 1, 2, 2])
    assert zero_variance_groups(rewards, groups).tolist() == [True, True, False, False, True, True]

    def score(prompts, completions):  # only prompt "abcd" (length 4 -> "1") gets a varying reward
        return [float(len(p) == 4 and i % 2 == 0) for i, p in enumerate(prompts)]

    env = ScoreFnEnv(["ab", "abcd", "abc", "abcde"], score, num_tasks=2, group_size=2)
    batch, stats = collect(env, user_generate(tok), tok, seed=0, dynamic_sampling=True, max_refills=8)
    assert stats["groups_kept"] == 2 and stats["refills"] >= 1
    assert len(batch) == 4 and not zero_variance_groups(batch.rewards, batch.group_ids).any()
    assert all(len(p) == 4 for p in batch.infos["prompt"])
