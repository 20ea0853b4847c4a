"""Environment families built on :mod:`rlenv`: one sub-package per family (``envs.math``, ...)."""
