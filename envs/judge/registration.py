"""Registration of the judge environments and of the ``judge_injection`` detector: the family's
``rlenv.envs`` entry point (see ``pyproject.toml``).

Only strings are named here (the env modules are imported when an env is built).
"""

from rlenv.registry import register
from rlenv.wrappers.detector_registry import register_detector

#: The hack detectors audits run on this family's envs, innermost first.
JUDGE_DETECTORS = ("judge_injection", "repetition")


def register_judge_detectors() -> None:
    """Register the ``judge_injection`` detector."""
    register_detector("judge_injection", "rlenv.envs.judge.injection:JudgeInjection")


def register_judge_envs() -> None:
    """Register the family's detector and environment ids."""
    register_judge_detectors()
    register(
        "rlenv/Judge-v0",
        "rlenv.envs.judge.env:JudgeEnv",
        description="Open-ended prompts rewarded by an AI judge (score, rubric, reference-guided, pairwise or "
                    "ranking; pass judge_model=..., judge_backend=...), injection-hardened",
        detectors=JUDGE_DETECTORS,
    )
    register(
        "rlenv/ConstitutionJudge-v0",
        "rlenv.envs.judge.env:make_constitution_env",
        description="Prompts rewarded by an AI judge scoring each principle of a constitution (Constitutional AI)",
        detectors=JUDGE_DETECTORS,
    )
