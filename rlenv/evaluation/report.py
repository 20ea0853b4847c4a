"""Human-readable renderings of an evaluation summary: a Markdown table and a pass@k curve (PNG)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_PASS_AT = re.compile(r"^pass@(\d+)$")


def _row(name: str, est: Mapping[str, Any]) -> str:
    return f"| {name} | {est['value']:.4f} | [{est['low']:.4f}, {est['high']:.4f}] |"


def counted(count: int | str, noun: str) -> str:
    """``"1 sample"``, ``"3 samples"``, ``"1-4 samples"``: ``count`` and ``noun``, plural unless the count is 1."""
    return f"{count} {noun}" if str(count) == "1" else f"{count} {noun}s"


def markdown_summary(summary: Mapping[str, Any], title: str = "Evaluation") -> str:
    """A Markdown report of a :func:`~rlenv.evaluation.results.summarize` result."""
    level = int(round(100 * summary["bootstrap"]["confidence"]))
    spt = summary["samples_per_task"]
    samples = str(spt["min"]) if spt["min"] == spt["max"] else f"{spt['min']}-{spt['max']}"
    status = ", ".join(f"{name}: {count}" for name, count in sorted(summary["status"].items()))
    lines = [
        f"# {title}",
        "",
        f"{counted(summary['num_tasks'], 'task')}, {counted(samples, 'sample')} per task "
        f"({counted(summary['num_samples'], 'sample')}; {status}).",
        f"Intervals: {level}% bootstrap over tasks ({summary['bootstrap']['n_resamples']} resamples).",
        *_error_lines(summary.get("errors")),
        *_episode_lines(summary.get("episodes")),
        "",
        f"| metric | value | {level}% CI |",
        "|---|---|---|",
    ]
    lines += [_row(name, est) for name, est in summary["metrics"].items()]
    for field, groups in summary["by"].items():
        names = list(next(iter(groups.values()))["metrics"])
        lines += ["", f"## By {field}", "", f"| {field} | tasks | " + " | ".join(names) + " |",
                  "|---|---|" + "---|" * len(names)]
        for value, group in groups.items():
            cells = [f"{group['metrics'][n]['value']:.3f} [{group['metrics'][n]['low']:.3f}, "
                     f"{group['metrics'][n]['high']:.3f}]" for n in names]
            lines.append(f"| {value} | {group['num_tasks']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _episode_lines(episodes: Mapping[str, Any] | None) -> list[str]:
    """The multi-turn paragraph: turns, tool calls and their errors, limits."""
    if not episodes:
        return []
    calls = episodes["tool_metrics"].get("calls", 0)
    cut = ", ".join(f"{count} by {limit}" for limit, count in sorted(episodes["cut_by"].items())) or "none"
    return ["", f"Multi-turn: {counted(episodes['count'], 'episode')}, {episodes['turns']['mean']:.2f} turns per "
                f"episode (max {episodes['turns']['max']}), {calls / episodes['count']:.2f} tool calls per episode, "
                f"{episodes['tool_errors_per_call']:.1%} of calls answered with a tool error; cut by a limit: {cut}."]


def _error_lines(errors: Mapping[str, Any] | None) -> list[str]:
    """The errors paragraph: failures are not wrong answers, so they are reported apart."""
    if not errors or not errors["count"]:
        return []
    rule = ("left out of every metric" if errors["rule"] == "exclude" else "counted as wrong answers")
    verb = "has" if errors["count"] == 1 else "have"
    lines = ["", f"**Errors: {counted(errors['count'], 'sample')} ({errors['fraction']:.1%}) {verb} status `error` (the verifier "
                 f"or generation failed), {rule}**"
             + (f"; {errors['tasks_without_valid_samples']} tasks have no other sample" if
                errors["tasks_without_valid_samples"] else "") + ". `rlenv eval --retry-errors` scores them again. "
             "First messages:"]
    lines += [f"- `{message}`" for message in errors["first_messages"]]
    return lines


def plot_pass_at_k(summary: Mapping[str, Any], path: str | Path, title: str = "pass@k") -> Path:
    """Plot pass@k against k (log2 axis) with its confidence band; writes a PNG at ``path``.

    Needs matplotlib (imported here, with the non-interactive Agg backend).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = sorted((int(m.group(1)), est) for name, est in summary["metrics"].items()
                    if (m := _PASS_AT.match(name)))
    if not points:
        raise ValueError(f"the summary has no pass@k metric to plot (metrics: {list(summary['metrics'])})")
    ks = [k for k, _ in points]
    fig, ax = plt.subplots(figsize=(5, 3.5), dpi=120)
    try:
        ax.plot(ks, [e["value"] for _, e in points], marker="o", label="pass@k")
        ax.fill_between(ks, [e["low"] for _, e in points], [e["high"] for _, e in points], alpha=0.25,
                        label=f"{int(round(100 * summary['bootstrap']['confidence']))}% CI")
        if len(ks) > 1:
            ax.set_xscale("log", base=2)
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.set_ylim(0, 1)
        ax.set_xlabel("k (samples)")
        ax.set_ylabel("pass@k")
        ax.set_title(f"{title} ({summary['num_tasks']} tasks)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        fig.tight_layout()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path
