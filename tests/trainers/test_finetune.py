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
