"""``reasoning_gym/<name>-v0``: a reasoning-gym procedural dataset as an rlenv environment.

Task ``i`` of ``make("reasoning_gym/<name>-v0", size=n, seed=s, **config)`` is item ``i`` of
reasoning-gym's ``create_dataset(name, size=n, seed=s, **config)``, so a run is reproducible and
comparable with reasoning-gym's own (rlenv's default ``seed=0`` replaces reasoning-gym's random
one). Which task an episode gets is drawn by the env's RNG (``reset(seed=...)``), as for every
rlenv environment. The hidden reference is the whole reasoning-gym entry (``question``,
``answer``, ``metadata``), which the dataset's ``score_answer`` reads; the gold completion is the
entry's answer in ``<answer>`` tags (for the datasets with no single answer, the example solution
their metadata carries; ``rush_hour`` and ``boxnet`` have none).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence
from typing import Any

from rlenv.env import TextEnv
from rlenv.envs.rgym.checks import dataset_config
from rlenv.envs.rgym.verifier import FORMATS, ReasoningGymVerifier
from rlenv.sources import ProceduralSource
from rlenv.types import Task

NAMESPACE = "reasoning_gym"
PROMPT_TEMPLATE = "{prompt}\n\nGive your final answer between <answer> and </answer> tags."
#: Metadata keys holding an example solution, for datasets whose entries have no single answer.
EXAMPLE_ANSWER_KEYS = ("possible_answer", "example_answer", "example_correct_answer")
_INSTALL = "pip install 'rlenv-lm[reasoning-gym]' (or pip install reasoning-gym)"


def env_id(name: str) -> str:
    """The rlenv id of the reasoning-gym dataset ``name``."""
    return f"{NAMESPACE}/{name}-v0"


def dataset_classes() -> dict[str, tuple[type, type]]:
    """reasoning-gym's registry: dataset name -> (dataset class, config class)."""
    try:
        from reasoning_gym.factory import DATASETS
    except ImportError as exc:
        raise ImportError(f"the reasoning_gym/* environments need the reasoning-gym package: {_INSTALL}") from exc
    return DATASETS


def gold_answer(entry: dict[str, Any]) -> str | None:
    """The entry's answer, else an example solution from its metadata, as text; None when there is neither."""
    if entry.get("answer") is not None:
        return str(entry["answer"])
    metadata = entry.get("metadata") or {}
    example = next((metadata[k] for k in EXAMPLE_ANSWER_KEYS if metadata.get(k) is not None), None)
    return example if example is None or isinstance(example, str) else json.dumps(example)


class ReasoningGymTasks:
    """``generate(rng, index) -> Task`` for :class:`~rlenv.sources.ProceduralSource`: item ``index`` of a
    reasoning-gym dataset (which seeds its items from its own ``seed`` and the index, so ``rng`` is unused)."""

    def __init__(self, dataset: Any, name: str):
        self.dataset = dataset
        self.name = name

    def __call__(self, rng: random.Random, index: int) -> Task:
        entry = self.dataset[index]
        answer = gold_answer(entry)
        metadata = entry.get("metadata") or {}
        visible = {"dataset": metadata.get("source_dataset", self.name), "source_index": metadata.get("source_index")}
        return Task(str(index), entry["question"], reference=entry,
                    gold_completion=None if answer is None else f"<answer>{answer}</answer>", metadata=visible)


def make_reasoning_gym_env(
    name: str,
    size: int | None = None,
    seed: int = 0,
    *,
    formats: Sequence[str] = FORMATS,
    hedging: str = "all",
    partial_credit: bool = True,
    timeout: float = 10.0,
    prompt_template: str = PROMPT_TEMPLATE,
    chat: bool = False,
    system_prompt: str | None = None,
    max_completion_chars: int | None = None,
    render_mode: str | None = None,
    **config: Any,
) -> TextEnv:
    """Build ``reasoning_gym/<name>-v0`` (see the module docstring).

    Args:
        name: The reasoning-gym dataset, e.g. ``"chain_sum"`` (``rlenv list`` shows them all).
        size: Number of tasks (default: the dataset config's, usually 500).
        seed: The dataset's seed (default 0).
        formats, hedging, partial_credit, timeout: See :class:`~rlenv.envs.rgym.verifier.ReasoningGymVerifier`.
        prompt_template, chat, system_prompt, max_completion_chars, render_mode: See
            :class:`~rlenv.env.TextEnv`; the default template asks for ``<answer>`` tags.
        **config: The dataset's own config fields (e.g. ``min_terms=2`` for ``chain_sum``); a
            ``composite`` dataset takes ``datasets=[{"name": ..., "weight": ..., "config": {...}}]``.

    Raises:
        ImportError: reasoning-gym is not installed.
        ValueError: unknown dataset or config field, or a config reasoning-gym refuses.
    """
    classes = dataset_classes()
    if name not in classes:
        raise ValueError(f"unknown reasoning-gym dataset {name!r}; available: {sorted(classes)}")
    fields = {f.name for f in dataclasses.fields(classes[name][1])} - {"size", "seed"}
    unknown = sorted(set(config) - fields)
    if unknown:
        raise ValueError(f"{env_id(name)}: unknown config field(s) {unknown}; {name} takes {sorted(fields)}")
    import reasoning_gym

    sized = {} if size is None else {"size": size}
    try:
        dataset = reasoning_gym.create_dataset(name, seed=seed, **sized, **dataset_config(name, config))
    except (AssertionError, ValueError, TypeError) as exc:
        raise ValueError(f"{env_id(name)}: reasoning-gym refused the config {config} (size={size}, seed={seed}): "
                         f"{type(exc).__name__}: {exc}") from exc
    verifier = ReasoningGymVerifier(name, config, formats=formats, hedging=hedging, partial_credit=partial_credit,
                                    timeout=timeout)
    source = ProceduralSource(ReasoningGymTasks(dataset, name), seed=seed, size=len(dataset), prefix=name)
    return TextEnv(source, verifier, prompt_template=prompt_template, chat=chat, system_prompt=system_prompt,
                   max_completion_chars=max_completion_chars, render_mode=render_mode)
