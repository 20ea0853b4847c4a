"""``rlenv/CodeIO-v0``: write a program that reads stdin and prints the answer (user data).

Rows have ``prompt`` and either ``tests`` (a list of ``{"input": ..., "output": ...}``) or
parallel ``inputs`` / ``outputs`` lists; optionally ``compare`` (``exact``, ``tokens`` or
``numeric``) and a gold solution in ``gold_completion`` or ``solution``. Without ``data_files``
a small embedded sample is used (``envs/code/data/codeio_sample.jsonl``).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.code.formats import IOTests
from rlenv.envs.code.verifier import CodeVerifier
from rlenv.sources import DatasetSource
from rlenv.types import Task

SAMPLE_FILE = Path(__file__).resolve().parent / "data" / "codeio_sample.jsonl"
PROMPT_TEMPLATE = ("{prompt}\n\nWrite a complete Python 3 program that reads the input from standard input and "
                   "prints the answer to standard output. Put the program in a ```python code block.")
_TASK_FIELDS = ("id", "prompt", "reference", "gold_completion", "tests", "inputs", "outputs", "solution", "compare")


def io_cases(row: dict[str, Any], index: int) -> tuple[tuple[str, str], ...]:
    """The ``(stdin, expected)`` cases of a row (``tests`` or ``inputs``/``outputs``)."""
    if row.get("tests") is not None:
        tests = row["tests"]
        if not isinstance(tests, list) or not all(isinstance(t, dict) and {"input", "output"} <= set(t) for t in tests):
            raise ValueError(f"CodeIO row {index}: 'tests' must be a list of {{'input': ..., 'output': ...}}, "
                             f"got {tests!r:.200}")
        return tuple((str(t["input"]), str(t["output"])) for t in tests)
    inputs, outputs = row.get("inputs"), row.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise ValueError(f"CodeIO row {index}: give 'tests' or equally long 'inputs' and 'outputs' lists; "
                         f"columns present: {sorted(row)}")
    return tuple((str(i), str(o)) for i, o in zip(inputs, outputs, strict=True))


def codeio_task(row: dict[str, Any], index: int, compare: str = "tokens", rel_tol: float = 1e-6,
                abs_tol: float = 1e-6) -> Task:
    """A CodeIO row as a task; a row's own ``compare`` column overrides ``compare``."""
    tests = IOTests(io_cases(row, index), row.get("compare") or compare, rel_tol, abs_tol)
    gold = row.get("gold_completion") or row.get("solution")
    metadata = {k: v for k, v in row.items() if k not in _TASK_FIELDS}
    metadata["num_tests"] = tests.num_tests
    return Task(row["id"], row["prompt"], tests, gold, metadata)


def make_codeio_env(data_files: Any = None, compare: str = "tokens", rel_tol: float = 1e-6, abs_tol: float = 1e-6,
                    verifier: CodeVerifier | None = None, prompt_template: str = PROMPT_TEMPLATE,
                    **env_kwargs: Any) -> TextEnv:
    """Build ``rlenv/CodeIO-v0``.

    Args:
        data_files: JSONL/JSON/parquet file(s), a list of dict rows or a ``datasets.Dataset``;
            default: the embedded sample.
        compare: Default output comparison, ``"exact"``, ``"tokens"`` or ``"numeric"``.
        rel_tol, abs_tol: Float tolerances of ``"numeric"``.
        verifier: Defaults to ``CodeVerifier()``.
        prompt_template: ``str.format`` template around the problem statement.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    data = data_files if data_files is not None else str(SAMPLE_FILE)
    row_to_task = functools.partial(codeio_task, compare=compare, rel_tol=rel_tol, abs_tol=abs_tol)
    source = DatasetSource(data, row_to_task=row_to_task)
    return TextEnv(source, verifier or CodeVerifier(), prompt_template=prompt_template, **env_kwargs)
