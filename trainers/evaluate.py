"""Held-out evaluation of a policy on an environment's tasks: pass@1 (and pass@k) from sampled completions."""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from rlenv.evaluation import pass_at_k
from rlenv.inference.policy import HFGenerator, SamplingConfig
from rlenv.trainers.rollout import run_episodes
from rlenv.vector import TextVectorEnv


def evaluate(
    model: Any,
    tokenizer: Any,
    env: Any,
    indices: Sequence[int],
    *,
    samples: int = 1,
    temperature: float = 0.0,
    max_new_tokens: int = 64,
    batch_size: int = 64,
    seed: int = 0,
) -> dict[str, Any]:
    """Score ``samples`` completions for each task ``indices`` of ``env`` (a :class:`rlenv.TextEnv`).

    Args:
        model, tokenizer: the policy.
        env: the environment (possibly wrapped); its verifier decides correctness.
        indices: task indices to evaluate (e.g. a held-out range).
        samples: completions per task (``n`` of pass@k).
        temperature: 0 = greedy (then ``samples`` should be 1).
        max_new_tokens: generation limit.
        batch_size: tasks per generation batch.
        seed: sampling seed.

    Returns:
        ``{"pass@1": float, "pass@k": {k: float}, "mean_reward": float, "status": {name: count},
        "num_tasks": int}``; pass@k uses the unbiased estimator over ``samples`` draws.
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    indices = [int(i) for i in indices]
    if not indices:
        raise ValueError("evaluate needs at least one task index")
    generate = HFGenerator(model, tokenizer, SamplingConfig(max_new_tokens=max_new_tokens, temperature=temperature))
    correct, rewards, status = [], [], collections.Counter()
    for n, start in enumerate(range(0, len(indices), batch_size)):
        chunk = indices[start: start + batch_size]
        vec = TextVectorEnv(env, num_tasks=len(chunk), group_size=samples, executor="serial")
        batch = run_episodes(vec, generate, tokenizer, seed=seed + n, options={"indices": chunk})
        ok = np.array([s == "correct" for s in batch.infos["status"]]).reshape(len(chunk), samples)
        correct.extend(ok.sum(1).tolist())
        rewards.extend(batch.rewards.tolist())
        status.update(batch.infos["status"])
        vec.close()
    counts = np.array(correct)
    ks = [k for k in (1, 2, 4, 8, 16, 32, 64) if k <= samples]
    by_k = {k: float(np.mean(pass_at_k(samples, counts, k))) for k in ks}
    return {"pass@1": by_k[1], "pass@k": by_k, "mean_reward": float(torch.tensor(rewards).mean()),
            "status": dict(status), "num_tasks": len(indices)}
