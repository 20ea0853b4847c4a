"""Shared fixtures for the trainer tests: the learning task, a tiny addition environment and a tiny policy.

``make_task_env`` is the single place that names the learning task (``rlenv/Arithmetic-v0``,
lowest level); ``addition_env`` is a self-contained 100-task environment for unit tests.
"""

from __future__ import annotations

import random

import rlenv
from rlenv import (
    ProceduralSource,
    RewardResult,
    Status,
    Task,
    TextEnv,
    disjoint_split,
    distinct_prompt_indices,
)
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

#: Learning task: held-out evaluation uses the first HELD_OUT_PROBLEMS distinct problems drawn from index
#: HELD_OUT_START on; training (SFT and RL) uses TRAIN_SIZE tasks whose prompts are none of those problems.
#: (Level 1 has only 100 distinct problems, so fresh indices alone would repeat training problems.)
TRAIN_SIZE = 5000
HELD_OUT_START = 100_000
HELD_OUT_PROBLEMS = 30
#: Generation limit for the learning task (``#### 17`` and EOS).
MAX_NEW_TOKENS = 8
#: Distinct problems of :func:`addition_env` (task ``i`` is ``divmod(i % NUM_TASKS, 10)``).
NUM_TASKS = 100


def _addition(rng: random.Random, index: int) -> Task:
    a, b = divmod(index % NUM_TASKS, 10)
    return Task(str(index), f"{a}+{b}=", reference=str(a + b), gold_completion=str(a + b))


class ExactAnswer:
    """Correct when the stripped completion equals the reference."""

    name = "exact_answer"
    version = "1"

    def __call__(self, task: Task, completion: str) -> RewardResult:
        answer = completion.strip()
        if not answer:
            return RewardResult(0.0, Status.UNPARSABLE, verifier=self.name, verifier_version=self.version)
        ok = answer == task.reference
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name,
                            verifier_version=self.version)


def addition_env() -> TextEnv:
    """Single-digit addition ``a+b=`` -> ``a+b``, exact match; endless, task ``i`` repeats task ``i % 100``."""
    return TextEnv(ProceduralSource(_addition, seed=0, prefix="add"), ExactAnswer())


def make_task_env() -> TextEnv:
    """The learning task of the trainer tests: ``rlenv/Arithmetic-v0`` at its lowest level."""
    return rlenv.make("rlenv/Arithmetic-v0", level=1)


def held_out_indices(env: TextEnv, count: int = HELD_OUT_PROBLEMS) -> list[int]:
    """Indices (from ``HELD_OUT_START`` on) of the first ``count`` distinct problems: the held-out set."""
    return distinct_prompt_indices(env.unwrapped.source, HELD_OUT_START, count)


def training_split(env: TextEnv, size: int = TRAIN_SIZE) -> TextEnv:
    """A copy of ``env`` whose tasks never share a prompt with the held-out problems."""
    return disjoint_split(env, HELD_OUT_PROBLEMS, size, HELD_OUT_START)[0]


#: The SFT warm-up shared by the learning tests: steps x batch of gold completions from the training split.
SFT_STEPS, SFT_BATCH, SFT_LR = 150, 16, 3e-3


def held_out_pass_at_1(model, tok, env: TextEnv) -> float:
    """Unbiased pass@1 from 16 samples at temperature 1 on each held-out problem (rlenv's evaluation)."""
    import tempfile

    from rlenv.evaluation import EvalOptions, evaluate_policy
    from rlenv.inference.hf import policy_generate
    from rlenv.inference.policy import SamplingConfig

    generate = policy_generate(model, tok, SamplingConfig(max_new_tokens=MAX_NEW_TOKENS, temperature=1.0), chat="off")
    options = EvalOptions(ks=[1], families=("pass@k",), n_resamples=100, plot=False, report=False, progress=False,
                          executor="serial")
    with tempfile.TemporaryDirectory() as out:
        summary = evaluate_policy(env, generate, held_out_indices(env), 16, out, options)
    return summary["metrics"]["pass@1"]["value"]


def warm_start_state() -> tuple[dict, float]:
    """``(state_dict, held-out pass@1)`` of a tiny policy after the SFT warm-up on the training split."""
    from rlenv.trainers import gold_examples, sft

    model, tok = tiny_policy()
    env = make_task_env()
    sft(model, tok, gold_examples(training_split(env), range(SFT_STEPS * SFT_BATCH)), steps=SFT_STEPS,
        batch_size=SFT_BATCH, lr=SFT_LR, progress=False)
    before = held_out_pass_at_1(model, tok, env)
    assert 0.05 < before < 0.7, f"the warm-up should leave room to learn, got pass@1={before}"
    return {k: v.clone() for k, v in model.state_dict().items()}, before


def tiny_policy(seed: int = 0, hidden_size: int = 64, num_layers: int = 2):
    """``(model, tokenizer)``: a tiny Llama on a character tokenizer, built locally."""
    tok = tiny_tokenizer()
    return tiny_causal_lm(tok, hidden_size=hidden_size, num_layers=num_layers, seed=seed), tok


__all__ = ["HELD_OUT_PROBLEMS", "HELD_OUT_START", "MAX_NEW_TOKENS", "NUM_TASKS", "TRAIN_SIZE", "addition_env", "make_task_env", "rlenv", "tiny_policy", "training_split", "held_out_indices", "held_out_pass_at_1", "warm_start_state"]
