"""Registration of the process-reward environments: the family's ``rlenv.envs`` entry point (see ``pyproject.toml``).

Only strings are named here (the env modules are imported when an env is built).
"""

from rlenv.registry import register


def register_prm_envs() -> None:
    """Register the family's environment ids."""
    register(
        "rlenv/PRM-v0",
        "rlenv.envs.prm.env:PRMEnv",
        description="Step-by-step scoring by a process reward model (pass model=PATH): aggregate + dense step rewards",
    )
