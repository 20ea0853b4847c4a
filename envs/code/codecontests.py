"""``rlenv/CodeContests-v0``: competitive programming, stdin/stdout programs (DeepMind CodeContests).

Default data: ``deepmind/code_contests`` on the Hugging Face Hub, CC BY 4.0, split ``test`` (165
problems; also ``valid``: 117, ``train``: 13 328). Every problem is a program reading standard
input and writing standard output, which is what the sandbox's program mode runs (APPS and
LiveCodeBench mix in call-based problems and need a loading script that ``datasets`` no longer
runs). Columns read: ``name`` (the task id), ``description`` (the prompt), ``public_tests`` and
``private_tests`` (``{"input": [...], "output": [...]}``; ``generated_tests`` too with
``generated_tests=True``), ``solutions`` (``{"language": [...], "solution": [...]}``: the first
Python 3 one is the gold completion), ``time_limit`` (``{"seconds", "nanos"}``), ``difficulty``,
``source``, ``cf_rating``, ``cf_tags``. Local rows in that format replace it (``data_files=``).

Outputs are compared token by token (``compare="tokens"``, as CodeContests' own checker does
for most problems). The problem's time limit is recorded in the task metadata
(``time_limit_s``), not enforced: it was set for C++; calibrate per-task limits with
:func:`rlenv.envs.code.timing.calibrate_time_limits`.
"""

from __future__ import annotations

import functools
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.code.codeio import PROMPT_TEMPLATE
from rlenv.envs.code.formats import IOTests
from rlenv.envs.code.verifier import CodeVerifier
from rlenv.hub import HubDataset, task_rows
from rlenv.sources import DatasetSource
from rlenv.types import Task

ENV_ID = "rlenv/CodeContests-v0"
#: The default data of ``rlenv/CodeContests-v0``.
HUB_DATASET = HubDataset(
    "deepmind/code_contests", split="test", splits=("train", "valid", "test"), licence="CC BY 4.0",
    columns=("name", "description", "public_tests", "private_tests", "generated_tests", "solutions", "time_limit",
             "difficulty", "source", "cf_rating", "cf_tags"))
#: CodeContests' language code of Python 3 solutions.
PYTHON3 = 3
_METADATA = ("difficulty", "source", "cf_rating", "cf_tags")


def _cases(tests: dict[str, list[str]] | None) -> list[tuple[str, str]]:
    if not tests:
        return []
    return list(zip(tests.get("input") or [], tests.get("output") or [], strict=True))


def python3_solution(solutions: dict[str, list[Any]] | None) -> str | None:
    """The first Python 3 solution of a ``solutions`` column, fenced, or None."""
    if not solutions:
        return None
    code = next((s for lang, s in zip(solutions["language"], solutions["solution"], strict=True) if lang == PYTHON3),
                None)
    return None if code is None else f"```python\n{code}\n```"


def codecontests_task(row: dict[str, Any], index: int, generated_tests: bool = False, compare: str = "tokens") -> Task:
    """A CodeContests row (its ``name`` mapped to ``id``) as a task: public and private (and optionally
    generated) tests, all hidden."""
    for column in ("description", "public_tests"):
        if column not in row:
            raise ValueError(f"CodeContests row {index} lacks column {column!r}; present: {sorted(row)}")
    cases = _cases(row["public_tests"]) + _cases(row.get("private_tests"))
    if generated_tests:
        cases += _cases(row.get("generated_tests"))
    if not cases:
        raise ValueError(f"CodeContests row {index} ({row['id']!r}) has no tests")
    tests = IOTests(tuple(cases), compare)
    limit = row.get("time_limit") or {}
    metadata = {k: row[k] for k in _METADATA if k in row}
    metadata.update(num_tests=tests.num_tests,
                    time_limit_s=(limit.get("seconds") or 0) + (limit.get("nanos") or 0) / 1e9 if limit else None)
    return Task(row["id"], row["description"], tests, python3_solution(row.get("solutions")), metadata)


def make_codecontests_env(data_files: Any = None, split: str | None = None, generated_tests: bool = False,
                          compare: str = "tokens", verifier: CodeVerifier | None = None,
                          prompt_template: str = PROMPT_TEMPLATE, **env_kwargs: Any) -> TextEnv:
    """Build ``rlenv/CodeContests-v0``.

    Args:
        data_files: CodeContests-format JSONL/JSON/parquet file(s) or a ``datasets.Dataset``;
            default: ``deepmind/code_contests`` from the Hub (see the module docstring).
        split: ``"test"`` (default), ``"valid"`` or ``"train"`` of the Hub dataset (not with
            ``data_files``).
        generated_tests: Also run the problem's ``generated_tests`` (many, and slow).
        compare: Output comparison, ``"tokens"`` (default), ``"exact"`` or ``"numeric"``.
        verifier: Defaults to ``CodeVerifier()``.
        prompt_template: ``str.format`` template around the problem statement.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    row_to_task = functools.partial(codecontests_task, generated_tests=generated_tests, compare=compare)
    source = DatasetSource(task_rows(data_files, split, HUB_DATASET, ENV_ID), {"id": "name"}, row_to_task=row_to_task)
    return TextEnv(source, verifier or CodeVerifier(), prompt_template=prompt_template, **env_kwargs)
