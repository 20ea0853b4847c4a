"""``JudgeEnv``: open-ended prompts rewarded by an AI judge; ``make_constitution_env`` for a constitution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.resources import files
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.judge.constitution import DEFAULT_CONSTITUTION, Constitution, Principle, constitution_judge
from rlenv.envs.judge.model import JudgeModel
from rlenv.envs.judge.verifiers import (
    Criterion,
    PairwiseJudge,
    RankingJudge,
    ReferenceJudge,
    RubricJudge,
    ScoreJudge,
)
from rlenv.errors import check_choice
from rlenv.sources import DatasetSource

#: Judge kinds -> verifier classes.
JUDGES = {"score": ScoreJudge, "rubric": RubricJudge, "reference": ReferenceJudge, "pairwise": PairwiseJudge,
          "ranking": RankingJudge}


def _data(data_files: Any) -> Any:
    return data_files if data_files is not None else str(files("rlenv.envs.judge") / "prompts.jsonl")


class _JudgedEnv(TextEnv):
    """A :class:`rlenv.TextEnv` that owns its :attr:`judge_model`: closing the env closes the judge's
    backend (an in-process vLLM engine is shut down, an HTTP client closed)."""

    def __init__(self, source: DatasetSource, verifier: Any, judge_model: JudgeModel, **env_kwargs: Any):
        super().__init__(source, verifier, **env_kwargs)
        self.judge_model = judge_model

    def close(self) -> None:
        self.judge_model.close()
        super().close()


class JudgeEnv(_JudgedEnv):
    """Single-turn episodes rewarded by a judge verifier of :mod:`rlenv.envs.judge.verifiers`;
    :meth:`close` closes the judge's backend.

    Args:
        judge_model: the judge's checkpoint directory (``hf``, ``vllm``) or served model name (``openai``).
        data_files: rows with a ``prompt`` column (and ``reference`` for the reference-guided and
            pairwise judges); default: 8 embedded open-ended prompts with reference answers.
        fields: column mapping, as :class:`rlenv.sources.DatasetSource`.
        judge: one of :data:`JUDGES`.
        judge_backend: ``hf``, ``vllm`` or ``openai``.
        judge_options: options of :class:`~rlenv.envs.judge.model.JudgeModel` (``base_url``,
            ``chat``, ``cache``, ``concurrency``, ``rate_limit``, ``max_retries``, ``timeout``, ...).
        criteria: the rubric judge's criteria, as :class:`Criterion` or dicts of its fields.
        judge_kwargs: other options of the judge verifier (``scale``, ``pass_threshold``, ``template``).
        **env_kwargs: :class:`rlenv.TextEnv` options.

    With ``judge="ranking"``, rewards come from ranking the completions of one prompt together:
    score them as a batch (a vector env, TRL's reward function, :func:`rlenv.score`).

    Example::

        env = JudgeEnv("judge-model", judge="rubric", criteria=[{"name": "clarity", "description": "Is it clear?"}],
                       judge_options={"base_url": "http://127.0.0.1:8000/v1"})
    """

    def __init__(self, judge_model: str, data_files: Any = None, fields: Mapping[str, str] | None = None, *,
                 judge: str = "score", judge_backend: str = "openai", judge_options: Mapping[str, Any] | None = None,
                 criteria: Sequence[Criterion | Mapping[str, Any]] | None = None,
                 judge_kwargs: Mapping[str, Any] | None = None, **env_kwargs: Any):
        check_choice("judge", judge, tuple(JUDGES))
        if (criteria is not None) != (judge == "rubric"):
            raise ValueError(f"criteria go with judge='rubric' (and it needs them); got judge={judge!r}, "
                             f"criteria={criteria!r:.80}")
        model = JudgeModel(judge_backend, judge_model, **dict(judge_options or {}))
        kwargs = dict(judge_kwargs or {})
        if criteria is not None:
            kwargs["criteria"] = [c if isinstance(c, Criterion) else Criterion(**c) for c in criteria]
        super().__init__(DatasetSource(_data(data_files), fields), JUDGES[judge](model, **kwargs), model, **env_kwargs)


def make_constitution_env(judge_model: str, data_files: Any = None, fields: Mapping[str, str] | None = None, *,
                          principles: Sequence[Mapping[str, str]] | None = None, judge_backend: str = "openai",
                          judge_options: Mapping[str, Any] | None = None, **env_kwargs: Any) -> TextEnv:
    """An env rewarded by a constitution judge (:func:`~rlenv.envs.judge.constitution.constitution_judge`):
    the mean of the principles' scores. Closing it closes the judge's backend.

    Args:
        principles: ``[{"name": ..., "text": ...}, ...]``; default: :data:`DEFAULT_CONSTITUTION`.
        The other arguments are those of :class:`JudgeEnv`.
    """
    constitution = DEFAULT_CONSTITUTION if principles is None else Constitution(tuple(Principle(**p) for p in principles))
    model = JudgeModel(judge_backend, judge_model, **dict(judge_options or {}))
    return _JudgedEnv(DatasetSource(_data(data_files), fields), constitution_judge(model, constitution), model, **env_kwargs)
