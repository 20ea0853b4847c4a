"""``rlenv/MBPP-v0`` and ``rlenv/MBPP-Sanitized-v0``: short Python programming problems (MBPP).

Default data: ``google-research-datasets/mbpp`` on the Hugging Face Hub, CC BY 4.0, split
``test`` (also ``train``, ``validation``, ``prompt``):

* ``rlenv/MBPP-v0``, config ``full`` (500 test problems): ``task_id``, ``text`` (the problem),
  ``code`` (a reference solution), ``test_list`` (``assert`` lines), ``test_setup_code``,
  ``challenge_test_list``;
* ``rlenv/MBPP-Sanitized-v0``, config ``sanitized`` (257 test problems, hand-verified): ``task_id``,
  ``prompt`` (the problem), ``code``, ``test_list``, ``test_imports`` (import lines the tests
  need), ``source_file``.

Local rows in either format replace it (``data_files=``), optionally with ``time_limit_s`` (the
task's per-test time limit). As in the MBPP paper, the prompt shows the problem and its tests.
"""

from __future__ import annotations

import functools
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.code.formats import AssertTests
from rlenv.envs.code.verifier import CodeVerifier, default_verifier
from rlenv.hub import HubDataset, task_rows
from rlenv.sources import DatasetSource
from rlenv.types import Task

_SPLITS = ("train", "test", "validation", "prompt")
#: ``config=`` -> (env id, its default data).
MBPP_DATASETS: dict[str, tuple[str, HubDataset]] = {
    "full": ("rlenv/MBPP-v0", HubDataset(
        "google-research-datasets/mbpp", split="test", splits=_SPLITS, configs=("full",), licence="CC BY 4.0",
        columns=("task_id", "text", "code", "test_list", "test_setup_code", "challenge_test_list"))),
    "sanitized": ("rlenv/MBPP-Sanitized-v0", HubDataset(
        "google-research-datasets/mbpp", split="test", splits=_SPLITS, configs=("sanitized",), licence="CC BY 4.0",
        columns=("task_id", "prompt", "code", "test_list", "test_imports", "source_file"))),
}
PROMPT_FORMAT = "You are an expert Python programmer, and here is your task: {text} Your code should pass these tests:\n\n{tests}\n"


def mbpp_task(row: dict[str, Any], index: int, challenge_tests: bool = False) -> Task:
    """An MBPP row (full or sanitized) as a task; ``challenge_tests`` adds ``challenge_test_list`` to the hidden tests."""
    text = row.get("text", row.get("prompt"))
    for column, value in (("text (or prompt)", text), ("test_list", row.get("test_list"))):
        if value is None:
            raise ValueError(f"MBPP row {index} lacks column {column!r}; present: {sorted(row)}")
    shown = [str(t) for t in row["test_list"]]
    hidden = shown + ([str(t) for t in row.get("challenge_test_list") or []] if challenge_tests else [])
    tests = AssertTests.from_reference(hidden, str(row.get("test_setup_code") or ""), row.get("code"),
                                       row.get("time_limit_s"), "\n".join(row.get("test_imports") or ()))
    prompt = PROMPT_FORMAT.format(text=text, tests="\n".join(shown))
    metadata = {"text": text, "num_tests": tests.num_tests}
    return Task(row["id"], prompt, tests, row.get("code"), metadata)


def make_mbpp_env(data_files: Any = None, split: str | None = None, config: str = "full", challenge_tests: bool = False,
                  verifier: CodeVerifier | None = None, differential: str | None = None, **env_kwargs: Any) -> TextEnv:
    """Build ``rlenv/MBPP-v0`` (``config="full"``) or ``rlenv/MBPP-Sanitized-v0`` (``config="sanitized"``).

    Args:
        data_files: MBPP JSONL file(s) (e.g. ``mbpp.jsonl``) or a ``datasets.Dataset``;
            default: the Hub dataset's ``config`` (see the module docstring).
        split: ``"test"`` (default), ``"train"``, ``"validation"`` or ``"prompt"`` of the Hub
            dataset (not with ``data_files``).
        config: ``"full"`` or ``"sanitized"``.
        challenge_tests: Also run ``challenge_test_list`` (hidden from the prompt; full MBPP only).
        verifier: Defaults to ``CodeVerifier(differential="flag")``.
        differential: The default verifier's differential tests on fresh inputs (MBPP's hidden
            tests are the ones the prompt shows): ``"flag"`` (default: a completion that passes them
            but answers fresh inputs unlike the reference is reported by the ``code_tampering``
            detector), ``"withhold"`` (it also scores 0) or ``"off"``; see
            :class:`~rlenv.envs.code.verifier.CodeVerifier`.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv`.
    """
    if config not in MBPP_DATASETS:
        raise ValueError(f"config must be one of {sorted(MBPP_DATASETS)}, got {config!r}")
    env_id, hub = MBPP_DATASETS[config]
    row_to_task = functools.partial(mbpp_task, challenge_tests=challenge_tests)
    source = DatasetSource(task_rows(data_files, split, hub, env_id), row_to_task=row_to_task)
    return TextEnv(source, default_verifier(verifier, differential), **env_kwargs)
