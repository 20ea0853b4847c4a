"""Step-label PRM training: the loss, held-out step accuracy, and the trained PRM inside PRMEnv."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

import rlenv
from rlenv.envs.prm import PRMEnv, PRMVerifier, StepSplitter, step_label_accuracy
from rlenv.envs.prm.synthetic import arithmetic_stepwise_rows
from rlenv.rm_inputs import stepwise_ids
from rlenv.trainers.reward_models.process import PRMConfig, step_accuracy, train_prm
from rlenv.trainers.tiny import (
    save_tiny,
    tiny_sequence_classifier,
    tiny_token_classifier,
    tiny_word_tokenizer,
)

TRAIN, TEST = arithmetic_stepwise_rows(400, seed=0), arithmetic_stepwise_rows(200, seed=1)
CONFIG = PRMConfig(lr=3e-3, num_epochs=12, batch_size=16, seed=0, progress=False)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def word_tokenizer():
    return tiny_word_tokenizer([r["prompt"] + " " + " ".join(r["completions"]) for r in TRAIN + TEST])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    tok = word_tokenizer()
    model = tiny_token_classifier(tok, hidden_size=64, seed=0)
    report = train_prm(model, tok, TRAIN, CONFIG, eval_rows=TEST)
    path = save_tiny(model, tok, tmp_path_factory.mktemp("prm"))
    return {"model": model, "tokenizer": tok, "report": report, "path": str(path)}


def majority_baseline(rows):
    labels = [label for row in rows for label in row["labels"]]
    return max(sum(labels), len(labels) - sum(labels)) / len(labels)


def test_prm_reaches_090_step_accuracy_on_held_out_steps(trained):
    report = trained["report"]
    assert report.eval_step_accuracy >= 0.9, report.eval_step_accuracy
    assert majority_baseline(TEST) < 0.75  # predicting "good" everywhere is far from enough
    assert report.num_rows == len(TRAIN) and report.num_steps == sum(len(r["labels"]) for r in TRAIN)


def test_the_env_reads_the_saved_prm_exactly_as_trained(trained):
    prm = PRMVerifier(trained["path"], splitter=StepSplitter("step_k"), batch_size=32)
    env_accuracy = step_label_accuracy(prm, TEST)
    assert env_accuracy == pytest.approx(trained["report"].eval_step_accuracy)
    assert env_accuracy >= 0.9


def test_prm_env_gives_dense_step_rewards_on_the_wrong_steps(trained):
    env = PRMEnv(trained["path"], data_files=TEST, splitter={"mode": "step_k"},
                 prm_kwargs={"aggregation": "first_error", "batch_size": 32})
    assert rlenv.check_env(env)["gold"]  # all-correct rows score correct
    hits = total = 0
    for index in range(40):
        env.reset(options={"index": index})
        row = TEST[index]
        completion = "\n".join(row["completions"])
        _, reward, *_, info = env.step(completion)
        result = info["reward"]
        assert [completion[s.start:s.end] for s in result.step_rewards] == row["completions"]
        predicted = [s.value >= 0.5 for s in result.step_rewards]
        hits += sum(p == y for p, y in zip(predicted, row["labels"]))
        total += len(predicted)
        first_bad = next((k for k, y in enumerate(row["labels"]) if not y), None)
        if predicted == row["labels"]:
            assert reward == pytest.approx(1.0 if first_bad is None else first_bad / len(predicted))
    assert hits / total >= 0.9


def test_first_step_loss_is_cross_entropy_on_step_end_tokens():
    tok = word_tokenizer()
    model = tiny_token_classifier(tok, hidden_size=32, seed=1)
    rows = TRAIN[:3]
    initial = copy.deepcopy(model).eval()
    report = train_prm(model, tok, rows, PRMConfig(lr=1e-3, batch_size=8, progress=False))
    logits, targets = [], []
    with torch.inference_mode():
        for row in rows:
            ids, positions = stepwise_ids(tok, row["prompt"], row["completions"], "\n")
            logits.append(initial(input_ids=torch.tensor([ids])).logits[0, positions])
            targets += [int(y) for y in row["labels"]]
    expected = F.cross_entropy(torch.cat(logits), torch.tensor(targets))
    assert report.losses == pytest.approx([expected.item()], abs=1e-5)


def test_train_on_last_step_only_labels_one_step_per_row():
    tok = word_tokenizer()
    config = PRMConfig(lr=1e-3, batch_size=8, train_on_last_step_only=True, progress=False)
    report = train_prm(tiny_token_classifier(tok, hidden_size=32), tok, TRAIN[:10], config)
    assert report.num_steps == 10
    assert 0.0 <= step_accuracy(tiny_token_classifier(tok, hidden_size=32), tok, TEST[:5], config) <= 1.0


def test_bad_inputs_are_rejected():
    tok = word_tokenizer()
    with pytest.raises(ValueError, match="num_labels=1"):
        train_prm(tiny_sequence_classifier(tok, hidden_size=32), tok, TRAIN[:2], CONFIG)
    model = tiny_token_classifier(tok, hidden_size=32)
    with pytest.raises(ValueError, match="stepwise row 1"):
        train_prm(model, tok, [TRAIN[0], {"prompt": "p", "completions": ["a"], "labels": []}], CONFIG)
    too_long = PRMConfig(max_length=5, progress=False)
    with pytest.raises(ValueError, match="stepwise row 0: .*max_length=5"):
        train_prm(model, tok, TRAIN[:1], too_long)
