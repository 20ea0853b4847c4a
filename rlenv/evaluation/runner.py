"""Resumable evaluation runs: score (or generate and score) samples into an output directory.

An output directory holds:

* ``results.jsonl`` — one row per scored sample (format: :mod:`rlenv.evaluation.results`),
  appended as samples are scored, so an interrupted run loses at most the batch in flight;
* ``generated.jsonl`` — completions generated but not yet scored when the run was interrupted
  (Ctrl-C); the resumed run scores them instead of generating them again;
* ``config.json`` — the run's settings (written with the first scored samples, so a run that
  fails before scoring anything leaves nothing); resuming with different settings is an error;
* ``manifest.json`` — how the run was made (:mod:`rlenv.manifest`), and when it ends what an AI
  judge cost (``judge_usage``: requests, cache hits, failures, characters, tokens);
* ``summary.json`` / ``summary.md`` — metrics with confidence intervals;
* ``pass_at_k.png`` — the pass@k curve;
* ``report.html`` — the page to read the samples (:mod:`rlenv.report`).

Rerunning on the same directory skips every ``(task_id, sample)`` already in ``results.jsonl``.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from rlenv.evaluation.clustering import answer_equivalence, cluster_answers
from rlenv.evaluation.episodes import Episode, is_multi_turn, play_episodes
from rlenv.evaluation.report import markdown_summary, plot_pass_at_k
from rlenv.evaluation.results import METRIC_FAMILIES, summarize
from rlenv.jsonl import read_jsonl
from rlenv.manifest import MANIFEST_FILE, record_outcome, run_manifest, write_manifest
from rlenv.scoring import resolve_samples as resolve_samples_to_tasks
from rlenv.scoring import score_tasks
from rlenv.types import Completion, RewardResult, Task

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
CONFIG_FILE = "config.json"
#: Completions generated but not scored when the run was interrupted; a resumed run scores them.
GENERATED_FILE = "generated.jsonl"

#: ``generate(prompts) -> completions``: one completion per prompt (``rlenv.Completion`` to flag truncation).
GenerateFn = Callable[[list[Any]], Sequence[str]]


@dataclasses.dataclass(frozen=True)
class SampleRequest:
    """One sample to score: ``completion`` is None until it has been generated."""

    index: int
    task: Task
    sample: int
    completion: str | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.task.id, self.sample)


class ResultStore:
    """``results.jsonl`` in an output directory, keyed by ``(task_id, sample)``.

    A final line cut short by a crash is dropped with a warning (its sample is scored again);
    a malformed line anywhere else is an error. ``on_start()`` is called once, before the first
    row goes into a store that has no file yet: a run writes its settings only once it has
    produced something, so a run that fails to start leaves nothing behind.
    """

    def __init__(self, out_dir: str | Path, on_start: Callable[[], None] | None = None):
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / RESULTS_FILE
        self.rows: dict[tuple[str, int], dict[str, Any]] = {}
        self.on_start = on_start
        self.generated_path = self.out_dir / GENERATED_FILE
        #: completions kept by :meth:`keep_generated`, by ``(task_id, sample)``
        self.generated: dict[tuple[str, int], str] = {}  # Completions: str with generation details
        if self.path.exists():
            self._load()
        if self.generated_path.exists():
            for row in read_jsonl(self.generated_path, what="generated file", required_keys=("task_id", "sample"),
                                  drop_truncated_tail=True):
                self.generated[(str(row["task_id"]), int(row["sample"]))] = Completion(
                    row["completion"], truncated=row["truncated"], error=row["error"])

    def _load(self) -> None:
        for row in read_jsonl(self.path, what="result file", required_keys=("task_id", "sample"),
                              drop_truncated_tail=True):
            self.rows[(str(row["task_id"]), int(row["sample"]))] = row
        self.rewrite()

    def __contains__(self, key: tuple[str, int]) -> bool:
        return key in self.rows

    def __len__(self) -> int:
        return len(self.rows)

    def append(self, rows: Iterable[dict[str, Any]]) -> None:
        if not self.path.exists() and not self.generated_path.exists() and self.on_start is not None:
            self.on_start()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            for row in rows:
                self.rows[(str(row["task_id"]), int(row["sample"]))] = row
                fh.write(json.dumps(row, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def keep_generated(self, requests: Sequence[SampleRequest]) -> None:
        """Keep the completions of ``requests`` (generated, not scored) in ``generated.jsonl``."""
        if self.on_start is not None and not self.path.exists() and not self.generated_path.exists():
            self.on_start()
        with self.generated_path.open("a", encoding="utf-8") as fh:
            for r in requests:
                if r.completion is None:
                    raise ValueError(f"sample {r.sample} of task {r.task.id!r} has no completion to keep")
                self.generated[r.key] = r.completion
                fh.write(json.dumps({"task_id": r.task.id, "sample": r.sample, "completion": str(r.completion),
                                     "truncated": getattr(r.completion, "truncated", False),
                                     "error": _generation_error(r.completion)}) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def drop_generated(self) -> None:
        """Forget the kept completions (every one of them is scored now)."""
        self.generated.clear()
        self.generated_path.unlink(missing_ok=True)

    def rewrite(self) -> None:
        """Write all rows again (atomically), e.g. after adding cluster labels."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for row in self.rows.values():
                fh.write(json.dumps(row, default=str) + "\n")
        os.replace(tmp, self.path)


def check_config(out_dir: str | Path, config: Mapping[str, Any]) -> None:
    """Check that a run resumed in ``out_dir`` uses the same settings as the run that scored its
    samples (a directory without scored samples holds no run: any settings start afresh)."""
    path = Path(out_dir) / CONFIG_FILE
    if not path.exists() or not (Path(out_dir) / RESULTS_FILE).exists():
        return
    config = json.loads(json.dumps(dict(config), default=str))
    old = json.loads(path.read_text(encoding="utf-8"))
    changed = {k: (old.get(k), config.get(k)) for k in old.keys() | config.keys() if old.get(k) != config.get(k)}
    if changed:
        raise ValueError(f"{path} was written by a run with other settings {changed} (old, new): "
                         "use a fresh output directory or the same settings to resume")


def write_config(out_dir: str | Path, config: Mapping[str, Any]) -> None:
    """Write ``config.json`` (:func:`check_config` reads it when the run is resumed)."""
    path = Path(out_dir) / CONFIG_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(json.loads(json.dumps(dict(config), default=str)), indent=2, sort_keys=True) + "\n",
                    encoding="utf-8")


def resolve_samples(env: Any, samples: Iterable[Mapping[str, Any]]) -> list[SampleRequest]:
    """Turn sample rows ``{"task_id" | "index", "completion", ["sample"], ["truncated"]}`` into requests.

    Tasks are resolved by :func:`rlenv.scoring.resolve_samples`. ``sample`` defaults to the row's
    rank among the rows of the same task (0, 1, 2, ...); ``"truncated": true`` marks a completion
    cut at the generator's length limit.
    """
    rows = list(samples)
    tasks, completions = resolve_samples_to_tasks(env, rows)
    source = env.unwrapped.source
    seen: collections.Counter[str] = collections.Counter()
    requests = []
    for row, task, completion in zip(rows, tasks, completions, strict=True):
        number = int(row["sample"]) if "sample" in row else seen[task.id]
        seen[task.id] += 1
        requests.append(SampleRequest(source.index_of(task.id), task, number,
                                      Completion(completion, truncated=bool(row.get("truncated", False)))))
    return requests


def _generation_error(completion: Any) -> str | None:
    return getattr(completion, "error", None)


def _score_rows(env: Any, requests: Sequence[SampleRequest], executor: Any, max_workers: int | None) -> list[dict]:
    base = env.unwrapped
    clipped = [base.clip_completion(r.completion) for r in requests]
    generated = [i for i, r in enumerate(requests) if _generation_error(r.completion) is None]
    scored = score_tasks(base.verifier, [requests[i].task for i in generated], [clipped[i][0] for i in generated],
                         executor=executor, max_workers=max_workers)
    results = [RewardResult.error(f"generation failed: {_generation_error(r.completion)}") for r in requests]
    for i, result in zip(generated, scored, strict=True):
        results[i] = result
    rows = []
    for request, (completion, truncated), result in zip(requests, clipped, results, strict=True):
        reward, info = env.get_wrapper_attr("episode_outcome")(request.task, completion, result, truncated)
        rows.append(_row(base, request, completion, float(reward), truncated, result, info))
    return rows


def _row(base: Any, request: SampleRequest, completion: str, reward: float, truncated: bool, result: RewardResult,
         info: Mapping[str, Any]) -> dict[str, Any]:
    """One ``results.jsonl`` row (format: :mod:`rlenv.evaluation.results`)."""
    row = {
        "task_id": request.task.id, "sample": request.sample, "index": request.index,
        "prompt": base.format_prompt(request.task), "reference": request.task.reference,
        "completion": completion, "reward": reward,
        "status": result.status.value, "components": dict(result.components), "verifier": result.verifier,
        "verifier_version": result.verifier_version, "truncated": truncated,
        "details": dict(result.details), "metadata": dict(request.task.metadata),
    }
    if "hacks" in info:  # the env is wrapped with hack detectors
        row["hacks"] = info["hacks"]
    return row


def _episode_row(base: Any, request: SampleRequest, episode: Episode) -> dict[str, Any]:
    """The row of a multi-turn episode: a single-turn row of what was graded, plus ``episode``."""
    row = _row(base, request, episode.completion, episode.reward, episode.truncated, episode.result, episode.info)
    row["episode"] = {"turns": int(episode.info.get("turns", 0)), "limit": episode.info.get("limit"),
                      "tool_metrics": dict(episode.info.get("tool_metrics", {})), "messages": episode.messages}
    return row


def play_samples(env: Any, requests: Sequence[SampleRequest], store: ResultStore, generate: GenerateFn,
                 make_env: Callable[[], Any] | None = None, batch_size: int = 256, seed: int = 0,
                 progress: bool = True, retry_errors: bool = False) -> int:
    """Play the multi-turn episode of every request not yet in ``store`` (see
    :mod:`rlenv.evaluation.episodes`) and append their rows.

    ``env`` and, when ``make_env`` is given, up to ``batch_size - 1`` more instances built by it
    play the episodes, one round of as many episodes as instances at a time. Rows are appended
    as each round ends; an interrupted run loses only the episodes under way, played again (the
    same way: their seeds depend on the task and the sample) when it is resumed. Returns the
    number of episodes played now.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    pending = _pending(env, store, requests, retry_errors)
    if not pending:
        return 0
    envs = [env] + ([make_env() for _ in range(min(batch_size, len(pending)) - 1)] if make_env is not None else [])
    base = env.unwrapped
    try:
        with tqdm(total=len(pending), desc="playing episodes", unit="episode",
                  disable=None if progress else True) as bar:
            for start in range(0, len(pending), len(envs)):
                batch = pending[start:start + len(envs)]
                episodes = play_episodes(envs, [(r.index, r.task.id, r.sample) for r in batch], generate, seed)
                store.append([_episode_row(base, r, e) for r, e in zip(batch, episodes, strict=True)])
                bar.update(len(batch))
    finally:
        for made in envs[1:]:
            made.close()
    if retry_errors:
        store.rewrite()
    return len(pending)


def _pending(env: Any, store: ResultStore, requests: Sequence[SampleRequest], retry_errors: bool = False,
             ) -> list[SampleRequest]:
    pending = []
    for request in requests:
        old = store.rows.get(request.key)
        if old is None or (retry_errors and old.get("status") == "error"):
            pending.append(request)
        elif request.completion is not None and old["completion"] != env.unwrapped.clip_completion(request.completion)[0]:
            raise ValueError(f"{store.path} already holds a different completion for task {request.task.id!r} "
                             f"sample {request.sample}: these samples are not the ones scored there; "
                             "use a fresh output directory")
    return pending


def _task_batches(requests: Sequence[SampleRequest], batch_size: int) -> list[list[SampleRequest]]:
    """``requests`` in batches of about ``batch_size`` that never split the samples of one task, so
    that a generator sees all of a task's samples at once (one request with ``n`` choices) and a
    rerun after an interruption generates whole tasks again, as the first run did."""
    by_task: dict[str, list[SampleRequest]] = {}
    for request in requests:
        by_task.setdefault(request.task.id, []).append(request)
    batches: list[list[SampleRequest]] = [[]]
    for group in by_task.values():
        if batches[-1] and len(batches[-1]) + len(group) > batch_size:
            batches.append([])
        batches[-1].extend(group)
    return batches


def score_samples(
    env: Any,
    requests: Sequence[SampleRequest],
    store: ResultStore,
    generate: GenerateFn | None = None,
    batch_size: int = 256,
    executor: Any = "thread",
    max_workers: int | None = None,
    progress: bool = True,
    retry_errors: bool = False,
) -> int:
    """Score every request not yet in ``store`` (generating its completion first when it has none).

    Rows are appended to the store after each batch of about ``batch_size`` samples (the samples
    of one task are never split across batches: :func:`_task_batches`). With
    ``retry_errors``, stored rows of status ``error`` are pending again. Returns the number of
    samples scored now.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    pending = _pending(env, store, requests, retry_errors)
    if not pending:
        return 0
    base = env.unwrapped
    with tqdm(total=len(pending), desc="generating+scoring" if generate else "scoring", unit="sample",
              disable=None if progress else True) as bar:
        for batch in _task_batches(pending, batch_size):
            missing = [i for i, r in enumerate(batch) if r.completion is None]
            if missing:
                if generate is None:
                    raise ValueError("some samples have no completion and no generate function was given")
                completions = list(generate([base.format_prompt(batch[i].task) for i in missing]))
                if len(completions) != len(missing):
                    raise ValueError(f"generate returned {len(completions)} completions for {len(missing)} prompts")
                for i, completion in zip(missing, completions, strict=True):
                    batch[i] = dataclasses.replace(batch[i], completion=completion)
            try:
                rows = _score_rows(env, batch, executor, max_workers)
            except KeyboardInterrupt:
                if generate is not None:
                    store.keep_generated([r for r in batch if r.key not in store.generated])
                raise
            store.append(rows)
            bar.update(len(batch))
    if retry_errors:
        store.rewrite()  # one line per sample again: the retried rows replaced the stored errors
    store.drop_generated()
    return len(pending)


def assign_clusters(env: Any, store: ResultStore, fallback: str | None = None, progress: bool = True) -> bool:
    """Label equivalent answers (the ``cluster`` field) for every task that has unlabelled rows.

    Uses the env verifier's ``equivalent(task, a, b)`` (or normalized string equality with
    ``fallback="string"``). Returns False, changing nothing, when no equivalence is available.
    """
    base = env.unwrapped
    by_task: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for row in store.rows.values():
        by_task[str(row["task_id"])].append(row)
    todo = {task_id: rows for task_id, rows in by_task.items() if any("cluster" not in r for r in rows)}
    if not todo:
        return all("cluster" in r for r in store.rows.values())
    probe = base.source[int(next(iter(todo.values()))[0]["index"])]
    if answer_equivalence(base.verifier, probe, fallback) is None:
        logger.info("verifier %r defines no equivalent(task, a, b): maj@k is not computed",
                    getattr(base.verifier, "name", type(base.verifier).__name__))
        return False
    for rows in tqdm(todo.values(), desc="clustering answers", unit="task", disable=None if progress else True):
        rows.sort(key=lambda r: int(r["sample"]))
        task = base.source[int(rows[0]["index"])]
        same = answer_equivalence(base.verifier, task, fallback)
        assert same is not None  # whether there is one depends on the verifier, not the task: the probe has one
        labels = cluster_answers([r["completion"] for r in rows], [r["status"] for r in rows], same)
        for row, label in zip(rows, labels, strict=True):
            row["cluster"] = label
    store.rewrite()
    return True


@dataclasses.dataclass
class EvalOptions:
    """Settings shared by :func:`evaluate_samples` and :func:`evaluate_policy`.

    ``ks``/``by``/``families``/``confidence``/``n_resamples``/``seed``/``errors``: see
    :func:`rlenv.evaluation.results.summarize`. ``retry_errors``: samples already stored with
    status ``error`` are scored again (generated again when the run generates), the others kept. ``equivalence_fallback="string"`` clusters answers
    by normalized string equality when the verifier has no ``equivalent`` method.
    """

    ks: Sequence[int] | None = None
    by: Sequence[str] = ()
    families: Sequence[str] = METRIC_FAMILIES
    confidence: float = 0.95
    n_resamples: int = 2000
    seed: int = 0
    equivalence_fallback: str | None = None
    executor: Any = "thread"
    max_workers: int | None = None
    batch_size: int = 256
    title: str = "Evaluation"
    plot: bool = True
    report: bool = True
    progress: bool = True
    errors: str = "exclude"
    retry_errors: bool = False


def write_reports(store: ResultStore, options: EvalOptions) -> dict[str, Any]:
    """Summarize the store and write ``summary.json``, ``summary.md``, (``options.plot``) ``pass_at_k.png``
    and (``options.report``) ``report.html``."""
    summary = summarize(store.rows.values(), ks=options.ks, by=options.by, families=options.families,
                        confidence=options.confidence, n_resamples=options.n_resamples, seed=options.seed,
                        errors=options.errors)
    summary = {"title": options.title, **summary}
    out = store.out_dir
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (out / "summary.md").write_text(markdown_summary(summary, options.title), encoding="utf-8")
    if "judge_usage" in summary and (out / MANIFEST_FILE).exists():  # a run that wrote a manifest (all do now)
        record_outcome(out, {"judge_usage": summary["judge_usage"]})
    if options.plot and any(name.startswith("pass@") for name in summary["metrics"]):
        plot_pass_at_k(summary, out / "pass_at_k.png", title=options.title)
    if options.report:
        from rlenv.report import REPORT_FILE, write_report

        write_report([out], out / REPORT_FILE, title=options.title, progress=options.progress)
    return summary


def _finish(env: Any, store: ResultStore, options: EvalOptions) -> dict[str, Any]:
    assign_clusters(env, store, options.equivalence_fallback, options.progress)
    return write_reports(store, options)


def _start(env: Any, out_dir: str | Path, config: Mapping[str, Any], options: EvalOptions) -> None:
    """Write ``config.json`` and ``manifest.json``: the first scored samples are about to be stored."""
    write_config(out_dir, config)
    settings = {**config, "errors": options.errors, "bootstrap_seed": options.seed}
    write_manifest(Path(out_dir) / MANIFEST_FILE, run_manifest("eval", env, settings))


def evaluate_samples(
    env: Any, samples: Iterable[Mapping[str, Any]], out_dir: str | Path, options: EvalOptions | None = None,
    config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Score completions produced elsewhere and write the reports into ``out_dir`` (resumable).

    Args:
        env: A rlenv env (possibly wrapped; wrappers shape the stored ``reward``).
        samples: Rows ``{"task_id" | "index", "completion", ["sample"], ["truncated"]}``.
        out_dir: Output directory (see the module docstring).
        options: :class:`EvalOptions`.
        config: Settings recorded in ``config.json`` and checked on resume.

    Returns:
        The summary dict (also written to ``summary.json``).
    """
    options = options or EvalOptions()
    check_config(out_dir, config or {})
    requests = resolve_samples(env, samples)
    store = ResultStore(out_dir, on_start=lambda: _start(env, out_dir, config or {}, options))
    scored = score_samples(env, requests, store, None, options.batch_size,
                           options.executor, options.max_workers, options.progress, options.retry_errors)
    logger.info("scored %d new samples (%d in %s)", scored, len(store), store.path)
    return _finish(env, store, options)


def evaluate_policy(
    env: Any, generate: GenerateFn, task_indices: Sequence[int], num_samples: int, out_dir: str | Path,
    options: EvalOptions | None = None, config: Mapping[str, Any] | None = None,
    make_env: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """Sample ``num_samples`` completions per task with ``generate``, score them, write reports.

    ``generate(prompts) -> completions`` receives formatted observations (strings or chat message
    lists) in batches of ``options.batch_size``; samples already in ``out_dir`` are not generated
    again. Returns the summary dict.

    A multi-turn ``env`` (:class:`~rlenv.multiturn.MultiTurnEnv`, possibly wrapped) plays each
    sample as an episode (:func:`play_samples`): ``generate`` is called once per turn with the
    conversations of the episodes under way (in chat mode with ``tools=`` the env's tool
    schemas). ``make_env()`` builds more instances of the same env so that ``options.batch_size``
    episodes are played at once (without it, ``env`` plays them one at a time). Each row then
    has an ``episode`` field: ``turns``, ``limit``, ``tool_metrics`` and the ``messages`` after
    the prompt.
    """
    options = options or EvalOptions()
    if num_samples < 1:
        raise ValueError(f"num_samples must be >= 1, got {num_samples}")
    config = {**(config or {}), "num_samples": num_samples, "task_indices": list(task_indices)}
    check_config(out_dir, config)
    base = env.unwrapped
    requests = []
    for index in task_indices:
        task = base.source[int(index)]
        requests += [SampleRequest(int(index), task, j) for j in range(num_samples)]
    store = ResultStore(out_dir, on_start=lambda: _start(env, out_dir, config, options))
    requests = [dataclasses.replace(r, completion=store.generated[r.key]) if r.key in store.generated else r
                for r in requests]
    if is_multi_turn(env):
        scored = play_samples(env, requests, store, generate, make_env, options.batch_size, options.seed,
                              options.progress, options.retry_errors)
    else:
        scored = score_samples(env, requests, store, generate, options.batch_size, options.executor,
                               options.max_workers, options.progress, options.retry_errors)
    logger.info("generated and scored %d new samples (%d in %s)", scored, len(store), store.path)
    return _finish(env, store, options)
