"""``rlenv/ExactMatch-v0``: normalized string match of the completion against a reference."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from rlenv.env import TextEnv
from rlenv.sources import DatasetSource
from rlenv.types import RewardResult, Status, Task

_SPACES = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """NFKC, case-fold, collapse whitespace, strip surrounding whitespace, quotes and final period."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _SPACES.sub(" ", text).strip()
    return text.strip("\"'`").rstrip(".").strip()


class ExactMatchVerifier:
    """Correct when the normalized completion equals the normalized reference.

    The reference may be a string or a list of accepted strings. An empty completion is
    ``unparsable``; anything else that does not match is ``incorrect``.
    """

    name = "exact_match"
    version = "1"

    def __call__(self, task: Task, completion: str) -> RewardResult:
        accepted = task.reference if isinstance(task.reference, (list, tuple)) else [task.reference]
        if any(not isinstance(a, str) for a in accepted) or not accepted:
            raise TypeError(f"task {task.id}: reference must be a str or list of str, got {task.reference!r}")
        answer = normalize_text(completion)
        if not answer:
            return RewardResult(0.0, Status.UNPARSABLE, verifier=self.name, verifier_version=self.version,
                                details={"answer": answer})
        ok = answer in {normalize_text(a) for a in accepted}
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, {"exact_match": float(ok)},
                            verifier=self.name, verifier_version=self.version, details={"answer": answer})

    def equivalent(self, task: Task, a: str, b: str) -> bool:
        """Whether two completions give the same answer (equal after :func:`normalize_text`); for maj@k."""
        return normalize_text(a) == normalize_text(b)


def _with_gold(row: dict[str, Any], index: int) -> Task:
    reference = row["reference"]
    gold = row.get("gold_completion") or (reference if isinstance(reference, str) else reference[0])
    meta = {k: v for k, v in row.items() if k not in ("id", "prompt", "reference", "gold_completion")}
    return Task(row["id"], row["prompt"], reference, gold, meta)


def make_exact_match_env(
    data_files: Any = None, fields: Mapping[str, str] | None = None, **env_kwargs: Any
) -> TextEnv:
    """Build an exact-match env on ``data_files`` (default: a small embedded sample).

    Rows need a prompt and a reference column (default names ``prompt`` and ``reference``;
    remap with ``fields={"prompt": "question", "reference": "answer"}``).
    """
    data = data_files if data_files is not None else str(files("rlenv.data") / "exact_match_sample.jsonl")
    source = DatasetSource(data, fields, row_to_task=_with_gold)
    if "reference" not in source.fields:
        raise ValueError(f"ExactMatch data needs a reference column; columns are {source.rows.column_names}")
    return TextEnv(source, ExactMatchVerifier(), **env_kwargs)
