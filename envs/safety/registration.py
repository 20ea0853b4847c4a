"""Registration of the safety environments: the family's ``rlenv.envs`` entry point (see ``pyproject.toml``).

Only strings are named here (the env modules are imported when an env is built).
"""

from rlenv.registry import register

#: The hack detectors audits run on this family's envs, innermost first.
SAFETY_DETECTORS = ("non_answer", "repetition")


def register_safety_envs() -> None:
    """Register the family's environment ids."""
    register(
        "rlenv/SafetyRM-v0",
        "rlenv.envs.safety.env:SafetyRMEnv",
        description="Prompts scored by a safety reward model or guard classifier (pass model=PATH), refusal-aware option",
        detectors=SAFETY_DETECTORS,
    )
