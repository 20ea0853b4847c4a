"""PRMVerifier on tiny local checkpoints: step scores against manual forwards, offsets, batching, env, stepwise rows."""

from __future__ import annotations

import re

import pytest
import torch
from transformers import (
    AutoModelForCausalLM,
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
)

import rlenv
from rlenv import RewardResult, Status, StepReward, Task
from rlenv.envs.prm import PRMEnv, PRMVerifier, StepSplitter, stepwise_rows, stepwise_source
from rlenv.rm_inputs import pair_ids, stepwise_ids
from rlenv.trainers.tiny import (
    DEFAULT_ALPHABET,
    save_tiny,
    tiny_causal_lm,
    tiny_sequence_classifier,
    tiny_token_classifier,
    tiny_tokenizer,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    tok = tiny_tokenizer(alphabet=DEFAULT_ALPHABET + "ки")  # Math-Shepherd's step tag
    root = tmp_path_factory.mktemp("prm")
    return {
        "token_classification": str(save_tiny(tiny_token_classifier(tok, hidden_size=32, seed=6), tok, root / "tok")),
        "step_tag_lm": str(save_tiny(tiny_causal_lm(tok, hidden_size=32, seed=7), tok, root / "lm")),
        "prefix_classifier": str(save_tiny(tiny_sequence_classifier(tok, hidden_size=32, seed=8), tok, root / "seq")),
    }


PROMPT = "Add the numbers 2, 3 and 4."
SOLUTIONS = ["Step 1: 2 + 3 = 5\nStep 2: 5 + 4 = 9", "Step 1: 2 + 3 = 6\nStep 2: 6 + 4 = 10\nStep 3: done",
             "Step 1: 2 * 3 = 6"]


def manual_scores(kind, path, prompt, steps, suffix):
    """Independent per-solution forward passes (no padding, no batching)."""
    if kind == "token_classification":
        model = AutoModelForTokenClassification.from_pretrained(path).eval()
        verifier = PRMVerifier(path, step_suffix=suffix)
        ids, positions = stepwise_ids(verifier.tokenizer, prompt, steps, suffix)
        with torch.inference_mode():
            probs = model(input_ids=torch.tensor([ids])).logits[0].softmax(-1)[:, 1]
        return [probs[p].item() for p in positions]
    if kind == "step_tag_lm":
        model = AutoModelForCausalLM.from_pretrained(path).eval()
        tok = PRMVerifier(path, kind=kind, step_suffix=suffix).tokenizer
        ids, _ = stepwise_ids(tok, prompt, steps, suffix)
        tag = tok.convert_tokens_to_ids(suffix[-1])
        with torch.inference_mode():
            logits = model(input_ids=torch.tensor([ids])).logits[0]
        good, bad = tok.convert_tokens_to_ids("+"), tok.convert_tokens_to_ids("-")
        return [logits[i, [good, bad]].softmax(-1)[0].item() for i, t in enumerate(ids) if t == tag]
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    tok = PRMVerifier(path, kind=kind).tokenizer
    out, prefix = [], ""
    for step in steps:
        prefix += step + suffix
        with torch.inference_mode():
            out.append(model(input_ids=torch.tensor([pair_ids(tok, prompt, prefix)])).logits[0, 0].sigmoid().item())
    return out


@pytest.mark.parametrize("kind, suffix", [("token_classification", "\n"), ("step_tag_lm", " ки"),
                                          ("prefix_classifier", "\n")])
def test_step_scores_match_manual_forwards_for_every_kind(paths, kind, suffix):
    splitter = StepSplitter("step_k")
    prm = PRMVerifier(paths[kind], kind=kind, splitter=splitter, step_suffix=suffix, batch_size=2)
    results = prm.score_batch([Task(str(i), PROMPT) for i in range(len(SOLUTIONS))], SOLUTIONS)
    for solution, result in zip(SOLUTIONS, results):
        spans = splitter.split(solution)
        expected = manual_scores(kind, paths[kind], PROMPT, [s.text for s in spans], suffix)
        assert result.details["step_scores"] == pytest.approx(expected, abs=1e-5)
        assert [(s.start, s.end) for s in result.step_rewards] == [(s.start, s.end) for s in spans]
        assert [solution[s.start:s.end] for s in result.step_rewards] == [s.text for s in spans]
        assert result.value == pytest.approx(min(expected))
        assert result.status is (Status.CORRECT if min(expected) >= 0.5 else Status.INCORRECT)


def test_aggregation_dense_mode_and_threshold_are_applied(paths):
    base = dict(splitter=StepSplitter("step_k"), batch_size=4)
    task, solution = Task("t", PROMPT), SOLUTIONS[1]
    scores = PRMVerifier(paths["token_classification"], **base)(task, solution).details["step_scores"]
    mean = PRMVerifier(paths["token_classification"], aggregation="mean", dense="delta", **base)(task, solution)
    assert mean.value == pytest.approx(sum(scores) / 3)
    assert [s.value for s in mean.step_rewards] == pytest.approx([scores[0] - scores[1], scores[1] - scores[2],
                                                                   scores[2]])
    clip = PRMVerifier(paths["token_classification"], dense="clip", eta=max(scores), **base)(task, solution)
    assert [s.value for s in clip.step_rewards] == pytest.approx([min(s - max(scores), 0.0) for s in scores])
    strict = PRMVerifier(paths["token_classification"], threshold=max(scores) + 1e-6, **base)(task, solution)
    assert strict.status is Status.INCORRECT and strict.details["first_error_step"] == 0
    lenient = PRMVerifier(paths["token_classification"], threshold=0.0, **base)(task, solution)
    assert lenient.status is Status.CORRECT and lenient.details["first_error_step"] is None


def test_one_forward_per_micro_batch_for_a_vector_env(paths):
    env = PRMEnv(paths["token_classification"], splitter={"mode": "step_k"}, prm_kwargs={"batch_size": 16})
    vec = rlenv.TextVectorEnv(env, num_tasks=16, group_size=4)
    vec.reset(seed=0)
    calls = []
    hook = env.verifier.model.register_forward_hook(lambda module, args, out: calls.append(1))
    try:
        _, rewards, *_ = vec.step([SOLUTIONS[i % 3] for i in range(64)])
    finally:
        hook.remove()
    assert len(calls) == 4 and len(rewards) == 64


def test_no_steps_is_unparsable_and_too_long_is_an_error_for_that_item_only(paths):
    prm = PRMVerifier(paths["token_classification"], splitter=StepSplitter("step_k"), max_length=40)
    empty, long, ok = prm.score_batch([Task("t", PROMPT)] * 3, ["   ", "Step 1: " + "1 + " * 30, "Step 1: 1 + 1 = 2"])
    assert (empty.status, empty.value, empty.step_rewards) == (Status.UNPARSABLE, 0.0, ())
    assert long.status is Status.ERROR and "max_length=40" in long.details["error"]
    assert ok.status in (Status.CORRECT, Status.INCORRECT) and len(ok.step_rewards) == 1


def test_score_steps_reads_stepwise_rows_directly(paths):
    prm = PRMVerifier(paths["token_classification"], batch_size=3)
    rows = [{"prompt": PROMPT, "completions": ["2 + 3 = 5", "5 + 4 = 9"], "labels": [True, True]},
            {"prompt": PROMPT, "completions": ["2 + 3 = 6"], "labels": [False]}]
    scores = prm.score_steps([r["prompt"] for r in rows], [r["completions"] for r in rows])
    for row, got in zip(rows, scores):
        expected = manual_scores("token_classification", paths["token_classification"], row["prompt"],
                                 row["completions"], "\n")
        assert got == pytest.approx(expected, abs=1e-5)


class FinalNumber:
    """Outcome check: the last number of the completion equals the reference."""

    name, version = "final_number", "1"

    def __call__(self, task, completion):
        numbers = re.findall(r"-?\d+", completion)
        if not numbers:
            return RewardResult(0.0, Status.UNPARSABLE, verifier=self.name, verifier_version=self.version)
        ok = numbers[-1] == str(task.reference)
        return RewardResult(float(ok), Status.CORRECT if ok else Status.INCORRECT, verifier=self.name,
                            verifier_version=self.version)


def test_outcome_gating_and_sum(paths):
    rows = [{"id": "p0", "prompt": PROMPT, "reference": "9"}]
    gated = PRMEnv(paths["token_classification"], data_files=rows, splitter={"mode": "step_k"}, outcome=FinalNumber())
    gated.reset(seed=0)
    _, reward, *_, info = gated.step(SOLUTIONS[0])
    prm_value = info["components"]["prm"]
    assert reward == pytest.approx(prm_value) and info["components"]["gate_open"] == 1.0
    assert all(s.value > 0 for s in info["reward"].step_rewards)
    gated.reset(seed=0)
    _, reward, *_, info = gated.step(SOLUTIONS[1])  # wrong final answer: PRM reward and dense steps zeroed
    assert reward == 0.0 and info["status"] == "incorrect"
    assert [s.value for s in info["reward"].step_rewards] == [0.0, 0.0, 0.0]
    summed = PRMEnv(paths["token_classification"], data_files=rows, splitter={"mode": "step_k"},
                    outcome=FinalNumber(), outcome_mode="sum", prm_weight=0.5)
    summed.reset(seed=0)
    _, reward, *_, info = summed.step(SOLUTIONS[0])
    assert reward == pytest.approx(1.0 + 0.5 * info["components"]["prm"])
    assert info["reward"].step_rewards == tuple(StepReward(0.5 * s.value, s.start, s.end)
                                               for s in PRMVerifier(paths["token_classification"],
                                                                    splitter=StepSplitter("step_k"))(
                                                   Task("p0", PROMPT), SOLUTIONS[0]).step_rewards)


def test_stepwise_rows_become_tasks_with_gold_for_all_correct_rows(paths, tmp_path):
    rows = [{"prompt": "p", "completions": ["a", "b"], "labels": [True, True]},
            {"prompt": "q", "completions": ["c"], "labels": [False]}]
    source = stepwise_source(rows, separator="\n")
    first, second = source[0], source[1]
    assert first.gold_completion == "a\nb" and first.reference == {"steps": ["a", "b"], "labels": [True, True]}
    assert second.gold_completion is None
    env = PRMEnv(paths["token_classification"], data_files=rows)
    assert env.source[0].gold_completion == "a\nb"
    for bad in ([{"prompt": "p", "completions": [], "labels": []}],
                [{"prompt": "p", "completions": ["a"], "labels": [True, False]}],
                [{"prompt": 3, "completions": ["a"], "labels": [True]}],
                [{"prompt": "p", "completions": ["a"], "labels": ["yes"]}]):
        with pytest.raises(ValueError, match="stepwise row 0"):
            stepwise_rows(bad)


def test_bad_prm_settings(paths):
    for kwargs in ({"kind": "value_head"}, {"aggregation": "max"}, {"dense": "clip"}, {"dense": "sum"},
                   {"kind": "step_tag_lm", "step_suffix": ""}, {"kind": "step_tag_lm"}, {"step_suffix": ""}):
        with pytest.raises(ValueError):
            PRMVerifier(paths["token_classification"], **kwargs)
    bad_label = PRMVerifier(paths["token_classification"], positive_label=2)
    assert rlenv.scoring.score_tasks(bad_label, [Task("t", "p")], ["x"])[0].status is Status.ERROR


@pytest.mark.parametrize("completion", ["", "   ", "\n\n"])
def test_an_empty_completion_is_never_correct(paths, completion):
    result = PRMVerifier(paths["token_classification"])(Task("t", "1+1?"), completion)
    assert result.status is not Status.CORRECT and result.value == 0.0
