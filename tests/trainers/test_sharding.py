"""FSDP2 on CPU (gloo, 2 processes): a sharded update equals the 1-process update on the same global batch,
each rank holds about half of the parameters and optimizer state, and resuming from a sharded checkpoint
continues bit-identically.

Tolerance as in ``test_distributed``: the runs sum the same float32 terms in another order (per-rank
partial sums, then a reduce-scatter), so parameters agree to ``atol=1e-6, rtol=1e-5``; a wrong gradient
reduction (FSDP's default average instead of the sum) halves the update and fails it.
"""

import os

import pytest
import torch

from rlenv.trainers import Trainer
from rlenv.trainers.sharding import full_state_dict, local_numel
from tests.trainers.test_distributed import SHARDS, global_batch, run_update, trainer_needs_ref
from tests.trainers.trainer_helpers import gloo_rank, mark_stage, spawn_ranks, tiny_policy

#: In-process updates on one torch thread, put back after the module (the spawned ranks set their own).
pytestmark = pytest.mark.usefixtures("one_torch_thread")

ALGORITHMS = ["grpo", "ppo"]
CONFIG = dict(optimizer="sgd", lr=0.5, max_grad_norm=None, micro_batch_size=2, progress=False, max_new_tokens=8,
              fsdp=True)


def sharded_trainer(algorithm, **settings):
    torch.manual_seed(0)
    model, tok = tiny_policy(seed=0, hidden_size=32)
    ref = tiny_policy(seed=1, hidden_size=32)[0] if trainer_needs_ref(algorithm) else None
    return Trainer(model, None, algorithm, config=dict(CONFIG, **settings), tokenizer=tok, ref_model=ref), tok


def worker(rank, world_size, init_file, out_dir):
    with gloo_rank(rank, world_size, init_file):
        results = {}
        for algorithm in ALGORITHMS:
            trainer, tok = sharded_trainer(algorithm)
            metrics = trainer.update(global_batch(tok).select(SHARDS[rank]))  # 3 micro-batches on rank 0, 1 on rank 1
            results[algorithm] = {"params": full_state_dict(trainer.policy), "metrics": metrics}
            mark_stage(out_dir, rank, algorithm)
        for name, settings in (("packed", dict(pack_sequences=True)), ("bf16", dict(dtype="bfloat16"))):
            trainer, tok = sharded_trainer("grpo", **settings)
            trainer.update(global_batch(tok).select(SHARDS[rank]))
            results[name] = {"params": full_state_dict(trainer.policy),
                             "dtypes": {p.dtype for p in trainer.policy.parameters()}}
            mark_stage(out_dir, rank, name)
        adam, tok = sharded_trainer("grpo", optimizer="adamw", lr=1e-2)
        adam.update(global_batch(tok).select(SHARDS[rank]))
        state = [t for s in adam.optimizer.state.values() for t in (s["exp_avg"], s["exp_avg_sq"])]
        results["held"] = {"params": local_numel(adam.policy.parameters()), "optimizer": local_numel(state)}
        mark_stage(out_dir, rank, "adamw")
        # resume: two updates in a row vs one, a sharded checkpoint, a fresh trainer, one more
        whole, tok = sharded_trainer("ppo", optimizer="adamw", lr=1e-2)
        for _ in range(2):
            whole.update(global_batch(tok).select(SHARDS[rank]))
        first, _ = sharded_trainer("ppo", optimizer="adamw", lr=1e-2)
        first.update(global_batch(tok).select(SHARDS[rank]))
        first.save_checkpoint(os.path.join(out_dir, "checkpoint-1"))
        resumed, _ = sharded_trainer("ppo", optimizer="adamw", lr=1e-2)
        resumed.load_checkpoint(os.path.join(out_dir, "checkpoint-1"))
        resumed.update(global_batch(tok).select(SHARDS[rank]))
        results["resume"] = {"whole": full_state_dict(whole._trained_modules()),
                             "resumed": full_state_dict(resumed._trained_modules())}
        torch.save(results, os.path.join(out_dir, f"rank{rank}.pt"))
        mark_stage(out_dir, rank, "resume")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("fsdp")
    spawn_ranks(worker, str(out))
    return [torch.load(out / f"rank{r}.pt", weights_only=False) for r in range(2)], out


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_fsdp_update_equals_one_process(results, algorithm):
    (rank0, _), _ = results
    single, single_metrics = run_update(algorithm, slice(0, 8), micro_batch_size=8)
    sharded = rank0[algorithm]
    initial, _ = tiny_policy(seed=0, hidden_size=32)
    moved = max(float((single[n] - p.detach()).abs().max()) for n, p in initial.named_parameters())
    assert moved > 1e-3, "the update must move the parameters for the comparison to mean anything"
    for name, value in single.items():
        torch.testing.assert_close(sharded["params"][name], value, atol=1e-6, rtol=1e-5, msg=name)
    for key in ("reward/mean", "loss/policy", "adv/abs_mean", "episodes"):
        assert sharded["metrics"][key] == pytest.approx(single_metrics[key], rel=1e-5, abs=1e-7), key


def test_fsdp_combines_with_packing_and_bf16_compute(results):
    """Packed micro-batches give the padded sharded update; with dtype="bfloat16" the shards stay fp32
    (the master copy) and the update is the fp32 one up to bf16 compute noise."""
    (rank0, _), _ = results
    padded, initial = rank0["grpo"]["params"], tiny_policy(seed=0, hidden_size=32)[0].state_dict()
    for name, value in padded.items():
        torch.testing.assert_close(rank0["packed"]["params"][name], value, atol=1e-5, rtol=1e-5, msg=name)
    assert rank0["bf16"]["dtypes"] == {torch.float32}
    assert any(not torch.equal(rank0["bf16"]["params"][n], v) for n, v in padded.items())  # it computed in bf16
    for name, value in padded.items():
        step, error = value - initial[name], rank0["bf16"]["params"][name] - value
        assert float(error.norm()) < 0.05 * float(step.norm()) + 1e-6, name


def test_each_rank_holds_about_half_the_parameters_and_optimizer_state(results):
    ranks, _ = results
    total = sum(p.numel() for p in tiny_policy(seed=0, hidden_size=32)[0].parameters())
    held = [r["held"] for r in ranks]
    assert sum(h["params"] for h in held) == total  # the shards partition the parameters
    for h in held:
        assert 0.4 < h["params"] / total < 0.6, (h, total)
        assert 0.4 < h["optimizer"] / (2 * total) < 0.6, (h, total)  # Adam's two moments


def test_resume_from_a_sharded_checkpoint_is_bit_identical(results):
    (rank0, _), out = results
    whole, resumed = rank0["resume"]["whole"], rank0["resume"]["resumed"]
    assert set(whole) == set(resumed) and any(".critic." in k or k.startswith("critic.") for k in whole)
    for name, value in whole.items():
        assert torch.equal(value, resumed[name]), name
    checkpoint = out / "checkpoint-1"
    assert (checkpoint / "sharded").is_dir() and (checkpoint / "trainer_state.pt").is_file()
    from transformers import AutoModelForCausalLM

    loaded = AutoModelForCausalLM.from_pretrained(checkpoint)  # the gathered model
    assert sum(p.numel() for p in loaded.parameters()) == sum(
        p.numel() for p in tiny_policy(seed=0, hidden_size=32)[0].parameters())


def test_rlenv_train_under_torchrun_with_fsdp_gradient_checkpointing_and_micro_batches(tmp_path):
    """The user's path: ``torchrun -m rlenv train --fsdp`` (2 CPU processes, gloo) with gradient
    checkpointing and one episode per micro-batch; the checkpoint holds a gathered model that
    ``from_pretrained`` loads and each rank's shards, from which ``--resume`` continues. A short SFT
    warm-up on the gold answers makes the rewards vary (so the update is not zero, and each rank
    sees statuses the other may not: the metrics must still reduce; seed 0 gave reward 0.72, 0.81)."""
    import json
    import subprocess
    import sys

    from transformers import AutoModelForCausalLM

    from rlenv.trainers.tiny import save_tiny

    model, tok = tiny_policy(seed=0, hidden_size=32)
    start = save_tiny(model, tok, tmp_path / "tiny")
    out = tmp_path / "run"

    def torchrun(*extra):
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m", "rlenv",
                   "train", "rlenv/ExactMatch-v0", "--model", str(start), "--algorithm", "ppo", "--output", str(out),
                   "--fsdp", "--num-tasks", "4", "--group-size", "4", "--max-new-tokens", "8", "--micro-batch-size", "1",
                   "--sft-steps", "40", "--sft-lr", "1e-2", "--set", "gradient_checkpointing=true", "--set",
                   "progress=false", *extra]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                              env=dict(os.environ, OMP_NUM_THREADS="1"))
        assert done.returncode == 0, done.stderr[-3000:]

    one_process = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                                  "-m", "rlenv", "train", "rlenv/ExactMatch-v0", "--model", str(start), "--algorithm",
                                  "raft", "--output", str(tmp_path / "raft")], capture_output=True, text=True, timeout=600)
    assert one_process.returncode != 0 and "raft trains in one process, but this is one of 2" in one_process.stderr
    torchrun("--steps", "2")
    rewards = [json.loads(line)["reward/std"] for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert len(rewards) == 2 and max(rewards) > 0
    checkpoint = out / "checkpoint-2"
    assert sorted(p.name for p in (checkpoint / "sharded").glob("*.distcp")) == ["__0_0.distcp", "__1_0.distcp"]
    saved = AutoModelForCausalLM.from_pretrained(checkpoint).state_dict()
    final = AutoModelForCausalLM.from_pretrained(out / "final").state_dict()
    initial = model.state_dict()
    assert saved.keys() == final.keys() == initial.keys()
    assert all(torch.equal(saved[k], final[k]) for k in saved)
    assert any(not torch.equal(saved[k], initial[k]) for k in saved)  # trained, and gathered whole
    torchrun("--steps", "3", "--resume", str(checkpoint))
    resumed = AutoModelForCausalLM.from_pretrained(out / "checkpoint-3").state_dict()
    assert any(not torch.equal(resumed[k], saved[k]) for k in saved)
