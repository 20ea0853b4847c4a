"""Evaluation metrics over several samples per task."""

from __future__ import annotations

import numpy as np


def pass_at_k(n, c, k):
    """Unbiased pass@k (Chen et al. 2021): ``1 - C(n-c, k) / C(n, k)``, numerically stable.

    Args:
        n: Samples per task (scalar or array).
        c: Correct samples per task (scalar or array, ``0 <= c <= n``).
        k: The k of pass@k; ``n >= k`` is required.

    Returns:
        A float for scalar inputs, else a float array of the broadcast shape.
    """
    n_arr, c_arr = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64))
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if np.any(n_arr < k):
        raise ValueError(f"pass@{k} needs n >= k samples per task, got n={n_arr.min()}")
    if np.any((c_arr < 0) | (c_arr > n_arr)):
        raise ValueError(f"correct counts must satisfy 0 <= c <= n, got c={c!r} for n={n!r}")
    out = np.empty(n_arr.shape, dtype=np.float64)
    for idx in np.ndindex(n_arr.shape):
        ni, ci = int(n_arr[idx]), int(c_arr[idx])
        if ni - ci < k:
            out[idx] = 1.0
        else:
            out[idx] = 1.0 - float(np.prod(1.0 - k / np.arange(ni - ci + 1, ni + 1)))
    return float(out) if out.ndim == 0 else out
