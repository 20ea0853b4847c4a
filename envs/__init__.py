"""Environment families built on :mod:`rlenv`: one sub-package per family (``rlenv.envs.math``, ...)."""
