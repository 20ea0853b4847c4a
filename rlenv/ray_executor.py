"""Deprecated (one release): moved to :mod:`rlenv.scoring.ray_backend`; every name here warns and returns the new one."""

from rlenv.deprecation import moved_names

__getattr__ = moved_names(__name__, {
    "MAX_VERIFIERS": "rlenv.scoring.ray_backend.MAX_VERIFIERS",
    "NoScoringNodes": "rlenv.scoring.ray_backend.NoScoringNodes",
    "RayExecutor": "rlenv.scoring.ray_backend.RayExecutor",
    "ScoringActor": "rlenv.scoring.ray_backend.ScoringActor",
    "WAIT_WARNING_S": "rlenv.scoring.ray_backend.WAIT_WARNING_S",
    "connect": "rlenv.scoring.ray_backend.connect",
    "shared_executor": "rlenv.scoring.ray_backend.shared_executor",
})
