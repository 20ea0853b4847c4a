"""Registration of the environments that ship with rlenv (entry points are imported lazily)."""

from rlenv.registry import register

register(
    "rlenv/ExactMatch-v0",
    "rlenv.exact_match:make_exact_match_env",
    description="Normalized string match against a reference (user data: prompt, reference)",
)
