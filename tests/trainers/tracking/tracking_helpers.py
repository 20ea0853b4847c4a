"""A real short training run that reports to the trackers, shared by the backends' tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rlenv.trainers import Trainer
from tests.trainers.trainer_helpers import MAX_NEW_TOKENS, make_task_env, tiny_policy, training_split

#: Two GRPO steps of a tiny policy, samples logged at both.
RUN = dict(steps=2, num_tasks=2, group_size=2, lr=1e-3, max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=4,
           log_samples=2, log_samples_every=1, progress=False)


def tracked_training(out: Path, report_to: str, **config: Any) -> tuple[list[dict[str, float]], list[dict[str, Any]]]:
    """Train a tiny policy for two GRPO steps with ``report_to`` into ``out``; returns the history and
    the rows of ``samples.jsonl`` (what the trackers must hold)."""
    model, tok = tiny_policy()
    history = Trainer(model, training_split(make_task_env()), "grpo", tokenizer=tok,
                      config=dict(RUN, output_dir=str(out), report_to=report_to, **config)).train()
    samples = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(history) == 2 and len(samples) == 4
    return history, samples


def wandb_records(path: Path) -> list[Any]:
    """The records of an offline run's ``.wandb`` file, decoded with wandb's own protobuf schema
    (``wandb.proto.wandb_internal_pb2.Record``).

    wandb 0.31 reads these files in its Go core only (``wandb sync``): its Python ``DataStore``
    reader is gone, so the framing is read here. It is LevelDB's log format: a 7-byte file header
    (``:W&B``, magic ``0xBEE1``, version 0), then 32 KiB blocks of chunks, each a 7-byte header
    (CRC-32, length, type: 1 full, 2 first, 3 middle, 4 last) and its bytes; a block's tail shorter
    than a header is padding. Each chunk's CRC-32 (of its type byte and bytes) is checked."""
    import struct
    import zlib

    from wandb.proto import wandb_internal_pb2

    block = 32 * 1024
    data = path.read_bytes()
    assert struct.unpack("<4sHB", data[:7]) == (b":W&B", 0xBEE1, 0), f"{path} is not a .wandb file"
    records, pending, pos = [], b"", 7
    while pos + 7 <= len(data):
        left = block - pos % block
        crc, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        if left < 7 or (length, kind) == (0, 0):  # the block's padding
            pos += left
            continue
        chunk = data[pos + 7:pos + 7 + length]
        assert zlib.crc32(bytes([kind]) + chunk) == crc, f"corrupt chunk at byte {pos} of {path}"
        pos += 7 + length
        pending += chunk
        if kind in (1, 4):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            records.append(record)
            pending = b""
    return records


def tracking_python() -> Path:
    """The interpreter of the tracking environment: ``RLENV_TRACKING_PYTHON``, else ``.venv-tracking``'s."""
    import os

    root = Path(__file__).resolve().parents[3]
    return Path(os.environ.get("RLENV_TRACKING_PYTHON") or root / ".venv-tracking" / "bin" / "python")


def run_cases_in_tracking_environment(cases: str) -> None:
    """Run the test module ``cases`` (a file of this folder) with pytest in the tracking environment; fail
    with its output unless every case passed.

    Trackio caps pillow below 13 and MLflow caps cachetools below 8, both lower than rlenv's lock, so
    they cannot be installed beside it: ``.ci/run`` builds ``.venv-tracking``, a virtualenv on top of
    rlenv's environment (a ``.pth`` file adds its site-packages after the venv's own) holding only
    trackio, mlflow-skinny, the SQLite store's sqlalchemy and alembic, and the pillow and cachetools
    they accept, at the versions of ``.ci/tracking-constraints.txt``."""
    import os
    import subprocess
    import sys

    import pytest

    python = tracking_python()
    if not python.exists():
        pytest.fail(f"the tracking environment is missing ({python}): build it as .ci/run does, or set "
                    "RLENV_TRACKING_PYTHON", pytrace=False)
    assert str(python) != sys.executable
    root = Path(__file__).resolve().parents[3]
    run = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={root}",
                          str(Path(__file__).with_name(cases))], cwd=root, capture_output=True, text=True,
                         timeout=900, env={**os.environ, "PYTHONPATH": str(root)})
    assert run.returncode == 0, f"{cases} in the tracking environment:\n{run.stdout[-6000:]}{run.stderr[-3000:]}"
