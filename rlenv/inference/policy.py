"""Token-level generation from an in-memory policy: the rollouts of rlenv's trainers and the ``hf``
evaluation backend.

* :class:`Generation` — prompt and completion token ids, masks, truncation flags and (optionally)
  the sampler's log-probs;
* :class:`HFRolloutGenerator` — batched ``model.generate`` (``transformers``); the vLLM one is
  :class:`~rlenv.inference.vllm_policy.VLLMRolloutGenerator`, and
  :func:`rlenv.inference.make_rollout_generator` builds either;
* helpers that turn observations (text or chat messages) into prompt tokens and completions back into text.

Needs torch (imported by this module, never by ``import rlenv``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from rlenv.deprecation import moved_names
from rlenv.inference.sampling import Sampling, rollout_settings

if TYPE_CHECKING:
    from rlenv.inference.sampling import SamplingConfig

Observation = str | list[dict[str, Any]]


# -- prompts and completions as tokens ----------------------------------------------------------
def prompt_token_lists(tokenizer: Any, observations: Sequence[Observation],
                       tools: Sequence[dict[str, Any]] | None = None) -> list[list[int]]:
    """The token ids of each prompt, unpadded.

    A string is tokenized with the tokenizer's special tokens (e.g. BOS); a list of chat messages
    goes through ``tokenizer.apply_chat_template(..., add_generation_prompt=True)``, with ``tools``
    (OpenAI function schemas) when given.
    """
    rows = []
    for obs in observations:
        if isinstance(obs, str):
            rows.append(tokenizer(obs, add_special_tokens=True)["input_ids"])
        elif isinstance(obs, list):
            if getattr(tokenizer, "chat_template", None) is None:
                raise ValueError("chat observations need a tokenizer with a chat_template")
            text = tokenizer.apply_chat_template(obs, add_generation_prompt=True, tokenize=False,
                                                 **({"tools": list(tools)} if tools else {}))
            rows.append(tokenizer(text, add_special_tokens=False)["input_ids"])
        else:
            raise TypeError(f"an observation must be a str or a list of chat messages, got {type(obs).__name__}")
    if any(len(r) == 0 for r in rows):
        raise ValueError("a prompt tokenized to zero tokens; give the template some text or a BOS token")
    return [list(r) for r in rows]


def encode_prompts(tokenizer: Any, observations: Sequence[Observation],
                   tools: Sequence[dict[str, Any]] | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokenize prompts (as :func:`prompt_token_lists`), left-padded: ``(ids (B, P), mask (B, P))``."""
    return left_pad(prompt_token_lists(tokenizer, observations, tools), pad_token_id_of(tokenizer))


def left_pad(rows: Sequence[Sequence[int]], pad_token_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token id rows left-padded with ``pad_token_id``: ``(ids (B, P), mask (B, P))``."""
    if not rows or any(len(r) == 0 for r in rows):
        raise ValueError(f"left_pad needs at least one row and no empty row, got row lengths {[len(r) for r in rows]}")
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, width - len(r):] = torch.as_tensor(list(r), dtype=torch.long)
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


def pad_token_id_of(tokenizer: Any) -> int:
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
        """Pad unpadded token lists (e.g. from vLLM) into a :class:`Generation`.

        Each completion is cut after its first EOS (when ``eos_token_id`` is given); ``truncated``
        defaults to "no EOS was generated" (or False when ``eos_token_id`` is None).
        """
        B = len(prompt_ids)
        if len(completion_ids) != B:
            raise ValueError(f"got {B} prompts and {len(completion_ids)} completions")
        eos = set() if eos_token_id is None else (
            {eos_token_id} if isinstance(eos_token_id, int) else set(eos_token_id))
        cut, ended = [], []
        for row in completion_ids:
            row = [int(t) for t in row]
            stop = next((k for k, t in enumerate(row) if t in eos), None)
            cut.append(row if stop is None else row[: stop + 1])
            ended.append(stop is not None)
        P = max((len(p) for p in prompt_ids), default=0)
        T = max((len(c) for c in cut), default=0)
        p_ids = torch.full((B, P), pad_token_id, dtype=torch.long)
        p_mask = torch.zeros((B, P), dtype=torch.long)
        c_ids = torch.full((B, T), pad_token_id, dtype=torch.long)
        c_mask = torch.zeros((B, T), dtype=torch.long)
        lp = torch.zeros((B, T))
        for i, (p, c) in enumerate(zip(prompt_ids, cut, strict=True)):
            if len(p):
                p_ids[i, P - len(p):] = torch.as_tensor(list(p), dtype=torch.long)
                p_mask[i, P - len(p):] = 1
            if c:
                c_ids[i, : len(c)] = torch.as_tensor(c, dtype=torch.long)
                c_mask[i, : len(c)] = 1
            if logprobs is not None:
                values = list(logprobs[i])[: len(c)]
                if len(values) != len(c):
                    raise ValueError(f"rollout_logprobs[{i}] has {len(logprobs[i])} values for {len(c)} tokens")
                lp[i, : len(c)] = torch.as_tensor(values, dtype=torch.float32)
        if truncated is None:
            truncated = [not e for e in ended] if eos else [False] * B
        return cls(p_ids, p_mask, c_ids, c_mask, torch.as_tensor(list(truncated), dtype=torch.bool),
                   None if logprobs is None else lp)

    @classmethod
    def concat(cls, parts: Sequence[Generation], pad_token_id: int) -> Generation:
        """Join generations, re-padding prompts (left) and completions (right) to common widths."""
        width_p = max(g.prompt_ids.shape[1] for g in parts)
        width_c = max(g.completion_ids.shape[1] for g in parts)

        def pad(tensors: list[torch.Tensor], width: int, value: float, left: bool = False) -> torch.Tensor:
            return torch.cat([torch.nn.functional.pad(t, (width - t.shape[1], 0) if left else (0, width - t.shape[1]),
                                                      value=value) for t in tensors])

        logprobs = [g.logprobs for g in parts if g.logprobs is not None]
        if logprobs and len(logprobs) != len(parts):
            raise ValueError("cannot concat: logprobs are set in some generations and not in others")
        return cls(pad([g.prompt_ids for g in parts], width_p, pad_token_id, left=True),
                   pad([g.prompt_mask for g in parts], width_p, 0, left=True),
                   pad([g.completion_ids for g in parts], width_c, pad_token_id),
                   pad([g.completion_mask for g in parts], width_c, 0),
                   torch.cat([g.truncated for g in parts]),
                   pad(logprobs, width_c, 0.0) if logprobs else None)

    def replace_rows(self, rows: Sequence[int], fresh: Generation, pad_token_id: int) -> Generation:
        """This generation with rows ``rows`` replaced, in order, by the rows of ``fresh`` (re-padded)."""
        if len(rows) != len(fresh.truncated):
            raise ValueError(f"{len(rows)} rows to replace, {len(fresh.truncated)} new ones")
        joined = Generation.concat([self, fresh], pad_token_id)
        order = list(range(len(self.truncated)))
        for j, row in enumerate(rows):
            order[row] = len(self.truncated) + j
        index = torch.tensor(order)
        return Generation(joined.prompt_ids[index], joined.prompt_mask[index], joined.completion_ids[index],
                          joined.completion_mask[index], joined.truncated[index],
                          None if joined.logprobs is None else joined.logprobs[index])


GenerateFn = Callable[[Sequence[Observation]], Generation]


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


class HFRolloutGenerator:
    """Batched sampling with ``model.generate``; a :data:`GenerateFn`.

    Prompts are left-padded (``generate`` derives position ids from the attention mask). Returns
    completions with masks up to and including the first EOS, truncation flags, and the sampler's
    log-probs at the sampling temperature (when sampling).

    Args:
        model: a ``transformers`` causal LM.
        tokenizer: its tokenizer (``pad_token_id`` or ``eos_token_id`` must be set).
        sampling: a :class:`~rlenv.inference.Sampling` (``stop`` is not supported; a deprecated
            ``SamplingConfig`` brings its own ``batch_size``).
        batch_size: prompts per ``generate`` call (None = all at once).
        synced_gpus: keep running forward passes until every rank's ``generate`` is done
            (``transformers``' ``synced_gpus``: a sharded model's forward pass is a collective).
    """

    def __init__(self, model: Any, tokenizer: Any, sampling: Sampling | SamplingConfig | None = None,
                 batch_size: int | None = None, synced_gpus: bool = False):
        self.sampling, settings = rollout_settings(sampling)
        if self.sampling.stop:
            raise ValueError(f"the hf backend does not support stop strings, got {self.sampling.stop}")
        self.batch_size = settings.get("batch_size") or batch_size
        self.model = model
        self.tokenizer = tokenizer
        self.eos_token_ids = eos_token_ids(tokenizer)
        self.synced_gpus = synced_gpus

    @torch.no_grad()
    def __call__(self, observations: Sequence[Observation], tools: Sequence[dict[str, Any]] | None = None,
                 ) -> Generation:
        """Sample a completion for each observation (chat observations rendered with ``tools``, when given)."""
        return self.generate_ids(prompt_token_lists(self.tokenizer, observations, tools))

    @torch.no_grad()
    def generate_ids(self, prompts: Sequence[Sequence[int]]) -> Generation:
        """Sample a completion for each prompt given as token ids (a multi-turn episode's context so far)."""
        ids, mask = left_pad(prompts, pad_token_id_of(self.tokenizer))
        size = self.batch_size or len(prompts)
        parts = [self._generate(ids[s: s + size], mask[s: s + size]) for s in range(0, len(prompts), size)]
        if len(parts) == 1:
            return parts[0]
        return Generation.concat(parts, pad_token_id_of(self.tokenizer))

    def _generate(self, prompt_ids: torch.Tensor, prompt_mask: torch.Tensor) -> Generation:
        from transformers import GenerationConfig, LogitsProcessorList

        s = self.sampling
        device = next(self.model.parameters()).device
        sample = s.temperature > 0
        config = GenerationConfig(
            max_new_tokens=s.max_new_tokens, do_sample=sample, pad_token_id=pad_token_id_of(self.tokenizer),
            eos_token_id=self.eos_token_ids,
            **({"temperature": s.temperature, "top_p": s.top_p, "top_k": s.top_k} if sample else {}),
        )
        recorder = _LogprobRecorder(s.temperature) if sample else None
        was_training = self.model.training
        self.model.eval()
        try:
            out = self.model.generate(
                input_ids=prompt_ids.to(device), attention_mask=prompt_mask.to(device), generation_config=config,
                logits_processor=LogitsProcessorList([recorder]) if recorder else None, synced_gpus=self.synced_gpus,
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




#: Deprecated names (one release).
__getattr__ = moved_names(__name__, {
    "HFGenerator": "rlenv.inference.policy.HFRolloutGenerator",
    "SamplingConfig": "rlenv.inference.sampling.SamplingConfig",
    "make_generator": "rlenv.inference.make_rollout_generator",
    "ROLLOUT_BACKENDS": "rlenv.inference.ROLLOUT_BACKENDS",
})
