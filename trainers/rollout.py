"""Rollout: sample completions for a batch of prompts, score them with an environment, return an ``EpisodeBatch``.

Three pieces, each replaceable:

* a **generate function** ``generate_fn(observations) -> Generation``
  (:mod:`rlenv.inference.policy`): :class:`~rlenv.inference.policy.HFRolloutGenerator` (``transformers``
  ``generate``) by default, or anything else (vLLM, an API) that returns token ids, optionally
  with its own log-probs (build it with :meth:`~rlenv.inference.policy.Generation.from_token_lists`);
* an **environment** with the vector-env interface ``reset(seed=) -> (observations, infos)`` /
  ``step(completions) -> (obs, rewards, terminated, truncated, infos)``: a
  :class:`rlenv.TextVectorEnv` (scores concurrently through its verifier) or a
  :class:`ScoreFnEnv` around any ``score_fn(prompts, completions)``;
* :func:`collect`, which runs one batch (with optional dynamic sampling) and builds the tensors.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import torch

from rlenv.errors import check_choice
from rlenv.evaluation.results import USAGE_KEY, usage_totals
from rlenv.inference import ROLLOUT_BACKENDS, Sampling, make_rollout_generator
from rlenv.inference.policy import GenerateFn, Generation, Observation, decode_completions, pad_token_id_of
from rlenv.inference.sampling import SamplingConfig, rollout_settings
from rlenv.scoring import score_tasks
from rlenv.trainers.batch import EpisodeBatch, step_rewards_to_tokens
from rlenv.trainers.multiturn import run_multiturn_episodes
from rlenv.trainers.policy_gradient.advantages import zero_variance_groups
from rlenv.types import Completion, RewardResult, Status
from rlenv.vector import MultiTurnVectorEnv

logger = logging.getLogger(__name__)

# -- environments -------------------------------------------------------------------------------
class EpisodeEnv(Protocol):
    """The vector-env interface :func:`collect` needs (``rlenv.TextVectorEnv`` satisfies it).

    ``reset`` returns one observation per episode and ``infos["group_id"]``; ``step`` takes one
    completion string per episode and returns Gymnasium's vector 5-tuple.
    """

    num_envs: int

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[list[Any], dict]: ...

    def step(self, actions: Sequence[str]) -> tuple[Any, Any, Any, Any, dict]: ...


ScoreFn = Callable[[Sequence[Observation], Sequence[str]], Sequence[float | RewardResult]]


class ScoreFnEnv:
    """A vector env over a fixed list of prompts scored by any ``score_fn(prompts, completions)``.

    ``score_fn`` returns one float or :class:`rlenv.RewardResult` per completion. Each ``reset``
    draws ``num_tasks`` distinct prompts (with this env's RNG) and repeats each ``group_size`` times.

    Args:
        prompts: observations (strings or chat message lists).
        score_fn: the reward function.
        num_tasks: prompts per batch.
        group_size: completions per prompt.
    """

    def __init__(self, prompts: Sequence[Observation], score_fn: ScoreFn, num_tasks: int, group_size: int = 1):
        if not prompts:
            raise ValueError("ScoreFnEnv needs at least one prompt")
        if num_tasks < 1 or group_size < 1:
            raise ValueError(f"num_tasks and group_size must be >= 1, got {num_tasks} and {group_size}")
        self.prompts = list(prompts)
        self.score_fn = score_fn
        self.num_tasks = num_tasks
        self.group_size = group_size
        self.num_envs = num_tasks * group_size
        self._rng = np.random.default_rng()
        self._batch: list[Observation] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if options:
            indices = [int(i) for i in options["indices"]]
            if len(indices) != self.num_tasks:
                raise ValueError(f"options['indices'] has {len(indices)} entries, expected num_tasks={self.num_tasks}")
        else:
            replace = len(self.prompts) < self.num_tasks
            indices = [int(i) for i in self._rng.choice(len(self.prompts), size=self.num_tasks, replace=replace)]
        indices = [i for i in indices for _ in range(self.group_size)]
        self._batch = [self.prompts[i] for i in indices]
        group_ids = np.repeat(np.arange(self.num_tasks), self.group_size)
        return list(self._batch), {"index": indices, "group_id": group_ids}

    def step(self, actions: Sequence[str]):
        if self._batch is None:
            raise RuntimeError("step() called before reset()")
        if len(actions) != self.num_envs:
            raise ValueError(f"got {len(actions)} completions, expected num_envs={self.num_envs}")
        scores = list(self.score_fn(self._batch, [str(a) for a in actions]))
        if len(scores) != self.num_envs:
            raise ValueError(f"score_fn returned {len(scores)} scores for {self.num_envs} completions")
        results = [s if isinstance(s, RewardResult) else RewardResult(float(s), Status.CORRECT if float(s) > 0
                                                                      else Status.INCORRECT, verifier="score_fn")
                   for s in scores]
        rewards = np.array([r.value for r in results], dtype=np.float32)
        truncated = np.array([bool(getattr(a, "truncated", False)) for a in actions])
        infos = {"reward": results, "status": [r.status.value for r in results],
                 "group_id": np.repeat(np.arange(self.num_tasks), self.group_size)}
        self._batch = None
        return [""] * self.num_envs, rewards, np.ones(self.num_envs, dtype=bool), truncated, infos


# -- verifier failures --------------------------------------------------------------------------
#: What a trainer does with an episode whose verifier failed (see :class:`FailurePolicy`).
ON_VERIFIER_ERROR = ("mask", "zero", "resample")


@dataclasses.dataclass(kw_only=True)
class FailurePolicy:
    """How episodes whose verifier failed enter training: the settings every trainer's config shares
    (:class:`~rlenv.trainers.policy_gradient.TrainerConfig`, :class:`~rlenv.trainers.self_training.SelfTrainingConfig`
    and :class:`~rlenv.trainers.preference.OnlineDPOConfig` extend it).

    Attributes:
        on_verifier_error: ``"mask"`` (default): a failed episode is left out of the batch: it adds
            no loss and no group statistic (GRPO mean/std, RLOO's leave-one-out, whitening and
            DAPO's zero-variance filter see only valid members; a group left with one member gets
            advantage 0; self-training never keeps it; online DPO never pairs it). ``"zero"``: it
            stays with the verifier's reward (0), as before. ``"resample"``: it is scored again up
            to ``rescore_attempts`` times (transient failures), then its prompt is generated for
            again up to ``regenerate_attempts`` times, and what still fails is masked.
        failure_statuses: which statuses are failures (default ``error``: a candidate's own
            ``timeout`` is its fault and stays a 0).
        rescore_attempts: re-scoring rounds of ``"resample"``.
        regenerate_attempts: re-generation rounds of ``"resample"`` after the re-scoring.
        fail_fast_fraction, fail_fast_steps: training stops with an error naming the env, the
            status counts and the first error texts when more than ``fail_fast_fraction`` of a
            step's (or round's) episodes failed for ``fail_fast_steps`` consecutive steps (None = never).
    """

    on_verifier_error: str = "mask"
    failure_statuses: tuple[str, ...] = (Status.ERROR.value,)
    rescore_attempts: int = 2
    regenerate_attempts: int = 1
    fail_fast_fraction: float | None = 0.2
    fail_fast_steps: int = 3

    def __post_init__(self) -> None:
        check_choice("on_verifier_error", self.on_verifier_error, ON_VERIFIER_ERROR)
        self.failure_statuses = tuple(self.failure_statuses)
        known = {status.value for status in Status}
        unknown = set(self.failure_statuses) - known
        if unknown:
            raise ValueError(f"unknown failure status(es) {sorted(unknown)}; statuses are {sorted(known)}")
        for name in ("rescore_attempts", "regenerate_attempts"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.fail_fast_fraction is not None and not 0 <= self.fail_fast_fraction < 1:
            raise ValueError(f"fail_fast_fraction must be in [0, 1) or None, got {self.fail_fast_fraction}")
        if self.fail_fast_steps < 1:
            raise ValueError(f"fail_fast_steps must be >= 1, got {self.fail_fast_steps}")

    def failure_policy(self) -> FailurePolicy:
        """Just the failure settings (of a trainer's config)."""
        return FailurePolicy(**{f.name: getattr(self, f.name) for f in dataclasses.fields(FailurePolicy)})


def _rollout_sampling() -> Sampling:
    return Sampling(max_new_tokens=64)


@dataclasses.dataclass
class RolloutSettings:
    """How a round-based trainer samples its episodes (see :func:`rlenv.inference.make_rollout_generator`).

    Attributes:
        sampling: The sampling settings (default: 64 new tokens at temperature 1; a dict sets some
            of them). A deprecated
            ``SamplingConfig`` is still accepted: its backend settings fill the fields below.
        rollout_backend: ``"hf"`` (``transformers`` ``generate``) or ``"vllm"`` (a colocated engine).
        generation_batch_size: Prompts per ``generate`` call (None = all; ``hf`` backend).
        rollout_options: The vLLM generator's settings (``gpu_memory_utilization``, ``max_model_len``...).
    """

    sampling: Sampling = dataclasses.field(default_factory=_rollout_sampling)
    rollout_backend: str = "hf"
    generation_batch_size: int | None = None
    rollout_options: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.sampling, Mapping):  # some fields, the others from the default
            self.sampling = dataclasses.replace(_rollout_sampling(), **self.sampling)
        if isinstance(self.sampling, SamplingConfig):
            self.sampling, settings = rollout_settings(self.sampling)
            self.rollout_backend = settings.pop("backend")
            self.generation_batch_size = settings.pop("batch_size")
            self.rollout_options = settings
        check_choice("rollout_backend", self.rollout_backend, ROLLOUT_BACKENDS)

    def rollout_generator(self, policy: Any, tokenizer: Any) -> GenerateFn:
        """The generator these settings describe, sampling from ``policy``."""
        return make_rollout_generator(policy, tokenizer, self.sampling, self.rollout_backend,
                                      self.generation_batch_size, **self.rollout_options)


@dataclasses.dataclass
class FailureLog:
    """What :func:`collect` saw of verifier failures in one step (before masking), and what the
    step's scoring cost where the verifier counts it (an AI judge's ``judge_usage``)."""

    episodes: int = 0
    statuses: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    failed: int = 0
    masked: int = 0
    rescored: int = 0
    regenerated: int = 0
    recovered: int = 0
    first_errors: list[str] = dataclasses.field(default_factory=list)
    judge_usage: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    @property
    def failed_fraction(self) -> float:
        return self.failed / self.episodes if self.episodes else 0.0

    def metrics(self) -> dict[str, float]:
        """``failures/*``: the failed fraction of the sampled episodes (before masking), and the
        masked, re-scored, re-generated and recovered counts; ``judge_usage/*``: an AI judge's requests,
        cache hits, failures, characters and tokens for the sampled episodes (absent for other verifiers)."""
        return {"failures/fraction": self.failed_fraction, "failures/masked": float(self.masked),
                "failures/rescored": float(self.rescored), "failures/regenerated": float(self.regenerated),
                "failures/recovered": float(self.recovered),
                **{f"{USAGE_KEY}/{key}": float(value) for key, value in self.judge_usage.items()}}


class FailFast:
    """Stops training on a broken environment: :meth:`check` raises when more than
    ``policy.fail_fast_fraction`` of the episodes failed in ``policy.fail_fast_steps`` consecutive steps."""

    def __init__(self, policy: FailurePolicy, env: Any):
        self.policy = policy
        self.env_name = _env_name(env)
        self.failing_steps = 0

    def check(self, log: FailureLog) -> None:
        """Count one step's :class:`FailureLog`; raise ``RuntimeError`` naming the env, the status
        counts and the first error texts when the environment keeps failing."""
        policy = self.policy
        if policy.fail_fast_fraction is None:
            return
        self.failing_steps = self.failing_steps + 1 if log.failed_fraction > policy.fail_fast_fraction else 0
        if self.failing_steps >= policy.fail_fast_steps:
            raise RuntimeError(
                f"the environment {self.env_name} is failing: more than {policy.fail_fast_fraction:.0%} of the "
                f"episodes had a verifier failure ({', '.join(policy.failure_statuses)}) for {self.failing_steps} "
                f"steps in a row (last step: {log.failed} of {log.episodes}; statuses {dict(log.statuses)}); "
                f"first errors: {log.first_errors}")


def _env_name(env: Any) -> str:
    inner = getattr(env, "env", env)
    spec = getattr(getattr(inner, "unwrapped", inner), "spec", None)
    return repr(spec.id) if spec is not None else type(getattr(inner, "unwrapped", inner)).__name__


def _score_again(env: Any, indices: Sequence[int], actions: Sequence[str], rewards: np.ndarray,
                 env_truncated: np.ndarray, infos: dict[str, Any]) -> None:
    """Score episodes ``indices`` of one vector-env step again, as its ``step`` did (in place)."""
    outcome = env.env.get_wrapper_attr("episode_outcome")
    clipped = [env.base.clip_completion(actions[i]) for i in indices]
    results = score_tasks(env.base.verifier, [env.tasks[i] for i in indices], [text for text, _ in clipped])
    for i, (text, cut), result in zip(indices, clipped, results, strict=True):
        reward, info = outcome(env.tasks[i], text, result, bool(cut))
        rewards[i], env_truncated[i] = reward, cut
        for key, value in info.items():
            if key in infos:
                infos[key][i] = value


def _resample_failed(env: Any, observations: Sequence[Observation], gen: Generation, actions: list[Completion],
                     rewards: np.ndarray, env_truncated: np.ndarray, infos: dict[str, Any], policy: FailurePolicy,
                     log: FailureLog, generate_fn: GenerateFn, tokenizer: Any) -> Generation:
    """``resample``: score the failed episodes again ``rescore_attempts`` times, then generate new
    completions for those still failing ``regenerate_attempts`` times (each scored); updates
    ``actions``, ``rewards``, ``env_truncated`` and ``infos`` in place and returns the generation
    with the re-generated rows."""
    if not (hasattr(env, "tasks") and hasattr(env, "base") and hasattr(env, "env")):
        raise TypeError(f"on_verifier_error='resample' needs a rlenv.TextVectorEnv, got {type(env).__name__}")

    def failed() -> list[int]:
        return [i for i, status in enumerate(infos["status"]) if status in policy.failure_statuses]

    first = set(failed())
    for _ in range(policy.rescore_attempts):
        if not (indices := failed()):
            break
        log.rescored += len(indices)
        _score_again(env, indices, actions, rewards, env_truncated, infos)
    for _ in range(policy.regenerate_attempts):
        if not (indices := failed()):
            break
        log.regenerated += len(indices)
        fresh = generate_fn([observations[i] for i in indices])
        texts = decode_completions(tokenizer, fresh.completion_ids, fresh.completion_mask)
        for i, text, cut in zip(indices, texts, fresh.truncated.tolist(), strict=True):
            actions[i] = Completion(text, truncated=bool(cut))
        gen = gen.replace_rows(indices, fresh, pad_token_id_of(tokenizer))
        _score_again(env, indices, actions, rewards, env_truncated, infos)
    log.recovered += len(first - set(failed()))
    return gen


def _note_failures(batch: EpisodeBatch, policy: FailurePolicy, log: FailureLog) -> torch.Tensor:
    """Count one batch's statuses into ``log``; returns the bool mask of its failed episodes."""
    statuses = [str(s) for s in batch.infos.get("status", [])]
    failed = torch.tensor([s in policy.failure_statuses for s in statuses], dtype=torch.bool)
    log.episodes += len(batch)
    log.statuses.update(statuses)
    log.failed += int(failed.sum())
    results = batch.infos.get("reward", [None] * len(batch))
    log.judge_usage.update(usage_totals(getattr(r, "details", None) for r in results))
    for i in torch.nonzero(failed).flatten().tolist():
        result = results[i]
        text = str(getattr(result, "details", {}).get("error", statuses[i]))
        if len(log.first_errors) < 3 and text not in log.first_errors:
            log.first_errors.append(text[:300])
    return failed


def drop_failures(batch: EpisodeBatch, policy: FailurePolicy, log: FailureLog) -> EpisodeBatch:
    """Count ``batch``'s statuses into ``log`` and leave its failed episodes out, unless
    ``policy.on_verifier_error`` is ``"zero"`` (they then stay with the verifier's reward)."""
    failed = _note_failures(batch, policy, log)
    if policy.on_verifier_error == "zero" or not bool(failed.any()):
        return batch
    log.masked += int(failed.sum())
    return batch.select(~failed)


# -- one batch of episodes ----------------------------------------------------------------------
def run_episodes(
    env: EpisodeEnv, generate_fn: GenerateFn, tokenizer: Any, *, seed: int | None = None,
    options: dict[str, Any] | None = None, failures: FailurePolicy | None = None, log: FailureLog | None = None,
) -> EpisodeBatch:
    """Reset ``env``, generate one completion per episode, score them, return the batch (no filtering).

    A :class:`~rlenv.vector.MultiTurnVectorEnv`'s episodes are played to their ends by
    :func:`~rlenv.trainers.multiturn.run_multiturn_episodes` (``generate_fn`` then needs ``generate_ids``).

    ``seed`` seeds the env's task draw and ``torch``'s global RNG (used by sampling).
    Dense step rewards in ``info["reward"][i].step_rewards`` land on their step-end tokens. With
    ``failures.on_verifier_error == "resample"``, failed episodes are scored again, then generated
    for again (see :class:`FailurePolicy`; counted in ``log``).
    """
    if isinstance(env, MultiTurnVectorEnv):
        if failures is not None and failures.on_verifier_error == "resample":
            raise ValueError("on_verifier_error='resample' scores single-turn completions again; a multi-turn "
                             "episode cannot be replayed from its graded turn: use 'mask' or 'zero'")
        return run_multiturn_episodes(env, generate_fn, tokenizer, seed=seed, options=options)
    if seed is not None:
        torch.manual_seed(seed)
    observations, reset_infos = env.reset(seed=seed, options=options)
    gen = generate_fn(observations)
    if gen.completion_ids.shape[0] != len(observations):
        raise ValueError(f"generate_fn returned {gen.completion_ids.shape[0]} completions for "
                         f"{len(observations)} prompts")
    texts = decode_completions(tokenizer, gen.completion_ids, gen.completion_mask)
    completions = [Completion(t, truncated=bool(tr)) for t, tr in zip(texts, gen.truncated.tolist(), strict=True)]
    _, rewards, _, env_truncated, infos = env.step(completions)
    if failures is not None and failures.on_verifier_error == "resample":
        infos = {k: (list(v) if k == "status" else v) for k, v in infos.items()}
        rewards, env_truncated = np.array(rewards, dtype=np.float32), np.array(env_truncated, dtype=bool)
        gen = _resample_failed(env, observations, gen, completions, rewards, env_truncated, infos, failures,
                               log or FailureLog(), generate_fn, tokenizer)
        texts = [str(c) for c in completions]
    group_ids = torch.as_tensor(np.asarray(reset_infos["group_id"]), dtype=torch.long)
    episode_infos = {k: list(v) for k, v in infos.items()  # Gymnasium's "_key" masks are left out
                     if k != "group_id" and not k.startswith("_") and len(v) == len(completions)}
    episode_infos["prompt"] = list(observations)
    episode_infos["completion"] = texts
    token_rewards = None
    results = infos.get("reward")
    if results is not None and any(getattr(r, "step_rewards", None) for r in results):
        token_rewards = step_rewards_to_tokens(tokenizer, gen.completion_ids, gen.completion_mask,
                                               [getattr(r, "step_rewards", None) for r in results])
    device = gen.completion_ids.device
    truncated = gen.truncated.to(device) | torch.as_tensor(np.asarray(env_truncated), dtype=torch.bool, device=device)
    return EpisodeBatch(
        prompt_ids=gen.prompt_ids, prompt_mask=gen.prompt_mask, completion_ids=gen.completion_ids,
        completion_mask=gen.completion_mask, rewards=torch.as_tensor(np.asarray(rewards), dtype=torch.float32,
                                                                     device=device),
        group_ids=group_ids.to(device), truncated=truncated, token_rewards=token_rewards,
        rollout_logprobs=gen.logprobs, infos=episode_infos,
    )


def collect(
    env: EpisodeEnv, generate_fn: GenerateFn, tokenizer: Any, *, seed: int | None = None,
    dynamic_sampling: bool = False, max_refills: int = 0, failures: FailurePolicy | None = None,
    log: FailureLog | None = None,
) -> tuple[EpisodeBatch, dict[str, float]]:
    """One training batch of episodes, with optional dynamic sampling (DAPO).

    With ``failures`` (a :class:`FailurePolicy`), episodes whose verifier failed are re-scored
    (``resample``) and left out (``mask``, ``resample``) before anything else looks at the batch;
    ``log`` receives the counts. With ``dynamic_sampling``, groups whose rewards are all equal
    are dropped; while fewer than the env's ``num_tasks`` groups remain and refills are left,
    another batch is drawn (seeded ``seed + k``) and its informative groups are added. The result
    keeps at most ``num_tasks`` groups.

    Returns:
        ``(batch, stats)`` with ``stats = {"groups_sampled", "groups_kept", "refills"}``.
    """
    log = log if log is not None else FailureLog()

    def episodes(episode_seed: int | None) -> EpisodeBatch:
        batch = run_episodes(env, generate_fn, tokenizer, seed=episode_seed, failures=failures, log=log)
        return batch if failures is None else drop_failures(batch, failures, log)

    batch = episodes(seed)
    target = env.num_tasks if hasattr(env, "num_tasks") else int(torch.unique(batch.group_ids).numel())
    if not dynamic_sampling:
        groups_kept = float(torch.unique(batch.group_ids).numel())
        return batch, {"groups_sampled": float(target), "groups_kept": groups_kept, "refills": 0.0}
    kept: list[EpisodeBatch] = []
    sampled, refills = 0, 0
    pad = pad_token_id_of(tokenizer)
    while True:
        sampled += int(torch.unique(batch.group_ids).numel())
        informative = ~zero_variance_groups(batch.rewards, batch.group_ids)
        if bool(informative.any()):
            kept.append(batch.select(informative))
        have = sum(int(torch.unique(b.group_ids).numel()) for b in kept)
        if have >= target or refills >= max_refills:
            break
        refills += 1
        batch = episodes(None if seed is None else seed + refills)
    if not kept:
        logger.warning("dynamic sampling kept no group: every group had equal rewards (%d sampled)", sampled)
        empty = batch.select([])
        return empty, {"groups_sampled": float(sampled), "groups_kept": 0.0, "refills": float(refills)}
    merged = EpisodeBatch.concat(kept, pad) if len(kept) > 1 else kept[0]
    groups = torch.unique_consecutive(merged.group_ids)[:target]
    merged = merged.select(torch.isin(merged.group_ids, groups)).trim()
    return merged, {"groups_sampled": float(sampled), "groups_kept": float(groups.numel()), "refills": float(refills)}
