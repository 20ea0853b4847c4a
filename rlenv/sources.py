"""Task sources: where an environment's tasks come from.

* :class:`DatasetSource` reads local JSONL / JSON / parquet files (or a ``datasets.Dataset``)
  through the ``datasets`` library, with a field mapping onto :class:`~rlenv.types.Task`.
* :class:`ProceduralSource` generates tasks from a seeded function: the same ``seed`` and
  ``index`` always give the same task.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from rlenv.types import Task

#: Columns tried, in order, for a task id when the field mapping names none.
ID_COLUMNS = ("task_id", "id", "unique_id")
#: Task attributes a field mapping may target.
TASK_FIELDS = ("id", "prompt", "reference", "gold_completion")

_FORMATS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}
#: Local task files smaller than this in total load without ``datasets`` progress bars.
QUIET_LOAD_BYTES = 64 * 2**20


@runtime_checkable
class TaskSource(Protocol):
    """A sequence of tasks, finite (``size`` is an int) or infinite (``size`` is None)."""

    @property
    def size(self) -> int | None: ...

    def __getitem__(self, index: int) -> Task: ...

    def index_of(self, task_id: str) -> int: ...


def load_rows(data: Any) -> Any:
    """Load ``data`` as a ``datasets.Dataset``.

    ``data`` may be a ``datasets.Dataset``, a path (str / PathLike) or a list of paths to
    ``.jsonl``/``.json``/``.parquet``/``.csv`` files, or a list of dict rows.
    """
    import datasets

    if isinstance(data, datasets.Dataset):
        return data
    if isinstance(data, datasets.DatasetDict):
        raise ValueError(f"expected one split, got a DatasetDict with splits {list(data)}: pass e.g. data['test']")
    if isinstance(data, list) and data and all(isinstance(r, Mapping) for r in data):
        return datasets.Dataset.from_list([dict(r) for r in data])
    paths = [data] if isinstance(data, (str, os.PathLike)) else list(data)
    if not paths:
        raise ValueError("data_files is empty: pass a file path, a list of paths or a datasets.Dataset")
    formats = set()
    for path in paths:
        path = os.fspath(path)
        if not os.path.exists(path):
            raise FileNotFoundError(f"task data file not found: {path!r}")
        ext = os.path.splitext(path)[1].lower()
        if ext not in _FORMATS:
            raise ValueError(f"unsupported task file {path!r}: expected one of {sorted(_FORMATS)}")
        formats.add(_FORMATS[ext])
    if len(formats) != 1:
        raise ValueError(f"task files mix formats {sorted(formats)}: {paths}")
    with progress_bars(sum(os.path.getsize(p) for p in paths) >= QUIET_LOAD_BYTES):
        return datasets.load_dataset(formats.pop(), data_files=[os.fspath(p) for p in paths], split="train")


@contextlib.contextmanager
def progress_bars(enabled: bool) -> Iterator[None]:
    """Within the block, ``datasets`` shows its progress bars only when ``enabled`` (and they are on at all)."""
    import datasets

    if enabled or datasets.are_progress_bars_disabled():
        yield
        return
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        datasets.enable_progress_bars()


def parse_field_mapping(pairs: Sequence[str] | Mapping[str, str] | None) -> dict[str, str]:
    """Turn ``["prompt=question", ...]`` (CLI form) or a dict into ``{task_field: column}``."""
    if pairs is None:
        return {}
    if isinstance(pairs, Mapping):
        mapping = dict(pairs)
    else:
        mapping = {}
        for pair in pairs:
            if "=" not in pair:
                raise ValueError(f"field mapping {pair!r} must look like TASK_FIELD=COLUMN, e.g. prompt=question")
            key, column = pair.split("=", 1)
            mapping[key.strip()] = column.strip()
    unknown = set(mapping) - set(TASK_FIELDS)
    if unknown:
        raise ValueError(f"unknown task field(s) {sorted(unknown)} in field mapping; expected some of {TASK_FIELDS}")
    return mapping


class DatasetSource:
    """Tasks read from rows of a ``datasets.Dataset`` (or local files loaded through it).

    Args:
        data: A ``datasets.Dataset``, a file path, a list of paths, or a list of dict rows.
        fields: ``{task_field: column}`` for ``id``, ``prompt``, ``reference``,
            ``gold_completion``. Defaults: ``prompt <- "prompt"``, ``reference <- "reference"``,
            ``gold_completion <- "gold_completion"`` when those columns exist; ``id`` from the
            first of ``task_id``/``id``/``unique_id`` present, else the row index.
        row_to_task: Instead of a field mapping, a function ``(row: dict, index: int) -> Task``
            for formats that need parsing (the mapping is still applied to ``row`` first, renaming
            mapped columns to task-field names).
    """

    def __init__(
        self,
        data: Any,
        fields: Mapping[str, str] | Sequence[str] | None = None,
        row_to_task: Callable[[dict[str, Any], int], Task] | None = None,
    ):
        self.rows = load_rows(data)
        self.fields = parse_field_mapping(fields)
        columns = set(self.rows.column_names)
        missing = {f: c for f, c in self.fields.items() if c not in columns}
        if missing:
            raise ValueError(f"field mapping names columns {missing} absent from the data; columns are {sorted(columns)}")
        if "id" not in self.fields:
            id_column = next((c for c in ID_COLUMNS if c in columns), None)
            if id_column is not None:
                self.fields["id"] = id_column
        for field in ("prompt", "reference", "gold_completion"):
            if field not in self.fields and field in columns:
                self.fields[field] = field
        if row_to_task is None and "prompt" not in self.fields:
            raise ValueError(f"no prompt column: map one with fields={{'prompt': COLUMN}}; columns are {sorted(columns)}")
        self.row_to_task = row_to_task
        self._ids: dict[str, int] | None = None

    @property
    def size(self) -> int:
        return len(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def task_id(self, index: int) -> str:
        column = self.fields.get("id")
        return str(index) if column is None else str(self.rows[index][column])

    def __getitem__(self, index: int) -> Task:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"task index must be an int, got {type(index).__name__}: {index!r}")
        if not 0 <= index < len(self.rows):
            raise IndexError(f"task index {index} out of range for a source of {len(self.rows)} tasks")
        raw = dict(self.rows[index])
        mapped = {field: raw.pop(column) for field, column in self.fields.items() if column in raw}
        mapped.setdefault("id", str(index))
        if self.row_to_task is not None:
            return self.row_to_task({**raw, **mapped}, index)
        return Task(metadata=raw, **mapped)

    def index_of(self, task_id: str) -> int:
        if self._ids is None:
            column = self.fields.get("id")
            if column is None:
                self._ids = {str(i): i for i in range(len(self.rows))}
            else:
                self._ids = {str(v): i for i, v in enumerate(self.rows[column])}
        try:
            return self._ids[str(task_id)]
        except KeyError:
            raise KeyError(f"unknown task_id {task_id!r} (source has {len(self.rows)} tasks)") from None


class ProceduralSource:
    """Deterministic generated tasks: ``generate(rng, index) -> Task`` with a per-task RNG.

    The RNG for task ``index`` is ``random.Random(f"{seed}:{index}")``, so a task depends only
    on ``(seed, index)``. Task ids have the form ``"{prefix}-{seed}-{index}"``.

    Args:
        generate: The task factory. It must use only the RNG it is given.
        seed: Seed of the whole task family.
        size: Number of tasks, or None for an infinite source.
        prefix: Task id prefix.
    """

    def __init__(
        self,
        generate: Callable[[random.Random, int], Task],
        seed: int = 0,
        size: int | None = None,
        prefix: str = "task",
    ):
        if size is not None and size <= 0:
            raise ValueError(f"size must be positive or None, got {size}")
        self.generate = generate
        self.seed = int(seed)
        self._size = size
        self.prefix = prefix

    @property
    def size(self) -> int | None:
        return self._size

    def task_id(self, index: int) -> str:
        return f"{self.prefix}-{self.seed}-{index}"

    def __getitem__(self, index: int) -> Task:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"task index must be an int, got {type(index).__name__}: {index!r}")
        if index < 0 or (self._size is not None and index >= self._size):
            raise IndexError(f"task index {index} out of range for a source of size {self._size}")
        task = self.generate(random.Random(f"{self.seed}:{index}"), index)
        if task.id != self.task_id(index):
            task = Task(self.task_id(index), task.prompt, task.reference, task.gold_completion, task.metadata)
        return task

    def index_of(self, task_id: str) -> int:
        head = f"{self.prefix}-{self.seed}-"
        text = str(task_id)
        if text.startswith(head) and text[len(head):].isdigit():
            index = int(text[len(head):])
            if self._size is None or index < self._size:
                return index
        raise KeyError(f"unknown task_id {task_id!r}: ids of this source look like {head}N")
