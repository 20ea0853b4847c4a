"""Asynchronous rollouts: a generator process samples the batches of steps ``t+1 .. t+k`` while step
``t`` updates the policy, with ``k = max_staleness`` bounding how old a trained sample may be.

* :class:`AsyncRolloutSettings` — the settings (a part of
  :class:`~rlenv.trainers.policy_gradient.TrainerConfig`);
* :class:`GeneratorProcess` — a copy of the policy in its own process (``spawn``) with the run's
  rollout backend (``hf``, or a vLLM engine that then lives in that process). Weights are pushed to
  it after every optimizer step, tagged with the policy version (the trainer's step count); it
  applies messages in order, so a batch requested after the push of version ``v`` is sampled by
  version ``v`` or newer. Every generation comes back with the version that sampled it.
* :class:`AsyncRollouts` — the collector thread: it requests batch ``j`` (seeded as the
  synchronous trainer seeds step ``j``) once the trainer has reached step ``j - k`` and pushed
  that step's weights, scores it with the environment (verifier failures, dynamic sampling: as
  :func:`~rlenv.trainers.rollout.collect`), and hands the trainer batch ``j`` at step ``j``.

Admission is by order of sampling: whole batches, requested in step order and trained in the
same order, none dropped; staleness is bounded by not *requesting* a batch too early, never by
discarding one that arrived late. So an episode that is slow to generate (a long one) is trained
exactly like a quick one, and the trained data has the sampled distribution (dropping stale
arrivals would favour short, easy episodes). With ``k = 0`` each batch is requested after the
previous update, from the same weights, with the trainer's random state carried to the process
and back: the run equals the synchronous trainer's, bit for bit.

Nothing waits silently: the trainer raises :class:`~rlenv.errors.RolloutStalledError` at once when
the generator process dies, when the batch it waits for takes longer than ``generator_timeout_s``
(the message says whether it was generating or scoring, e.g. a verifier that stopped answering),
and when a weight push is not applied within ``weight_sync_timeout_s``.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import torch

from rlenv.errors import RolloutStalledError
from rlenv.inference import Sampling, make_rollout_generator
from rlenv.inference.policy import Generation, Observation
from rlenv.trainers.batch import EpisodeBatch
from rlenv.trainers.rollout import EpisodeEnv, FailureLog, FailurePolicy, collect

logger = logging.getLogger(__name__)

#: Seconds between two looks at the generator process and the collector while waiting.
POLL_S = 0.05


@dataclasses.dataclass
class AsyncRolloutSettings:
    """Settings of asynchronous rollouts (a part of :class:`~rlenv.trainers.policy_gradient.TrainerConfig`).

    Attributes:
        async_rollouts: sample in a generator process that runs ahead of the update (see
            :mod:`rlenv.trainers.policy_gradient.asynchronous`; off = the synchronous trainer).
        max_staleness: how many optimizer steps older than the trainer a trained sample's policy may
            be (``k``; 0 = the synchronous trainer's batches, bit for bit).
        generator_timeout_s: the longest the trainer waits for a batch (generation and scoring).
        weight_sync_timeout_s: the longest a weight push may take to be applied by the generator
            process (it applies pushes between two generations, so this includes one in flight). Its
            start (loading the policy and building the rollout backend) may take
            ``generator_timeout_s + weight_sync_timeout_s``.
    """

    async_rollouts: bool = False
    max_staleness: int = 1
    generator_timeout_s: float = 600.0
    weight_sync_timeout_s: float = 300.0

    def __post_init__(self) -> None:
        super_init = getattr(super(), "__post_init__", None)
        if super_init is not None:
            super_init()
        if self.max_staleness < 0:
            raise ValueError(f"max_staleness must be >= 0, got {self.max_staleness}")
        for name in ("generator_timeout_s", "weight_sync_timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")


# -- the generator process ----------------------------------------------------------------------
def _generator_main(inbox: Any, outbox: Any, model_config: Any, weights: dict[str, torch.Tensor], version: int,
                    tokenizer: Any, sampling: Sampling, backend: str, batch_size: int | None,
                    options: dict[str, Any], threads: int, device: str) -> None:
    """The generator process: build the policy copy and its generator, then apply messages in order."""
    torch.set_num_threads(threads)
    doing = "starting"
    try:
        from transformers import AutoModelForCausalLM

        policy = AutoModelForCausalLM.from_config(model_config).to(device, next(iter(weights.values())).dtype)
        policy.load_state_dict(weights)
        del weights
        generate = make_rollout_generator(policy, tokenizer, sampling, backend, batch_size, **options)
        outbox.put(("weights", version))
        while True:
            message = inbox.get()
            if message[0] == "stop":
                return
            if message[0] == "weights":
                doing = f"loading the weights of policy version {message[1]}"
                with torch.no_grad():
                    policy.load_state_dict(message[2])
                version = message[1]
                outbox.put(("weights", version))
            else:
                _, request, observations, rng = message
                doing = f"generating {request}"
                torch.set_rng_state(rng)
                outbox.put(("generation", request, version, _by_value(generate(observations)),
                            torch.get_rng_state().numpy()))
    except BaseException:  # noqa: BLE001 - every failure goes back to the trainer, named
        outbox.put(("error", doing, traceback.format_exc()))


def _by_value(generation: Generation) -> dict[str, Any]:
    """``generation`` as numpy arrays: pickled by value, so reading it never needs the process that sent it
    (torch shares tensors through a connection to the sender, which a dying process resets)."""
    return {field.name: None if (value := getattr(generation, field.name)) is None else value.cpu().numpy()
            for field in dataclasses.fields(Generation)}


def _exit_description(code: int | None) -> str:
    if code is not None and code < 0:
        return f"was killed by signal {signal.Signals(-code).name}"
    return f"exited with code {code}"


class GeneratorProcess:
    """A copy of ``policy`` generating in its own process (on ``policy``'s device, with as many torch
    threads as this one), kept at the versions pushed to it.

    Args:
        policy: the ``transformers`` causal LM being trained (its config and current weights).
        tokenizer: its tokenizer (picklable).
        sampling: the rollout :class:`~rlenv.inference.Sampling`.
        backend, batch_size, options: the generator of :func:`~rlenv.inference.make_rollout_generator`.
        version: the policy version of ``policy``'s current weights.
        start_timeout_s: how long the process may take to start (load ``version`` and build its generator).
        weight_sync_timeout_s: how long each later push may take to be applied.
    """

    def __init__(self, policy: Any, tokenizer: Any, sampling: Sampling, backend: str = "hf",
                 batch_size: int | None = None, options: dict[str, Any] | None = None, *, version: int = 0,
                 start_timeout_s: float = 600.0, weight_sync_timeout_s: float = 300.0):
        context = torch.multiprocessing.get_context("spawn")
        self._inbox, self._outbox = context.Queue(), context.Queue()
        self.weight_sync_timeout_s, self.start_timeout_s = weight_sync_timeout_s, start_timeout_s
        self.first_version = version
        self.applied_version = version - 1
        self._pending: dict[int, float] = {version: time.monotonic() + start_timeout_s}
        self._results: queue.Queue = queue.Queue()
        self._failure: str | None = None
        self.failed = False
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self.process = context.Process(
            target=_generator_main, name="rlenv-generator", daemon=True,
            args=(self._inbox, self._outbox, policy.config, _weights_copy(policy), version, tokenizer, sampling,
                  backend, batch_size, dict(options or {}), torch.get_num_threads(),
                  str(next(policy.parameters()).device)))
        self.process.start()
        self._reader = threading.Thread(target=self._read, name="rlenv-generator-reader", daemon=True)
        self._reader.start()

    @property
    def started(self) -> bool:
        """Whether the process has loaded its first weights."""
        return self.applied_version >= self.first_version

    @property
    def pid(self) -> int | None:
        """The generator process's id."""
        return self.process.pid

    def _read(self) -> None:
        """Drain the process's answers: applied pushes, generations, its failure."""
        while not self._closed.is_set():
            try:
                message = self._outbox.get(timeout=POLL_S)
            except queue.Empty:
                if not self.process.is_alive():
                    return
                continue
            except (OSError, EOFError) as exc:  # the pipe broke: the process is gone, check() says how
                logger.debug("reading the generator process's answers stopped: %r", exc)
                return
            if message[0] == "weights":
                with self._lock:
                    self.applied_version = max(self.applied_version, message[1])
                    self._pending = {v: d for v, d in self._pending.items() if v > message[1]}
            elif message[0] == "generation":
                self._results.put(message)
            else:
                self._failure = f"the generator process (pid {self.pid}) failed while {message[1]}:\n{message[2]}"
                return

    def check(self) -> None:
        """Raise :class:`~rlenv.errors.RolloutStalledError` if the process failed or died, or a weight push is overdue."""
        try:
            self._check()
        except RolloutStalledError:
            self.failed = True
            raise

    def _check(self) -> None:
        if self._failure is not None:
            raise RolloutStalledError(self._failure)
        if not self.process.is_alive() and not self._closed.is_set():
            self._reader.join(timeout=1.0)  # an error it sent before exiting names the cause better
            if self._failure is not None:
                raise RolloutStalledError(self._failure)
            raise RolloutStalledError(f"the generator process (pid {self.pid}) "
                                      f"{_exit_description(self.process.exitcode)}")
        now = time.monotonic()
        with self._lock:
            overdue = sorted(v for v, deadline in self._pending.items() if now > deadline)
        if overdue and not self.started:
            raise RolloutStalledError(f"the generator process (pid {self.pid}) did not start within "
                                      f"{self.start_timeout_s:g}s (generator_timeout_s + weight_sync_timeout_s)")
        if overdue:
            raise RolloutStalledError(
                f"the generator process (pid {self.pid}) did not apply the weights of policy version {overdue[0]} "
                f"within weight_sync_timeout_s={self.weight_sync_timeout_s:g}s (it is alive but not answering; "
                f"last applied version: {self.applied_version})")

    def push_weights(self, policy: Any, version: int) -> None:
        """Send ``policy``'s current weights as ``version`` (returns at once; :meth:`check` watches the deadline)."""
        with self._lock:
            self._pending[version] = time.monotonic() + self.weight_sync_timeout_s
        self._inbox.put(("weights", version, _weights_copy(policy)))

    def generate(self, observations: Sequence[Observation], request: str,
                 stop: threading.Event | None = None) -> tuple[Generation, int]:
        """Completions of ``observations`` (named ``request`` in errors) and the policy version that sampled them.

        Torch's global random state travels with the request and comes back advanced, as if the
        generation had run here. Waits until the answer comes, the process fails or ``stop`` is set.
        """
        self._inbox.put(("generate", request, list(observations), torch.get_rng_state()))
        while True:
            try:
                _, _, version, fields, rng = self._results.get(timeout=POLL_S)
            except queue.Empty:
                self.check()
                if stop is not None and stop.is_set():
                    raise _Stopped from None
                continue
            torch.set_rng_state(torch.from_numpy(rng))
            tensors: dict[str, Any] = {name: None if value is None else torch.from_numpy(value)
                                       for name, value in fields.items()}
            return Generation(**tensors), int(version)

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop the process: asked to stop, killed if it does not within ``timeout_s``, or at once after a failure."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self.process.is_alive() and self.failed:
            self.process.kill()
        if self.process.is_alive():
            self._inbox.put(("stop",))
            self.process.join(timeout_s)
        if self.process.is_alive():
            logger.warning("the generator process (pid %s) did not stop within %gs; killed", self.pid, timeout_s)
            self.process.kill()
            self.process.join(timeout_s)
        self._reader.join(timeout_s)
        self._inbox.cancel_join_thread()


def _weights_copy(policy: Any) -> dict[str, torch.Tensor]:
    """A CPU copy of ``policy``'s weights that the training can no longer change."""
    return {name: tensor.detach().to("cpu", copy=True) for name, tensor in policy.state_dict().items()}


class _Stopped(Exception):
    """The collector was closed while it waited."""


# -- the collector ------------------------------------------------------------------------------
@dataclasses.dataclass
class _Sampled:
    batch: EpisodeBatch
    stats: dict[str, float]
    failures: FailureLog
    version: int


class AsyncRollouts:
    """The batches of a run, sampled ahead of the update by a :class:`GeneratorProcess`.

    Args:
        env: the vector env (used by the collector thread only).
        generator: the generator process.
        tokenizer: the policy's tokenizer.
        seed_of: the rollout seed of step ``j``.
        first_step: the trainer's current step (its weights are the generator's version ``first_step``).
        max_staleness: ``k``: batch ``j`` is requested once the trainer reached step ``j - k``.
        timeout_s: the longest :meth:`next_batch` waits.
        dynamic_sampling, max_refills, failures: as :func:`~rlenv.trainers.rollout.collect`.
    """

    def __init__(self, env: EpisodeEnv, generator: GeneratorProcess, tokenizer: Any, seed_of: Callable[[int], int], *,
                 first_step: int = 0, max_staleness: int = 1, timeout_s: float = 600.0,
                 dynamic_sampling: bool = False, max_refills: int = 0, failures: FailurePolicy | None = None):
        self.env, self.generator, self.tokenizer, self.seed_of = env, generator, tokenizer, seed_of
        self.max_staleness, self.timeout_s = max_staleness, timeout_s
        self._collect_options: dict[str, Any] = dict(dynamic_sampling=dynamic_sampling, max_refills=max_refills,
                                                     failures=failures)
        self._allowed = first_step + max_staleness
        self._ready: dict[int, _Sampled] = {}
        self._error: BaseException | None = None
        self._phase, self._since = "starting", time.monotonic()
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, args=(first_step,), name="rlenv-async-rollouts",
                                        daemon=True)
        self._thread.start()

    def _set_phase(self, phase: str) -> None:
        self._phase, self._since = phase, time.monotonic()

    def _run(self, step: int) -> None:
        try:
            while True:
                with self._changed:
                    self._set_phase(f"waiting for the trainer to reach step {step - self.max_staleness}")
                    while step > self._allowed and not self._stop.is_set():
                        self._changed.wait()
                if self._stop.is_set():
                    return
                versions: list[int] = []
                log = FailureLog()
                batch, stats = collect(self.env, self._generate_fn(step, versions), self.tokenizer,
                                       seed=self.seed_of(step), log=log, **self._collect_options)
                version = min(versions)
                batch = batch.replace(infos={**batch.infos, "policy_version": [version] * len(batch)})
                with self._changed:
                    self._ready[step] = _Sampled(batch, stats, log, version)
                    self._changed.notify_all()
                step += 1
        except _Stopped:
            return
        except BaseException as exc:  # noqa: BLE001 - handed to the trainer, which raises it
            with self._changed:
                self._error = exc
                self._changed.notify_all()

    def _generate_fn(self, step: int, versions: list[int]) -> Callable[[Sequence[Observation]], Generation]:
        def generate(observations: Sequence[Observation]) -> Generation:
            self._set_phase(f"generating batch {step} in the generator process (pid {self.generator.pid})")
            generation, version = self.generator.generate(observations, f"batch {step}", self._stop)
            versions.append(version)
            self._set_phase(f"scoring batch {step} with the environment (its verifier)")
            return generation

        return generate

    def push_weights(self, policy: Any, version: int) -> None:
        """Send the weights of ``version`` (the trainer's step count after its update) to the generator;
        the batches of steps up to ``version + max_staleness`` may then be requested."""
        self.generator.check()
        self.generator.push_weights(policy, version)
        with self._changed:
            self._allowed = version + self.max_staleness
            self._changed.notify_all()

    def next_batch(self, step: int, failures: FailureLog | None = None) -> tuple[EpisodeBatch, dict[str, float]]:
        """The batch of ``step`` and its statistics (those of :func:`~rlenv.trainers.rollout.collect`,
        plus ``staleness``, the policy version's age in steps, and ``wait_s``, the time waited for it);
        its verifier failures are copied into ``failures``. Waits at most ``timeout_s`` once the
        generator process has started."""
        start = time.monotonic()
        with self._changed:
            while step not in self._ready:
                if not self.generator.started:  # its start has its own deadline
                    start = time.monotonic()
                self._raise_if_stopped(step, start)
                self._changed.wait(POLL_S)
            sampled = self._ready.pop(step)
        self.generator.check()
        staleness = step - sampled.version
        if not 0 <= staleness <= self.max_staleness:
            raise RuntimeError(f"batch {step} was sampled by policy version {sampled.version}: staleness {staleness} "
                               f"outside [0, max_staleness={self.max_staleness}]")
        if failures is not None:
            for field in dataclasses.fields(FailureLog):
                setattr(failures, field.name, getattr(sampled.failures, field.name))
        return sampled.batch, {**sampled.stats, "staleness": float(staleness), "wait_s": time.monotonic() - start}

    def _raise_if_stopped(self, step: int, start: float) -> None:
        if self._error is not None:
            raise self._error
        self.generator.check()
        if time.monotonic() - start > self.timeout_s:
            raise RolloutStalledError(
                f"no batch for step {step} within generator_timeout_s={self.timeout_s:g}s: the rollout has been "
                f"{self._phase} for {time.monotonic() - self._since:.1f}s")

    def close(self) -> None:
        """Stop the collector and the generator process."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        self.generator.close()
        self._thread.join(timeout=POLL_S * 20)
        if self._thread.is_alive():
            logger.warning("the rollout collector is still %s; left behind (a daemon thread)", self._phase)
