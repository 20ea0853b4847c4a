"""Multi-turn rollouts (``rlenv.trainers.multiturn``): the trained sequence is the sampled one, token
for token, and only the policy's tokens are marked as its own."""

import pytest
import torch

from rlenv.inference import Sampling
from rlenv.inference.policy import HFRolloutGenerator
from rlenv.trainers import ALGORITHMS
from rlenv.trainers.multiturn import multiturn_metrics, reply_token_ids, run_multiturn_episodes
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tool_tokenizer
from tests.trainers.multiturn_helpers import (
    TOOLS,
    Recording,
    answering_vector_env,
    check_batch,
    compact,
    multiturn_batch,
    policy_positions,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("style", ["qwen2", "llama3"])
def test_a_thousand_episodes_train_exactly_the_sampled_tokens_and_mask_every_reply(style):
    """1,000 episodes of three turns (a tool reply, then a user reply) from a random tiny policy, whose
    turns are random characters and special tokens, some cut by the token limit before their EOS."""
    tokenizer = tiny_tool_tokenizer(style)
    model = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=1)
    generator = Recording(HFRolloutGenerator(model, tokenizer, Sampling(max_new_tokens=6, temperature=1.0)))
    env = answering_vector_env(num_tasks=250, group_size=4, max_turns=3)
    batch = run_multiturn_episodes(env, generator, tokenizer, seed=0)
    found = check_batch(batch, generator.pairs, tokenizer, tokenizer.eos_token_id)
    assert len(batch) == 1000 and found["turns"] == 3000
    assert found == {"sampled_not_trained": 0, "trained_not_sampled": 0, "wrong_mask_tokens": 0, "turns": 3000}
    policy = batch.policy_mask.bool() & batch.completion_mask.bool()
    ended = (batch.completion_ids == tokenizer.eos_token_id) & policy
    assert 0 < int(ended.sum()) < 3000  # some turns ended with the sampled EOS, others were cut
    assert batch.rollout_logprobs is not None and bool((batch.rollout_logprobs[~policy] == 0).all())
    assert bool((batch.rollout_logprobs[policy] < 0).all())


def test_the_reply_tokens_are_only_what_the_template_adds():
    tokenizer = tiny_tool_tokenizer("qwen2")
    history = [{"role": "user", "content": "Hi"}]
    reply = [{"role": "tool", "name": "echo", "content": "len=3"}]
    ended = reply_token_ids(tokenizer, history, reply, TOOLS, tokenizer.eos_token_id)
    assert tokenizer.decode(ended) == "\n<|im_start|>user\n<tool_response>\nlen=3\n</tool_response><|im_end|>\n" \
                                      "<|im_start|>assistant\n"
    cut = reply_token_ids(tokenizer, history, reply, TOOLS, None)
    assert tokenizer.decode(cut) == "<|im_end|>" + tokenizer.decode(ended)


def test_a_template_that_does_not_end_turns_with_the_eos_is_refused():
    tokenizer = tiny_tool_tokenizer("qwen2")
    with pytest.raises(ValueError, match="not with the EOS"):
        reply_token_ids(tokenizer, [{"role": "user", "content": "Hi"}], [{"role": "user", "content": "more"}], None,
                        tokenizer.convert_tokens_to_ids("<tool_call>"))


def test_turn_rewards_land_on_the_last_token_of_their_turn_and_metrics_count_episodes():
    tokenizer = tiny_tool_tokenizer("qwen2")
    model = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=2)
    generator = HFRolloutGenerator(model, tokenizer, Sampling(max_new_tokens=4, temperature=1.0))
    env = answering_vector_env(num_tasks=3, group_size=2, max_turns=3, turn_reward=0.25)
    batch = run_multiturn_episodes(env, generator, tokenizer, seed=3)
    assert batch.token_rewards is not None
    for i in range(len(batch)):
        policy = batch.policy_mask[i].tolist()[: int(batch.completion_mask[i].sum())]
        turn_ends = [k for k in range(len(policy)) if policy[k] == 1 and (k + 1 == len(policy) or policy[k + 1] == 0)]
        rewarded = torch.nonzero(batch.token_rewards[i]).flatten().tolist()
        assert rewarded == turn_ends[:-1] and batch.token_rewards[i, rewarded].tolist() == [0.25, 0.25]
    metrics = multiturn_metrics(batch)
    assert metrics["turns/mean"] == (18.0, 6.0) and metrics["truncated/turn_limit"] == (6.0, 6.0)
    share = metrics["tokens/policy_share"]
    assert share == (float(batch.loss_mask.sum()), float(batch.completion_mask.sum())) and share[0] < share[1]


def _hand_update(policy, critic, ref, batch, alg, cfg):
    """``alg``'s update of ``policy`` (SGD, step ``cfg['lr']``) computed with the environment's tokens
    removed from every loss tensor by hand: each row's policy tokens are gathered into a compact
    ``(B, T_policy)`` matrix, on which outcome placement, the estimator (GAE included), the loss, the
    KL, the entropy and the aggregation run as on a single-turn batch."""
    from rlenv.trainers.batch import outcome_token_rewards
    from rlenv.trainers.logprobs import completion_logprobs
    from rlenv.trainers.policy_gradient import advantages as estimators
    from rlenv.trainers.policy_gradient import losses

    full = (batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask)
    positions = policy_positions(batch)
    width = max(len(p) for p in positions)
    mask = compact(torch.ones_like(batch.completion_ids), positions, width)
    with torch.no_grad():
        old = compact(completion_logprobs(policy, *full).logprobs, positions, width)
        ref_logp = compact(completion_logprobs(ref, *full).logprobs, positions, width) if alg.kl_coef else None
        values = compact(critic(*full), positions, width) if alg.critic else None
    token_rewards = outcome_token_rewards(batch.rewards, mask, compact(batch.token_rewards, positions, width))
    if alg.kl_coef and alg.kl_placement == "reward":
        token_rewards = token_rewards - alg.kl_coef * losses.kl(old, ref_logp, alg.kl_kind) * mask
    kwargs = dict(alg.advantage_kwargs, **({"values": values} if alg.critic else {}))
    advantages, _ = estimators.get(alg.advantage)(token_rewards, mask, batch.group_ids, **kwargs)
    norm = dict(num_tokens=float(mask.sum()), num_seqs=float((mask.sum(1) > 0).sum()), max_len=cfg["max_new_tokens"])
    for _ in range(alg.ppo_epochs):
        out = completion_logprobs(policy, *full, with_entropy=True)
        logp, entropy = compact(out.logprobs, positions, width), compact(out.entropy, positions, width)
        off_policy = alg.ppo_epochs > 1 or alg.kl_placement == "reward" and alg.kl_coef > 0
        per_token = losses.get(alg.policy_loss)(logp, old if off_policy else logp.detach(), advantages, mask,
                                                **alg.loss_kwargs).loss
        if alg.kl_coef and alg.kl_placement == "loss":
            per_token = per_token + alg.kl_coef * losses.kl(logp, ref_logp, alg.kl_kind)
        loss = losses.aggregate(per_token, mask, alg.aggregation, **norm)
        if alg.entropy_coef:
            loss = loss - alg.entropy_coef * losses.aggregate(entropy, mask, "token_mean", **norm)
        policy.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in policy.parameters():
                p -= cfg["lr"] * p.grad


def _assert_update_matches_the_hand_update(trainer_class, alg) -> dict:
    """Run ``trainer_class``'s update with ``alg`` on a multi-turn batch and :func:`_hand_update` on a copy
    of the same policy: the parameters must agree, and must have moved. Returns the trainer's metrics."""
    import copy

    tokenizer, batch = multiturn_batch()
    policy = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=5)
    ref = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=6)
    cfg = {"optimizer": "sgd", "lr": 0.05, "max_grad_norm": None, "max_new_tokens": 5, "micro_batch_size": 7,
           "device": "cpu", "progress": False}
    hand_policy = copy.deepcopy(policy)
    trainer = trainer_class(policy, None, alg, cfg, tokenizer=tokenizer, ref_model=copy.deepcopy(ref))
    critic = copy.deepcopy(trainer.critic) if alg.critic else None
    metrics = trainer.update(batch)
    _hand_update(hand_policy, critic, ref, batch, alg, cfg)
    for (name, ours), theirs in zip(trainer.policy.named_parameters(), hand_policy.parameters(), strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6, msg=lambda m, name=name: f"{name}: {m}")
    start = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=5)
    assert max(float((a - b).abs().max()) for a, b in zip(trainer.policy.state_dict().values(),
                                                           start.state_dict().values(), strict=True)) > 1e-4  # it moved
    return metrics


@pytest.mark.parametrize("preset", sorted(ALGORITHMS))
def test_a_multi_turn_update_equals_the_update_with_the_replies_removed_from_the_loss_by_hand(preset):
    from rlenv.trainers import Trainer

    _assert_update_matches_the_hand_update(Trainer, ALGORITHMS[preset].replace(num_mini_batches=1, entropy_coef=0.01))


def test_a_multi_turn_ppo_klpen_update_equals_the_update_with_the_replies_removed_from_the_loss_by_hand():
    """PPO-KLPEN (its own trainer around the ``ppo_klpen`` loss, critic and GAE): the same hand update."""
    from rlenv.trainers.policy_gradient.trust_region_trainer import PPO_KLPEN, KLPenaltyTrainer

    alg = PPO_KLPEN.replace(num_mini_batches=1, loss_kwargs={"kl_coef": 0.5})
    assert _assert_update_matches_the_hand_update(KLPenaltyTrainer, alg)["klpen/coef"] == 0.5


def test_train_takes_a_multi_turn_env_id_and_logs_the_episode_metrics():
    """``rlenv.trainers.train`` on ``rlenv/Arithmetic-Calculator-v0`` (text mode: the tools announced in the
    prompt, the results appended as text) plays whole episodes and reports them."""
    from rlenv.trainers import train
    from rlenv.trainers.tiny import tiny_tokenizer

    tokenizer = tiny_tokenizer()
    model = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, max_positions=1024, seed=0)
    history = train("grpo", model, tokenizer, env="rlenv/Arithmetic-Calculator-v0",
                    config={"steps": 2, "num_tasks": 2, "group_size": 2, "max_new_tokens": 8, "lr": 1e-3,
                            "progress": False})
    assert len(history) == 2
    for metrics in history:
        assert metrics["episodes"] == 4 and 1 <= metrics["turns/mean"] <= 4
        assert 0 < metrics["tokens/policy_share"] <= 1 and metrics["tools/calls"] >= 0
        assert 0 <= metrics["truncated/turn_limit"] <= 1


def test_the_overlong_penalty_of_one_completion_is_refused_on_multi_turn_episodes():
    from rlenv.trainers import Trainer

    tokenizer, batch = multiturn_batch(num_tasks=2, group_size=2)
    policy = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=5)
    trainer = Trainer(policy, None, ALGORITHMS["dapo"].replace(overlong_buffer=2), {"max_new_tokens": 5,
                                                                                    "device": "cpu"},
                      tokenizer=tokenizer)
    with pytest.raises(ValueError, match="overlong_buffer=2"):
        trainer.update(batch)


def test_a_multi_turn_trpo_step_equals_the_step_on_the_policy_tokens_gathered_by_hand():
    """TRPO: its surrogate and its exact KL, computed by hand on each row's policy tokens only (the
    environment's tokens gathered out, as above), give the same natural-gradient step."""
    import copy

    from torch.nn.attention import SDPBackend, sdpa_kernel

    from rlenv.trainers.batch import outcome_token_rewards
    from rlenv.trainers.logprobs import completion_hidden_states
    from rlenv.trainers.policy_gradient import advantages as estimators
    from rlenv.trainers.policy_gradient import losses
    from rlenv.trainers.policy_gradient.trust_region import trpo_step
    from rlenv.trainers.policy_gradient.trust_region_trainer import TRPOConfig, TRPOTrainer

    tokenizer, batch = multiturn_batch()
    alg = ALGORITHMS["grpo"].replace(kl_coef=0.0)
    policy = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=5)
    hand_policy = copy.deepcopy(policy)
    settings = TRPOConfig(max_kl=0.05)
    cfg = {"max_new_tokens": 5, "micro_batch_size": 7, "device": "cpu", "progress": False}
    trainer = TRPOTrainer(policy, None, alg, cfg, tokenizer=tokenizer, trpo=settings)
    assert trainer.update(batch)["trpo/accepted"] == 1.0

    positions = policy_positions(batch)
    width = max(len(p) for p in positions)
    mask = compact(torch.ones_like(batch.completion_ids), positions, width)
    token_rewards = outcome_token_rewards(batch.rewards, mask, compact(batch.token_rewards, positions, width))
    advantages, _ = estimators.get(alg.advantage)(token_rewards, mask, batch.group_ids, **alg.advantage_kwargs)
    tokens = compact(batch.completion_ids, positions, width)

    def compact_dists():
        hidden = completion_hidden_states(hand_policy, batch.prompt_ids, batch.prompt_mask, batch.completion_ids,
                                          batch.completion_mask)
        dists = torch.log_softmax(hand_policy.get_output_embeddings()(hidden).float(), dim=-1)
        out = torch.zeros((len(batch), width, dists.shape[-1]))
        for i, where in enumerate(positions):
            out[i, : len(where)] = dists[i, where]
        return out

    with torch.no_grad():
        old_dists = compact_dists()
    old_logp = old_dists.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)

    def surrogate():
        logp = compact_dists().gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
        return losses.aggregate(torch.exp(logp - old_logp) * advantages, mask, alg.aggregation, max_len=5)

    def kl():
        per_token = (old_dists.exp() * (old_dists - compact_dists())).sum(-1)
        return losses.aggregate(per_token, mask, "token_mean")

    with sdpa_kernel(SDPBackend.MATH):
        assert trpo_step(hand_policy, surrogate, kl, max_kl=settings.max_kl, damping=settings.damping,
                         cg_iters=settings.cg_iters, backtrack_ratio=settings.backtrack_ratio,
                         max_backtracks=settings.max_backtracks, accept_ratio=settings.accept_ratio).accepted
    for (name, ours), theirs in zip(trainer.policy.named_parameters(), hand_policy.parameters(), strict=True):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6, msg=lambda m, name=name: f"{name}: {m}")
    start = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=5)
    assert max(float((a - b).abs().max()) for a, b in zip(trainer.policy.state_dict().values(),
                                                           start.state_dict().values(), strict=True)) > 1e-4  # it moved
