"""Shared fixtures for the trainer tests: the learning task, a tiny addition environment and a tiny policy.

``make_task_env`` is the single place that names the learning task (``rlenv/Arithmetic-v0``,
lowest level); ``addition_env`` is a self-contained 100-task environment for unit tests.
"""

from __future__ import annotations

import contextlib
import copy
import os
import pathlib
import random
import threading
import zlib

import rlenv
from rlenv import RewardResult, Status, Task, TextEnv
from rlenv.sources import ProceduralSource
from rlenv.splits import disjoint_split, distinct_prompt_indices
from rlenv.trainers.tiny import tiny_causal_lm, tiny_tokenizer

#: Learning task: held-out evaluation uses the first HELD_OUT_PROBLEMS distinct problems drawn from index
#: HELD_OUT_START on; training (SFT and RL) uses TRAIN_SIZE tasks whose prompts are none of those problems.
#: (Level 1 has only 100 distinct problems, so fresh indices alone would repeat training problems.)
TRAIN_SIZE = 5000
HELD_OUT_START = 100_000
HELD_OUT_PROBLEMS = 30
#: Generation limit for the learning task (``#### 17`` and EOS).
MAX_NEW_TOKENS = 8
#: Distinct problems of :func:`addition_env` (task ``i`` is ``divmod(i % NUM_TASKS, 10)``).
NUM_TASKS = 100


def _addition(rng: random.Random, index: int) -> Task:
    a, b = divmod(index % NUM_TASKS, 10)
    return Task(str(index), f"{a}+{b}=", reference=str(a + b), gold_completion=str(a + b))


class ExactAnswer:
    """Correct when the stripped completion equals the reference."""

    name = "exact_answer"
    version = "1"

    def __call__(self, task: Task, completion: str) -> RewardResult:
        answer = completion.strip()
        if not answer:
            return RewardResult(0.0, Status.UNPARSABLE, verifier=self.name, verifier_version=self.version)
        ok = answer == task.reference
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name,
                            verifier_version=self.version)


class InjectedFailures:
    """Wraps a verifier and makes it crash (raise) on a chosen share of its calls, deterministically.

    Whether a call fails is drawn from a hash of ``seed``, the task and the completion, so the same
    rollout fails in the same places whatever thread scores it:

    - ``unit="call"``: the hash also covers how often that (task, completion) was scored before:
      scoring it again draws anew (a transient crash that re-scoring can fix);
    - ``unit="completion"``: the same (task, completion) always fails;
    - ``unit="task"``: every call on a drawn share of the problems fails (a broken problem).

    ``parsed_only``: only answers the wrapped verifier could read fail (a crash while checking an answer).
    """

    name = "injected_failures"

    def __init__(self, inner, rate: float, *, unit: str = "call", seed: int = 0, parsed_only: bool = False):
        if unit not in ("call", "completion", "task"):
            raise ValueError(f"unit must be 'call', 'completion' or 'task', got {unit!r}")
        self.inner, self.rate, self.unit, self.seed, self.parsed_only = inner, rate, unit, seed, parsed_only
        self.calls: dict[tuple[str, str], int] = {}
        self.lock = threading.Lock()

    def __call__(self, task: Task, completion: str) -> RewardResult:
        with self.lock:
            n = self.calls.get((task.id, completion), 0)
            self.calls[(task.id, completion)] = n + 1
        result = self.inner(task, completion)
        if self.parsed_only and result.status == Status.UNPARSABLE:
            return result
        key = {"call": f"{task.id}|{completion}|{n}", "completion": f"{task.id}|{completion}",
               "task": task.prompt}[self.unit]
        if zlib.crc32(f"{self.seed}|{key}".encode()) % 1000 < 1000 * self.rate:
            raise RuntimeError(f"injected crash on {task.id}")
        return result


def with_failures(env: TextEnv, rate: float, **options) -> TextEnv:
    """A copy of ``env`` (same tasks, prompts and spec) whose verifier crashes as :class:`InjectedFailures` says."""
    failing = copy.copy(env.unwrapped)
    failing.verifier = InjectedFailures(env.unwrapped.verifier, rate, **options)
    return failing


#: The answer format of the learning task's completions (``#### 17``), for its format term.
ANSWER_FORMAT = r"#### -?\d+"


def with_format_term(env: TextEnv, weight: float = 0.2) -> TextEnv:
    """A copy of ``env`` whose reward is graded, as accuracy + format rewards are: its verifier's value
    plus ``weight`` when the completion has the answer format (``rlenv.envs.format.format_reward``), so
    a well-formed wrong answer earns ``weight``. A crash of the wrapped verifier makes the episode's
    status ``error``; its value keeps the format term."""
    from rlenv.envs.format import RegexFormat, format_reward

    graded = copy.copy(env.unwrapped)
    graded.verifier = format_reward(RegexFormat(ANSWER_FORMAT), env.unwrapped.verifier, "sum", weight)
    return graded


def addition_env() -> TextEnv:
    """Single-digit addition ``a+b=`` -> ``a+b``, exact match; endless, task ``i`` repeats task ``i % 100``."""
    return TextEnv(ProceduralSource(_addition, seed=0, prefix="add"), ExactAnswer())


def make_task_env() -> TextEnv:
    """The learning task of the trainer tests: ``rlenv/Arithmetic-v0`` at its lowest level."""
    return rlenv.make("rlenv/Arithmetic-v0", level=1)


def held_out_indices(env: TextEnv, count: int = HELD_OUT_PROBLEMS) -> list[int]:
    """Indices (from ``HELD_OUT_START`` on) of the first ``count`` distinct problems: the held-out set."""
    return distinct_prompt_indices(env.unwrapped.source, HELD_OUT_START, count)


def training_split(env: TextEnv, size: int = TRAIN_SIZE) -> TextEnv:
    """A copy of ``env`` whose tasks never share a prompt with the held-out problems."""
    return disjoint_split(env, HELD_OUT_PROBLEMS, size, HELD_OUT_START)[0]


#: The RL budget of the learning tests: 60 rollouts of 32 prompts x 4 samples, 4 passes over each.
RL_BUDGET = dict(steps=60, num_tasks=32, group_size=4, max_new_tokens=MAX_NEW_TOKENS, micro_batch_size=64,
                 progress=False)
PPO_EPOCHS = 4
#: The SFT warm-up shared by the learning tests: steps x batch of gold completions from the training split.
SFT_STEPS, SFT_BATCH, SFT_LR = 150, 16, 3e-3


def held_out_pass_at_1(model, tok, env: TextEnv) -> float:
    """Unbiased pass@1 from 16 samples at temperature 1 on each held-out problem (rlenv's evaluation)."""
    import tempfile

    from rlenv.evaluation import EvalOptions, evaluate_policy
    from rlenv.inference.hf import policy_generate
    from rlenv.inference.policy import SamplingConfig

    generate = policy_generate(model, tok, SamplingConfig(max_new_tokens=MAX_NEW_TOKENS, temperature=1.0), chat="off")
    options = EvalOptions(ks=[1], families=("pass@k",), n_resamples=100, plot=False, report=False, progress=False,
                          executor="serial")
    with tempfile.TemporaryDirectory() as out:
        summary = evaluate_policy(env, generate, held_out_indices(env), 16, out, options)
    return summary["metrics"]["pass@1"]["value"]


def warm_start_state() -> tuple[dict, float]:
    """``(state_dict, held-out pass@1)`` of a tiny policy after the SFT warm-up on the training split."""
    from rlenv.trainers import gold_examples, sft

    model, tok = tiny_policy()
    env = make_task_env()
    sft(model, tok, gold_examples(training_split(env), range(SFT_STEPS * SFT_BATCH)), steps=SFT_STEPS,
        batch_size=SFT_BATCH, lr=SFT_LR, progress=False)
    before = held_out_pass_at_1(model, tok, env)
    assert 0.05 < before < 0.7, f"the warm-up should leave room to learn, got pass@1={before}"
    return {k: v.clone() for k, v in model.state_dict().items()}, before


def policy_gradient_gain(state: dict, before: float, algorithm, config: dict, failure_rate: float = 0.0,
                         format_weight: float = 0.0, failing: str = "reward",
                         **failure_options) -> tuple[float, list[dict]]:
    """``(held-out pass@1 gain, step metrics)`` of a policy-gradient run from the warm start ``(state, before)``
    on the training split.

    The training reward is graded by a format term of ``format_weight`` (:func:`with_format_term`;
    0: the task's own 0/1 reward), and ``failure_rate`` of its calls crash (:func:`with_failures`):
    ``failing="reward"``, the whole reward call (a reward service that did not answer: the episode's
    reward is 0); ``"accuracy"``, only the math check inside the graded reward (the format term is
    still paid).
    """
    from rlenv.trainers import Trainer

    if failing not in ("reward", "accuracy"):
        raise ValueError(f"failing must be 'reward' or 'accuracy', got {failing!r}")
    model, tok = tiny_policy()
    model.load_state_dict(state)
    env = make_task_env()
    train_env = training_split(env)
    if failure_rate and failing == "accuracy":
        train_env = with_failures(train_env, failure_rate, **failure_options)
    if format_weight:
        train_env = with_format_term(train_env, format_weight)
    if failure_rate and failing == "reward":
        train_env = with_failures(train_env, failure_rate, **failure_options)
    history = Trainer(model, train_env, algorithm, config=config, tokenizer=tok).train()
    return held_out_pass_at_1(model, tok, env) - before, history


def _gain_of_run(job: tuple) -> tuple[float, float]:
    """One run of :func:`parallel_gains` (a module-level function, so that worker processes can run it)."""
    import torch

    from rlenv.trainers import ALGORITHMS

    state, before, run = job
    torch.set_num_threads(1)
    run = {**RUN_DEFAULTS, **run}
    policy, seed = run["policy"], run["seed"]
    config = dict(RL_BUDGET, steps=run["steps"], group_size=run["group_size"], lr=run["lr"], seed=seed,
                  fail_fast_fraction=None, on_verifier_error="mask" if policy == "clean" else policy, **run["trainer"])
    algorithm = ALGORITHMS[run["algorithm"]].replace(ppo_epochs=PPO_EPOCHS)
    rate = 0.0 if policy == "clean" else run["rate"]
    gain, history = policy_gradient_gain(state, before, algorithm, config, rate, run["format_weight"], run["failing"],
                                         seed=seed, **run["failure_options"])
    episodes = config["num_tasks"] * config["group_size"]
    hit = [m["failures/rescored"] / episodes if policy == "resample" else m["failures/fraction"] for m in history]
    return gain, sum(hit) / len(hit)


#: What a run of :func:`parallel_gains` is unless it says otherwise.
RUN_DEFAULTS = dict(algorithm="grpo", lr=5e-4, seed=0, policy="clean", steps=60, group_size=4, rate=0.3,
                    format_weight=0.0, failing="reward", failure_options={}, trainer={})


def parallel_gains(state: dict, before: float, runs: list[dict], workers: int = 2) -> list[tuple[float, float]]:
    """``(held-out pass@1 gain, mean failed fraction per step)`` of each run, from the warm start ``(state, before)``.

    A run is a dict of :data:`RUN_DEFAULTS` keys: preset ``algorithm`` on :data:`RL_BUDGET` with
    ``steps``, ``group_size``, ``lr`` and the trainer's ``seed``, under ``on_verifier_error`` =
    ``policy`` (``"clean"``: no failures) with ``rate`` of the calls failing as
    :func:`policy_gradient_gain` and :func:`with_failures` take them (the seed also picks which
    calls fail), and ``trainer``: further ``TrainerConfig`` fields (``dtype``, ``lora_r``, ...). The failed fraction is the share of each step's episodes that failed (for
    ``resample``: that were re-scored). ``workers`` runs go at once (:func:`in_workers`), on one
    thread each; each run's result depends only on its settings, not on which worker ran it.
    """
    unknown = {key for run in runs for key in run} - set(RUN_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown run settings {sorted(unknown)}: expected keys of RUN_DEFAULTS")
    return in_workers(_gain_of_run, [(state, before, run) for run in runs], workers)


def in_workers(function, jobs: list, workers: int = 2) -> list:
    """``[function(job) for job in jobs]``, ``workers`` at once in processes started afresh (``spawn``: a fork of
    a process with running threads, as a test session has, can hang). ``function`` must be importable by name."""
    import concurrent.futures
    import multiprocessing

    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(function, jobs))


def failure_policy_gains(state: dict, before: float, policies: list[str], seeds: list[int], *, workers: int = 2,
                         **settings) -> dict[str, list[float]]:
    """Held-out pass@1 gain, per seed, of runs under each ``on_verifier_error`` policy (``"clean"``: no failures),
    the other ``settings`` as :func:`parallel_gains` takes them (keys of :data:`RUN_DEFAULTS`)."""
    runs = [dict(settings, policy=policy, seed=seed) for policy in policies for seed in seeds]
    gains = [gain for gain, _ in parallel_gains(state, before, runs, workers)]
    return {policy: gains[i * len(seeds):(i + 1) * len(seeds)] for i, policy in enumerate(policies)}


#: Longest a collective may wait for the other rank before gloo raises in the waiting rank (its traceback then names
#: the collective), and longest the spawned ranks may run in all: minutes where the ranks take seconds alone.
COLLECTIVE_TIMEOUT_S = 300
RANKS_DEADLINE_S = 900


@contextlib.contextmanager
def gloo_rank(rank: int, world_size: int, init_file: str):
    """This spawned process as rank ``rank`` of a CPU (gloo) process group for the ``with`` block, on one torch thread;
    the ranks leave together (gloo aborts a rank torn down while its peer still works)."""
    import datetime

    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world_size,
                            timeout=datetime.timedelta(seconds=COLLECTIVE_TIMEOUT_S))
    try:
        yield
        dist.barrier()
    finally:
        dist.destroy_process_group()


def mark_stage(out_dir: str, rank: int, stage: str) -> None:
    """Record that ``rank`` reached ``stage`` (read back by :func:`spawn_ranks` when a rank fails or hangs)."""
    with open(os.path.join(out_dir, f"stages{rank}.txt"), "a") as f:
        f.write(stage + "\n")


def spawn_ranks(worker, out_dir: str, world_size: int = 2) -> None:
    """Run ``worker(rank, world_size, init_file, out_dir)`` in ``world_size`` fresh processes and wait for all.

    The ranks start with one OpenMP and MKL thread each (no thread pool of one rank competes with the other for
    the cores), and run at most :data:`RANKS_DEADLINE_S`; a rank that fails or a run past the deadline fails the test
    with the stages each rank reached (:func:`mark_stage`), instead of hanging the session.
    """
    import time
    from unittest import mock

    import pytest
    import torch.multiprocessing as mp

    with mock.patch.dict(os.environ, {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}):
        context = mp.start_processes(worker, args=(world_size, os.path.join(out_dir, "init"), out_dir),
                                     nprocs=world_size, join=False, start_method="spawn")
    deadline = time.monotonic() + RANKS_DEADLINE_S
    try:
        while not context.join(timeout=5):
            if time.monotonic() > deadline:
                for process in context.processes:
                    process.kill()
                    process.join()
                raise TimeoutError(f"the {world_size} ranks ran past {RANKS_DEADLINE_S} s")
    except Exception as error:
        reached = {rank: _stages(out_dir, rank) for rank in range(world_size)}
        pytest.fail(f"{type(error).__name__}: {error}\nstages reached: {reached}", pytrace=False)


def _stages(out_dir: str, rank: int) -> list[str]:
    path = pathlib.Path(out_dir, f"stages{rank}.txt")
    return path.read_text().split() if path.exists() else []


def tiny_policy(seed: int = 0, hidden_size: int = 64, num_layers: int = 2):
    """``(model, tokenizer)``: a tiny Llama on a character tokenizer, built locally."""
    tok = tiny_tokenizer()
    return tiny_causal_lm(tok, hidden_size=hidden_size, num_layers=num_layers, seed=seed), tok


__all__ = ["HELD_OUT_PROBLEMS", "HELD_OUT_START", "PPO_EPOCHS", "RL_BUDGET", "InjectedFailures", "MAX_NEW_TOKENS", "NUM_TASKS", "TRAIN_SIZE", "addition_env", "with_failures", "with_format_term", "ANSWER_FORMAT", "failure_policy_gains", "parallel_gains", "in_workers", "COLLECTIVE_TIMEOUT_S", "RANKS_DEADLINE_S", "gloo_rank", "mark_stage", "spawn_ranks", "RUN_DEFAULTS", "make_task_env", "policy_gradient_gain", "rlenv", "tiny_policy", "training_split", "held_out_indices", "held_out_pass_at_1", "warm_start_state"]



def resumed_and_uninterrupted(make_trainer, make_batch, tmp_path):
    """``(uninterrupted, resumed)`` trainers: one of ``make_trainer()`` updated twice on
    ``make_batch(tokenizer)``, and one that resumed from another's checkpoint after its first update
    and then made the second (``make_trainer`` returns ``(trainer, tokenizer)``)."""
    whole, tok = make_trainer()
    for _ in range(2):
        whole.update(make_batch(tok))
    first, _ = make_trainer()
    first.update(make_batch(tok))
    first.save_checkpoint(tmp_path / "checkpoint-1")
    resumed, _ = make_trainer()
    resumed.load_checkpoint(tmp_path / "checkpoint-1")
    resumed.update(make_batch(tok))
    return whole, resumed
