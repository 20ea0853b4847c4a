"""MkDocs hook: the installed package layout for the API reference.

The ``envs``, ``trainers`` and ``sandbox`` folders install as ``rlenv.envs``, ``rlenv.trainers`` and
``rlenv.sandbox`` (see ``setup.py``). The API reference reads the sources statically, so before the
build this hook lays the same tree out under ``build/api-src/rlenv`` as symbolic links into the
checkout; ``mkdocs.yml`` points the Python handler there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mkdocs.plugins import event_priority

FOLDERS = ("envs", "trainers", "sandbox")


@event_priority(100)
def on_config(config):
    root = Path(config.config_file_path).resolve().parent
    package = root / "build" / "api-src" / "rlenv"
    if package.exists():
        shutil.rmtree(package)
    package.mkdir(parents=True)
    for child in (root / "rlenv").iterdir():
        (package / child.name).symlink_to(child)
    for folder in FOLDERS:
        (package / folder).symlink_to(root / folder)
    return config
