"""``PRMEnv``: problems whose completions are scored step by step by a process reward model."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rlenv.composition import Gate, WeightedSum
from rlenv.env import TextEnv
from rlenv.envs.prm.steps import StepSplitter
from rlenv.envs.prm.stepwise import stepwise_source
from rlenv.envs.prm.synthetic import arithmetic_stepwise_rows
from rlenv.envs.prm.verifier import PRMVerifier
from rlenv.errors import check_choice
from rlenv.sources import DatasetSource, load_rows

#: How an outcome verifier combines with the PRM.
OUTCOME_MODES = ("gate", "sum")


def default_problems(n: int = 64, seed: int = 0) -> list[dict[str, Any]]:
    """Synthetic arithmetic problems (:mod:`rlenv.envs.prm.synthetic`) as ``{"id", "prompt", "reference"}`` rows.

    No gold completions: which solutions a PRM accepts depends on the checkpoint.
    """
    return [{"id": f"arith-{seed}-{i}", "prompt": row["prompt"], "reference": str(row["answer"])}
            for i, row in enumerate(arithmetic_stepwise_rows(n, seed=seed))]


class PRMEnv(TextEnv):
    """Single-turn episodes rewarded by a PRM: an aggregate value plus dense ``step_rewards``.

    Args:
        model: Local directory or hub name of the PRM checkpoint.
        data_files: Rows with a prompt column; TRL ``stepwise_supervision`` rows (``prompt``,
            ``completions``, ``labels``) are recognised (the gold completion is the joined steps of
            an all-correct row). Default: :func:`default_problems`.
        fields: Column mapping for plain prompt rows.
        splitter: A :class:`StepSplitter` or its keyword arguments as a dict (JSON-friendly).
        prm_kwargs: Other :class:`PRMVerifier` options (``kind``, ``aggregation``, ``dense``, ``eta``,
            ``step_suffix``, ``device``, ``batch_size``, ...).
        outcome: Optional outcome verifier (e.g. a math verifier); with ``outcome_mode="gate"``
            the PRM reward (and its dense steps) is paid only when the outcome is correct; with
            ``"sum"`` the reward is ``outcome + prm_weight * prm``.
        outcome_mode: ``"gate"`` or ``"sum"``.
        prm_weight: Weight of the PRM in ``"sum"`` mode.
        step_separator: Joins the steps of stepwise rows into gold completions (default: the
            verifier's ``step_suffix``, which its default splitter cuts on).
        **env_kwargs: :class:`rlenv.TextEnv` options.

    Example::

        env = PRMEnv("path/to/prm", splitter={"mode": "step_k"}, prm_kwargs={"aggregation": "min", "dense": "delta"})
    """

    def __init__(
        self,
        model: str | os.PathLike,
        data_files: Any = None,
        fields: Mapping[str, str] | None = None,
        *,
        splitter: StepSplitter | Mapping[str, Any] | None = None,
        prm_kwargs: Mapping[str, Any] | None = None,
        outcome: Any = None,
        outcome_mode: str = "gate",
        prm_weight: float = 1.0,
        step_separator: str | None = None,
        **env_kwargs: Any,
    ):
        check_choice("outcome_mode", outcome_mode, OUTCOME_MODES)
        if isinstance(splitter, Mapping):
            splitter = StepSplitter(**splitter)
        prm = PRMVerifier(model, splitter=splitter, **dict(prm_kwargs or {}))
        rows = load_rows(data_files if data_files is not None else default_problems())
        if {"completions", "labels"} <= set(rows.column_names):
            source = stepwise_source(rows, prm.step_suffix if step_separator is None else step_separator)
        else:
            source = DatasetSource(rows, fields)
        verifier: Any = prm
        if outcome is not None:
            if outcome_mode == "gate":
                verifier = Gate(prm, condition=outcome, reward_name="prm", condition_name="outcome")
            else:
                verifier = WeightedSum({"outcome": (outcome, 1.0), "prm": (prm, prm_weight)}, status_from="outcome")
        super().__init__(source, verifier, **env_kwargs)
