"""Generation backends, built by two factories named after what they return.

* :func:`make_completer` — ``completer(observations) -> list[rlenv.Completion]``, for evaluation:

  * ``hf`` — ``transformers`` ``generate`` on a local checkpoint (:class:`~rlenv.inference.hf.HFCompleter`; needs torch);
  * ``vllm`` — an in-process ``vllm.LLM`` on a local checkpoint (:class:`~rlenv.inference.vllm_engine.VLLMCompleter`);
  * ``openai`` — any OpenAI-compatible server (``vllm serve``, SGLang, a hosted API), chat or
    completion endpoint, with concurrency limits, retries with backoff and timeouts
    (:class:`~rlenv.inference.openai_server.OpenAICompleter`).

  Each returns one :class:`~rlenv.types.Completion` per observation, with ``truncated`` set when
  generation stopped at the length limit; a request that still fails after its retries comes back
  as ``Completion.failed(message)`` and is recorded as status ``error``, never as a crash that
  loses the samples already scored.

* :func:`make_rollout_generator` — ``generator(observations) -> Generation`` (token ids, masks and
  the sampler's log-probs), for the trainers' rollouts from an in-memory policy:
  :class:`~rlenv.inference.policy.HFRolloutGenerator` or
  :class:`~rlenv.inference.vllm_policy.VLLMRolloutGenerator`.

Both read one :class:`Sampling`. Backends are imported only when built (torch and vLLM included).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlenv.deprecation import moved_names
from rlenv.errors import ModelUnavailableError, check_choice
from rlenv.inference.sampling import (
    CHAT_MODES,
    ROLLOUT_BACKENDS,
    Sampling,
    SamplingConfig,
    chat_observations,
    openai_endpoint,
    request_seed,
    rollout_settings,
)

#: Backends of :func:`make_completer`.
BACKENDS = ("hf", "vllm", "openai")


def local_model(model: str, flag: str = "--model") -> str:
    """``model`` checked before anything loads it: an existing directory must hold a model
    (``config.json``) and comes back resolved; a hub id (``name`` or ``org/name``) comes back as is.

    A path that does not exist raises ``FileNotFoundError`` at once instead of a hub lookup: one
    that is absolute, starts with ``.`` or ``~``, has more than one ``/``, or whose first
    component is a local directory (``runs/typo`` next to ``runs/``). Any other name is a hub id,
    checked by :func:`check_hub_model` (one request, not the loaders' retries).
    """
    path = Path(model).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            inside = sorted(p.name for p in path.iterdir() if p.is_dir()) if path.is_dir() else []
            listing = f"; it holds: {', '.join(inside)}" if inside else ""
            raise FileNotFoundError(f"{flag} {model}: {path.resolve()} is not a model directory (no config.json)"
                                    f"{listing}")
        return str(path.resolve())
    parts = Path(model).parts
    if path.is_absolute() or model.startswith((".", "~")) or len(parts) > 2 or (len(parts) == 2 and Path(parts[0]).is_dir()):
        raise FileNotFoundError(f"{flag} {model}: no such directory ({path.resolve()})")
    check_hub_model(model, flag)
    return model


#: Seconds the one request of :func:`check_hub_model` may take.
HUB_TIMEOUT_S = 10.0


def check_hub_model(model: str, flag: str = "--model") -> None:
    """Check that the hub id ``model`` can be loaded before anything tries to: cached (in the
    Hugging Face cache), or else known to the Hub, asked once within :data:`HUB_TIMEOUT_S`.

    Raises ``FileNotFoundError`` when the Hub has no such model (a typo, or a private model without
    a token) or when offline (``HF_HUB_OFFLINE``) with nothing cached, and
    :class:`~rlenv.errors.ModelUnavailableError` when the Hub cannot be reached: each one line
    naming ``flag`` and ``model``, instead of a minute of retries and a loader's traceback. A gated
    model (it needs accepted terms) passes: the loader says what it needs.
    """
    from huggingface_hub import constants, model_info, try_to_load_from_cache
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        HFValidationError,
        RepositoryNotFoundError,
    )

    not_local = f"{flag} {model}: no such local directory ({Path(model).resolve()})"
    try:
        if isinstance(try_to_load_from_cache(model, "config.json"), str):
            return
    except HFValidationError:
        raise FileNotFoundError(f"{not_local}, and not a Hugging Face Hub id") from None
    if constants.HF_HUB_OFFLINE:
        raise FileNotFoundError(f"{not_local}, and not in the Hugging Face cache (HF_HUB_OFFLINE is set)")
    try:
        model_info(model, timeout=HUB_TIMEOUT_S)
    except GatedRepoError:
        return
    except RepositoryNotFoundError:
        raise FileNotFoundError(f"{not_local}, and no model {model!r} on the Hugging Face Hub at "
                                f"{constants.ENDPOINT} (a typo? a private model needs `hf auth login`)") from None
    except HfHubHTTPError as exc:
        raise ModelUnavailableError(f"{not_local}, and the Hugging Face Hub at {constants.ENDPOINT} answered "
                                    f"{str(exc).splitlines()[0]}") from None
    except Exception as exc:  # the HTTP client's transport errors: no network, DNS, a closed port
        raise ModelUnavailableError(
            f"{not_local}, and the Hugging Face Hub at {constants.ENDPOINT} cannot be reached to download it "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'no answer'}): give a local model "
            "directory, or check the network (HF_ENDPOINT, proxies)") from None


def make_completer(backend: str, model: str, sampling: Sampling, chat: str = "auto", **options: Any) -> Any:
    """A completer ``observations -> list[Completion]`` of ``backend`` for ``model``.

    Args:
        backend: one of :data:`BACKENDS`.
        model: a checkpoint directory (``hf``, ``vllm``) or the served model's name (``openai``).
        sampling: a :class:`Sampling`.
        chat: one of :data:`CHAT_MODES`.
        **options: the backend's own settings: ``device``, ``batch_size`` (``hf``); engine arguments (``vllm``);
            ``base_url``, ``api_key``, ``concurrency``, ``max_retries``, ``timeout`` (``openai``).
    """
    check_choice("backend", backend, BACKENDS)
    check_choice("chat", chat, CHAT_MODES)
    if backend == "openai":
        from rlenv.inference.openai_server import OpenAICompleter

        return OpenAICompleter(model=model, sampling=sampling, chat=chat, **options)
    if backend == "vllm":
        from rlenv.inference.vllm_engine import VLLMCompleter

        return VLLMCompleter(model, sampling, chat=chat, **options)
    from rlenv.inference.hf import HFCompleter

    return HFCompleter(model, sampling, chat=chat, **options)


def make_rollout_generator(policy: Any, tokenizer: Any, sampling: Sampling | SamplingConfig | None = None,
                           backend: str = "hf", batch_size: int | None = None, synced_gpus: bool = False,
                           **options: Any) -> Any:
    """A rollout generator ``observations -> Generation`` sampling from ``policy``.

    Args:
        policy: the ``transformers`` causal LM being trained.
        tokenizer: its tokenizer.
        sampling: a :class:`Sampling` (a deprecated ``SamplingConfig`` brings its own backend,
            batch size and options).
        backend: one of :data:`ROLLOUT_BACKENDS`: ``hf`` (``transformers`` ``generate``) or
            ``vllm`` (a colocated engine kept in sync with the policy).
        batch_size: prompts per ``generate`` call (None = all at once; ``hf`` only).
        synced_gpus: ``hf`` only: every rank runs ``generate``'s forward passes until all ranks are
            done (a sharded policy's forward pass is a collective).
        **options: the vLLM generator's settings (``gpu_memory_utilization``, ``max_model_len``, ...).
    """
    sampling, settings = rollout_settings(sampling)
    settings = {"backend": backend, "batch_size": batch_size, **options, **settings}
    backend, batch_size = settings.pop("backend"), settings.pop("batch_size")
    check_choice("backend", backend, ROLLOUT_BACKENDS)
    if backend == "vllm" and synced_gpus:
        raise ValueError("synced_gpus is for the hf backend (a sharded policy); vllm holds its own weights")
    if backend == "vllm":  # vLLM schedules its own batches: batch_size is for hf
        from rlenv.inference.vllm_policy import VLLMRolloutGenerator

        return VLLMRolloutGenerator(policy, tokenizer, sampling, **settings)
    if settings:
        raise ValueError(f"engine options are for the vllm backend; hf takes none, got {sorted(settings)}")
    from rlenv.inference.policy import HFRolloutGenerator

    return HFRolloutGenerator(policy, tokenizer, sampling, batch_size=batch_size, synced_gpus=synced_gpus)


__all__ = ["BACKENDS", "CHAT_MODES", "ROLLOUT_BACKENDS", "Sampling", "chat_observations", "local_model",
           "make_completer", "make_rollout_generator", "openai_endpoint", "request_seed"]

#: Deprecated names (one release).
__getattr__ = moved_names(__name__, {"make_generate": "rlenv.inference.make_completer"})
