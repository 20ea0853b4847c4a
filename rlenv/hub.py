"""Default task data from the Hugging Face Hub: which dataset an env id reads and how it is loaded.

A catalog env (``rlenv/GSM8K-v0``, ``rlenv/MATH-v0``, ``rlenv/MBPP-v0``, ...) names its canonical
dataset with a :class:`HubDataset`; :func:`task_rows` loads the rows it reads: the user's
``data_files`` when given, else the dataset's split through ``datasets.load_dataset`` (cached as
``datasets`` caches, under ``HF_HOME``). When the Hub cannot be reached (no network, or
``HF_DATASETS_OFFLINE=1`` / ``HF_HUB_OFFLINE=1`` with nothing cached) the error names the dataset
and how to pass local files instead; there is no fallback to other data.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from rlenv.errors import RlenvError
from rlenv.sources import load_rows

#: Environment variables that put ``datasets`` / ``huggingface_hub`` in offline mode.
OFFLINE_VARIABLES = ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")


#: Which Hub dataset each table loaded by :func:`load_hub_rows` in this process came from, by the
#: table's ``datasets`` fingerprint (read by run manifests through :func:`hub_origin`).
_ORIGINS: dict[str, dict[str, Any]] = {}


class DatasetUnavailableError(RlenvError, ConnectionError):
    """The Hub dataset behind an env's default data cannot be loaded (no network, or offline with no cache)."""


@dataclasses.dataclass(frozen=True)
class HubDataset:
    """A dataset on the Hugging Face Hub that an env reads by default.

    Attributes:
        path: The Hub id, e.g. ``"openai/gsm8k"``.
        split: The split read when the user names none.
        splits: Every split the dataset has (``split=`` must be one of them).
        columns: The columns the env reads (a local file passed as ``data_files`` needs them too).
        licence: The data's licence, as its dataset card or source states it.
        configs: Config names; several are loaded and concatenated in this order (e.g. MATH's
            seven subjects); empty for the default config.
    """

    path: str
    split: str
    splits: tuple[str, ...]
    columns: tuple[str, ...]
    licence: str
    configs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.split not in self.splits:
            raise ValueError(f"default split {self.split!r} of {self.path} is not one of its splits {self.splits}")

    def describe(self) -> str:
        """``path`` with its config(s), as the Hub names them."""
        return self.path if not self.configs else f"{self.path} ({', '.join(self.configs)})"


def _offline_variables() -> list[str]:
    return [name for name in OFFLINE_VARIABLES if os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")]


def unavailable_message(dataset: HubDataset, split: str, env_id: str, cause: BaseException) -> str:
    """Why ``dataset`` could not be loaded for ``env_id`` and how to give the env local files instead."""
    import datasets

    offline = _offline_variables()
    if offline:
        why = f"{' and '.join(offline)} is set and the dataset is not in the local cache"
    elif isinstance(cause, datasets.exceptions.DatasetNotFoundError):
        why = "the Hub has no such dataset, or it needs a login (huggingface-cli login)"
    else:
        why = "the Hub could not be reached and the dataset is not in the local cache"
    return (f"{env_id}: cannot load its default data, split {split!r} of the Hugging Face dataset "
            f"{dataset.describe()}: {why} ({type(cause).__name__}: {cause}). Load it once with network access "
            f"(datasets keeps it in its cache under HF_HOME), or pass local files in the same format: "
            f"rlenv.make({env_id!r}, data_files='{split}.jsonl') or `rlenv ... {env_id} --data {split}.jsonl` "
            f"(JSONL/JSON/parquet/CSV rows with the columns {', '.join(dataset.columns)}).")


def load_hub_rows(dataset: HubDataset, split: str, env_id: str) -> Any:
    """``split`` of ``dataset`` as one ``datasets.Dataset`` (configs concatenated in order).

    Raises:
        ValueError: ``split`` is not one of the dataset's splits.
        DatasetUnavailableError: the Hub cannot be reached and the dataset is not cached.
    """
    if split not in dataset.splits:
        raise ValueError(f"{env_id}: split must be one of {list(dataset.splits)} ({dataset.path}), got {split!r}")
    import datasets

    parts = []
    for config in dataset.configs or (None,):
        try:
            parts.append(datasets.load_dataset(dataset.path, config, split=split))
        except (ConnectionError, datasets.exceptions.DatasetNotFoundError) as exc:
            raise DatasetUnavailableError(unavailable_message(dataset, split, env_id, exc)) from exc
    rows = parts[0] if len(parts) == 1 else datasets.concatenate_datasets(parts)
    _ORIGINS[rows._fingerprint] = {"hub_id": dataset.path, "configs": list(dataset.configs), "split": split}
    return rows


def hub_origin(rows: Any) -> dict[str, Any] | None:
    """``{"hub_id", "configs", "split"}`` of the Hub dataset that :func:`load_hub_rows` loaded ``rows``
    from in this process, or None (local files, rows built in memory, or a table changed since)."""
    fingerprint = getattr(rows, "_fingerprint", None)
    return _ORIGINS.get(fingerprint) if isinstance(fingerprint, str) else None


def task_rows(data_files: Any, split: str | None, dataset: HubDataset, env_id: str) -> Any:
    """The rows ``env_id`` reads: ``data_files`` when given, else ``split`` (default: the dataset's) from the Hub.

    Args:
        data_files: Local file(s), dict rows or a ``datasets.Dataset`` (see :func:`rlenv.sources.load_rows`),
            or None for the Hub dataset.
        split: A split of the Hub dataset; refused with ``data_files`` (pass the file of the split you want).
        dataset: The env's Hub dataset.
        env_id: The env id, for messages.
    """
    if data_files is not None:
        if split is not None:
            raise ValueError(f"{env_id}: split={split!r} selects a split of {dataset.path}; with data_files= "
                             "pass the file of the split you want instead")
        return load_rows(data_files)
    return load_hub_rows(dataset, dataset.split if split is None else split, env_id)
