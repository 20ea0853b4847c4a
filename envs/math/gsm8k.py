"""``rlenv/GSM8K-v0``: grade-school math word problems (GSM8K JSONL rows: ``question``, ``answer``).

The reference is the number after the last ``####`` of the ``answer`` solution; the gold
completion is that solution.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envs.math.verifier import MathVerifier
from rlenv.env import TextEnv
from rlenv.sources import DatasetSource
from rlenv.types import Task

#: Where the GSM8K splits live: ``shared/data/gsm8k`` beside the repository checkout.
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "gsm8k"
DEFAULT_FIELDS = {"prompt": "question", "gold_completion": "answer"}
PROMPT_TEMPLATE = "{prompt}\nLet's think step by step and output the final answer after \"####\"."
_TASK_FIELDS = ("id", "prompt", "reference", "gold_completion")


def default_data_file(split: str) -> Path:
    """The default JSONL of ``split``; a clear error when it is absent."""
    path = DEFAULT_DATA_DIR / f"{split}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(
            f"GSM8K data not found at {path} (expected ../shared/data/gsm8k/{split}.jsonl beside the repository); "
            "pass data_files='path/to/gsm8k.jsonl' (JSONL rows with 'question' and 'answer')")
    return path


def gsm8k_task(row: dict[str, Any], index: int) -> Task:
    """A GSM8K row (after field mapping) as a task: reference = the number after the last ``####``."""
    solution = row.get("gold_completion")
    reference = row.get("reference")
    if reference is None:
        if not isinstance(solution, str) or "####" not in solution:
            raise ValueError(f"GSM8K row {index}: the solution has no '#### <answer>' line "
                             f"(and no reference column): {solution!r:.200}")
        reference = solution.rsplit("####", 1)[1].strip()
    metadata = {k: v for k, v in row.items() if k not in _TASK_FIELDS}
    return Task(row["id"], row["prompt"], str(reference), solution, metadata)


def make_gsm8k_env(
    data_files: Any = None,
    split: str = "test",
    fields: Mapping[str, str] | None = None,
    verifier: MathVerifier | None = None,
    prompt_template: str = PROMPT_TEMPLATE,
    **env_kwargs: Any,
) -> TextEnv:
    """Build ``rlenv/GSM8K-v0``.

    Args:
        data_files: JSONL/JSON/parquet file(s) or a ``datasets.Dataset``; default
            ``../shared/data/gsm8k/{split}.jsonl`` relative to the repository root.
        split: ``"test"`` or ``"train"`` (only used for the default data).
        fields: Column mapping onto task fields; default ``{"prompt": "question",
            "gold_completion": "answer"}`` (map ``reference`` to use a separate answer column).
        verifier: Defaults to ``MathVerifier()`` (accepts ``#### 42``, ``\\boxed{42}``, ...).
        prompt_template: ``str.format`` template around the question.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    data = data_files if data_files is not None else str(default_data_file(split))
    source = DatasetSource(data, {**DEFAULT_FIELDS, **dict(fields or {})}, row_to_task=gsm8k_task)
    return TextEnv(source, verifier or MathVerifier(), prompt_template=prompt_template, **env_kwargs)
