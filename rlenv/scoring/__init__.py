"""Where verification runs: one concept, one module per backend.

* :mod:`rlenv.scoring.local` — in this process, serially or on a ``concurrent.futures`` pool
  (:func:`verify_safely`, :func:`~rlenv.scoring.local.score_locally`);
* :mod:`rlenv.scoring.dispatch` — :func:`score_tasks`, which hands a batch to the executor it names
  (:func:`make_executor`);
* :mod:`rlenv.scoring.ray_backend` — ``executor="ray"``: scoring actors on a Ray cluster, placed by
  the verifier's placement (imported only then, with Ray);
* :mod:`rlenv.scoring.worker_pool` — the deadline-bounded worker processes that checks which can
  hang (math-verify, reasoning-gym scorers) run in.

Every path turns verifier exceptions into ``error`` results: one bad sample never sinks a batch.
"""

from rlenv.scoring.dispatch import (
    EXECUTORS,
    BatchExecutor,
    Executor,
    make_executor,
    release_executor,
    resolve_samples,
    score_tasks,
)
from rlenv.scoring.local import (
    LOCAL_EXECUTORS,
    PLACEMENTS,
    node_problems,
    score_locally,
    verifier_identity,
    verifier_placement,
    verify_safely,
)

__all__ = [
    "EXECUTORS", "LOCAL_EXECUTORS", "PLACEMENTS", "BatchExecutor", "Executor", "make_executor", "node_problems",
    "release_executor", "resolve_samples", "score_locally", "score_tasks", "verifier_identity", "verifier_placement",
    "verify_safely",
]
