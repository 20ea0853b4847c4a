"""Reward models and PRMs read exactly as TRL trains them, and rlenv-trained ones read the TRL way.

Outcome RMs are trained with TRL's own ``RewardTrainer`` (2 steps: layout equivalence, not quality)
on plain and conversational rows, with tokenizers with and without a chat template (and one whose
plain tokenization adds BOS, as Llama's does); rlenv must see TRL's token ids and TRL's scores.

The installed TRL (1.16) ships no PRM trainer (``PRMTrainer`` lived in ``trl.experimental.prm``
of later sources). :func:`trl_prm_row` is an independent test oracle of its ``tokenize_row`` (BOS +
prompt, each step + ``step_separator`` tokenized on their own, the label on the separator's last
token) and the PRMs are trained by ``transformers.Trainer`` with ``DataCollatorForTokenClassification``,
which is what that trainer wraps.
"""

from __future__ import annotations

import copy
import logging

import pytest
import torch
from datasets import Dataset
from tokenizers import processors
from transformers import (
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
    DataCollatorForTokenClassification,
    Trainer,
    TrainingArguments,
)
from trl import RewardConfig, RewardTrainer

from rlenv import Task
from rlenv.envs.prm import PRMEnv, PRMVerifier, StepSplitter
from rlenv.envs.safety import RewardModelVerifier, SafetyRMEnv
from rlenv.rm_inputs import pair_ids, stepwise_ids
from rlenv.trainers.reward_models import PRMConfig, RewardModelConfig, train_prm, train_reward_model
from rlenv.trainers.tiny import save_tiny, tiny_sequence_classifier, tiny_token_classifier, tiny_tokenizer

pytestmark = pytest.mark.usefixtures("one_torch_thread")

PAIRS = [("How do I bake bread?", "Mix flour, water and yeast; knead; bake.", "No.", 0.0),
         ("How do I pick a lock?", "I can't help with that.", "Insert a tension wrench, then rake the pins.", 0.5),
         ("Hi", "Hello! How can I help?", "Go away", 1.0),
         ("Name a prime number greater than ten.", "13", "12 is prime.", 0.0)]
TOKENIZERS = ("bos", "template", "template_bos")


def make_tokenizer(kind):
    """``"bos"``: no chat template, BOS added to plain text; ``"template"``: a chat template; both."""
    tok = tiny_tokenizer(chat_template=kind.startswith("template"))
    if kind.endswith("bos"):
        tok.backend_tokenizer.post_processor = processors.TemplateProcessing(
            single="<s> $A", special_tokens=[("<s>", tok.bos_token_id)])
    return tok


def preference_rows(conversational, implicit_prompt=False):
    """TRL preference rows of :data:`PAIRS`: explicit prompt, or (``implicit_prompt``) inside chosen/rejected."""
    if conversational:
        rows = [([{"role": "user", "content": p}], [{"role": "assistant", "content": c}],
                 [{"role": "assistant", "content": r}], m) for p, c, r, m in PAIRS]
    else:
        rows = PAIRS
    if implicit_prompt:
        return [{"chosen": p + c, "rejected": p + r, "margin": m} for p, c, r, m in rows]
    return [{"prompt": p, "chosen": c, "rejected": r, "margin": m} for p, c, r, m in rows]


def reward_trainer(model, tok, rows, out, **config):
    args = RewardConfig(output_dir=str(out), max_steps=2, per_device_train_batch_size=2, learning_rate=1e-2,
                        report_to=[], save_strategy="no", logging_strategy="no", disable_tqdm=True, use_cpu=True,
                        bf16=False, seed=0, **config)
    return RewardTrainer(model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tok)


def trl_read(trainer, model):
    """TRL's token ids of every chosen/rejected side and the model's rewards on them (TRL's collator)."""
    examples = [trainer.train_dataset[i] for i in range(len(trainer.train_dataset))]
    batch = trainer.data_collator(examples)
    model.eval()
    with torch.inference_mode():
        rewards = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits[:, 0]
    ids = [e["chosen_ids"] for e in examples] + [e["rejected_ids"] for e in examples]
    return ids, rewards.tolist(), batch


def rlenv_read(verifier):
    """rlenv's token ids and rewards of every chosen then every rejected side of :data:`PAIRS`."""
    sides = [(p, c) for p, c, _, _ in PAIRS] + [(p, r) for p, _, r, _ in PAIRS]
    results = verifier.score_batch([Task(str(i), p) for i, (p, _) in enumerate(sides)], [c for _, c in sides])
    return [verifier.encode(p, c)[0] for p, c in sides], [r.value for r in results]


COMBINATIONS = [(False, tok) for tok in TOKENIZERS] + [(True, tok) for tok in TOKENIZERS if tok != "bos"]


@pytest.mark.parametrize("conversational, tokenizer", COMBINATIONS)
def test_trl_trained_reward_model_reads_identically_in_rlenv(tmp_path, conversational, tokenizer):
    tok = make_tokenizer(tokenizer)
    trainer = reward_trainer(tiny_sequence_classifier(tok, hidden_size=32, seed=3), tok,
                             preference_rows(conversational), tmp_path / "run")
    trainer.train()
    trainer.save_model(str(tmp_path / "rm"))
    trl_ids, trl_rewards, _ = trl_read(trainer, trainer.model)
    # A chat-mode env stands for conversational data; the checkpoint records nothing (TRL saved it).
    env = SafetyRMEnv(str(tmp_path / "rm"), data_files=[{"prompt": p} for p, *_ in PAIRS], chat=conversational)
    scorer = env.verifier.verifier  # the reward model behind the env's non-answer guard
    ids, rewards = rlenv_read(scorer)
    assert scorer.layout == ("chat" if conversational else "plain")
    assert ids == trl_ids
    assert rewards == pytest.approx(trl_rewards, abs=1e-5)
    assert max(rewards) - min(rewards) > 1e-3  # the model is not constant: equal scores are informative
    if tokenizer != "bos":  # the other layout is another input: reading it that way would change every score
        other = RewardModelVerifier(str(tmp_path / "rm"), use_chat_template=not conversational)
        other_ids, other_rewards = rlenv_read(other)
        assert all(a != b for a, b in zip(other_ids, trl_ids))
        assert max(abs(a - b) for a, b in zip(other_rewards, trl_rewards)) > 1e-3


@pytest.mark.parametrize("conversational, tokenizer, implicit_prompt",
                         [(c, t, False) for c, t in COMBINATIONS] + [(False, "template", True), (True, "template", True)])
def test_rlenv_trained_reward_model_reads_identically_the_trl_way(tmp_path, conversational, tokenizer,
                                                                  implicit_prompt):
    tok = make_tokenizer(tokenizer)
    rows = preference_rows(conversational, implicit_prompt)
    model = tiny_sequence_classifier(tok, hidden_size=32, seed=4)
    trl_view = reward_trainer(copy.deepcopy(model), tok, rows, tmp_path / "run")
    trl_ids, _, batch = trl_read(trl_view, trl_view.model)
    with torch.inference_mode():  # TRL's own loss on the initial model over all pairs
        trl_loss = trl_view.compute_loss(trl_view.model, dict(batch)).item()
    config = RewardModelConfig(lr=1e-2, num_epochs=2, batch_size=len(rows), progress=False)
    report = train_reward_model(model, tok, rows, config)
    assert report.layout == ("chat" if conversational else "plain")
    assert report.losses[0] == pytest.approx(trl_loss, abs=1e-5)  # rlenv trained on TRL's inputs
    path = str(save_tiny(model, tok, tmp_path / "rm"))
    loaded = AutoModelForSequenceClassification.from_pretrained(path)
    assert loaded.config.rlenv_inputs == {"layout": report.layout}
    _, trl_rewards, _ = trl_read(trl_view, loaded)
    ids, rewards = rlenv_read(RewardModelVerifier(path))  # no option: the recorded layout decides
    assert ids == trl_ids
    assert rewards == pytest.approx(trl_rewards, abs=1e-5)
    assert max(rewards) - min(rewards) > 1e-3


def test_conversational_rows_need_a_chat_template_in_trl_and_in_rlenv(tmp_path):
    tok = make_tokenizer("bos")
    rows = preference_rows(conversational=True)
    with pytest.raises(ValueError):
        reward_trainer(tiny_sequence_classifier(tok, hidden_size=32), tok, rows, tmp_path)
    with pytest.raises(ValueError, match="chat template"):
        train_reward_model(tiny_sequence_classifier(tok, hidden_size=32), tok, rows,
                           RewardModelConfig(progress=False))
    with pytest.raises(ValueError, match="use_chat_template=False"):
        train_reward_model(tiny_sequence_classifier(tok, hidden_size=32), make_tokenizer("template"), rows,
                           RewardModelConfig(use_chat_template=False, progress=False))
    mixed = preference_rows(False)[:1] + rows[1:]
    with pytest.raises(ValueError, match="row 1"):
        train_reward_model(tiny_sequence_classifier(tok, hidden_size=32), tok, mixed, RewardModelConfig(progress=False))


def overlong_reports(train, make_model, tok, rows, config_class, limit, everything):
    """Reports of training with ``overlong="drop"`` and ``"truncate"`` at ``max_length=limit``.

    Also checks that dropping every row is an error naming ``everything``.
    """
    with pytest.raises(ValueError, match=f"{everything} are longer than max_length=2 tokens"):
        train(make_model(), tok, rows, config_class(max_length=2, overlong="drop", progress=False))
    return [train(make_model(), tok, rows, config_class(max_length=limit, overlong=mode, batch_size=8, progress=False))
            for mode in ("drop", "truncate")]


def test_overlong_drop_keeps_the_pairs_trls_max_length_filter_keeps(tmp_path):
    tok = make_tokenizer("template")
    rows = preference_rows(conversational=False)
    lengths = [max(len(pair_ids(tok, r["prompt"], r[k])) for k in ("chosen", "rejected")) for r in rows]
    limit = sorted(lengths)[1]  # two pairs fit, two do not
    kept = reward_trainer(tiny_sequence_classifier(tok, hidden_size=32), tok, rows, tmp_path, max_length=limit)
    assert len(kept.train_dataset) == 2
    dropped, cut = overlong_reports(train_reward_model, lambda: tiny_sequence_classifier(tok, hidden_size=32), tok,
                                    rows, RewardModelConfig, limit, "all 4 preference pairs")
    assert (dropped.num_pairs, dropped.num_dropped, dropped.num_truncated) == (2, 2, 0)
    assert (cut.num_pairs, cut.num_dropped, cut.num_truncated) == (4, 0, 2)
    with pytest.raises(ValueError, match="overlong"):
        RewardModelConfig(overlong="skip")


# -- process reward models ---------------------------------------------------------------------

STEPWISE = [{"prompt": "Add 2, 3 and 4.", "completions": ["2 + 3 = 5", "5 + 4 = 9"], "labels": [True, True]},
            {"prompt": "Multiply 3 by 4, then add 1.", "completions": ["3 * 4 = 12", "12 + 1 = 14", "So 14."],
             "labels": [True, False, False]},
            {"prompt": "What is 6 - 2?", "completions": ["6 - 2 = 4"], "labels": [True]}]


def trl_prm_row(tok, row, separator):
    """TRL's PRM ``tokenize_row`` layout (written from its source): ``(input_ids, labels)``."""
    prompt = ([tok.bos_token_id] if tok.bos_token_id is not None else []) + tok(
        row["prompt"], add_special_tokens=False)["input_ids"]
    sep = tok.encode(separator, add_special_tokens=False)
    ids, labels = list(prompt), [-100] * len(prompt)
    for step, label in zip(row["completions"], row["labels"]):
        chunk = tok(step, add_special_tokens=False)["input_ids"] + sep
        ids += chunk
        labels += [-100] * (len(chunk) - 1) + [int(label)]
    return ids, labels


def trl_prm_batch(tok, separator):
    rows = [dict(zip(("input_ids", "labels"), trl_prm_row(tok, row, separator))) for row in STEPWISE]
    return rows, DataCollatorForTokenClassification(tok)(rows)


def trl_step_scores(model, batch):
    """P(good) at every labelled position, row by row: the TRL way of reading a PRM."""
    model.eval()
    with torch.inference_mode():
        good = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.softmax(-1)[..., 1]
    return [good[i][batch["labels"][i] != -100].tolist() for i in range(len(STEPWISE))]


def rlenv_step_scores(verifier, separator):
    """Completions in TRL's layout (steps joined by the separator) scored by the verifier."""
    completions = [separator.join(row["completions"]) for row in STEPWISE]
    results = verifier.score_batch([Task(str(i), row["prompt"]) for i, row in enumerate(STEPWISE)], completions)
    for row, result in zip(STEPWISE, results):
        assert result.details["num_steps"] == len(row["completions"]) and result.details["steps_holding_suffix"] == []
    return [r.details["step_scores"] for r in results]


@pytest.mark.parametrize("tokenizer", ["bos", "template"])
def test_prm_trained_in_trls_layout_reads_identically_in_rlenv(tmp_path, tokenizer):
    tok = make_tokenizer(tokenizer)
    examples, batch = trl_prm_batch(tok, "\n")
    args = TrainingArguments(output_dir=str(tmp_path / "run"), max_steps=2, per_device_train_batch_size=2,
                             learning_rate=1e-2, report_to=[], save_strategy="no", logging_strategy="no",
                             disable_tqdm=True, use_cpu=True, seed=0)
    trainer = Trainer(model=tiny_token_classifier(tok, hidden_size=32, seed=5), args=args,
                      train_dataset=Dataset.from_list(examples), data_collator=DataCollatorForTokenClassification(tok))
    trainer.train()
    trainer.save_model(str(tmp_path / "prm"))
    tok.save_pretrained(str(tmp_path / "prm"))
    expected = trl_step_scores(trainer.model, batch)
    prm = PRMVerifier(str(tmp_path / "prm"))  # TRL records nothing: step suffix "\n", steps split on it
    for row, example in zip(STEPWISE, examples):
        steps = [s.text for s in prm.splitter.split("\n".join(row["completions"]))]
        assert stepwise_ids(prm.tokenizer, row["prompt"], steps, prm.step_suffix)[0] == example["input_ids"]
    got = rlenv_step_scores(prm, "\n")
    assert [s for row in got for s in row] == pytest.approx([s for row in expected for s in row], abs=1e-5)
    assert max(max(r) for r in got) - min(min(r) for r in got) > 1e-4


@pytest.mark.parametrize("separator", ["\n", "\n\n"])
def test_rlenv_trained_prm_reads_identically_the_trl_way(tmp_path, caplog, separator):
    tok = make_tokenizer("template_bos")
    model = tiny_token_classifier(tok, hidden_size=32, seed=6)
    _, batch = trl_prm_batch(tok, separator)
    with torch.inference_mode():
        trl_loss = copy.deepcopy(model).eval()(**batch).loss.item()
    config = PRMConfig(step_suffix=separator, lr=1e-2, num_epochs=2, batch_size=len(STEPWISE),
                       progress=False)
    report = train_prm(model, tok, STEPWISE, config)
    assert report.losses[0] == pytest.approx(trl_loss, abs=1e-5)
    path = str(save_tiny(model, tok, tmp_path / "prm"))
    expected = trl_step_scores(AutoModelForTokenClassification.from_pretrained(path), batch)
    prm = PRMVerifier(path)  # the recorded step suffix sets the layout and the splitter
    assert prm.step_suffix == separator
    got = rlenv_step_scores(prm, separator)
    assert [s for row in got for s in row] == pytest.approx([s for row in expected for s in row], abs=1e-5)
    env = PRMEnv(path, data_files=STEPWISE)  # gold completions are joined with the same suffix
    assert env.source[0].gold_completion == separator.join(STEPWISE[0]["completions"])
    other = "\n" if separator != "\n" else "\n\n"
    with caplog.at_level(logging.WARNING, logger="rlenv.rm_inputs"):
        PRMVerifier(path, step_suffix=other).score_steps([STEPWISE[0]["prompt"]], [STEPWISE[0]["completions"]])
    assert f"trained with step suffix {separator!r}; reading it with {other!r}" in caplog.text


def test_a_step_holding_the_suffix_is_reported_and_logged(tmp_path, caplog):
    tok = make_tokenizer("bos")
    path = str(save_tiny(tiny_token_classifier(tok, hidden_size=32, seed=7), tok, tmp_path / "prm"))
    task, completion = Task("t", STEPWISE[0]["prompt"]), "\n".join(STEPWISE[0]["completions"])
    default = PRMVerifier(path)(task, completion)
    assert default.details["num_steps"] == 2 and default.details["steps_holding_suffix"] == []
    with caplog.at_level(logging.WARNING, logger="rlenv.rm_inputs"):
        mismatched = PRMVerifier(path, splitter=StepSplitter(separator="\n\n"))(task, completion)
    assert mismatched.details["num_steps"] == 1 and mismatched.details["steps_holding_suffix"] == [0]
    assert "left the step suffix '\\n' inside a step" in caplog.text
    assert mismatched.details["step_scores"][0] == pytest.approx(default.details["step_scores"][-1], abs=1e-5)
    with pytest.raises(ValueError, match="splitter"):
        PRMVerifier(path, step_suffix="")


def test_prm_overlong_rows_are_cut_or_dropped(tmp_path):
    tok = make_tokenizer("bos")
    lengths = [len(trl_prm_row(tok, row, "\n")[0]) for row in STEPWISE]
    limit = sorted(lengths)[-1] - 1  # the longest row does not fit; its steps alone do
    dropped, cut = overlong_reports(train_prm, lambda: tiny_token_classifier(tok, hidden_size=32), tok, STEPWISE,
                                    PRMConfig, limit, "all 3 stepwise rows")
    assert (dropped.num_rows, dropped.num_dropped, dropped.num_truncated) == (2, 1, 0)
    assert (cut.num_rows, cut.num_dropped, cut.num_truncated) == (3, 0, 1)
