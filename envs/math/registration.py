"""Registration of the math environments: the family's ``rlenv.envs`` entry point (see ``pyproject.toml``).

Only strings are named here (the env modules are imported when an env is built).
"""

from rlenv.registry import register
from rlenv.wrappers.detector_registry import TOOL_DETECTORS

#: The hack detectors audits run on this family's envs, innermost first.
MATH_DETECTORS = ("answer_hedging", "prompt_echo", "format_gaming", "repetition", "non_answer")


def register_math_envs() -> None:
    """Register the family's environment ids."""
    register(
        "rlenv/GSM8K-v0",
        "rlenv.envs.math.gsm8k:make_gsm8k_env",
        description="GSM8K word problems (Hub: openai/gsm8k, test split), graded by math-verify",
        detectors=MATH_DETECTORS,
    )
    register(
        "rlenv/MATH-v0",
        "rlenv.envs.math.competition_math:make_math_env",
        description="MATH-500 competition problems (Hub: HuggingFaceH4/MATH-500), graded by math-verify",
        detectors=MATH_DETECTORS,
    )
    register(
        "rlenv/MATH-Full-v0",
        "rlenv.envs.math.competition_math:make_math_env",
        description="The full MATH dataset, 7 subjects (Hub: EleutherAI/hendrycks_math, test split), graded by math-verify",
        dataset="math",
        detectors=MATH_DETECTORS,
    )
    register(
        "rlenv/AIME-2024-v0",
        "rlenv.envs.math.competition_math:make_math_env",
        description="AIME 2024 I and II, 30 problems (Hub: HuggingFaceH4/aime_2024), graded by math-verify",
        dataset="aime_2024",
        detectors=MATH_DETECTORS,
    )
    register(
        "rlenv/AIME-2025-v0",
        "rlenv.envs.math.competition_math:make_math_env",
        description="AIME 2025 I and II, 30 problems (Hub: MathArena/aime_2025), graded by math-verify",
        dataset="aime_2025",
        detectors=MATH_DETECTORS,
    )
    for env_id, base, what in (("rlenv/MathPython-v0", "rlenv/Arithmetic-v0", "seeded arithmetic"),
                               ("rlenv/GSM8K-Python-v0", "rlenv/GSM8K-v0", "GSM8K"),
                               ("rlenv/MATH-Python-v0", "rlenv/MATH-v0", "MATH-500"),
                               ("rlenv/MATH-Full-Python-v0", "rlenv/MATH-Full-v0", "The full MATH dataset"),
                               ("rlenv/AIME-2024-Python-v0", "rlenv/AIME-2024-v0", "AIME 2024"),
                               ("rlenv/AIME-2025-Python-v0", "rlenv/AIME-2025-v0", "AIME 2025")):
        register(
            env_id,
            "rlenv.envs.math.python_tool:make_math_python_env",
            description=f"{what} with a sandboxed Python tool (multi-turn); the final answer graded by math-verify",
            base=base,
            detectors=MATH_DETECTORS + TOOL_DETECTORS,
        )
    register(
        "rlenv/Arithmetic-Calculator-v0",
        "rlenv.envs.math.calculator:make_arithmetic_calculator_env",
        description="Seeded arithmetic with a calculator tool (multi-turn, in process, offline); the final answer "
                    "graded as rlenv/Arithmetic-v0 grades it",
        detectors=MATH_DETECTORS + TOOL_DETECTORS,
    )
    register(
        "rlenv/Arithmetic-v0",
        "rlenv.envs.math.arithmetic:make_arithmetic_env",
        description="Seeded infinite integer arithmetic with difficulty levels 1-5 (answer after ####; procedural, offline)",
        detectors=MATH_DETECTORS,
    )
