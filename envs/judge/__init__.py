"""AI-judge rewards (RLAIF): score, rubric, reference-guided, pairwise and ranking judges hardened
against injection, the ``judge_injection`` detector, and Constitutional AI (see ``docs/judges.md``)."""

from rlenv.envs.judge.model import JudgeModel, JudgeReply, judge_usage
from rlenv.envs.judge.parsing import JudgeVerdictError
from rlenv.envs.judge.templates import JudgeTemplate
from rlenv.envs.judge.verifiers import (
    Criterion,
    PairwiseJudge,
    RankingJudge,
    ReferenceJudge,
    RubricJudge,
    ScoreJudge,
)

__all__ = ["Criterion", "JudgeModel", "JudgeReply", "JudgeTemplate", "JudgeVerdictError", "PairwiseJudge",
           "RankingJudge", "ReferenceJudge", "RubricJudge", "ScoreJudge", "judge_usage"]
