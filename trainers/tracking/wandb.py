"""``report_to="wandb"``: a Weights & Biases run (``pip install 'rlenv-lm[wandb]'``) named after the training run,
in ``TrainerConfig.tracking_project``, its files under ``output_dir/wandb``. Its config holds the run's settings
and manifest; each step's metrics are logged at that step and each logged step's samples as a ``samples``
table. Without a network, set ``WANDB_MODE=offline`` (``wandb sync`` uploads the run later)."""

from __future__ import annotations

from rlenv.trainers.tracking.common import LoggingRunTracker, TrackedRun, require


class WandbTracker(LoggingRunTracker):
    """An open ``wandb`` run (its mode, entity, ... from wandb's own environment variables)."""

    def close(self) -> None:
        """Finish the run, then stop wandb's service process (``wandb.teardown``, which also finishes any
        other run of this process): wandb 0.31's ``finish`` can return before its core has written the
        run's records, and an offline run's ``.wandb`` file is complete only once the service stops."""
        self.run.finish()
        self.module.teardown()


def start(run: TrackedRun) -> WandbTracker:
    """Open ``run`` in Weights & Biases."""
    wandb = require("wandb", "wandb")
    run.output_dir.mkdir(parents=True, exist_ok=True)
    return WandbTracker(wandb, wandb.init(project=run.project, name=run.name, dir=str(run.output_dir),
                                          config={**run.config, "manifest": run.manifest}, reinit="create_new"))
