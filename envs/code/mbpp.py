"""``rlenv/MBPP-v0``: short Python programming problems, original MBPP JSONL format.

Rows have ``task_id``, ``text`` (the problem), ``code`` (a reference solution), ``test_list``
(``assert`` lines), ``test_setup_code`` and ``challenge_test_list``, and optionally
``time_limit_s`` (the task's per-test time limit) and ``test_imports`` (sanitized MBPP's
import lines for the tests). As in the MBPP paper, the prompt shows the
problem and its tests. Pass the MBPP file with ``data_files=``; without it a
small embedded sample in the same format is used (``envs/code/data/mbpp_sample.jsonl``).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from envs.code.formats import AssertTests
from envs.code.verifier import CodeVerifier
from rlenv.env import TextEnv
from rlenv.sources import DatasetSource
from rlenv.types import Task

SAMPLE_FILE = Path(__file__).resolve().parent / "data" / "mbpp_sample.jsonl"
PROMPT_FORMAT = "You are an expert Python programmer, and here is your task: {text} Your code should pass these tests:\n\n{tests}\n"


def mbpp_task(row: dict[str, Any], index: int, challenge_tests: bool = False) -> Task:
    """An MBPP row as a task; ``challenge_tests`` adds ``challenge_test_list`` to the hidden tests."""
    for column in ("text", "test_list"):
        if column not in row:
            raise ValueError(f"MBPP row {index} lacks column {column!r}; present: {sorted(row)}")
    shown = [str(t) for t in row["test_list"]]
    hidden = shown + ([str(t) for t in row.get("challenge_test_list") or []] if challenge_tests else [])
    tests = AssertTests.from_reference(hidden, str(row.get("test_setup_code") or ""), row.get("code"),
                                       row.get("time_limit_s"), "\n".join(row.get("test_imports") or ()))
    prompt = PROMPT_FORMAT.format(text=row["text"], tests="\n".join(shown))
    metadata = {"text": row["text"], "num_tests": tests.num_tests}
    return Task(row["id"], prompt, tests, row.get("code"), metadata)


def make_mbpp_env(data_files: Any = None, challenge_tests: bool = False, verifier: CodeVerifier | None = None,
                  **env_kwargs: Any) -> TextEnv:
    """Build ``rlenv/MBPP-v0``.

    Args:
        data_files: MBPP JSONL file(s) (e.g. ``mbpp.jsonl``) or a ``datasets.Dataset``;
            default: the embedded sample.
        challenge_tests: Also run ``challenge_test_list`` (hidden from the prompt).
        verifier: Defaults to ``CodeVerifier()``.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    data = data_files if data_files is not None else str(SAMPLE_FILE)
    source = DatasetSource(data, row_to_task=functools.partial(mbpp_task, challenge_tests=challenge_tests))
    return TextEnv(source, verifier or CodeVerifier(), **env_kwargs)
