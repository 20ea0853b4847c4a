"""JSON Lines files (one JSON object per line): the reader shared by the CLI and the evaluation results."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def read_jsonl(path: str | Path, what: str = "file", required_keys: Sequence[str] = (),
               drop_truncated_tail: bool = False, errors: str = "strict") -> list[dict[str, Any]]:
    """The rows of a JSONL file, in file order; blank lines are skipped.

    Args:
        path: The file.
        what: What the file is, for the errors (e.g. ``"result file"``).
        required_keys: Keys every row must have.
        drop_truncated_tail: Drop, with a warning, a last line that is not valid JSON (what an
            interrupted append leaves behind) instead of raising.
        errors: How bytes that are not UTF-8 are decoded (:func:`open`'s ``errors``): ``"strict"``
            raises, ``"replace"`` reads them as U+FFFD.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        ValueError: A line is not valid JSON, not a JSON object or lacks a required key; the message
            names ``path:line``.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{what} not found: {path}")
    with path.open(encoding="utf-8", errors=errors) as fh:
        numbered = [(lineno, line) for lineno, line in enumerate(fh, 1) if line.strip()]
    rows = []
    for position, (lineno, line) in enumerate(numbered, 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            if drop_truncated_tail and position == len(numbered):
                logger.warning("%s: dropping the incomplete last line (an interrupted run)", path)
                continue
            raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{lineno}: expected a JSON object, got {type(row).__name__}")
        missing = [key for key in required_keys if key not in row]
        if missing:
            raise ValueError(f"{path}:{lineno}: {what} row lacks {missing} (needs {list(required_keys)})")
        rows.append(row)
    return rows
