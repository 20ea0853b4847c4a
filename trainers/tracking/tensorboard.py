"""``report_to="tensorboard"``: TensorBoard event files under ``output_dir/tensorboard`` (``torch.utils.tensorboard``,
``pip install 'rlenv-lm[tensorboard]'``): each step's scalars, the run's name and settings as the ``run/settings``
text, its manifest as ``run/manifest``, and each logged step's samples as a ``samples`` Markdown table."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rlenv.trainers.tracking.common import SAMPLE_COLUMNS, TrackedRun, require, table_rows

#: The folder of ``output_dir`` the event files go to.
FOLDER = "tensorboard"


def _cell(value: Any) -> str:
    """``value`` as the text of one Markdown table cell."""
    return str(value).replace("|", "\\|").replace("\n", "<br>")


def _json_text(value: Any) -> str:
    """``value`` as JSON in a Markdown code block (TensorBoard renders text as Markdown)."""
    return "```\n" + json.dumps(value, indent=2, default=str) + "\n```"


class TensorBoardTracker:
    """A ``SummaryWriter`` on ``output_dir/tensorboard``."""

    def __init__(self, run: TrackedRun):
        require("tensorboard", "tensorboard")
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(run.output_dir / FOLDER))
        self.writer.add_text("run/settings", _json_text({"name": run.name, **run.config}), 0)
        self.writer.add_text("run/manifest", _json_text(run.manifest), 0)

    def log_metrics(self, metrics: Mapping[str, float], step: int) -> None:
        """One scalar per metric at ``step``."""
        for key, value in metrics.items():
            self.writer.add_scalar(key, value, step)

    def log_samples(self, rows: Sequence[Mapping[str, Any]], step: int) -> None:
        """The rows as one Markdown table, the ``samples`` text of ``step``."""
        cells = ["| " + " | ".join(SAMPLE_COLUMNS) + " |", "|" + "---|" * len(SAMPLE_COLUMNS)]
        cells += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in table_rows(rows)]
        self.writer.add_text("samples", "\n".join(cells), step)

    def close(self) -> None:
        """Flush and close the event file."""
        self.writer.close()


def start(run: TrackedRun) -> TensorBoardTracker:
    """Open ``run``'s TensorBoard logs."""
    return TensorBoardTracker(run)
