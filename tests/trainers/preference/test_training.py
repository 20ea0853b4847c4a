"""Preference data, pair log-probs, on-policy pair building, and the offline / online training loops."""

import logging
import math

import pytest
import torch

from rlenv.inference.policy import SamplingConfig
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import sequence_logprobs
from rlenv.trainers.preference import (
    OnlineDPO,
    OnlineDPOConfig,
    PreferenceConfig,
    PreferenceTrainer,
    encode_preference_rows,
    pair_logps,
    pairs_from_groups,
)
from rlenv.trainers.rollout import ScoreFnEnv
from rlenv.trainers.tiny import tiny_tokenizer
from tests.trainers.trainer_helpers import tiny_policy

pytestmark = pytest.mark.usefixtures("one_torch_thread")


ROWS = [{"prompt": f"{a}+{b}=", "chosen": str(a + b), "rejected": str(a + b + 1)} for a in range(4) for b in range(4)]


def ids(tok, text):
    return tok(text, add_special_tokens=False)["input_ids"]


def test_pref_encode_standard_rows():
    tok = tiny_tokenizer()
    pairs = encode_preference_rows(tok, [{"prompt": "12+3=", "chosen": "15", "rejected": "9"},
                                         {"prompt": "1+1=", "chosen": "2", "rejected": "11"}])
    assert pairs.prompt_ids[1].tolist() == [tok.pad_token_id] + ids(tok, "1+1=")           # left-padded
    assert pairs.chosen_ids[0].tolist() == ids(tok, "15") + [tok.eos_token_id]              # EOS appended
    assert pairs.rejected_mask.tolist() == [[1, 1, 0], [1, 1, 1]]                            # right-padded
    assert pairs.chosen_lengths.tolist() == [3, 2]


def test_pref_encode_conversational_rows_uses_the_chat_template():
    tok = tiny_tokenizer(chat_template=True)
    row = {"prompt": [{"role": "user", "content": "1+1"}], "chosen": [{"role": "assistant", "content": "2"}],
           "rejected": [{"role": "assistant", "content": "3"}]}
    pairs = encode_preference_rows(tok, [row])
    assert tok.decode(pairs.prompt_ids[0]) == "<user>1+1</s><assistant>"
    assert pairs.chosen_ids[0].tolist() == ids(tok, "2") + [tok.eos_token_id]   # the template's own end token


def test_pref_encode_rejects_bad_rows():
    tok = tiny_tokenizer()
    with pytest.raises(ValueError, match="missing \\['rejected'\\]"):
        encode_preference_rows(tok, [{"prompt": "a", "chosen": "b"}])
    with pytest.raises(TypeError, match="both be str"):
        encode_preference_rows(tok, [{"prompt": "a", "chosen": [{"role": "assistant", "content": "b"}],
                                      "rejected": "c"}])


def test_pref_pair_logps_match_unpadded_single_rows():
    model, tok = tiny_policy(hidden_size=32)
    pairs = encode_preference_rows(tok, ROWS[:3] + [{"prompt": "10+10=", "chosen": "20", "rejected": "0"}])
    out = pair_logps(model.eval(), pairs)
    for i, row in enumerate(pairs.prompt_mask):
        p = pairs.prompt_ids[i, row.bool()][None]
        for completion_ids, completion_mask, got in ((pairs.chosen_ids, pairs.chosen_mask, out.chosen),
                                                     (pairs.rejected_ids, pairs.rejected_mask, out.rejected)):
            c = completion_ids[i, completion_mask[i].bool()][None]
            alone = sequence_logprobs(model, p, torch.ones_like(p), c, torch.ones_like(c))
            torch.testing.assert_close(got[i], alone[0], atol=1e-5, rtol=1e-5)


def test_pref_pairs_from_groups_best_vs_worst_ties_skipped():
    prompts = [[5, 6], [5, 6], [5, 6], [7], [7], [8, 9], [8, 9]]
    completions = [[10, 2], [11, 2], [12, 2], [13, 2], [14, 2], [15, 2], [16, 17, 2]]
    batch = EpisodeBatch.from_token_lists(prompts, completions, [0.5, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0],
                                          [0, 0, 0, 1, 1, 2, 2], pad_token_id=0, eos_token_id=2)
    pairs, stats = pairs_from_groups(batch, pad_token_id=0)
    assert stats == {"groups": 3.0, "pairs": 2.0, "tie_fraction": pytest.approx(1 / 3)}
    assert len(pairs) == 2
    assert pairs.chosen_ids.tolist() == [[11, 2, 0], [16, 17, 2]]
    assert pairs.rejected_ids.tolist() == [[12, 2], [15, 2]]
    assert pairs.prompt_ids.tolist() == [[5, 6], [8, 9]]
    tied = EpisodeBatch.from_token_lists(prompts[3:5], completions[3:5], [1.0, 1.0], [0, 0], pad_token_id=0,
                                         eos_token_id=2)
    assert pairs_from_groups(tied, pad_token_id=0) == (None, {"groups": 1.0, "pairs": 0.0, "tie_fraction": 1.0})


@pytest.mark.parametrize("loss", ["dpo", "ipo", "kto", "simpo", "orpo"])
def test_pref_offline_training_learns_the_preferences(loss):
    model, tok = tiny_policy(hidden_size=32)
    pairs = encode_preference_rows(tok, ROWS)
    logged = []
    trainer = PreferenceTrainer(model, PreferenceConfig(loss=loss, lr=3e-3, batch_size=16),
                                log_fn=lambda m, step: logged.append(step))
    history = trainer.fit(pairs, epochs=50, progress=False)
    assert logged == list(range(1, 51))                      # metrics every step
    assert history[-1]["loss"] < history[0]["loss"]
    with torch.no_grad():
        after = pair_logps(model.eval(), pairs)
    assert (after.chosen > after.rejected).float().mean() >= 0.9
    for key in ("rewards/margin", "displacement/active", "drift/implicit_reward", "drift/margin_change"):
        assert all(key in m for m in history)
    if loss == "kto":
        assert all("kto/reference_point" in m and m["kto/reference_point"] >= 0 for m in history)


def test_pref_micro_batching_gives_the_same_step():
    torch.manual_seed(0)
    pairs = encode_preference_rows(tiny_tokenizer(), ROWS[:6])
    grads = []
    for micro in (6, 4, 1):
        model, _ = tiny_policy(hidden_size=32)
        trainer = PreferenceTrainer(model, PreferenceConfig(micro_batch_size=micro, max_grad_norm=None),
                                    optimizer=torch.optim.SGD(model.parameters(), lr=0.0))
        model.model.embed_tokens.weight.data[5:9] += 0.3 * torch.randn(4, 32, generator=torch.Generator().manual_seed(1))
        trainer.ref_model.model.embed_tokens.weight.data.copy_(model.model.embed_tokens.weight.data)
        model.lm_head.weight.data.mul_(1.0)
        trainer.step(pairs)
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]))
    torch.testing.assert_close(grads[1], grads[0], atol=1e-6, rtol=1e-4)
    torch.testing.assert_close(grads[2], grads[0], atol=1e-6, rtol=1e-4)


def test_pref_dpo_displacement_is_reported(caplog):
    """Chosen and rejected both fall below the reference, chosen less: a growing margin with displacement."""
    model, tok = tiny_policy(hidden_size=32)
    rows = [{"prompt": f"{a}+{b}=", "chosen": "9" * 6, "rejected": "9" * 5 + "8"} for a in range(4) for b in range(4)]
    pairs = encode_preference_rows(tok, rows)
    trainer = PreferenceTrainer(model, PreferenceConfig(loss="dpo", lr=3e-3, batch_size=16))
    with caplog.at_level(logging.WARNING, logger="rlenv.trainers.preference.monitor"):
        history = trainer.fit(pairs, epochs=25, progress=False)
    assert history[-1]["rewards/margin"] > 0
    # the check is the monitor's arithmetic on real training: each step's flag matches its own metrics
    for m in history:
        assert m["displacement/active"] == float(m["logratio/chosen"] < 0 and m["rewards/margin"] > 0)


def test_pref_online_dpo_raises_reward_on_a_score_fn_env():
    """Reward = digits per completion token (of 4): online DPO pairs must push it up."""
    model, tok = tiny_policy(hidden_size=32)

    def score(prompts, completions):
        return [sum(ch.isdigit() for ch in c) / 4 for c in completions]

    env = ScoreFnEnv([f"{a}+{a}=" for a in range(8)], score, num_tasks=8, group_size=4)
    rounds = OnlineDPO(model, tok, env, OnlineDPOConfig(
        preference=PreferenceConfig(loss="dpo", beta=0.1, lr=3e-3, batch_size=8), rounds=12,
        sampling=SamplingConfig(max_new_tokens=4, temperature=1.0), updates_per_round=4)).train(progress=False)
    early = sum(r["reward/mean"] for r in rounds[:3]) / 3
    late = sum(r["reward/mean"] for r in rounds[-3:]) / 3
    assert late > early + 0.2, [round(r["reward/mean"], 3) for r in rounds]
    assert all(r["pairs"] + r["tie_fraction"] * r["groups"] == pytest.approx(r["groups"]) for r in rounds)


def test_pref_pairs_of_multi_turn_episodes_score_only_the_policy_tokens():
    """A pair's sequence log-probs and lengths count the policy tokens of each episode and nothing of the
    environment's replies (gathered by hand for the check)."""
    from rlenv.trainers.logprobs import completion_logprobs
    from rlenv.trainers.preference.data import pairs_from_groups
    from rlenv.trainers.preference.offline import pair_logps
    from rlenv.trainers.tiny import tiny_causal_lm
    from tests.trainers.multiturn_helpers import multiturn_batch, policy_positions

    tokenizer, batch = multiturn_batch(num_tasks=4, group_size=4)
    batch = batch.replace(rewards=torch.arange(len(batch), dtype=torch.float32) % 3)  # no tied group
    pairs, stats = pairs_from_groups(batch, tokenizer.pad_token_id)
    assert pairs is not None and stats["pairs"] == 4
    model = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=8)
    ours = pair_logps(model, pairs)
    logps = completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids,
                                batch.completion_mask).logprobs
    positions = policy_positions(batch)
    hand = torch.stack([logps[i, positions[i]].sum() for i in range(len(batch))])
    lengths = torch.tensor([len(p) for p in positions])
    groups = [(batch.group_ids == g).nonzero().flatten() for g in range(4)]
    chosen = [int(rows[batch.rewards[rows].argmax()]) for rows in groups]
    rejected = [int(rows[batch.rewards[rows].argmin()]) for rows in groups]
    torch.testing.assert_close(ours.chosen, hand[chosen], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(ours.rejected, hand[rejected], rtol=1e-5, atol=1e-5)
    assert pairs.chosen_lengths.tolist() == lengths[chosen].tolist()
    assert pairs.rejected_lengths.tolist() == lengths[rejected].tolist()


def test_pref_online_dpo_round_on_multi_turn_episodes():
    from rlenv.inference import Sampling
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tool_tokenizer
    from tests.trainers.multiturn_helpers import answering_vector_env

    tok = tiny_tool_tokenizer("llama3")
    model = tiny_causal_lm(tok, hidden_size=32, num_layers=1, num_heads=2, seed=0)
    env = answering_vector_env(num_tasks=4, group_size=4, max_turns=2)
    dpo = OnlineDPO(model, tok, env, OnlineDPOConfig(preference=PreferenceConfig(loss="dpo", lr=1e-3, batch_size=4),
                                                     rounds=1, sampling=Sampling(max_new_tokens=4, temperature=1.0)))
    metrics = dpo.train_round(0)
    assert metrics["pairs"] >= 1 and math.isfinite(metrics["loss"])
