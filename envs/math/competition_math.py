"""MATH-format competition problems: ``rlenv/MATH-v0``, ``MATH-Full-v0``, ``AIME-2024-v0``, ``AIME-2025-v0``.

Rows have ``problem`` with ``solution`` and/or ``answer``. The reference is the ``answer`` column
when the data has one, else the last ``\\boxed{}`` of the solution; the gold completion is the
solution, or ``\\boxed{answer}`` for rows with no worked solution (AIME, DAPO-Math and most modern
sets have only ``problem`` and ``answer``).

Default data (Hugging Face Hub; ``data_files=`` replaces it with local rows in the same format):

=======================  ==============================================  ===========================  =================
id                       dataset, split (size)                           columns                      licence
=======================  ==============================================  ===========================  =================
``rlenv/MATH-v0``        ``HuggingFaceH4/MATH-500``, test (500)          problem, solution, answer,   MIT (MATH,
                                                                         subject, level, unique_id    PRM800K)
``rlenv/MATH-Full-v0``   ``EleutherAI/hendrycks_math``, its 7 subject    problem, solution, level,    MIT
                         configs, test (5000) or train (7500)            type
``rlenv/AIME-2024-v0``   ``HuggingFaceH4/aime_2024``, train (30)         id, problem, solution,       none stated
                                                                         answer, url, year
``rlenv/AIME-2025-v0``   ``MathArena/aime_2025``, train (30)             problem_idx, problem,        CC BY-NC-SA 4.0
                                                                         answer
=======================  ==============================================  ===========================  =================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.math.extraction import last_boxed
from rlenv.envs.math.verifier import MathVerifier
from rlenv.hub import HubDataset, task_rows
from rlenv.sources import DatasetSource
from rlenv.types import Task

DEFAULT_FIELDS = {"prompt": "problem", "gold_completion": "solution"}
PROMPT_TEMPLATE = "{prompt}\nPlease reason step by step, and put your final answer within \\boxed{{}}."
_TASK_FIELDS = ("id", "prompt", "reference", "gold_completion")
#: The seven subject configs of the full MATH dataset.
MATH_SUBJECTS = ("algebra", "counting_and_probability", "geometry", "intermediate_algebra", "number_theory",
                 "prealgebra", "precalculus")


@dataclasses.dataclass(frozen=True)
class MathDataset:
    """A MATH-format dataset an env id reads by default: the id, its Hub data and its task-id column."""

    env_id: str
    hub: HubDataset
    id_column: str | None = None


#: ``dataset=`` name -> the default data of each MATH-format env id (see the module docstring).
MATH_DATASETS: dict[str, MathDataset] = {
    "math500": MathDataset("rlenv/MATH-v0", HubDataset(
        "HuggingFaceH4/MATH-500", split="test", splits=("test",),
        columns=("problem", "solution", "answer", "subject", "level", "unique_id"),
        licence="MIT (MATH and OpenAI's PRM800K split); the dataset card states none"), "unique_id"),
    "math": MathDataset("rlenv/MATH-Full-v0", HubDataset(
        "EleutherAI/hendrycks_math", split="test", splits=("train", "test"),
        columns=("problem", "solution", "level", "type"), licence="MIT", configs=MATH_SUBJECTS)),
    "aime_2024": MathDataset("rlenv/AIME-2024-v0", HubDataset(
        "HuggingFaceH4/aime_2024", split="train", splits=("train",),
        columns=("id", "problem", "solution", "answer", "url", "year"),
        licence="none stated on the dataset card"), "id"),
    "aime_2025": MathDataset("rlenv/AIME-2025-v0", HubDataset(
        "MathArena/aime_2025", split="train", splits=("train",), columns=("problem_idx", "problem", "answer"),
        licence="CC BY-NC-SA 4.0"), "problem_idx"),
}


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
    split: str | None = None,
    dataset: str = "math500",
    fields: Mapping[str, str] | None = None,
    verifier: MathVerifier | None = None,
    prompt_template: str = PROMPT_TEMPLATE,
    **env_kwargs: Any,
) -> TextEnv:
    """Build ``rlenv/MATH-v0`` (and the other MATH-format ids, through ``dataset``).

    Args:
        data_files: JSONL/JSON/parquet file(s) or a ``datasets.Dataset`` with MATH-format rows;
            default: the Hub dataset named by ``dataset``.
        split: A split of that Hub dataset (default: its own, see the module docstring; not with
            ``data_files``).
        dataset: Which default data: a key of :data:`MATH_DATASETS` (``"math500"``, ``"math"``,
            ``"aime_2024"``, ``"aime_2025"``).
        fields: Column mapping onto task fields; default ``{"prompt": "problem",
            "gold_completion": "solution"}`` plus ``{"reference": "answer"}`` when an ``answer``
            column exists (and no ``gold_completion`` when there is no ``solution`` column), and
            the dataset's task-id column when the data has it.
        verifier: Defaults to ``MathVerifier()``.
        prompt_template: ``str.format`` template around the problem.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    if dataset not in MATH_DATASETS:
        raise ValueError(f"dataset must be one of {sorted(MATH_DATASETS)}, got {dataset!r}")
    default = MATH_DATASETS[dataset]
    rows = task_rows(data_files, split, default.hub, default.env_id)
    mapping = dict(DEFAULT_FIELDS)
    if default.id_column is not None and default.id_column in rows.column_names:
        mapping["id"] = default.id_column
    if "answer" in rows.column_names:
        mapping["reference"] = "answer"
        if "solution" not in rows.column_names:
            del mapping["gold_completion"]
    mapping.update(fields or {})
    source = DatasetSource(rows, mapping, row_to_task=math_task)
    return TextEnv(source, verifier or MathVerifier(), prompt_template=prompt_template, **env_kwargs)
