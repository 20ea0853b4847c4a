"""Deprecated (one release): moved to :mod:`rlenv.scoring.worker_pool`; every name here warns and returns the new one."""

from rlenv.deprecation import moved_names

__getattr__ = moved_names(__name__, {
    "MAX_CHUNK": "rlenv.scoring.worker_pool.MAX_CHUNK",
    "MIN_WAKE_INTERVAL": "rlenv.scoring.worker_pool.MIN_WAKE_INTERVAL",
    "Outcome": "rlenv.scoring.worker_pool.Outcome",
    "PIPELINE_BYTES": "rlenv.scoring.worker_pool.PIPELINE_BYTES",
    "WorkerPool": "rlenv.scoring.worker_pool.WorkerPool",
    "WorkerStartError": "rlenv.scoring.worker_pool.WorkerStartError",
    "default_num_workers": "rlenv.scoring.worker_pool.default_num_workers",
    "resolve_handler": "rlenv.scoring.worker_pool.resolve_handler",
    "shared_pool": "rlenv.scoring.worker_pool.shared_worker_pool",
    "shared_worker_pool": "rlenv.scoring.worker_pool.shared_worker_pool",
    "worker_main": "rlenv.scoring.worker_pool.worker_main",
})
