"""Hugging Face models behind the model-scored verifiers: loaded lazily, shared, batched, picklable by config.

:class:`ModelVerifier` is the base of the reward-model, guard-classifier and process-reward-model
verifiers. It holds only a configuration (path, model class, device, dtype, ...): the model is
loaded on first use through ``AutoModelFor*.from_pretrained`` / ``AutoTokenizer.from_pretrained``
(a local directory and a hub name go through the same code path) and is shared by every verifier
in the process with the same configuration, so the many episodes of a vector env, and several envs
built on one checkpoint, use **one** model instance. Pickling keeps the configuration only; the
copy reloads lazily (once per process). torch and transformers are imported on first use.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rlenv.errors import check_choice

logger = logging.getLogger(__name__)

#: ``model_class`` name -> the transformers Auto class that loads it.
AUTO_CLASSES = {
    "sequence_classification": "AutoModelForSequenceClassification",
    "token_classification": "AutoModelForTokenClassification",
    "causal_lm": "AutoModelForCausalLM",
}
#: Accepted ``dtype`` names ("auto" keeps the checkpoint's dtype).
DTYPES = ("float32", "float16", "bfloat16", "auto")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Everything needed to (re)load a model: the cache key and the pickled state of a verifier.

    Attributes:
        path: Local directory or hub name.
        model_class: A key of :data:`AUTO_CLASSES`.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ... or ``"auto"`` (CUDA when available).
        dtype: One of :data:`DTYPES`.
        trust_remote_code: Passed to ``from_pretrained`` (needed by some PRMs, e.g. Qwen2.5-Math-PRM).
        revision: Hub revision, or None.
    """

    path: str
    model_class: str
    device: str = "cpu"
    dtype: str = "float32"
    trust_remote_code: bool = False
    revision: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", os.fspath(self.path))
        if self.model_class not in AUTO_CLASSES:
            raise ValueError(f"model_class must be one of {sorted(AUTO_CLASSES)}, got {self.model_class!r}")
        check_choice("dtype", self.dtype, DTYPES)
        if not isinstance(self.device, str) or not self.device:
            raise ValueError(f"device must be a string such as 'cpu', 'cuda' or 'auto', got {self.device!r}")


class LoadedModel:
    """A loaded model, its tokenizer and the torch device they run on."""

    def __init__(self, model: Any, tokenizer: Any, device: Any):
        self.model = model
        self.tokenizer = tokenizer
        self.device = device


_CACHE: weakref.WeakValueDictionary[tuple, LoadedModel] = weakref.WeakValueDictionary()
_CACHE_LOCK = threading.Lock()


def _local_fingerprint(path: str) -> float | None:
    """Latest modification time of the files of a local checkpoint (so a re-saved model reloads)."""
    if not os.path.isdir(path):
        return None
    return max((e.stat().st_mtime for e in os.scandir(path) if e.is_file()), default=0.0)


def resolve_device(device: str) -> str:
    """``"auto"`` -> ``"cuda"`` when available else ``"cpu"``; other names are returned unchanged."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model(config: ModelConfig) -> LoadedModel:
    """Load (or reuse) the model and tokenizer described by ``config``, in eval mode on its device.

    The tokenizer gets a pad token (its EOS when it has none) mirrored on the model config, as
    :func:`rlenv.rm_inputs.ensure_pad_token` does for training.
    """
    key = (config, _local_fingerprint(config.path))
    with _CACHE_LOCK:
        loaded = _CACHE.get(key)
        if loaded is not None:
            return loaded
        import torch
        import transformers

        from rlenv.rm_inputs import ensure_pad_token

        common = {"trust_remote_code": config.trust_remote_code, "revision": config.revision}
        tokenizer = transformers.AutoTokenizer.from_pretrained(config.path, **common)
        auto_class = getattr(transformers, AUTO_CLASSES[config.model_class])
        dtype = config.dtype if config.dtype == "auto" else getattr(torch, config.dtype)
        model = auto_class.from_pretrained(config.path, dtype=dtype, **common)
        device = torch.device(resolve_device(config.device))
        model.to(device).eval()
        ensure_pad_token(tokenizer, model.config.get_text_config())
        logger.info("loaded %s %s on %s (%s)", config.model_class, config.path, device, config.dtype)
        loaded = LoadedModel(model, tokenizer, device)
        _CACHE[key] = loaded
        return loaded


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into micro-batches of at most ``batch_size``, longest first (less padding)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]


class ModelVerifier:
    """Base of verifiers that score with a Hugging Face model (see the module docstring).

    Args:
        model: Local directory or hub name of the checkpoint.
        model_class: Which ``AutoModelFor*`` loads it (a key of :data:`AUTO_CLASSES`).
        device: ``"cpu"`` (default), ``"cuda"``, ``"cuda:N"`` or ``"auto"``.
        dtype: ``"float32"`` (default), ``"bfloat16"``, ``"float16"`` or ``"auto"``.
        batch_size: Sequences per forward pass (one forward per micro-batch).
        max_length: Longest input in tokens; what happens to longer inputs is up to the subclass.
        trust_remote_code, revision: Passed to ``from_pretrained``.
    """

    #: Scored where the model is loaded once, on a GPU when the cluster has one (see :mod:`rlenv.scoring.ray_backend`).
    placement = "model"

    name = "model"
    version = "1"

    def __init__(
        self,
        model: str | os.PathLike,
        model_class: str,
        *,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 16,
        max_length: int | None = 1024,
        trust_remote_code: bool = False,
        revision: str | None = None,
    ):
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if max_length is not None and (not isinstance(max_length, int) or max_length < 1):
            raise ValueError(f"max_length must be a positive int or None, got {max_length!r}")
        self.config = ModelConfig(str(model), model_class, device, dtype, trust_remote_code, revision)
        self.batch_size = batch_size
        self.max_length = max_length
        self._loaded: LoadedModel | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_loaded"] = None
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config.path!r}, device={self.config.device!r}, dtype={self.config.dtype!r})"

    @property
    def loaded(self) -> LoadedModel:
        """The shared model, tokenizer and device (loaded on first access)."""
        if self._loaded is None:
            self._loaded = load_model(self.config)
        return self._loaded

    @property
    def model(self) -> Any:
        """The shared ``transformers`` model."""
        return self.loaded.model

    @property
    def tokenizer(self) -> Any:
        """The shared tokenizer."""
        return self.loaded.tokenizer

    def forward_batches(
        self,
        sequences: Sequence[Sequence[int]],
        select: Callable[[Any, Any, list[int]], Any],
        padding_side: str = "right",
        **forward_kwargs: Any,
    ) -> Iterator[tuple[list[int], Any]]:
        """Run the model on ``sequences`` in length-sorted micro-batches of ``batch_size``.

        Args:
            sequences: Token id lists, already truncated.
            select: ``select(logits, attention_mask, batch_indices) -> tensor`` picks what the
                caller needs on the device (before anything is copied to the CPU); ``logits`` has
                shape ``(b, T, ...)`` or ``(b, num_labels)``.
            padding_side: ``"right"`` or ``"left"`` (left padding also passes ``position_ids``
                counted from each sequence's first real token, as ``generate`` does).
            **forward_kwargs: Extra arguments for the model's forward (e.g. ``logits_to_keep``).

        Yields:
            ``(batch_indices, selected)`` with ``selected`` a float32 CPU tensor, one forward per batch.
        """
        import torch

        loaded = self.loaded
        with torch.inference_mode():
            for batch in length_sorted_batches([len(s) for s in sequences], self.batch_size):
                enc = loaded.tokenizer.pad({"input_ids": [list(sequences[i]) for i in batch]},
                                           padding_side=padding_side, return_tensors="pt")
                input_ids = enc["input_ids"].to(loaded.device)
                mask = enc["attention_mask"].to(loaded.device)
                kwargs = dict(forward_kwargs)
                if padding_side == "left":
                    kwargs["position_ids"] = (mask.cumsum(-1) - 1).clamp(min=0)
                logits = loaded.model(input_ids=input_ids, attention_mask=mask, **kwargs).logits
                yield batch, select(logits, mask, batch).float().cpu()
