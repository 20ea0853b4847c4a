from rlenv import TextVectorEnv
from rlenv.inference.policy import HFGenerator, SamplingConfig
from rlenv.trainers.finetune import gold_examples, sft, sft_batch
from rlenv.trainers.rollout import run_episodes
from tests.trainers.trainer_helpers import addition_env, tiny_policy


def greedy_accuracy(model, tok, env, indices):
    vec = TextVectorEnv(env, num_tasks=len(indices), group_size=1)
    gen = HFGenerator(model, tok, SamplingConfig(max_new_tokens=4, temperature=0))
    return float(run_episodes(vec, gen, tok, options={"indices": list(indices)}).rewards.mean())


def test_sft_batch_appends_eos_and_masks_only_completion():
    _, tok = tiny_policy()
    b = sft_batch(tok, [("1+2=", "3"), ("9+9=", "18")])
    assert b.completion_ids[0, :2].tolist() == [tok.convert_tokens_to_ids("3"), tok.eos_token_id]
    assert b.completion_mask.tolist() == [[1, 1, 0], [1, 1, 1]]


def test_sft_lowers_loss_and_learns_the_gold_answers():
    model, tok = tiny_policy()
    env = addition_env()
    before = greedy_accuracy(model, tok, env, range(100))
    losses = sft(model, tok, gold_examples(env, range(100)), steps=150, batch_size=16, lr=3e-3,
                 progress=False)
    after = greedy_accuracy(model, tok, env, range(100))
    assert losses[-1] < 0.5 * losses[0]
    assert after >= before + 0.3, (before, after)


def test_sft_on_sampled_multi_turn_episodes_trains_only_the_policy_tokens():
    """The SFT loss (and its gradient) of sampled episodes, joined as a step's examples, equals the
    token-mean NLL of their policy tokens gathered by hand (the environment's replies are context)."""
    import torch

    from rlenv.trainers.finetune import sft_loss_fn
    from rlenv.trainers.logprobs import completion_logprobs
    from rlenv.trainers.tiny import tiny_causal_lm
    from tests.trainers.multiturn_helpers import compact, multiturn_batch, policy_positions

    tokenizer, batch = multiturn_batch(num_tasks=2, group_size=3)
    model = tiny_causal_lm(tokenizer, hidden_size=32, num_layers=1, num_heads=2, seed=7)
    ours = sft_loss_fn(tokenizer)(model, [batch.select([i]).trim() for i in range(len(batch))])
    ours_grad = torch.autograd.grad(ours, list(model.parameters()))
    positions = policy_positions(batch)
    out = completion_logprobs(model, batch.prompt_ids, batch.prompt_mask, batch.completion_ids, batch.completion_mask)
    picked = compact(out.logprobs, positions, max(len(p) for p in positions))
    hand = -picked.sum() / sum(len(p) for p in positions)
    for a, b in zip(ours_grad, torch.autograd.grad(hand, list(model.parameters())), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(ours, hand)
    everything = -out.logprobs.sum() / batch.completion_mask.sum()
    assert abs(float(everything - hand)) > 1e-3  # the replies would change the loss if they counted
