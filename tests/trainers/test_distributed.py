"""Data parallelism: a 2-process CPU (gloo) update equals the 1-process update on the same global batch.

Tolerance: the two runs sum the same float32 terms in a different order (per-rank partial sums,
then an all-reduce), so parameters after one SGD step agree to ``atol=1e-6, rtol=1e-5`` (observed
differences are ~1e-8); a missing or wrong global normalizer (e.g. a local token count, a
per-rank REINFORCE++ whitening) changes them by orders of magnitude more.
"""

import os

import pytest
import torch

from rlenv.trainers import EpisodeBatch, Trainer
from tests.trainers.trainer_helpers import gloo_rank, mark_stage, spawn_ranks, tiny_policy

#: In-process updates on one torch thread, put back after the module (the spawned ranks set their own).
pytestmark = pytest.mark.usefixtures("one_torch_thread")

ALGORITHMS = ["reinforce_pp", "reinforce_pp_baseline", "grpo", "dr_grpo", "ppo"]
#: Episodes per rank: groups 0-2 (6 episodes) on rank 0, group 3 (2 episodes) on rank 1.
SHARDS = [slice(0, 6), slice(6, 8)]


def global_batch(tok):
    eos = tok.eos_token_id
    prompts = ["1+2=", "1+2=", "3+3=", "3+3=", "9+8=", "9+8=", "0+5=", "0+5="]
    completions = ["3", "33", "6", "12x", "17", "1", "5", "05555"]
    return EpisodeBatch.from_token_lists(
        [tok.encode(p) for p in prompts], [tok.encode(c) + [eos] for c in completions],
        [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.2], [0, 0, 1, 1, 2, 2, 3, 3],
        pad_token_id=tok.pad_token_id, eos_token_id=eos)


def run_update(algorithm, rows, micro_batch_size):
    torch.manual_seed(0)
    model, tok = tiny_policy(seed=0, hidden_size=32)
    ref, _ = tiny_policy(seed=1, hidden_size=32)  # a different reference: the KL terms are not zero
    config = dict(optimizer="sgd", lr=0.5, max_grad_norm=None, micro_batch_size=micro_batch_size, progress=False,
                  max_new_tokens=8)
    trainer = Trainer(model, None, algorithm, config=config, tokenizer=tok,
                      ref_model=ref if trainer_needs_ref(algorithm) else None)
    metrics = trainer.update(global_batch(tok).select(rows))
    return {k: v.detach().clone() for k, v in model.named_parameters()}, metrics


def trainer_needs_ref(algorithm):
    from rlenv.trainers import ALGORITHMS as PRESETS

    return PRESETS[algorithm].kl_coef > 0


def uneven_metrics(rank):
    """Metric means over ranks when some metrics come from one rank only (a status no episode of
    the other rank had): every rank must still reduce the same names, or the collective breaks."""
    from rlenv.trainers.policy_gradient.trainer import _Sums

    sums = _Sums()
    sums.add("shared", rank + 1.0, 1.0)
    if rank == 1:
        sums.add("only_rank1", 4.0, 2.0)
    else:
        sums.count("only_rank0", 3)
    sums.count("counted", 2)
    return sums.means()


def worker(rank, world_size, init_file, out_dir):
    with gloo_rank(rank, world_size, init_file):
        torch.save(uneven_metrics(rank), os.path.join(out_dir, f"uneven{rank}.pt"))
        mark_stage(out_dir, rank, "uneven")
        for algorithm in ALGORITHMS:
            params, metrics = run_update(algorithm, SHARDS[rank], micro_batch_size=2)
            if rank == 0:
                torch.save({"params": params, "metrics": metrics}, os.path.join(out_dir, f"{algorithm}.pt"))
            mark_stage(out_dir, rank, algorithm)


@pytest.fixture(scope="module")
def two_process_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp")
    spawn_ranks(worker, str(out))
    results = {a: torch.load(out / f"{a}.pt", weights_only=False) for a in ALGORITHMS}
    results["uneven"] = [torch.load(out / f"uneven{r}.pt", weights_only=False) for r in range(2)]
    return results


def test_metrics_some_ranks_lack_are_reduced_by_every_rank(two_process_results):
    expected = {"shared": 1.5, "only_rank1": 2.0, "only_rank0": 3.0, "counted": 4.0}
    assert two_process_results["uneven"] == [expected, expected]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_two_ranks_equal_one_process(two_process_results, algorithm):
    single, single_metrics = run_update(algorithm, slice(0, 8), micro_batch_size=8)
    sharded = two_process_results[algorithm]
    moved = 0.0
    for name, value in single.items():
        torch.testing.assert_close(sharded["params"][name], value, atol=1e-6, rtol=1e-5)
    initial, _ = tiny_policy(seed=0, hidden_size=32)
    moved = max(float((single[n] - p.detach()).abs().max()) for n, p in initial.named_parameters())
    assert moved > 1e-3, "the update must move the parameters for the comparison to mean anything"
    for key in ("reward/mean", "loss/policy", "adv/abs_mean", "episodes"):
        assert sharded["metrics"][key] == pytest.approx(single_metrics[key], rel=1e-5, abs=1e-7), key


def test_local_normalizers_would_differ():
    """Control: rank 1's shard alone (what a per-rank normalization would see) gives another update."""
    whole, _ = run_update("reinforce_pp", slice(0, 8), micro_batch_size=8)
    part, _ = run_update("reinforce_pp", slice(6, 8), micro_batch_size=8)
    assert max(float((whole[k] - part[k]).abs().max()) for k in whole) > 1e-3
