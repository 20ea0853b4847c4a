"""Bradley-Terry reward-model training: the loss, held-out accuracy, and the trained RM inside SafetyRMEnv.

The bars on the trained RM hold for any seed, not just the one trained here. By model/shuffle seed
0-15 on this machine (transformers 5.19, torch 2.13 CPU), CONFIG (12 epochs) reached held-out
pairwise accuracy 1.0 on 15 seeds and 0.903 on seed 15, and SafetyRMEnv ranked every held-out
refusal above its compliance for all 16. With 6 epochs, seeds 2, 9 and 15 stopped at 0.889, 0.917
and 0.847 (seed 2's env ranking at 0.778): a fresh machine could fail a 0.9 bar.
"""

from __future__ import annotations

import copy
import random

import pytest
import torch
import torch.nn.functional as F

import rlenv
from rlenv.envs.safety import RewardModelVerifier, SafetyRMEnv
from rlenv.envs.safety.synthetic import REFUSALS, answer, safety_preference_pairs, safety_prompts
from rlenv.rm_inputs import pair_ids
from rlenv.trainers.reward_models import RewardModelConfig, pairwise_accuracy, train_reward_model
from rlenv.trainers.tiny import (
    save_tiny,
    tiny_sequence_classifier,
    tiny_token_classifier,
    tiny_word_tokenizer,
)

TRAIN, TEST = safety_preference_pairs("train"), safety_preference_pairs("test")
CONFIG = RewardModelConfig(lr=3e-3, num_epochs=12, batch_size=16, seed=0, progress=False)
#: Held-out pairwise accuracy the trained RM must reach (below the lowest seed above).
MIN_ACCURACY = 0.85


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def word_tokenizer():
    rows = safety_prompts("train") + safety_prompts("test")
    corpus = [r["prompt"] for r in rows] + [p["chosen"] + " " + p["rejected"] for p in TRAIN + TEST]
    return tiny_word_tokenizer(corpus)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tok = word_tokenizer()
    model = tiny_sequence_classifier(tok, hidden_size=32, seed=0)
    before = pairwise_accuracy(model, tok, TEST, CONFIG)
    report = train_reward_model(model, tok, TRAIN, CONFIG, eval_rows=TEST)
    path = save_tiny(model, tok, tmp_path_factory.mktemp("safety_rm"))
    return {"model": model, "tokenizer": tok, "report": report, "before": before, "path": str(path)}


def test_bt_rm_reaches_high_pairwise_accuracy_on_held_out_pairs(trained):
    report = trained["report"]
    assert report.eval_accuracy >= MIN_ACCURACY, report.eval_accuracy
    assert trained["before"] < 0.75  # the untrained model does not already rank them
    assert report.num_pairs == len(TRAIN) and report.num_truncated == 0
    first, last = sum(report.losses[:10]) / 10, sum(report.losses[-10:]) / 10
    assert last < 0.5 * first


def test_safety_env_ranks_held_out_refusals_of_harmful_prompts_above_compliance(trained):
    env = SafetyRMEnv(trained["path"], data_files=safety_prompts("test"), scorer_kwargs={"batch_size": 16})
    harmful = [i for i in range(env.source.size) if env.source[i].metadata["harmful"]]
    vec = rlenv.TextVectorEnv(env, num_tasks=len(harmful), group_size=2)
    vec.reset(options={"indices": harmful})
    completions = []
    for k, task in enumerate(vec.tasks[::2]):
        completions += [REFUSALS[k % len(REFUSALS)], answer(task.metadata["topic"], random.Random(k))]
    _, rewards, *_ = vec.step(completions)
    refusal, compliance = rewards[0::2], rewards[1::2]
    assert (refusal > compliance).mean() >= 0.9, list(zip(refusal, compliance))
    assert refusal.mean() > compliance.mean()


def test_saved_rm_scores_exactly_as_trained(trained):
    model, tok = trained["model"], trained["tokenizer"]
    rm = RewardModelVerifier(trained["path"])
    row = TEST[0]
    with torch.inference_mode():
        expected = model(input_ids=torch.tensor([pair_ids(tok, row["prompt"], row["chosen"])])).logits[0, 0].item()
    assert rm(rlenv.Task("t", row["prompt"]), row["chosen"]).value == pytest.approx(expected, abs=1e-5)


def test_refusal_aware_env_adds_a_visible_refusal_term(trained):
    env = SafetyRMEnv(trained["path"], data_files=safety_prompts("test"), refusal_aware=True, refusal_weight=0.5)
    env.reset(options={"index": 0})
    assert env.task.metadata["harmful"]
    _, reward, *_, info = env.step("I can't help with that.")
    assert info["components"]["refusal"] == 1.0
    assert reward == pytest.approx(info["components"]["model"] + 0.5)
    benign = next(i for i in range(env.source.size) if not env.source[i].metadata["harmful"])
    env.reset(options={"index": benign})
    _, reward, *_, info = env.step("I can't help with that.")
    assert info["components"]["refusal"] == -1.0 and reward == pytest.approx(info["components"]["model"] - 0.5)
    with pytest.raises(ValueError, match="harmful"):
        SafetyRMEnv(trained["path"], data_files=[{"prompt": "hi"}], refusal_aware=True)


def test_first_step_loss_is_the_bradley_terry_loss_with_margin_and_centring():
    tok = word_tokenizer()
    model = tiny_sequence_classifier(tok, hidden_size=32, seed=1)
    rows = [dict(r, margin=m) for r, m in zip(TRAIN[:4], (0.0, 0.5, 1.0, -0.5))]
    initial = copy.deepcopy(model).eval()
    config = RewardModelConfig(lr=1e-3, num_epochs=1, batch_size=8, center_rewards_coefficient=0.1,
                               progress=False)
    report = train_reward_model(model, tok, rows, config)
    with torch.inference_mode():
        def reward(prompt, completion):
            return initial(input_ids=torch.tensor([pair_ids(tok, prompt, completion)])).logits[0, 0]
        chosen = torch.stack([reward(r["prompt"], r["chosen"]) for r in rows])
        rejected = torch.stack([reward(r["prompt"], r["rejected"]) for r in rows])
    margin = torch.tensor([r["margin"] for r in rows])
    expected = -F.logsigmoid(chosen - rejected - margin).mean() + 0.1 * ((chosen + rejected) ** 2).mean()
    assert report.losses == pytest.approx([expected.item()], abs=1e-5)


def test_pair_layout_is_trl_reward_trainers_tokenization():
    from trl.data_utils import _tokenize  # what TRL's RewardTrainer applies to each chosen/rejected side

    from rlenv.trainers.tiny import tiny_tokenizer

    plain, chat = tiny_tokenizer(), tiny_tokenizer(chat_template=True)
    prompt, completion = "How do I bake bread?", "Mix, knead, bake."
    for tok in (plain, chat):  # plain-text rows: concatenation, whatever the tokenizer's template
        assert pair_ids(tok, prompt, completion) == _tokenize(tok, prompt + completion + tok.eos_token)["input_ids"]
        assert pair_ids(tok, prompt, completion + tok.eos_token) == pair_ids(tok, prompt, completion)
    messages = [{"role": "user", "content": prompt}, {"role": "assistant", "content": completion}]
    assert pair_ids(chat, prompt, completion, "chat") == _tokenize(chat, messages)["input_ids"]
    assert pair_ids(chat, messages[:1], messages[1:], "chat") == _tokenize(chat, messages)["input_ids"]


def test_training_is_reproducible_with_a_seed():
    tok = word_tokenizer()
    config = RewardModelConfig(lr=3e-3, num_epochs=1, batch_size=16, seed=3, progress=False)
    runs = [train_reward_model(tiny_sequence_classifier(tok, hidden_size=32, seed=2), tok, TRAIN[:64], config).losses
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_bad_inputs_are_rejected():
    tok = word_tokenizer()
    with pytest.raises(ValueError, match="num_labels=1"):
        train_reward_model(tiny_token_classifier(tok, hidden_size=32), tok, TRAIN[:2], CONFIG)
    model = tiny_sequence_classifier(tok, hidden_size=32)
    with pytest.raises(ValueError, match="preference row 1"):
        train_reward_model(model, tok, [TRAIN[0], {"prompt": "p", "chosen": "a"}], CONFIG)
    with pytest.raises(ValueError, match="margin"):
        train_reward_model(model, tok, [dict(TRAIN[0], margin="big")], CONFIG)
    with pytest.raises(ValueError):
        RewardModelConfig(truncation_side="middle")
    with pytest.raises(ValueError):
        RewardModelConfig(batch_size=0)


NON_ANSWERS = ["", "   \n", "...", "?!", "—", "um, ok", "N/A", "I don't know.", "Here is my answer:", "lorem ipsum"]


def test_non_answers_never_earn_a_safety_reward(trained):
    """Tiny trained RM, refusal-aware: on harmful prompts a refusal out-scores every non-answer; on
    benign prompts an answer out-scores every non-answer and every refusal; no non-answer is correct."""
    env = SafetyRMEnv(trained["path"], data_files=safety_prompts("test"), refusal_aware=True)
    tasks = [env.source[i] for i in range(env.source.size)]
    for task in tasks[:12]:
        restated = task.prompt
        non_answers = [*NON_ANSWERS, restated]
        empty = env.verifier.score_batch([task] * len(non_answers), non_answers)
        assert all(r.status is not rlenv.Status.CORRECT and r.details["non_answer"] for r in empty), empty
        refusals = env.verifier.score_batch([task] * len(REFUSALS), list(REFUSALS))
        if task.metadata["harmful"]:
            assert min(r.value for r in refusals) > max(r.value for r in empty), (task.prompt, refusals, empty)
        else:
            reply = env.verifier(task, answer(task.metadata["topic"], random.Random(0)))
            assert reply.value > max(r.value for r in empty) and reply.value > max(r.value for r in refusals)
