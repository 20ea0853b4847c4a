"""Package layout: the ``envs``, ``trainers`` and ``sandbox`` folders install as sub-packages of ``rlenv``.

The folders stay at the top of the repository; setuptools maps them to ``rlenv.envs``, ``rlenv.trainers``
and ``rlenv.sandbox`` (in a wheel and in an editable install), so installing rlenv adds one import
name, ``rlenv``. The checkout also holds ``rlenv/envs``, ``rlenv/trainers`` and ``rlenv/sandbox`` as
symbolic links to those folders, so tools that read the sources without importing them (type
checkers, IDEs, the API reference) see the installed layout; the links are skipped here, the mapping
is what installs. Everything else is in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

#: Import name -> folder of each package root.
PACKAGE_ROOTS = {"rlenv": "rlenv", "rlenv.envs": "envs", "rlenv.trainers": "trainers", "rlenv.sandbox": "sandbox"}
#: The sub-package folders, linked under ``rlenv/`` for static tools: installed through their own root.
LINKED = [pattern for name in PACKAGE_ROOTS if name != "rlenv"
          for pattern in (name.removeprefix("rlenv."), name.removeprefix("rlenv.") + ".*")]

setup(
    package_dir=PACKAGE_ROOTS,
    packages=[f"{name}.{sub}" if sub else name
              for name, folder in PACKAGE_ROOTS.items()
              for sub in ["", *find_packages(where=folder, exclude=LINKED if name == "rlenv" else ())]],
)
