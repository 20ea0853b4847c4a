"""A content-addressed cache of judge replies: (judge, prompt) -> reply, in one SQLite file.

The key is the SHA-256 of the judge's identity (backend, model, sampling) and the full prompt,
which holds the candidate: the same candidate judged the same way is asked once, across processes
and runs. Only replies are cached, never failures (a timeout is asked again next time).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def verdict_key(identity: Any, prompt: Any) -> str:
    """The cache key of ``prompt`` asked of the judge described by ``identity`` (JSON-serializable)."""
    blob = json.dumps({"judge": identity, "prompt": prompt}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class VerdictCache:
    """Judge replies by :func:`verdict_key` in the SQLite file ``path`` (created if missing).

    A connection is opened per call, so a cache may be shared by threads and processes.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, reply TEXT NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=60)

    def get_many(self, keys: Sequence[str]) -> dict[str, str]:
        """The cached replies of ``keys`` (those not cached are absent)."""
        if not keys:
            return {}
        with self._connect() as db:
            found: dict[str, str] = {}
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                found.update(db.execute(f"SELECT key, reply FROM verdicts WHERE key IN ({marks})", chunk).fetchall())
        return found

    def put_many(self, items: dict[str, str]) -> None:
        """Store replies by key."""
        with self._connect() as db:
            db.executemany("INSERT OR REPLACE INTO verdicts (key, reply) VALUES (?, ?)", list(items.items()))

    def __len__(self) -> int:
        with self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
