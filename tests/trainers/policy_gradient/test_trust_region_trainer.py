"""PPO-KLPEN and TRPO on a tiny language-model policy, through the shared Trainer."""

import copy
import math

import pytest
import torch

from rlenv.trainers import gold_examples, sft
from rlenv.trainers.logprobs import completion_hidden_states
from rlenv.trainers.policy_gradient import losses
from rlenv.trainers.policy_gradient.trust_region import klpen_token_loss
from tests.trainers.trainer_helpers import addition_env, tiny_policy

BASE = dict(num_tasks=8, max_new_tokens=4, micro_batch_size=32, progress=False)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def tr():
    import rlenv.trainers.policy_gradient.trust_region_trainer as module

    return module


def test_the_klpen_loss_is_registered_with_the_others():
    """Defined in the losses module itself, not added as a side effect of importing its trainer."""
    assert losses.get("ppo_klpen").__module__ == losses.__name__ == "rlenv.trainers.policy_gradient.losses"


@pytest.fixture(scope="module")
def warm():
    """A tiny policy after a short SFT warm-up on single-digit addition (rewards vary within groups)."""
    model, tok = tiny_policy(hidden_size=32)
    sft(model, tok, gold_examples(addition_env(), range(100)), steps=60, batch_size=16, lr=3e-3, progress=False)
    return {k: v.clone() for k, v in model.state_dict().items()}, tok


def fresh(warm):
    state, tok = warm
    model, _ = tiny_policy(hidden_size=32)
    model.load_state_dict(state)
    return model, tok


def test_trpo_klpen_policy_loss_is_registered_and_matches_the_formula(tr):
    logp = torch.tensor([[-1.0, -2.0]], requires_grad=True)
    old, adv = torch.tensor([[-1.5, -2.0]]), torch.tensor([[1.0, -0.5]])
    out = losses.get("ppo_klpen")(logp, old, adv, torch.ones(1, 2), kl_coef=0.3)
    expected, _ = klpen_token_loss(logp, old, adv, 0.3)
    torch.testing.assert_close(out.loss, expected)
    torch.testing.assert_close(out.ratio, torch.exp(logp - old).detach())
    assert tr.PPO_KLPEN.policy_loss == "ppo_klpen" and tr.PPO_KLPEN.critic


@pytest.mark.parametrize("init_coef, lr, direction", [(1.0, 1e-3, "up"), (1e3, 3e-5, "down")])
def test_trpo_klpen_coefficient_moves_toward_the_kl_target(tr, warm, init_coef, lr, direction):
    """Updates that move too far (KL above the band) double beta until the KL settles near the target;
    updates that move too little halve it."""
    model, tok = fresh(warm)
    target = 2e-3
    algorithm = tr.PPO_KLPEN.replace(loss_kwargs={"kl_coef": init_coef}, kl_coef=0.0)
    trainer = tr.KLPenaltyTrainer(model, addition_env(), algorithm, config=dict(BASE, steps=10, lr=lr, group_size=4),
                               tokenizer=tok, kl_target=target)
    history = trainer.train()
    coefs = [m["klpen/coef"] for m in history] + [history[-1]["klpen/next_coef"]]
    kls = [m["klpen/kl"] for m in history]
    for m in history:            # Schulman's rule, step by step, on the measured KL
        factor = 2.0 if m["klpen/kl"] > 1.5 * target else 0.5 if m["klpen/kl"] < target / 1.5 else 1.0
        assert m["klpen/next_coef"] == pytest.approx(m["klpen/coef"] * factor)
    if direction == "up":
        assert kls[0] > 1.5 * target and coefs[-1] > coefs[0]
        late = sum(kls[-5:]) / 5      # the measured KL settled near the target (in log distance)
        assert abs(math.log(late / target)) < 0.5 * abs(math.log(kls[0] / target)), kls
    else:
        assert kls[0] < target / 1.5 and coefs[-1] < coefs[0]


def test_trpo_klpen_checkpoint_keeps_the_coefficient(tr, warm, tmp_path):
    model, tok = fresh(warm)
    config = dict(BASE, steps=2, lr=3e-3, group_size=2)
    trainer = tr.KLPenaltyTrainer(model, addition_env(), tr.PPO_KLPEN.replace(loss_kwargs={"kl_coef": 1e-3}),
                               config=config, tokenizer=tok, kl_target=1e-6)
    trainer.train()
    trainer.save_checkpoint(tmp_path / "ckpt")
    restored = tr.KLPenaltyTrainer(fresh(warm)[0], addition_env(), tr.PPO_KLPEN.replace(loss_kwargs={"kl_coef": 1e-3}),
                                config=config, tokenizer=tok, kl_target=1e-6)
    restored.kl_controller.value = 123.0
    restored.load_checkpoint(tmp_path / "ckpt")
    assert restored.kl_controller.value == trainer.kl_controller.value == trainer.history[-1]["klpen/next_coef"]


@torch.no_grad()
def full_kl(before, after, batch, temperature=1.0):
    """Token-mean exact KL(before || after) over the vocabulary at the batch's completion positions."""
    dists = []
    for model in (before, after):
        hidden = completion_hidden_states(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids,
                                          batch.completion_mask)
        dists.append(torch.log_softmax(model.get_output_embeddings()(hidden).float() / temperature, -1))
    per_token = (dists[0].exp() * (dists[0] - dists[1])).sum(-1)
    m = batch.completion_mask.bool()
    return float(per_token[m].mean())


def test_trpo_steps_on_a_language_model_keep_the_kl_bound_and_improve_the_surrogate(tr, warm):
    model, tok = fresh(warm)
    max_kl = 0.01
    trainer = tr.TRPOTrainer(model, addition_env(), "grpo", config=dict(BASE, group_size=4, steps=4), tokenizer=tok,
                          trpo=tr.TRPOConfig(max_kl=max_kl, damping=0.1, cg_iters=10))
    accepted = 0
    for _ in range(4):
        batch, _ = trainer.rollout()
        prepared, extra = trainer.prepare(batch)
        before = copy.deepcopy(trainer.policy)
        metrics = trainer.update(batch)
        trainer.step += 1
        kl = full_kl(before, trainer.policy, prepared)
        with torch.no_grad():
            idx = prepared.completion_ids.unsqueeze(-1)
            logp_new = trainer._token_log_dists(prepared).gather(-1, idx).squeeze(-1)
            trainer.policy, policy = before, trainer.policy
            logp_old = trainer._token_log_dists(prepared).gather(-1, idx).squeeze(-1)
            trainer.policy = policy
        surrogate_gain = float(losses.aggregate((torch.exp(logp_new - logp_old) - 1.0) * extra["advantages"],
                                                prepared.completion_mask, trainer.algorithm.aggregation))
        if metrics["trpo/accepted"]:
            accepted += 1
            assert kl <= max_kl + 1e-6 and kl == pytest.approx(metrics["trpo/kl"], rel=1e-3, abs=1e-7)
            assert surrogate_gain >= 0 and surrogate_gain == pytest.approx(metrics["trpo/improvement"], rel=1e-3,
                                                                             abs=1e-7)
        else:
            assert kl == 0.0
    assert accepted >= 2


def test_trpo_trainer_rejects_unsupported_algorithms(tr, warm):
    model, tok = fresh(warm)
    with pytest.raises(ValueError, match="critic"):
        tr.TRPOTrainer(model, addition_env(), "ppo", config=BASE, tokenizer=tok)
    with pytest.raises(ValueError, match="KL loss"):
        tr.TRPOTrainer(model, addition_env(), "reinforce_pp_baseline", config=BASE, tokenizer=tok)
    with pytest.raises(ValueError, match="ppo_klpen"):
        tr.KLPenaltyTrainer(model, addition_env(), "ppo", config=BASE, tokenizer=tok)
