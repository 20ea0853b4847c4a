"""``rlenv/GSM8K-v0``: grade-school math word problems.

Default data: ``openai/gsm8k`` on the Hugging Face Hub, config ``main``, split ``test`` (1319
problems; ``split="train"``: 7473), MIT licence. Rows have ``question`` and ``answer`` (a worked
solution ending in ``#### <number>``); a local file in that format replaces it (``data_files=``).
The reference is the number after the last ``####`` of the solution; the gold completion is the
solution.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.math.verifier import MathVerifier
from rlenv.hub import HubDataset, task_rows
from rlenv.sources import DatasetSource
from rlenv.types import Task

ENV_ID = "rlenv/GSM8K-v0"
#: The default data of ``rlenv/GSM8K-v0``.
HUB_DATASET = HubDataset("openai/gsm8k", split="test", splits=("train", "test"), columns=("question", "answer"),
                         licence="MIT", configs=("main",))
DEFAULT_FIELDS = {"prompt": "question", "gold_completion": "answer"}
PROMPT_TEMPLATE = "{prompt}\nLet's think step by step and output the final answer after \"####\"."
_TASK_FIELDS = ("id", "prompt", "reference", "gold_completion")


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
    split: str | None = None,
    fields: Mapping[str, str] | None = None,
    verifier: MathVerifier | None = None,
    prompt_template: str = PROMPT_TEMPLATE,
    **env_kwargs: Any,
) -> TextEnv:
    """Build ``rlenv/GSM8K-v0``.

    Args:
        data_files: JSONL/JSON/parquet file(s) or a ``datasets.Dataset`` in GSM8K's format;
            default: ``openai/gsm8k`` from the Hub (see the module docstring).
        split: ``"test"`` (default) or ``"train"`` of the Hub dataset (not with ``data_files``).
        fields: Column mapping onto task fields; default ``{"prompt": "question",
            "gold_completion": "answer"}`` (map ``reference`` to use a separate answer column).
        verifier: Defaults to ``MathVerifier()`` (accepts ``#### 42``, ``\\boxed{42}``, ...).
        prompt_template: ``str.format`` template around the question.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    rows = task_rows(data_files, split, HUB_DATASET, ENV_ID)
    source = DatasetSource(rows, {**DEFAULT_FIELDS, **dict(fields or {})}, row_to_task=gsm8k_task)
    return TextEnv(source, verifier or MathVerifier(), prompt_template=prompt_template, **env_kwargs)
