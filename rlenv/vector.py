"""Batched episodes with group sampling: ``num_tasks`` prompts, each repeated ``group_size`` times."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

from rlenv.env import TextEnv, text_env
from rlenv.multiturn import MultiTurnEnv
from rlenv.scoring import Executor, make_executor, release_executor, score_tasks
from rlenv.types import Task


def draw_indices(base: TextEnv, rng: np.random.Generator, num_tasks: int) -> list[int]:
    """``num_tasks`` task indices of ``base``'s source drawn with ``rng``: distinct when the source has that many."""
    size = base.source.size
    if size is not None and size >= num_tasks:
        return [int(i) for i in rng.choice(size, size=num_tasks, replace=False)]
    return [base.sample_index(rng) for _ in range(num_tasks)]


class TextVectorEnv(gymnasium.vector.VectorEnv):
    """``num_tasks * group_size`` single-turn episodes stepped as one batch.

    ``reset`` draws ``num_tasks`` distinct tasks (when the source has that many) and repeats each
    ``group_size`` times, consecutively: episodes ``[g*group_size, (g+1)*group_size)`` share
    ``group_id == g``. ``step`` scores all completions concurrently on ``executor`` and returns
    results in input order; a verifier failure becomes a status-``error`` result for that
    episode only. Autoreset is disabled: call ``reset`` for the next batch.

    Args:
        env: A :class:`~rlenv.env.TextEnv`, optionally wrapped by reward wrappers; the wrappers'
            ``episode_outcome`` is applied to every episode.
        num_tasks: Distinct prompts per batch.
        group_size: Completions per prompt (G in GRPO, n in pass@k).
        executor: ``"thread"`` (default), ``"process"`` (CPU-bound, picklable verifiers),
            ``"serial"``, ``"ray"`` (spread over a Ray cluster, see :mod:`rlenv.scoring.ray_backend`), or
            an executor object (see :func:`rlenv.scoring.score_tasks`).
        max_workers: Pool size for the built-in executors (the most scoring actors for ``"ray"``).
    """

    metadata = {"autoreset_mode": AutoresetMode.DISABLED}

    def __init__(
        self,
        env: gymnasium.Env,
        num_tasks: int,
        group_size: int = 1,
        executor: Executor = "thread",
        max_workers: int | None = None,
    ):
        for name, value in (("num_tasks", num_tasks), ("group_size", group_size)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        self.env = env
        self.base = text_env(env)
        if isinstance(self.base, MultiTurnEnv):
            raise TypeError(f"TextVectorEnv steps single-turn episodes; {type(self.base).__name__} is multi-turn: "
                            "step its episodes one by one")
        self.num_tasks = num_tasks
        self.group_size = group_size
        self.num_envs = num_tasks * group_size
        self.single_observation_space = self.base.observation_space
        self.single_action_space = self.base.action_space
        self.observation_space = spaces.Tuple([self.single_observation_space] * self.num_envs)
        self.action_space = spaces.Tuple([self.single_action_space] * self.num_envs)
        self._executor_arg = executor
        self._max_workers = max_workers
        self._pool = make_executor(executor, max_workers)
        self._np_random, _ = seeding.np_random()
        self.tasks: list[Task] | None = None
        self._indices: list[int] = []
        self._stepped = False

    @property
    def group_ids(self) -> np.ndarray:
        """Group id of each episode, shape ``(num_envs,)``."""
        return np.repeat(np.arange(self.num_tasks), self.group_size)

    def _draw_indices(self) -> list[int]:
        return draw_indices(self.base, self.np_random, self.num_tasks)

    def _pinned_indices(self, options: dict[str, Any]) -> list[int]:
        unknown = set(options) - {"indices", "task_ids"}
        if unknown or len(options) != 1:
            raise ValueError(f"reset options must be exactly one of 'indices' or 'task_ids' (with an optional "
                             f"all-True 'reset_mask'), got {sorted(options)}")
        key, values = next(iter(options.items()))
        if len(values) != self.num_tasks:
            raise ValueError(f"options[{key!r}] has {len(values)} entries, expected num_tasks={self.num_tasks}")
        single = "index" if key == "indices" else "task_id"
        return [self.base.pinned_index({single: v}) for v in values]

    def _check_reset_mask(self, mask: Any) -> None:
        """Gymnasium's partial-reset option: only a full reset fits episodes that share tasks by group."""
        mask = np.asarray(mask)
        if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
            raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), "
                             f"got dtype {mask.dtype} and shape {mask.shape}")
        if not mask.all():
            raise ValueError("TextVectorEnv resets whole batches (the episodes of a group share one task): "
                             "options['reset_mask'] must be all True; call reset() for the next batch")

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a batch: ``num_tasks`` tasks, each repeated ``group_size`` times.

        Args:
            seed: One int seeding the draw of the batch's tasks (all episodes share one RNG, so
                Gymnasium's list of per-env seeds is refused: pin tasks with ``options`` instead).
            options: ``{"indices": [...]}`` or ``{"task_ids": [...]}`` (one per task) pins the
                tasks; Gymnasium's ``"reset_mask"`` is accepted when it is all True.
        """
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
                raise TypeError(f"seed must be one int (all episodes draw tasks from one RNG), got {seed!r}; "
                                "to choose each task pass options={'indices': [...]} or {'task_ids': [...]}")
            self._np_random, _ = seeding.np_random(int(seed))
        options = dict(options or {})
        if "reset_mask" in options:
            self._check_reset_mask(options.pop("reset_mask"))
        indices = self._pinned_indices(options) if options else self._draw_indices()
        tasks = [self.base.source[i] for i in indices]
        self.tasks = [t for t in tasks for _ in range(self.group_size)]
        self._indices = [i for i in indices for _ in range(self.group_size)]
        self._stepped = False
        prompts = [self.base.format_prompt(t) for t in self.tasks]
        infos = [self.base.task_info(task, index) for task, index in zip(self.tasks, self._indices, strict=True)]
        return prompts, self._vector_infos(infos)

    def _vector_infos(self, infos: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Per-episode info dicts in Gymnasium's vector layout, plus ``group_id``.

        Each key maps to an array with one entry per episode (bool/int/float arrays for such
        values, object arrays otherwise: dicts such as ``components`` stay one dict per episode)
        and ``"_" + key`` to the bool mask of the episodes that have it, as Gymnasium's vector
        wrappers (``DictInfoToList``, ``RecordEpisodeStatistics``) expect.
        """
        out: dict[str, Any] = {}
        for key in dict.fromkeys(k for info in infos for k in info):
            mask = np.array([key in info for info in infos], dtype=bool)
            values = [info.get(key) for info in infos]
            present = {type(v) for v, m in zip(values, mask, strict=True) if m}
            dtype = next((t for t in (bool, int, float) if present == {t}), object)
            array = np.empty(len(infos), dtype=dtype) if dtype is object else np.zeros(len(infos), dtype=dtype)
            for i, (value, has) in enumerate(zip(values, mask, strict=True)):
                if has:
                    array[i] = value
            out[key], out[f"_{key}"] = array, mask
        out["group_id"], out["_group_id"] = self.group_ids, np.ones(self.num_envs, dtype=bool)
        return out

    def step(self, actions: Sequence[str]):
        """Score one completion per episode; returns Gymnasium's vector 5-tuple (infos as in :meth:`_vector_infos`)."""
        if self.tasks is None:
            raise RuntimeError("step() called before reset(): call vec.reset() to start a batch")
        if self._stepped:
            raise RuntimeError("step() called twice on one batch: episodes are single-turn, call reset()")
        actions = list(actions)
        if len(actions) != self.num_envs:
            raise ValueError(f"got {len(actions)} completions, expected num_envs={self.num_envs}")
        for i, action in enumerate(actions):
            if not isinstance(action, str):
                raise TypeError(f"completion {i} must be a str, got {type(action).__name__}: {action!r:.80}")
        clipped = [self.base.clip_completion(a) for a in actions]
        completions = [c for c, _ in clipped]
        results = score_tasks(self.base.verifier, self.tasks, completions, executor=self._pool or "serial",
                              max_workers=self._max_workers)
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        truncated = np.array([t for _, t in clipped], dtype=bool)
        infos = []
        for i, (task, completion, result) in enumerate(zip(self.tasks, completions, results, strict=True)):
            reward, info = self.env.get_wrapper_attr("episode_outcome")(task, completion, result, bool(truncated[i]))
            info.update(self.base.task_info(task, self._indices[i]))
            rewards[i] = reward
            infos.append(info)
        self._stepped = True
        obs = [self.base.terminal_observation() for _ in range(self.num_envs)]
        return obs, rewards, np.ones(self.num_envs, dtype=bool), truncated, self._vector_infos(infos)

    def close_extras(self, **kwargs: Any) -> None:
        release_executor(self._pool, self._executor_arg)
        self._pool = None


class MultiTurnVectorEnv:
    """``num_tasks * group_size`` multi-turn episodes played side by side, one env instance each.

    ``reset`` draws ``num_tasks`` tasks as :class:`TextVectorEnv` does (distinct when the source
    has that many), repeats each ``group_size`` times consecutively (``group_id`` ``g`` for
    episodes ``[g*group_size, (g+1)*group_size)``) and resets instance ``i`` on the task of
    episode ``i``. The episodes are then stepped one by one through :attr:`envs` (each a
    :class:`~rlenv.multiturn.MultiTurnEnv`, possibly wrapped), as many turns as each needs:
    the trainers' multi-turn rollout does it in lockstep, one generation call per turn.

    Args:
        make_env: Builds one instance (called ``num_tasks * group_size`` times).
        num_tasks: Distinct prompts per batch.
        group_size: Episodes per prompt.
    """

    def __init__(self, make_env: Callable[[], gymnasium.Env], num_tasks: int, group_size: int = 1):
        for name, value in (("num_tasks", num_tasks), ("group_size", group_size)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        self.num_tasks = num_tasks
        self.group_size = group_size
        self.num_envs = num_tasks * group_size
        self.envs = [make_env() for _ in range(self.num_envs)]
        for env in self.envs:
            if not isinstance(getattr(env, "unwrapped", None), MultiTurnEnv):
                raise TypeError(f"MultiTurnVectorEnv plays multi-turn envs, make_env built "
                                f"{type(getattr(env, 'unwrapped', env)).__name__}")
        #: Each instance's :class:`~rlenv.multiturn.MultiTurnEnv` (under its wrappers).
        self.bases: list[MultiTurnEnv] = [cast(MultiTurnEnv, env.unwrapped) for env in self.envs]  # checked above
        self.base = self.bases[0]
        self.env = self.envs[0]
        self._np_random, _ = seeding.np_random()

    @classmethod
    def from_env(cls, env: gymnasium.Env, num_tasks: int, group_size: int = 1) -> MultiTurnVectorEnv:
        """Instances of ``env`` rebuilt from its ``spec`` (what ``rlenv.make`` / ``gymnasium.make`` record,
        wrappers included); ``env`` itself is the first one."""
        if env.spec is None:
            raise ValueError(f"{type(env.unwrapped).__name__} has no spec to build more instances from: make it with "
                             "rlenv.make, or pass a MultiTurnVectorEnv(make_env, num_tasks, group_size)")
        spec = env.spec
        first = [env]

        def make_env() -> gymnasium.Env:
            return first.pop() if first else gymnasium.make(spec)

        return cls(make_env, num_tasks, group_size)

    @property
    def group_ids(self) -> np.ndarray:
        """Group id of each episode, shape ``(num_envs,)``."""
        return np.repeat(np.arange(self.num_tasks), self.group_size)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[list[Any], dict[str, Any]]:
        """Start a batch of episodes; returns each episode's first observation and
        ``{"group_id", "index", "info"}`` (``info``: each instance's reset info, ``tools`` included).

        Args:
            seed: Seeds the draw of the tasks and, through it, each instance's reset.
            options: ``{"indices": [...]}`` (one per task) pins the tasks.
        """
        if seed is not None:
            self._np_random, _ = seeding.np_random(int(seed))
        options = dict(options or {})
        if set(options) - {"indices"}:
            raise ValueError(f"reset options may only hold 'indices', got {sorted(options)}")
        if "indices" in options:
            indices = [int(i) for i in options["indices"]]
            if len(indices) != self.num_tasks:
                raise ValueError(f"options['indices'] has {len(indices)} entries, expected num_tasks={self.num_tasks}")
        else:
            indices = draw_indices(self.base, self._np_random, self.num_tasks)
        indices = [i for i in indices for _ in range(self.group_size)]
        seeds = self._np_random.integers(0, 2**31 - 1, size=self.num_envs)
        observations, infos = [], []
        for env, index, episode_seed in zip(self.envs, indices, seeds, strict=True):
            obs, info = env.reset(seed=int(episode_seed), options={"index": index})
            observations.append(obs)
            infos.append(info)
        return observations, {"group_id": self.group_ids, "index": indices, "info": infos}

    def close(self) -> None:
        """Close every instance."""
        for env in self.envs:
            env.close()
