"""Checkpoints are loadable model directories (model + tokenizer + trainer state), and
``save_total_limit`` keeps only the newest ones."""

import pytest
import torch

from rlenv.trainers import Trainer
from tests.trainers.trainer_helpers import MAX_NEW_TOKENS, make_task_env, tiny_policy, training_split

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_every_checkpoint_loads_with_from_pretrained_and_only_the_last_n_are_kept(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model, tok = tiny_policy(hidden_size=32)
    config = dict(num_tasks=2, group_size=2, lr=1e-3, max_new_tokens=MAX_NEW_TOKENS, progress=False, steps=4,
                  output_dir=str(tmp_path), save_every=1, save_total_limit=2)
    trainer = Trainer(model, training_split(make_task_env()), "grpo", config=config, tokenizer=tok)
    trainer.train()
    assert sorted(p.name for p in tmp_path.glob("checkpoint-*")) == ["checkpoint-3", "checkpoint-4"]
    last = tmp_path / "checkpoint-4"
    loaded = AutoModelForCausalLM.from_pretrained(last)
    for name, value in loaded.state_dict().items():
        assert torch.equal(value, trainer.policy.state_dict()[name]), name
    assert AutoTokenizer.from_pretrained(last).get_vocab() == tok.get_vocab()
    resumed = Trainer(tiny_policy(hidden_size=32)[0], training_split(make_task_env()), "grpo",
                      config=dict(config, steps=5), tokenizer=tok)
    resumed.train(resume_from=last)  # the trainer state is in the same directory
    assert resumed.step == 5


def test_save_total_limit_must_be_positive():
    with pytest.raises(ValueError, match="save_total_limit must be None or >= 1, got 0"):
        Trainer(tiny_policy(hidden_size=32)[0], None, "grpo", config=dict(save_total_limit=0),
                tokenizer=tiny_policy(hidden_size=32)[1])


def test_resuming_into_the_same_output_keeps_one_metrics_row_per_step(tmp_path):
    import json

    config = dict(num_tasks=2, group_size=2, lr=1e-3, max_new_tokens=MAX_NEW_TOKENS, progress=False, steps=3,
                  output_dir=str(tmp_path), save_every=1, log_samples=1, log_samples_every=1)
    model, tok = tiny_policy(hidden_size=32)
    Trainer(model, training_split(make_task_env()), "grpo", config=config, tokenizer=tok).train()
    resumed = Trainer(tiny_policy(hidden_size=32)[0], training_split(make_task_env()), "grpo", config=config,
                      tokenizer=tok)
    resumed.train(resume_from=tmp_path / "checkpoint-1")  # steps 2 and 3 again
    for name in ("metrics.jsonl", "samples.jsonl"):
        steps = [json.loads(line)["step"] for line in (tmp_path / name).read_text().splitlines()]
        assert steps == [1, 2, 3], name


def test_train_takes_progress_for_every_family():
    from rlenv.trainers import train

    model, tok = tiny_policy(hidden_size=32)
    history = train("grpo", model, tok, env=training_split(make_task_env()), progress=False,
                    config=dict(num_tasks=2, group_size=2, max_new_tokens=MAX_NEW_TOKENS, steps=1))
    assert len(history) == 1


@pytest.mark.parametrize("during", ["update", "_log", "_log_samples"])
def test_ctrl_c_while_a_step_commits_lets_it_finish_so_the_step_count_agrees_with_the_logs(tmp_path, during,
                                                                                          python_sigint):
    """SIGINT sent while step 2 updates or writes its rows: the step finishes (weights, step count and
    ``metrics.jsonl`` agree), then KeyboardInterrupt is raised."""
    import json
    import os
    import signal

    model, tok = tiny_policy(hidden_size=32)
    config = dict(num_tasks=2, group_size=2, lr=1e-3, max_new_tokens=MAX_NEW_TOKENS, progress=False, steps=5,
                  output_dir=str(tmp_path), log_samples=2, log_samples_every=1)
    trainer = Trainer(model, training_split(make_task_env()), "grpo", config=config, tokenizer=tok)
    original = getattr(trainer, during)

    def interrupted_at_step_2(*args):
        if trainer.step == (1 if during == "update" else 2):  # step 2 in flight
            os.kill(os.getpid(), signal.SIGINT)
        return original(*args)

    setattr(trainer, during, interrupted_at_step_2)
    with pytest.raises(KeyboardInterrupt):
        trainer.train()
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert trainer.step == 2 and [row["step"] for row in rows] == [1.0, 2.0]
    assert {json.loads(line)["step"] for line in (tmp_path / "samples.jsonl").read_text().splitlines()} == {1, 2}
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
