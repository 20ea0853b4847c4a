"""Rollout: sample completions for a batch of prompts, score them with an environment, return an ``EpisodeBatch``.

Three pieces, each replaceable:

* a **generate function** ``generate_fn(observations) -> Generation``: :class:`HFGenerator`
  (``transformers`` ``generate``) by default, or anything else (vLLM, an API) that returns
  token ids, optionally with its own log-probs (build it with :meth:`Generation.from_token_lists`);
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
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import torch

from rlenv.scoring import score_tasks
from rlenv.trainers.advantages import zero_variance_groups
from rlenv.trainers.batch import EpisodeBatch, step_rewards_to_tokens
from rlenv.types import Completion, RewardResult, Status

logger = logging.getLogger(__name__)

Observation = str | list[dict[str, str]]


# -- prompts and completions as tokens ----------------------------------------------------------
def prompt_token_lists(tokenizer: Any, observations: Sequence[Observation]) -> list[list[int]]:
    """The token ids of each prompt, unpadded.

    A string is tokenized with the tokenizer's special tokens (e.g. BOS); a list of chat messages
    goes through ``tokenizer.apply_chat_template(..., add_generation_prompt=True)``.
    """
    rows = []
    for obs in observations:
        if isinstance(obs, str):
            rows.append(tokenizer(obs, add_special_tokens=True)["input_ids"])
        elif isinstance(obs, list):
            if getattr(tokenizer, "chat_template", None) is None:
                raise ValueError("chat observations need a tokenizer with a chat_template")
            text = tokenizer.apply_chat_template(obs, add_generation_prompt=True, tokenize=False)
            rows.append(tokenizer(text, add_special_tokens=False)["input_ids"])
        else:
            raise TypeError(f"an observation must be a str or a list of chat messages, got {type(obs).__name__}")
    if any(len(r) == 0 for r in rows):
        raise ValueError("a prompt tokenized to zero tokens; give the template some text or a BOS token")
    return [list(r) for r in rows]


def encode_prompts(tokenizer: Any, observations: Sequence[Observation]) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokenize prompts (as :func:`prompt_token_lists`), left-padded: ``(ids (B, P), mask (B, P))``."""
    rows = prompt_token_lists(tokenizer, observations)
    width = max(len(r) for r in rows)
    pad = _pad_id(tokenizer)
    ids = torch.full((len(rows), width), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, width - len(r):] = torch.as_tensor(r, dtype=torch.long)
        mask[i, width - len(r):] = 1
    return ids, mask


def encode_completions(tokenizer: Any, texts: Sequence[str], add_eos: bool = True) -> list[list[int]]:
    """Token ids of completion texts (no special tokens), each followed by EOS when ``add_eos``."""
    eos = [tokenizer.eos_token_id] if add_eos else []
    if add_eos and tokenizer.eos_token_id is None:
        raise ValueError("the tokenizer has no eos_token_id; pass add_eos=False or set one")
    return [tokenizer(t, add_special_tokens=False)["input_ids"] + eos for t in texts]


def decode_completions(tokenizer: Any, completion_ids: torch.Tensor, completion_mask: torch.Tensor) -> list[str]:
    """Completion texts (special tokens such as EOS removed), one per row."""
    lengths = completion_mask.long().sum(1).tolist()
    return tokenizer.batch_decode([row[:n] for row, n in zip(completion_ids.tolist(), lengths, strict=True)],
                                  skip_special_tokens=True)


def completion_mask_from_ids(completion_ids: torch.Tensor, eos_token_ids: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """``(mask (B, T), truncated (B,))``: tokens up to and including the first EOS; truncated = no EOS.

    The mask is derived from EOS *positions*, never from pad values, so ``pad == eos`` is safe.
    """
    is_eos = torch.zeros_like(completion_ids, dtype=torch.bool)
    for eos in eos_token_ids:
        is_eos |= completion_ids == eos
    ended = is_eos.any(1)
    T = completion_ids.shape[1]
    first = torch.where(ended, is_eos.long().argmax(1), torch.full_like(ended, T, dtype=torch.long))
    positions = torch.arange(T, device=completion_ids.device)
    mask = positions.unsqueeze(0) <= first.unsqueeze(1)
    return mask.long(), ~ended


def eos_token_ids(tokenizer: Any) -> list[int]:
    """The tokenizer's end-of-sequence ids (one or several); an error when it has none."""
    eos = tokenizer.eos_token_id
    ids = [eos] if isinstance(eos, int) else list(eos or [])
    if not ids:
        raise ValueError("the tokenizer has no eos_token_id: generation could never stop")
    return ids


def _pad_id(tokenizer: Any) -> int:
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    if pad is None:
        raise ValueError("the tokenizer has neither pad_token_id nor eos_token_id")
    return int(pad)


# -- generation ---------------------------------------------------------------------------------
@dataclasses.dataclass
class Generation:
    """What a generate function returns for ``B`` prompts.

    Attributes:
        prompt_ids, prompt_mask: ``(B, P)`` left-padded.
        completion_ids, completion_mask: ``(B, T)`` right-padded; mask up to and including EOS.
        truncated: ``(B,)`` bool, no EOS before the length limit.
        logprobs: optional ``(B, T)`` sampler log-probs of the chosen tokens (zero on padding).
    """

    prompt_ids: torch.Tensor
    prompt_mask: torch.Tensor
    completion_ids: torch.Tensor
    completion_mask: torch.Tensor
    truncated: torch.Tensor
    logprobs: torch.Tensor | None = None

    @classmethod
    def from_token_lists(
        cls, prompt_ids: Sequence[Sequence[int]], completion_ids: Sequence[Sequence[int]], *, pad_token_id: int,
        eos_token_id: int | Sequence[int] | None, logprobs: Sequence[Sequence[float]] | None = None,
        truncated: Sequence[bool] | None = None,
    ) -> Generation:
        """Pad unpadded token lists (e.g. from vLLM) into a :class:`Generation`."""
        b = EpisodeBatch.from_token_lists(prompt_ids, completion_ids, [0.0] * len(prompt_ids),
                                          pad_token_id=pad_token_id, eos_token_id=eos_token_id,
                                          truncated=truncated, rollout_logprobs=logprobs)
        return cls(b.prompt_ids, b.prompt_mask, b.completion_ids, b.completion_mask, b.truncated, b.rollout_logprobs)


GenerateFn = Callable[[Sequence[Observation]], Generation]


#: Generation backends of :func:`make_generator`.
ROLLOUT_BACKENDS = ("hf", "vllm")


@dataclasses.dataclass
class SamplingConfig:
    """Sampling settings of a generator (:func:`make_generator`).

    Attributes:
        max_new_tokens: completion length limit (tokens).
        temperature: softmax temperature; ``0`` means greedy decoding.
        top_p: nucleus sampling mass (1.0 = off).
        top_k: top-k sampling (0 = off).
        batch_size: prompts per ``generate`` call (None = all at once; ``hf`` only).
        backend: ``"hf"`` (``transformers`` ``generate``, :class:`HFGenerator`) or ``"vllm"``
            (a colocated vLLM engine kept in sync with the policy,
            :class:`~rlenv.trainers.vllm_generator.VLLMGenerator`).
        backend_options: keyword arguments of the backend's generator (e.g. vLLM's
            ``gpu_memory_utilization``, ``max_model_len``).
    """

    max_new_tokens: int = 64
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    batch_size: int | None = None
    backend: str = "hf"
    backend_options: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0 (0 = greedy), got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.backend not in ROLLOUT_BACKENDS:
            raise ValueError(f"backend must be one of {ROLLOUT_BACKENDS}, got {self.backend!r}")
        if self.backend == "hf" and self.backend_options:
            raise ValueError(f"backend_options are for the vllm backend; hf takes none, got {self.backend_options}")


def make_generator(policy: Any, tokenizer: Any, sampling: SamplingConfig) -> GenerateFn:
    """The generate function of ``sampling.backend`` for ``policy`` (vLLM is imported only when chosen)."""
    if sampling.backend == "vllm":
        from rlenv.trainers.vllm_generator import VLLMGenerator

        return VLLMGenerator(policy, tokenizer, sampling, **sampling.backend_options)
    return HFGenerator(policy, tokenizer, sampling)


class _LogprobRecorder:
    """A logits processor that records the log-prob, at ``temperature``, of each sampled token.

    Custom processors run before ``generate``'s temperature/top-k/top-p warpers, so the recorded
    values are those of the full tempered distribution (what the trainer computes).
    """

    def __init__(self, temperature: float):
        self.temperature = temperature
        self.previous: torch.Tensor | None = None
        self.values: list[torch.Tensor] = []

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        self.record(input_ids[:, -1])
        self.previous = torch.log_softmax(scores.float() / self.temperature, dim=-1)
        return scores

    def record(self, tokens: torch.Tensor) -> None:
        if self.previous is not None:
            self.values.append(self.previous.gather(1, tokens.unsqueeze(1)).squeeze(1))
            self.previous = None


class HFGenerator:
    """Batched sampling with ``model.generate``; a :data:`GenerateFn`.

    Prompts are left-padded (``generate`` derives position ids from the attention mask). Returns
    completions with masks up to and including the first EOS, truncation flags, and the sampler's
    log-probs at the sampling temperature (when sampling).

    Args:
        model: a ``transformers`` causal LM.
        tokenizer: its tokenizer (``pad_token_id`` or ``eos_token_id`` must be set).
        sampling: a :class:`SamplingConfig`.
    """

    def __init__(self, model: Any, tokenizer: Any, sampling: SamplingConfig | None = None):
        self.model = model
        self.tokenizer = tokenizer
        self.sampling = sampling or SamplingConfig()
        self.eos_token_ids = eos_token_ids(tokenizer)

    @torch.no_grad()
    def __call__(self, observations: Sequence[Observation]) -> Generation:
        ids, mask = encode_prompts(self.tokenizer, observations)
        size = self.sampling.batch_size or len(observations)
        parts = [self._generate(ids[s: s + size], mask[s: s + size]) for s in range(0, len(observations), size)]
        if len(parts) == 1:
            return parts[0]
        return _concat_generations(parts, _pad_id(self.tokenizer))

    def _generate(self, prompt_ids: torch.Tensor, prompt_mask: torch.Tensor) -> Generation:
        from transformers import GenerationConfig, LogitsProcessorList

        s = self.sampling
        device = next(self.model.parameters()).device
        sample = s.temperature > 0
        config = GenerationConfig(
            max_new_tokens=s.max_new_tokens, do_sample=sample, pad_token_id=_pad_id(self.tokenizer),
            eos_token_id=self.eos_token_ids,
            **({"temperature": s.temperature, "top_p": s.top_p, "top_k": s.top_k} if sample else {}),
        )
        recorder = _LogprobRecorder(s.temperature) if sample else None
        was_training = self.model.training
        self.model.eval()
        try:
            out = self.model.generate(
                input_ids=prompt_ids.to(device), attention_mask=prompt_mask.to(device), generation_config=config,
                logits_processor=LogitsProcessorList([recorder]) if recorder else None,
            )
        finally:
            self.model.train(was_training)
        completion = out[:, prompt_ids.shape[1]:]
        completion_mask, truncated = completion_mask_from_ids(completion, self.eos_token_ids)
        logprobs = None
        if recorder is not None:
            recorder.record(completion[:, -1])
            logprobs = torch.stack(recorder.values, dim=1) * completion_mask
        return Generation(prompt_ids.to(device), prompt_mask.to(device), completion, completion_mask, truncated,
                          logprobs)


def _concat_generations(parts: Sequence[Generation], pad_token_id: int) -> Generation:
    batches = [EpisodeBatch(g.prompt_ids, g.prompt_mask, g.completion_ids, g.completion_mask,
                            torch.zeros(len(g.truncated)), torch.zeros(len(g.truncated), dtype=torch.long),
                            g.truncated, rollout_logprobs=g.logprobs) for g in parts]
    b = EpisodeBatch.concat(batches, pad_token_id)
    return Generation(b.prompt_ids, b.prompt_mask, b.completion_ids, b.completion_mask, b.truncated,
                      b.rollout_logprobs)


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


@dataclasses.dataclass(frozen=True)
class FailurePolicy:
    """How episodes whose verifier failed enter training.

    Attributes:
        on_error: ``"mask"`` (default): a failed episode is left out of the batch: it adds no
            loss and no group statistic (GRPO mean/std, RLOO's leave-one-out, whitening and
            DAPO's zero-variance filter see only valid members; a group left with one member gets
            advantage 0). ``"zero"``: it stays with the verifier's reward (0), as before.
            ``"resample"``: it is scored again up to ``rescore_attempts`` times (transient
            failures), and what still fails is masked.
        statuses: which statuses are failures (default ``error``: a candidate's own ``timeout``
            is its fault and stays a 0).
        rescore_attempts: re-scoring rounds of ``"resample"``.
    """

    on_error: str = "mask"
    statuses: tuple[str, ...] = (Status.ERROR.value,)
    rescore_attempts: int = 2

    def __post_init__(self) -> None:
        if self.on_error not in ON_VERIFIER_ERROR:
            raise ValueError(f"on_verifier_error must be one of {ON_VERIFIER_ERROR}, got {self.on_error!r}")
        known = {status.value for status in Status}
        unknown = set(self.statuses) - known
        if unknown:
            raise ValueError(f"unknown failure status(es) {sorted(unknown)}; statuses are {sorted(known)}")
        if self.rescore_attempts < 0:
            raise ValueError(f"rescore_attempts must be >= 0, got {self.rescore_attempts}")
        object.__setattr__(self, "statuses", tuple(self.statuses))


@dataclasses.dataclass
class FailureLog:
    """What :func:`collect` saw of verifier failures in one step (before masking)."""

    episodes: int = 0
    statuses: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    failed: int = 0
    masked: int = 0
    rescored: int = 0
    recovered: int = 0
    first_errors: list[str] = dataclasses.field(default_factory=list)

    @property
    def failed_fraction(self) -> float:
        return self.failed / self.episodes if self.episodes else 0.0


def _rescore_failed(env: Any, completions: Sequence[str], truncated: Sequence[bool], rewards: np.ndarray,
                    infos: dict[str, Any], policy: FailurePolicy, log: FailureLog) -> None:
    """Score the failed episodes of one vector-env step again (in place), ``rescore_attempts`` times."""
    if not (hasattr(env, "tasks") and hasattr(env, "base") and hasattr(env, "env")):
        raise TypeError(f"on_verifier_error='resample' needs a rlenv.TextVectorEnv, got {type(env).__name__}")
    outcome = env.env.get_wrapper_attr("episode_outcome")
    for _ in range(policy.rescore_attempts):
        failed = [i for i, status in enumerate(infos["status"]) if status in policy.statuses]
        if not failed:
            return
        log.rescored += len(failed)
        results = score_tasks(env.base.verifier, [env.tasks[i] for i in failed], [completions[i] for i in failed])
        for i, result in zip(failed, results, strict=True):
            reward, info = outcome(env.tasks[i], completions[i], result, bool(truncated[i]))
            rewards[i] = reward
            for key, value in info.items():
                if key in infos:
                    infos[key][i] = value
            if result.status.value not in policy.statuses:
                log.recovered += 1


def _note_failures(batch: EpisodeBatch, policy: FailurePolicy, log: FailureLog) -> torch.Tensor:
    """Count one batch's statuses into ``log``; returns the bool mask of its failed episodes."""
    statuses = [str(s) for s in batch.infos.get("status", [])]
    failed = torch.tensor([s in policy.statuses for s in statuses], dtype=torch.bool)
    log.episodes += len(batch)
    log.statuses.update(statuses)
    log.failed += int(failed.sum())
    for i in torch.nonzero(failed).flatten().tolist():
        result = batch.infos.get("reward", [None] * len(batch))[i]
        text = str(getattr(result, "details", {}).get("error", statuses[i]))
        if len(log.first_errors) < 3 and text not in log.first_errors:
            log.first_errors.append(text[:300])
    return failed


# -- one batch of episodes ----------------------------------------------------------------------
def run_episodes(
    env: EpisodeEnv, generate_fn: GenerateFn, tokenizer: Any, *, seed: int | None = None,
    options: dict[str, Any] | None = None, failures: FailurePolicy | None = None, log: FailureLog | None = None,
) -> EpisodeBatch:
    """Reset ``env``, generate one completion per episode, score them, return the batch (no filtering).

    ``seed`` seeds the env's task draw and ``torch``'s global RNG (used by sampling).
    Dense step rewards in ``info["reward"][i].step_rewards`` land on their step-end tokens. With
    ``failures.on_error == "resample"``, failed episodes are scored again first (counted in ``log``).
    """
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
    if failures is not None and failures.on_error == "resample":
        infos = {k: (list(v) if k == "status" else v) for k, v in infos.items()}
        rewards = np.array(rewards, dtype=np.float32)
        _rescore_failed(env, completions, env_truncated, rewards, infos, failures, log or FailureLog())
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
        if failures is None:
            return batch
        failed = _note_failures(batch, failures, log)
        if failures.on_error == "zero" or not bool(failed.any()):
            return batch
        log.masked += int(failed.sum())
        return batch.select(~failed)

    batch = episodes(seed)
    target = env.num_tasks if hasattr(env, "num_tasks") else int(torch.unique(batch.group_ids).numel())
    if not dynamic_sampling:
        kept = float(torch.unique(batch.group_ids).numel())
        return batch, {"groups_sampled": float(target), "groups_kept": kept, "refills": 0.0}
    kept: list[EpisodeBatch] = []
    sampled, refills = 0, 0
    pad = _pad_id(tokenizer)
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
