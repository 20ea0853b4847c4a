"""Environment families for rlenv: math, code, format, safety, prm."""
