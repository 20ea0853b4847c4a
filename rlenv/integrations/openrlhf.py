"""OpenRLHF adapter: an rlenv environment as OpenRLHF's custom reward function.

OpenRLHF loads ``reward_func(queries, prompts, labels)`` from a Python file given as
``--remote_rm_url path/to/reward_func.py``. Write such a file for any env id, and the matching
prompt dataset::

    from rlenv.integrations.openrlhf import to_openrlhf_rows, write_reward_file
    write_reward_file("reward_func.py", "rlenv/GSM8K-v0")
    datasets.Dataset.from_list(to_openrlhf_rows("rlenv/GSM8K-v0", range(1000))).to_json("train.jsonl")
    # openrlhf.cli.train_ppo_ray ... --prompt_data train.jsonl --input_key prompt --label_key label
    #     --apply_chat_template --remote_rm_url reward_func.py

or from the shell: ``rlenv export-openrlhf rlenv/GSM8K-v0 --reward-file reward_func.py --rows
train.jsonl --num-tasks 1000``.

Each row's ``label`` is the task id (``label="task_id"``, the default: the env's full reference is
used) or the task's reference itself (``label="reference"``: for verifiers that only need a
reference answer). OpenRLHF passes each ``query`` as the decoded prompt + response, special
tokens included: the response is the text after the prompt, with trailing end-of-sequence
markers (:data:`END_MARKERS`) removed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rlenv.env import text_env
from rlenv.errors import check_choice
from rlenv.integrations import reference_text
from rlenv.registry import make, spec
from rlenv.scoring import score_tasks
from rlenv.types import Status, Task

#: Label kinds: what a row's ``label`` carries.
LABEL_KINDS = ("task_id", "reference")
#: End-of-sequence markers removed from the end of a response (OpenRLHF decodes special tokens).
END_MARKERS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>", "</s>", "<eos>", "<|end|>")


def response_text(query: str, prompt: str) -> str:
    """The response inside OpenRLHF's ``query`` (prompt + response, special tokens decoded)."""
    start = query.find(prompt) if prompt else 0
    if start < 0:
        raise ValueError(f"the query does not contain its prompt: prompt {prompt[:80]!r}..., query {query[:80]!r}...")
    text = query[start + len(prompt):]
    stripped = True
    while stripped:
        stripped = False
        text = text.rstrip()
        for marker in END_MARKERS:
            if text.endswith(marker):
                text, stripped = text[: -len(marker)], True
    return text


class RewardFunc:
    """``reward_func(queries, prompts, labels)`` for one environment, in OpenRLHF's dict form.

    Args:
        env_id: A registered env id.
        label: ``"task_id"`` (labels name the env's tasks) or ``"reference"`` (labels are references).
        executor, max_workers: How verification runs concurrently (see :func:`rlenv.scoring.score_tasks`).
        **env_kwargs: Passed to :func:`rlenv.make`.

    Returns (per call): ``{"rewards": tensor, "scores": tensor, "extra_logs": {"status/<s>": tensor}}``;
    ``scores`` is 1.0 for a correct answer, and ``status/<s>`` is 1.0 where the verifier's status
    is ``s`` (OpenRLHF averages them into status fractions), so verifier failures show apart from
    wrong answers. :meth:`rewards` gives the same as plain lists (the JSON body of OpenRLHF's
    remote reward-model protocol, served by ``rlenv serve``).
    """

    def __init__(self, env_id: str, label: str = "task_id", executor: Any = "thread",
                 max_workers: int | None = None, **env_kwargs: Any):
        _check_label(label)
        self.env_id = env_id
        self.label = label
        self.executor = executor
        self.max_workers = max_workers
        self.env_kwargs = env_kwargs
        self._env: Any = None
        self._lock = threading.Lock()

    @property
    def env(self) -> Any:
        """The env, built on first use (OpenRLHF may call from several threads at once)."""
        with self._lock:
            if self._env is None:
                self._env = make(self.env_id, **self.env_kwargs)
            return self._env

    def _task(self, label: Any, prompt: str, kind: str) -> Task:
        base = self.env.unwrapped
        if kind == "task_id":
            return base.source[base.source.index_of(str(label))]
        return Task("openrlhf", prompt, reference=label)

    def rewards(self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any],
                label: str | None = None) -> dict[str, Any]:
        """The reward dict as plain lists: ``{"rewards": [...], "scores": [...], "extra_logs": {...}}``.

        ``label`` overrides the kind of ``labels`` for this call (default: the instance's).
        """
        kind = self.label if label is None else _check_label(label)
        if not len(queries) == len(prompts) == len(labels):
            raise ValueError(f"got {len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels")
        env = self.env
        base = env.unwrapped
        tasks = [self._task(label, prompt, kind) for label, prompt in zip(labels, prompts, strict=True)]
        clipped = [base.clip_completion(response_text(q, p)) for q, p in zip(queries, prompts, strict=True)]
        results = score_tasks(base.verifier, tasks, [text for text, _ in clipped], executor=self.executor,
                              max_workers=self.max_workers)
        outcome = env.get_wrapper_attr("episode_outcome")
        rewards = [float(outcome(task, text, result, cut)[0])
                   for task, (text, cut), result in zip(tasks, clipped, results, strict=True)]
        statuses = [result.status for result in results]
        return {
            "rewards": rewards,
            "scores": [float(s is Status.CORRECT) for s in statuses],
            "extra_logs": {f"status/{status.value}": [float(s is status) for s in statuses] for status in Status},
        }

    def __call__(self, queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any]) -> dict[str, Any]:
        import torch

        out = self.rewards(queries, prompts, labels)
        return {
            "rewards": torch.tensor(out["rewards"], dtype=torch.float32),
            "scores": torch.tensor(out["scores"], dtype=torch.float32),
            "extra_logs": {name: torch.tensor(values) for name, values in out["extra_logs"].items()},
        }


def _check_label(label: str) -> str:
    check_choice("label", label, LABEL_KINDS)
    return label


def to_openrlhf_rows(env_id: str, indices: Iterable[int], label: str = "task_id",
                     **env_kwargs: Any) -> list[dict[str, Any]]:
    """Prompt rows for OpenRLHF (``--input_key prompt --label_key label``).

    ``prompt`` is the env's prompt (a list of chat messages in chat mode: pass
    ``--apply_chat_template``); ``label`` is the task id or the reference (see :class:`RewardFunc`).
    """
    _check_label(label)
    base = text_env(make(env_id, **env_kwargs))
    rows = []
    for index in indices:
        task = base.source[int(index)]
        rows.append({"prompt": base.format_prompt(task),
                     "label": task.id if label == "task_id" else reference_text(task)})
    return rows


def write_reward_file(path: str | Path, env_id: str, label: str = "task_id", **env_kwargs: Any) -> Path:
    """Write the Python file OpenRLHF's ``--remote_rm_url`` loads: it defines ``reward_func`` for ``env_id``.

    ``env_kwargs`` must be JSON-serializable (they are written into the file).
    """
    _check_label(label)
    spec(env_id)  # fails now, naming the id, rather than inside OpenRLHF
    kwargs = json.dumps(env_kwargs, sort_keys=True)
    path = Path(path)
    path.write_text(
        f'"""OpenRLHF reward function for {env_id} (written by rlenv; load with --remote_rm_url {path.name})."""\n\n'
        "import json\n\n"
        "from rlenv.integrations.openrlhf import RewardFunc\n\n"
        f"reward_func = RewardFunc({env_id!r}, label={label!r}, **json.loads({kwargs!r}))\n",
        encoding="utf-8")
    return path
