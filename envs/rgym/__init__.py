"""reasoning-gym's procedural datasets as rlenv environments: ``rlenv.make("reasoning_gym/<name>-v0", ...)``.

:func:`make_reasoning_gym_env` builds one (see :mod:`rlenv.envs.rgym.env`), :class:`ReasoningGymVerifier`
scores with the dataset's own ``score_answer`` (see :mod:`rlenv.envs.rgym.verifier`), and
:func:`register_reasoning_gym_envs` registers every dataset through the ``rlenv.envs`` entry points.
Needs the ``reasoning-gym`` package (``pip install 'rlenv-lm[reasoning-gym]'``), imported lazily.
"""

from rlenv.envs.rgym.env import make_reasoning_gym_env
from rlenv.envs.rgym.registration import register_reasoning_gym_envs
from rlenv.envs.rgym.verifier import ReasoningGymVerifier

__all__ = ["ReasoningGymVerifier", "make_reasoning_gym_env", "register_reasoning_gym_envs"]
