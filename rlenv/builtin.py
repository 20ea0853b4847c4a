"""Registration of rlenv's core environment (the families register through their ``rlenv.envs`` entry points)."""

from rlenv.registry import register

register(
    "rlenv/ExactMatch-v0",
    "rlenv.exact_match:make_exact_match_env",
    description="Normalized string match against a reference (your data_files=: prompt, reference; "
                "default: an 8-row embedded sample)",
)
