"""``rlenv/MATH-v0``: competition problems in the MATH format (``problem`` with ``solution`` and/or ``answer``).

The reference is the ``answer`` column when the data has one, else the last ``\\boxed{}`` of the
solution; the gold completion is the solution, or ``\\boxed{answer}`` for rows with no worked
solution (AIME, DAPO-Math and most modern sets have only ``problem`` and ``answer``). Without
``data_files`` the env uses a small embedded sample (``envs/math/data/math_sample.jsonl``, written
for this project).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envs.math.extraction import last_boxed
from envs.math.verifier import MathVerifier
from rlenv.env import TextEnv
from rlenv.sources import DatasetSource, load_rows
from rlenv.types import Task

SAMPLE_FILE = Path(__file__).resolve().parent / "data" / "math_sample.jsonl"
DEFAULT_FIELDS = {"prompt": "problem", "gold_completion": "solution"}
PROMPT_TEMPLATE = "{prompt}\nPlease reason step by step, and put your final answer within \\boxed{{}}."
_TASK_FIELDS = ("id", "prompt", "reference", "gold_completion")


def math_task(row: dict[str, Any], index: int) -> Task:
    """A MATH row (after field mapping) as a task."""
    solution = row.get("gold_completion")
    reference = row.get("reference")
    if reference is None or str(reference).strip() == "":
        reference = last_boxed(solution) if isinstance(solution, str) else None
        if not reference:
            raise ValueError(f"MATH row {index}: no answer column and no \\boxed{{}} in the solution: {solution!r:.200}")
    if not isinstance(solution, str) or not solution.strip():
        solution = f"\\boxed{{{reference}}}"
    metadata = {k: v for k, v in row.items() if k not in _TASK_FIELDS}
    return Task(row["id"], row["prompt"], str(reference), solution, metadata)


def make_math_env(
    data_files: Any = None,
    fields: Mapping[str, str] | None = None,
    verifier: MathVerifier | None = None,
    prompt_template: str = PROMPT_TEMPLATE,
    **env_kwargs: Any,
) -> TextEnv:
    """Build ``rlenv/MATH-v0``.

    Args:
        data_files: JSONL/JSON/parquet file(s) or a ``datasets.Dataset`` with MATH-format rows;
            default: the embedded sample.
        fields: Column mapping onto task fields; default ``{"prompt": "problem",
            "gold_completion": "solution"}`` plus ``{"reference": "answer"}`` when an ``answer``
            column exists (and no ``gold_completion`` when there is no ``solution`` column).
        verifier: Defaults to ``MathVerifier()``.
        prompt_template: ``str.format`` template around the problem.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    rows = load_rows(data_files if data_files is not None else str(SAMPLE_FILE))
    mapping = dict(DEFAULT_FIELDS)
    if "answer" in rows.column_names:
        mapping["reference"] = "answer"
        if "solution" not in rows.column_names:
            del mapping["gold_completion"]
    mapping.update(fields or {})
    source = DatasetSource(rows, mapping, row_to_task=math_task)
    return TextEnv(source, verifier or MathVerifier(), prompt_template=prompt_template, **env_kwargs)
