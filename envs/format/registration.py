"""Registration of the format environments: the family's ``rlenv.envs`` entry point (see ``pyproject.toml``).

Only strings are named here (the env modules are imported when an env is built).
"""

from rlenv.registry import register


def register_format_envs() -> None:
    """Register the family's environment ids."""
    register(
        "rlenv/Format-v0",
        "rlenv.envs.format.env:make_format_env",
        description="Required output format (think/answer tags, regex, JSON Schema, length), optionally with correctness "
                    "(your data_files=; default: a 6-row embedded sample)",
    )
