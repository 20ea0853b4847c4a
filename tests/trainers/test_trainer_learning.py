"""Learning: after a short SFT warm-up, RL raises held-out pass@1, for each algorithm, on any machine.

The task is named in one place (``trainer_helpers.make_task_env``). The policy is a tiny Llama
built locally. Held-out problems are 30 distinct problems that neither the SFT warm-up nor RL ever
sees (``trainer_helpers.held_out_indices`` / ``training_split``: level 1 has only 100 distinct
problems, so fresh task indices alone would repeat training problems); pass@1 is the unbiased
estimate from 16 samples per problem at temperature 1 (the policy's own sampling distribution).
PPO-style reuse (4 passes over each rollout) is set for every algorithm so that all four learn
within the CI budget.

One run's gain depends on its seed far more than on anything else, and whatever perturbs training
(another CPU, another library version) acts like another seed. Held-out pass@1 gain by trainer seed
0-5 on this machine (warm start 0.179; transformers 5.19, torch 2.13 CPU):

- REINFORCE++ +0.192, +0.144, +0.096, +0.273, +0.179, +0.252 (mean +0.189);
- RLOO +0.254, +0.156, +0.096, +0.119, +0.250, +0.090 (mean +0.161);
- GRPO +0.198, +0.085, +0.150, +0.152, +0.223, +0.192 (mean +0.167);
- PPO (see benchmarks/learning_gains.py).

A bar on one run would fail on some machines (a fresh machine's RLOO gain of +0.131 failed the
old 0.15 bar). So each algorithm's gain here is the mean over LEARNING_SEEDS (three runs, two at a
time), and MIN_GAIN is below the lowest mean of any three of the seeds above (RLOO: +0.102), about
2.5 standard deviations of a three-seed mean below the means; a trainer that does not learn gains
0 +- 0.02 and fails it.

With its verifier crashing on 30% of its calls at random (status ``error``, a transient failure),
GRPO with ``on_verifier_error="resample"`` must clear the same bar (re-scoring recovers the
crashes). With a graded reward (accuracy + a 0.2 format term, as most RL recipes pay) and 30% of
the reward calls failing, ``zero`` must measurably hurt while ``resample`` learns like the clean
run (means over seeds 0-3: clean +0.156, resample +0.152, zero +0.049; seeds 4-7: see
``benchmarks/failure_policies.py``, which compares every policy over more seeds).
"""
import logging
import statistics

import pytest
from trainer_helpers import failure_policy_gains, parallel_gains, warm_start_state

#: The algorithms whose learning is tested, and their learning rates (GRPO's std-normalized advantages take
#: larger steps: at 1e-3 its held-out pass@1 did not rise although its training reward did).
LEARNING_RATES = {"reinforce_pp": 1e-3, "rloo": 1e-3, "grpo": 5e-4, "ppo": 1e-3}
#: Each algorithm's gain is the mean over these trainer seeds (one run's gain varies too much, see above).
LEARNING_SEEDS = [0, 1, 2]
MIN_GAIN = 0.06
#: Share of verifier calls that crash in the transient-failure runs.
FAILURE_RATE = 0.3
#: The graded-reward comparison: format term, seeds (the benchmark's first four), and by how much zero's mean gain
#: must fall below the clean and resample runs', and resample's may fall below clean's.
FORMAT_WEIGHT = 0.2
GRADED_SEEDS = [0, 1, 2, 3]
ZERO_HARM = 0.05
FAILURE_TOLERANCE = 0.05


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def warm_start():
    return warm_start_state()


@pytest.fixture(scope="module")
def learning_runs(warm_start):
    """``{(algorithm, policy): [(gain, failed fraction) per seed of LEARNING_SEEDS]}``: every algorithm clean,
    and GRPO with FAILURE_RATE of its verifier calls crashing at random under ``resample``; two runs at a time."""
    state, before = warm_start
    keys = [(name, "clean") for name in LEARNING_RATES] + [("grpo", "resample")]
    runs = [dict(algorithm=name, lr=LEARNING_RATES[name], policy=policy, rate=FAILURE_RATE, seed=seed)
            for name, policy in keys for seed in LEARNING_SEEDS]
    results = iter(parallel_gains(state, before, runs))
    by_key = {key: [next(results) for _ in LEARNING_SEEDS] for key in keys}
    for (name, policy), outcomes in by_key.items():
        logging.getLogger(__name__).info("%s (%s): held-out pass@1 %.3f, gains per seed %s", name, policy, before,
                                         [round(gain, 3) for gain, _ in outcomes])
    return by_key


@pytest.mark.parametrize("name", list(LEARNING_RATES))
def test_rl_raises_held_out_pass_at_1(learning_runs, name):
    gains = [gain for gain, _ in learning_runs[name, "clean"]]
    assert statistics.mean(gains) >= MIN_GAIN, f"{name}: held-out pass@1 gains {gains} (mean < {MIN_GAIN})"


def test_grpo_with_transient_verifier_failures_learns_like_a_clean_run(learning_runs):
    """Re-scoring recovers transient crashes: GRPO clears the clean runs' bar with 30% of its calls failing."""
    outcomes = learning_runs["grpo", "resample"]
    rescored = [fraction for _, fraction in outcomes]
    assert min(rescored) > 0.2, f"re-scored fraction of the episodes per step, per seed: {rescored}"  # crashes happened
    gains = [gain for gain, _ in outcomes]
    assert statistics.mean(gains) >= MIN_GAIN, (
        f"GRPO with {FAILURE_RATE:.0%} failures resampled: held-out pass@1 gains {gains} (mean < {MIN_GAIN})")


def test_with_graded_rewards_zero_hurts_while_resample_learns_like_a_clean_run(warm_start):
    """A failed episode kept at reward 0 sits below every well-formed wrong answer (0.2): GRPO raises
    those, and learns less. Resampling recovers the transient failures."""
    state, before = warm_start
    gains = failure_policy_gains(state, before, ["clean", "resample", "zero"], GRADED_SEEDS, rate=FAILURE_RATE,
                                 format_weight=FORMAT_WEIGHT, lr=LEARNING_RATES["grpo"])
    mean = {policy: statistics.mean(values) for policy, values in gains.items()}
    logging.getLogger(__name__).info("graded reward, %.0f%% failures: gains %s", 100 * FAILURE_RATE, gains)
    assert mean["resample"] >= mean["clean"] - FAILURE_TOLERANCE, gains
    assert mean["zero"] <= mean["clean"] - ZERO_HARM and mean["zero"] <= mean["resample"] - ZERO_HARM, gains
