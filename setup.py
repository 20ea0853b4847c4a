"""Package layout: the ``envs``, ``trainers`` and ``sandbox`` folders install as sub-packages of ``rlenv``.

The folders stay at the top of the repository; setuptools maps them to ``rlenv.envs``, ``rlenv.trainers``
and ``rlenv.sandbox`` (in a wheel and in an editable install), so installing rlenv adds one import
name, ``rlenv``. Everything else is in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

#: Import name -> folder of each package root.
PACKAGE_ROOTS = {"rlenv": "rlenv", "rlenv.envs": "envs", "rlenv.trainers": "trainers", "rlenv.sandbox": "sandbox"}

setup(
    package_dir=PACKAGE_ROOTS,
    packages=[f"{name}.{sub}" if sub else name
              for name, folder in PACKAGE_ROOTS.items() for sub in ["", *find_packages(where=folder)]],
)
