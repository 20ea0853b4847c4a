"""Preference optimization: offline on TRL-format rows and online (iterative) DPO on rlenv environments.

* :class:`PreferenceBatch` holds pairs as tensors: one left-padded prompt per pair and two
  right-padded completions (chosen, rejected). Build it from TRL-format rows (``prompt``,
  ``chosen``, ``rejected``; plain strings or chat messages) with :func:`encode_preference_rows`,
  or from on-policy groups of an :class:`~rlenv.trainers.batch.EpisodeBatch` with
  :func:`pairs_from_groups` (best vs worst completion of each group by env reward, ties skipped).
* :class:`PreferenceTrainer` runs optimizer steps with any loss of
  :mod:`rlenv.trainers.preference.losses` (``dpo``, ``ipo``, ``kto``, ``simpo``, ``orpo``) on the
  sequence log-probs of :func:`rlenv.trainers.logprobs.sequence_logprobs`, against a frozen reference,
  and logs the :class:`~rlenv.trainers.preference.monitor.PreferenceMonitor` metrics every step.
* :class:`OnlineDPO` alternates sampling groups from the current policy, ranking them with the
  environment, and preference steps on the resulting pairs.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor, nn
from tqdm.auto import tqdm

from rlenv.inference.policy import SamplingConfig, encode_completions, encode_prompts, make_generator
from rlenv.sources import load_rows
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.logprobs import sequence_logprobs
from rlenv.trainers.preference.losses import (
    PairLoss,
    average_logps,
    dpo_loss,
    ipo_loss,
    kto_loss,
    kto_reference_point,
    orpo_loss,
    simpo_loss,
)
from rlenv.trainers.preference.monitor import PreferenceMonitor
from rlenv.trainers.rollout import EpisodeEnv, FailFast, FailurePolicy
from rlenv.trainers.rounds import RoundCallback, run_rounds, sample_round

logger = logging.getLogger(__name__)

#: Loss names accepted by :class:`PreferenceConfig`, with their default ``beta`` (ORPO: ``λ``).
DEFAULT_BETA = {"dpo": 0.1, "ipo": 0.1, "kto": 0.1, "simpo": 2.0, "orpo": 0.1}
#: Losses that do not use the reference model (it is still used by the monitors).
REFERENCE_FREE = frozenset({"simpo", "orpo"})


def _pad_right(rows: Sequence[Sequence[int]], pad_token_id: int) -> tuple[Tensor, Tensor]:
    width = max((len(r) for r in rows), default=0)
    ids = torch.full((len(rows), width), pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.as_tensor(list(row), dtype=torch.long)
        mask[i, : len(row)] = 1
    return ids, mask


def _pad_to(ids: Tensor, mask: Tensor, width: int, pad_token_id: int) -> tuple[Tensor, Tensor]:
    extra = width - ids.shape[1]
    return (nn.functional.pad(ids, (0, extra), value=pad_token_id), nn.functional.pad(mask, (0, extra), value=0))


@dataclasses.dataclass
class PreferenceBatch:
    """Preference pairs as tensors.

    Attributes:
        prompt_ids, prompt_mask: ``(B, P)`` left-padded prompts.
        chosen_ids, chosen_mask: ``(B, Tc)`` right-padded preferred completions (mask covers EOS).
        rejected_ids, rejected_mask: ``(B, Tr)`` right-padded dispreferred completions.
        pad_token_id: Id used for padding (needed to join chosen and rejected in one forward).
    """

    prompt_ids: Tensor
    prompt_mask: Tensor
    chosen_ids: Tensor
    chosen_mask: Tensor
    rejected_ids: Tensor
    rejected_mask: Tensor
    pad_token_id: int

    def __post_init__(self) -> None:
        B = self.prompt_ids.shape[0]
        pairs = (("prompt", self.prompt_ids, self.prompt_mask), ("chosen", self.chosen_ids, self.chosen_mask),
                 ("rejected", self.rejected_ids, self.rejected_mask))
        for name, ids, mask in pairs:
            if ids.dim() != 2 or ids.shape[0] != B or ids.shape != mask.shape:
                raise ValueError(f"PreferenceBatch.{name}_ids {tuple(ids.shape)} and {name}_mask {tuple(mask.shape)} "
                                 f"must be equal 2-D shapes with B={B} rows")
            if ids.dtype != torch.long:
                raise ValueError(f"PreferenceBatch.{name}_ids must be torch.long, got {ids.dtype}")
        for name, mask in (("chosen", self.chosen_mask), ("rejected", self.rejected_mask)):
            if B and bool((mask.long().sum(1) == 0).any()):
                raise ValueError(f"every {name} completion needs at least one token")

    def __len__(self) -> int:
        return self.prompt_ids.shape[0]

    @property
    def chosen_lengths(self) -> Tensor:
        """``(B,)`` chosen completion lengths in tokens."""
        return self.chosen_mask.long().sum(1)

    @property
    def rejected_lengths(self) -> Tensor:
        """``(B,)`` rejected completion lengths in tokens."""
        return self.rejected_mask.long().sum(1)

    def select(self, index: Tensor | Sequence[int] | slice) -> PreferenceBatch:
        """The pairs at ``index`` (row indices or a slice)."""
        rows = index if isinstance(index, slice) else torch.as_tensor(index, dtype=torch.long)
        return dataclasses.replace(
            self, prompt_ids=self.prompt_ids[rows], prompt_mask=self.prompt_mask[rows],
            chosen_ids=self.chosen_ids[rows], chosen_mask=self.chosen_mask[rows],
            rejected_ids=self.rejected_ids[rows], rejected_mask=self.rejected_mask[rows],
        )

    def to(self, device: torch.device | str) -> PreferenceBatch:
        """The batch on ``device``."""
        return dataclasses.replace(
            self, **{f.name: getattr(self, f.name).to(device) for f in dataclasses.fields(self)
                     if isinstance(getattr(self, f.name), Tensor)})

    def stacked(self) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """``(prompt_ids, prompt_mask, completion_ids, completion_mask)`` of ``2B`` rows: chosen then rejected."""
        width = max(self.chosen_ids.shape[1], self.rejected_ids.shape[1])
        chosen = _pad_to(self.chosen_ids, self.chosen_mask, width, self.pad_token_id)
        rejected = _pad_to(self.rejected_ids, self.rejected_mask, width, self.pad_token_id)
        return (torch.cat([self.prompt_ids, self.prompt_ids]), torch.cat([self.prompt_mask, self.prompt_mask]),
                torch.cat([chosen[0], rejected[0]]), torch.cat([chosen[1], rejected[1]]))

    @classmethod
    def from_token_lists(
        cls, prompts: Sequence[Sequence[int]], chosen: Sequence[Sequence[int]], rejected: Sequence[Sequence[int]],
        *, pad_token_id: int,
    ) -> PreferenceBatch:
        """Pad unpadded token lists (prompts left, completions right)."""
        if not len(prompts) == len(chosen) == len(rejected):
            raise ValueError(f"got {len(prompts)} prompts, {len(chosen)} chosen and {len(rejected)} rejected")
        if any(len(p) == 0 for p in prompts):
            raise ValueError("every prompt needs at least one token")
        rev_ids, rev_mask = _pad_right([list(p)[::-1] for p in prompts], pad_token_id)
        chosen_ids, chosen_mask = _pad_right(chosen, pad_token_id)
        rejected_ids, rejected_mask = _pad_right(rejected, pad_token_id)
        return cls(rev_ids.flip(1), rev_mask.flip(1), chosen_ids, chosen_mask, rejected_ids, rejected_mask,
                   pad_token_id)


def _completion_text(tokenizer: Any, prompt: Any, completion: Any, column: str, row: int) -> tuple[str, bool]:
    """``(text, add_eos)`` of one completion in TRL's standard (str) or conversational (messages) format."""
    if isinstance(prompt, str) and isinstance(completion, str):
        return completion, True
    if isinstance(prompt, list) and isinstance(completion, list):
        if getattr(tokenizer, "chat_template", None) is None:
            raise ValueError(f"row {row}: conversational rows need a tokenizer with a chat_template")
        prefix = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
        full = tokenizer.apply_chat_template(list(prompt) + list(completion), tokenize=False)
        if not full.startswith(prefix):
            raise ValueError(f"row {row}: the chat template renders prompt+{column} without the prompt as a prefix")
        return full[len(prefix):], False
    raise TypeError(f"row {row}: prompt and {column} must both be str (standard format) or both be lists of chat "
                    f"messages (conversational format), got {type(prompt).__name__} and {type(completion).__name__}")


def encode_preference_rows(tokenizer: Any, rows: Any) -> PreferenceBatch:
    """Tokenize TRL-format preference rows into a :class:`PreferenceBatch`.

    Args:
        tokenizer: The policy's tokenizer (``pad_token_id`` and ``eos_token_id`` set).
        rows: A ``datasets.Dataset``, a list of dicts, or local JSONL/JSON/parquet path(s) with
            columns ``prompt``, ``chosen`` and ``rejected``. Standard format: three strings
            (completions get an EOS appended). Conversational format: lists of chat messages,
            rendered with the tokenizer's chat template (the template supplies the end token).
    """
    data = load_rows(rows)
    missing = {"prompt", "chosen", "rejected"} - set(data.column_names)
    if missing:
        raise ValueError(f"preference rows need columns prompt, chosen, rejected; missing {sorted(missing)} "
                         f"(columns: {data.column_names}). Implicit-prompt rows must be split into prompt + completion.")
    prompts, chosen, rejected = [], [], []
    for i, row in enumerate(data):
        prompts.append(row["prompt"])
        for column, out in (("chosen", chosen), ("rejected", rejected)):
            text, add_eos = _completion_text(tokenizer, row["prompt"], row[column], column, i)
            out.append(encode_completions(tokenizer, [text], add_eos=add_eos)[0])
    if not prompts:
        raise ValueError("no preference rows to encode")
    prompt_ids, prompt_mask = encode_prompts(tokenizer, prompts)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    chosen_ids, chosen_mask = _pad_right(chosen, pad)
    rejected_ids, rejected_mask = _pad_right(rejected, pad)
    return PreferenceBatch(prompt_ids, prompt_mask, chosen_ids, chosen_mask, rejected_ids, rejected_mask, int(pad))


def pairs_from_groups(batch: EpisodeBatch, pad_token_id: int) -> tuple[PreferenceBatch | None, dict[str, float]]:
    """One pair per group of on-policy samples: the highest-reward vs the lowest-reward completion.

    Groups whose rewards are all equal (ties) give no pair. Within a group the first episode
    with the maximum (minimum) reward is taken, so the result is deterministic.

    Returns:
        ``(pairs or None when every group tied, stats)`` with stats ``groups``, ``pairs`` and
        ``tie_fraction``.
    """
    chosen_rows, rejected_rows = [], []
    groups = torch.unique(batch.group_ids)
    for group in groups.tolist():
        rows = (batch.group_ids == group).nonzero().flatten()
        rewards = batch.rewards[rows]
        if bool((rewards == rewards[0]).all()):
            continue
        chosen_rows.append(int(rows[int(rewards.argmax())]))
        rejected_rows.append(int(rows[int(rewards.argmin())]))
    stats = {"groups": float(len(groups)), "pairs": float(len(chosen_rows)),
             "tie_fraction": 1.0 - len(chosen_rows) / max(len(groups), 1)}
    if not chosen_rows:
        return None, stats
    chosen = batch.select(chosen_rows).trim()
    rejected = batch.select(rejected_rows).trim()
    width = max(chosen.prompt_ids.shape[1], rejected.prompt_ids.shape[1])
    if not torch.equal(chosen.prompt_ids[:, -width:], rejected.prompt_ids[:, -width:]):
        raise ValueError("episodes of one group have different prompts: group_ids must mark repeats of one prompt")
    pairs = PreferenceBatch(chosen.prompt_ids, chosen.prompt_mask, chosen.completion_ids, chosen.completion_mask,
                            rejected.completion_ids, rejected.completion_mask, pad_token_id)
    return pairs, stats


@dataclasses.dataclass
class PairLogps:
    """Sequence log-probs of a :class:`PreferenceBatch` under one model, all ``(B,)``."""

    chosen: Tensor
    rejected: Tensor


def pair_logps(model: nn.Module, pairs: PreferenceBatch, temperature: float = 1.0) -> PairLogps:
    """Summed sequence log-probs (nats) of chosen and rejected completions, in one forward of ``2B`` rows."""
    logps = sequence_logprobs(model, *pairs.stacked(), temperature=temperature)
    chosen, rejected = logps.chunk(2)
    return PairLogps(chosen, rejected)


def _mismatched_logps(model: nn.Module, pairs: PreferenceBatch, temperature: float) -> Tensor:
    """Log-probs of each prompt with the *previous* pair's chosen completion (KTO's KL estimate)."""
    shift = torch.roll(torch.arange(len(pairs)), 1)
    return sequence_logprobs(model, pairs.prompt_ids, pairs.prompt_mask, pairs.chosen_ids[shift],
                             pairs.chosen_mask[shift], temperature=temperature)


@dataclasses.dataclass
class PreferenceConfig:
    """Settings of :class:`PreferenceTrainer`.

    Attributes:
        loss: One of ``dpo``, ``ipo``, ``kto``, ``simpo``, ``orpo``.
        beta: The loss's ``β`` (ORPO: ``λ``); None picks :data:`DEFAULT_BETA`.
        label_smoothing: Conservative-DPO flip probability (``dpo`` only).
        simpo_gamma: SimPO's target margin ``γ``.
        kto_desirable_weight, kto_undesirable_weight: KTO's ``λ_D``, ``λ_U``. KTO trains on pairs
            as unpaired examples: chosen = desirable, rejected = undesirable.
        ipo_average: Feed IPO length-averaged log-probs (TRL's and the IPO authors' convention).
        nll_weight: ``α`` of an added token-averaged NLL term on the chosen completion,
            ``α·(-log π(y_w|x)/|y_w|)`` (RPO / iterative RPO, Pang et al. 2024: it keeps the chosen
            likelihood from falling). Not allowed with ``orpo``, which has its own SFT term.
        lr, weight_decay: AdamW settings (ignored when an optimizer is passed).
        batch_size: Pairs per optimizer step (:meth:`PreferenceTrainer.fit`).
        micro_batch_size: Pairs per forward pass (gradient accumulation inside a step).
        max_grad_norm: Gradient clipping threshold (None = no clipping).
        temperature: Logits are divided by it before the log-softmax.
        monitor_patience: Displaced steps before the monitor warns.
    """

    loss: str = "dpo"
    beta: float | None = None
    label_smoothing: float = 0.0
    simpo_gamma: float = 1.0
    kto_desirable_weight: float = 1.0
    kto_undesirable_weight: float = 1.0
    ipo_average: bool = True
    nll_weight: float = 0.0
    lr: float = 1e-6
    weight_decay: float = 0.0
    batch_size: int = 8
    micro_batch_size: int = 8
    max_grad_norm: float | None = 1.0
    temperature: float = 1.0
    monitor_patience: int = 3

    def __post_init__(self) -> None:
        if self.loss not in DEFAULT_BETA:
            raise ValueError(f"unknown preference loss {self.loss!r}; expected one of {sorted(DEFAULT_BETA)}")
        if self.beta is None:
            self.beta = DEFAULT_BETA[self.loss]
        for name in ("beta", "lr", "temperature"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if self.nll_weight < 0 or (self.nll_weight > 0 and self.loss == "orpo"):
            raise ValueError(f"nll_weight must be >= 0 and unused with orpo (its SFT term is built in), got "
                             f"{self.nll_weight!r} with loss {self.loss!r}")
        for name in ("batch_size", "micro_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")


def preference_loss(
    config: PreferenceConfig, policy: PairLogps, reference: PairLogps, pairs: PreferenceBatch,
    kto_point: Tensor | None = None,
) -> PairLoss:
    """Per-pair losses of ``config.loss`` (plus ``nll_weight`` times the chosen NLL) on the given log-probs.

    ``kto_point`` is KTO's reference point ``z0`` (required for ``kto``). For KTO the two
    returned loss halves are averaged per pair, so the batch mean equals KTO's mean over its
    ``2B`` unpaired examples.
    """
    out = _pair_loss(config, policy, reference, pairs, kto_point)
    if config.nll_weight == 0:
        return out
    nll = -average_logps(policy.chosen, pairs.chosen_lengths.to(policy.chosen.dtype))
    return dataclasses.replace(out, losses=out.losses + config.nll_weight * nll)


def _pair_loss(
    config: PreferenceConfig, policy: PairLogps, reference: PairLogps, pairs: PreferenceBatch,
    kto_point: Tensor | None,
) -> PairLoss:
    name, beta = config.loss, float(config.beta)
    lc, lr = pairs.chosen_lengths.to(policy.chosen.dtype), pairs.rejected_lengths.to(policy.chosen.dtype)
    if name == "dpo":
        return dpo_loss(policy.chosen, policy.rejected, reference.chosen, reference.rejected, beta,
                        config.label_smoothing)
    if name == "ipo":
        if config.ipo_average:
            return ipo_loss(average_logps(policy.chosen, lc), average_logps(policy.rejected, lr),
                            average_logps(reference.chosen, lc), average_logps(reference.rejected, lr), beta)
        return ipo_loss(policy.chosen, policy.rejected, reference.chosen, reference.rejected, beta)
    if name == "simpo":
        return simpo_loss(policy.chosen, policy.rejected, lc, lr, beta, config.simpo_gamma)
    if name == "orpo":
        return orpo_loss(policy.chosen, policy.rejected, lc, lr, beta)
    if kto_point is None:
        raise ValueError("the kto loss needs its reference point z0 (kto_point)")
    n = len(pairs)
    desirable = torch.cat([torch.ones(n, dtype=torch.bool), torch.zeros(n, dtype=torch.bool)]).to(lc.device)
    out = kto_loss(torch.cat([policy.chosen, policy.rejected]), torch.cat([reference.chosen, reference.rejected]),
                   desirable, kto_point, beta, config.kto_desirable_weight, config.kto_undesirable_weight)
    good, bad = out.losses.chunk(2)
    chosen_rewards, rejected_rewards = out.rewards.chunk(2)
    return PairLoss((good + bad) / 2.0, chosen_rewards, rejected_rewards)


def frozen_copy(model: nn.Module) -> nn.Module:
    """A deep copy of ``model`` in eval mode with gradients off (the frozen reference)."""
    ref = copy.deepcopy(model)
    ref.eval()
    ref.requires_grad_(False)
    return ref


class PreferenceTrainer:
    """Optimizer steps of a preference loss on a policy, against a frozen reference.

    Args:
        policy: A ``transformers`` causal LM, trained in place.
        config: A :class:`PreferenceConfig`.
        ref_model: The frozen reference; defaults to a copy of ``policy`` taken now. It is used by
            ``dpo``/``ipo``/``kto`` and, for every loss, by the monitors.
        optimizer: Defaults to AdamW over the policy's trainable parameters.
        log_fn: Called as ``log_fn(metrics, step)`` after every step (e.g. a JSONL/TensorBoard
            writer); metrics are also kept in :attr:`history`.
    """

    def __init__(
        self, policy: nn.Module, config: PreferenceConfig | None = None, ref_model: nn.Module | None = None,
        optimizer: torch.optim.Optimizer | None = None, log_fn: Callable[[dict[str, float], int], None] | None = None,
    ):
        self.policy = policy
        self.config = config or PreferenceConfig()
        self.ref_model = frozen_copy(policy) if ref_model is None else ref_model
        self.optimizer = optimizer or torch.optim.AdamW(
            [p for p in policy.parameters() if p.requires_grad], lr=self.config.lr,
            weight_decay=self.config.weight_decay)
        self.monitor = PreferenceMonitor(float(self.config.beta), self.config.monitor_patience)
        self.log_fn = log_fn
        self.step_count = 0
        self.history: list[dict[str, float]] = []

    def sync_reference(self) -> None:
        """Copy the policy's current weights into the reference (iterative DPO's reference update)."""
        self.ref_model.load_state_dict(self.policy.state_dict())

    def step(self, pairs: PreferenceBatch) -> dict[str, float]:
        """One optimizer step on all of ``pairs`` (accumulated over micro-batches); returns the step's metrics."""
        if len(pairs) == 0:
            raise ValueError("step() needs at least one pair")
        cfg = self.config
        device = next(self.policy.parameters()).device
        pairs = pairs.to(device)
        self.policy.train()
        kto_point = None
        if cfg.loss == "kto":
            with torch.no_grad():
                kto_point = kto_reference_point(_mismatched_logps(self.policy, pairs, cfg.temperature),
                                                _mismatched_logps(self.ref_model, pairs, cfg.temperature))
        self.optimizer.zero_grad(set_to_none=True)
        parts: dict[str, list[Tensor]] = {"loss": [], "pc": [], "pr": [], "rc": [], "rr": []}
        for start in range(0, len(pairs), cfg.micro_batch_size):
            micro = pairs.select(slice(start, start + cfg.micro_batch_size))
            with torch.no_grad():
                reference = pair_logps(self.ref_model, micro, cfg.temperature)
            policy = pair_logps(self.policy, micro, cfg.temperature)
            out = preference_loss(cfg, policy, reference, micro, kto_point)
            (out.losses.sum() / len(pairs)).backward()
            for key, value in (("loss", out.losses), ("pc", policy.chosen), ("pr", policy.rejected),
                               ("rc", reference.chosen), ("rr", reference.rejected)):
                parts[key].append(value.detach())
        params = [p for p in self.policy.parameters() if p.requires_grad]
        max_norm = cfg.max_grad_norm if cfg.max_grad_norm is not None else float("inf")
        grad_norm = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
        self.optimizer.step()
        joined = {k: torch.cat(v) for k, v in parts.items()}
        metrics = {"loss": joined["loss"].mean().item(), "grad_norm": grad_norm, "pairs": float(len(pairs))}
        if kto_point is not None:
            metrics["kto/reference_point"] = float(kto_point)
        metrics.update(self.monitor.update(joined["pc"], joined["pr"], joined["rc"], joined["rr"]))
        self.step_count += 1
        self.history.append(metrics)
        if self.log_fn is not None:
            self.log_fn(metrics, self.step_count)
        logger.debug("preference step %d: %s", self.step_count, metrics)
        return metrics

    def fit(self, pairs: PreferenceBatch, epochs: int = 1, seed: int = 0, progress: bool = True) -> list[dict[str, float]]:
        """Offline training: ``epochs`` shuffled passes over ``pairs`` in steps of ``config.batch_size``."""
        if epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {epochs}")
        generator = torch.Generator().manual_seed(seed)
        size = self.config.batch_size
        steps = epochs * -(-len(pairs) // size)
        out = []
        with tqdm(total=steps, desc=f"{self.config.loss} offline", disable=not progress) as bar:
            for _ in range(epochs):
                order = torch.randperm(len(pairs), generator=generator)
                for start in range(0, len(pairs), size):
                    metrics = self.step(pairs.select(order[start: start + size]))
                    out.append(metrics)
                    bar.update(1)
                    bar.set_postfix(loss=f"{metrics['loss']:.4f}", margin=f"{metrics['rewards/margin']:.3f}")
        return out


@dataclasses.dataclass
class OnlineDPOConfig(FailurePolicy):
    """Settings of :class:`OnlineDPO`.

    Verifier failures: the fields of :class:`~rlenv.trainers.rollout.FailurePolicy`.

    Attributes:
        preference: The loss and optimizer settings (any loss; ``dpo`` is online DPO proper).
        rounds: Sample-then-update rounds.
        sampling: Sampling settings for the on-policy groups.
        updates_per_round: Passes over a round's pairs (each pass = steps of ``preference.batch_size``).
        sync_reference_every: Copy the policy into the reference every this many rounds
            (iterative DPO with a moving reference); 0 keeps the initial reference.
        seed: Seeds the env's task draws (round ``r`` uses ``seed + r``) and the pair shuffling.
    """

    preference: PreferenceConfig = dataclasses.field(default_factory=PreferenceConfig)
    rounds: int = 10
    sampling: SamplingConfig = dataclasses.field(default_factory=SamplingConfig)
    updates_per_round: int = 1
    sync_reference_every: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.rounds < 1 or self.updates_per_round < 1:
            raise ValueError(f"rounds and updates_per_round must be >= 1, got {self.rounds}, {self.updates_per_round}")
        if self.sync_reference_every < 0:
            raise ValueError(f"sync_reference_every must be >= 0, got {self.sync_reference_every}")


class OnlineDPO:
    """Online / iterative DPO: pairs built each round from on-policy groups ranked by an environment.

    Each round resets ``env`` (a vector env with ``group_size >= 2``, e.g.
    ``rlenv.make_vec(id, num_tasks=16, group_size=4)``), samples one completion per episode from
    the current policy, takes the best vs the worst completion of every group by env reward
    (ties skipped) and runs preference steps on those pairs.

    Args:
        policy, tokenizer: The policy and its tokenizer.
        env: The vector env (see :class:`rlenv.trainers.rollout.EpisodeEnv`).
        config: An :class:`OnlineDPOConfig`.
        ref_model: Frozen reference (default: a copy of the policy at construction).
        evaluate: Optional ``evaluate(policy) -> dict`` run after every round (e.g. held-out pass@1).
        log_fn: Receives every preference step's metrics and every round's metrics (keys prefixed
            ``round/``).
    """

    def __init__(
        self, policy: nn.Module, tokenizer: Any, env: EpisodeEnv, config: OnlineDPOConfig | None = None,
        ref_model: nn.Module | None = None, evaluate: Callable[[nn.Module], Mapping[str, float]] | None = None,
        log_fn: Callable[[dict[str, float], int], None] | None = None,
    ):
        self.config = config or OnlineDPOConfig()
        self.policy = policy
        self.tokenizer = tokenizer
        self.env = env
        self.fail_fast = FailFast(self.config, env)
        self.evaluate = evaluate
        self.log_fn = log_fn
        self.trainer = PreferenceTrainer(policy, self.config.preference, ref_model, log_fn=log_fn)
        self.generator = make_generator(policy, tokenizer, self.config.sampling)
        self.pad_token_id = int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id)
        self.rounds: list[dict[str, float]] = []

    def train_round(self, round_index: int) -> dict[str, float]:
        """Sample, pair, update; returns the round's metrics."""
        cfg = self.config
        batch, failures = sample_round(self.env, self.generator, self.tokenizer, cfg.seed + round_index, cfg,
                                       self.fail_fast)
        if len(batch) == 0:
            logger.warning("round %d: every episode's verifier failed, nothing to learn from", round_index)
            return {"round": float(round_index), "samples": 0.0, **failures.metrics()}
        pairs, stats = pairs_from_groups(batch, self.pad_token_id)
        metrics = {"round": float(round_index), "reward_mean": batch.rewards.mean().item(), **stats,
                   **failures.metrics()}
        statuses = batch.infos.get("status")
        if statuses is not None:
            metrics["correct_fraction"] = sum(s == "correct" for s in statuses) / len(statuses)
        if pairs is not None:
            generator = torch.Generator().manual_seed(cfg.seed + round_index)
            size = cfg.preference.batch_size
            steps = []
            for _ in range(cfg.updates_per_round):
                order = torch.randperm(len(pairs), generator=generator)
                steps += [self.trainer.step(pairs.select(order[s: s + size])) for s in range(0, len(pairs), size)]
            metrics["loss"] = sum(m["loss"] for m in steps) / len(steps)
            metrics["rewards/margin"] = steps[-1]["rewards/margin"]
            metrics["displacement/active"] = steps[-1]["displacement/active"]
        else:
            logger.info("round %d: every group tied, no preference pairs", round_index)
        if cfg.sync_reference_every and (round_index + 1) % cfg.sync_reference_every == 0:
            self.trainer.sync_reference()
        if self.evaluate is not None:
            metrics.update(self.evaluate(self.policy))
        return metrics

    def train(self, progress: bool = True, callback: RoundCallback | None = None) -> list[dict[str, float]]:
        """Run ``config.rounds`` rounds; returns (and keeps in :attr:`rounds`) the per-round metrics.
        ``callback(round, metrics)`` is called after every round (rounds count from 1)."""
        log = None if self.log_fn is None else (
            lambda r, metrics: self.log_fn({f"round/{k}": v for k, v in metrics.items()}, self.trainer.step_count))
        return run_rounds(self.config.rounds, self.train_round, self.rounds, desc="online DPO", progress=progress,
                          callbacks=(callback, log))
