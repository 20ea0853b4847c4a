"""Evaluation with confidence: n samples per task -> pass@k, pass^k, maj@k, mean@k with bootstrap CIs.

* :mod:`~rlenv.evaluation.estimators` — unbiased per-task estimators;
* :mod:`~rlenv.evaluation.clustering` — answer clusters by the environment's own equivalence (maj@k);
* :mod:`~rlenv.evaluation.confidence` — bootstrap intervals and paired comparisons over tasks;
* :mod:`~rlenv.evaluation.results` — per-sample result files, summaries and breakdowns;
* :mod:`~rlenv.evaluation.runner` — resumable runs writing results, summaries and plots;
* :mod:`~rlenv.evaluation.report` — Markdown and pass@k-curve renderings.
"""

from rlenv.evaluation.clustering import answer_equivalence, cluster_answers
from rlenv.evaluation.confidence import Estimate, PairedComparison, bootstrap_ci, paired_comparison
from rlenv.evaluation.estimators import g_pass_at_k, maj_at_k, mean_at_k, pass_at_k, pass_pow_k
from rlenv.evaluation.results import compare_results, group_by_task, per_task_values, read_results, summarize
from rlenv.evaluation.runner import EvalOptions, evaluate_policy, evaluate_samples

__all__ = [
    "EvalOptions", "Estimate", "PairedComparison", "answer_equivalence", "bootstrap_ci", "cluster_answers",
    "compare_results", "evaluate_policy", "evaluate_samples", "g_pass_at_k", "group_by_task", "maj_at_k",
    "mean_at_k", "paired_comparison", "pass_at_k", "pass_pow_k", "per_task_values", "read_results", "summarize",
]
