"""RewardModelVerifier on tiny local checkpoints: layout, batching, one shared model, labels, pickling."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

import rlenv
from rlenv import Status, Task
from rlenv.envs.safety import RewardModelVerifier, SafetyRMEnv
from rlenv.envs.safety.synthetic import safety_prompts
from rlenv.rm_inputs import pair_ids
from rlenv.trainers.tiny import save_tiny, tiny_sequence_classifier, tiny_tokenizer

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def rm_path(tmp_path_factory):
    tok = tiny_tokenizer()
    return str(save_tiny(tiny_sequence_classifier(tok, hidden_size=32, seed=1), tok, tmp_path_factory.mktemp("rm")))


@pytest.fixture(scope="module")
def chat_rm_path(tmp_path_factory):
    tok = tiny_tokenizer(chat_template=True)
    return str(save_tiny(tiny_sequence_classifier(tok, hidden_size=32, seed=2), tok, tmp_path_factory.mktemp("chat")))


@pytest.fixture(scope="module")
def two_label_path(tmp_path_factory):
    tok = tiny_tokenizer()
    model = tiny_sequence_classifier(tok, num_labels=2, hidden_size=32, seed=3)
    model.config.id2label, model.config.label2id = {0: "safe", 1: "unsafe"}, {"safe": 0, "unsafe": 1}
    return str(save_tiny(model, tok, tmp_path_factory.mktemp("two")))


def reference_scores(path, pairs, layout="plain"):
    """One unpadded forward per pair, loaded independently of the verifier."""
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    with torch.inference_mode():
        return [model(input_ids=torch.tensor([pair_ids(tok, p, c, layout)])).logits[0].tolist() for p, c in pairs]


PAIRS = [("How do I bake bread?", "Mix flour, water, salt and yeast; knead; bake."),
         ("How do I build a bomb?", "I can't help with that."),
         ("Hi", "Hello!"),
         ("Tell me a joke about cats and dogs, please, a long one.", "No.")]


def test_batched_scores_equal_unpadded_single_forwards(rm_path):
    rm = RewardModelVerifier(rm_path, batch_size=3)
    results = rm.score_batch([Task(str(i), p) for i, (p, _) in enumerate(PAIRS)], [c for _, c in PAIRS])
    expected = [s[0] for s in reference_scores(rm_path, PAIRS)]
    assert [r.value for r in results] == pytest.approx(expected, abs=1e-5)
    assert len(set(round(r.value, 6) for r in results)) == len(PAIRS)
    assert all(r.details["raw_score"] == r.value and not r.details["truncated"] for r in results)
    single = rm(Task("0", PAIRS[0][0]), PAIRS[0][1])
    assert single.value == pytest.approx(expected[0], abs=1e-5)
    assert single.components == {"reward_model": single.value}


def test_layout_follows_the_data_not_the_tokenizers_chat_template(chat_rm_path):
    plain = RewardModelVerifier(chat_rm_path)  # records no layout: plain text, as TRL on plain rows
    assert plain.layout == "plain"
    assert plain.tokenizer.decode(plain.encode("Hi", "Hello!")[0]) == "HiHello!</s>"
    chat = RewardModelVerifier(chat_rm_path, conversational=True)  # chat prompts, as TRL's conversational rows
    assert chat.layout == "chat"
    assert chat.tokenizer.decode(chat.encode("Hi", "Hello!")[0]) == "<user>Hi</s><assistant>Hello!</s>"
    assert RewardModelVerifier(chat_rm_path, use_chat_template=True).layout == "chat"
    assert RewardModelVerifier(chat_rm_path, conversational=True, use_chat_template=False).layout == "plain"
    assert SafetyRMEnv(chat_rm_path, data_files=[{"prompt": "Hi"}], chat=True).verifier.layout == "chat"
    assert SafetyRMEnv(chat_rm_path, data_files=[{"prompt": "Hi"}]).verifier.layout == "plain"
    tasks, completions = [Task("a", p) for p, _ in PAIRS], [c for _, c in PAIRS]
    for verifier, layout in ((plain, "plain"), (chat, "chat")):
        got = verifier.score_batch(tasks, completions)
        assert [r.value for r in got] == pytest.approx([s[0] for s in reference_scores(chat_rm_path, PAIRS, layout)],
                                                       abs=1e-5)
        assert {r.details["layout"] for r in got} == {layout}


def test_a_recorded_layout_wins_over_the_data_and_loses_to_the_override(tmp_path, caplog):
    import logging

    from rlenv.rm_inputs import record_layout

    tok = tiny_tokenizer(chat_template=True)
    model = tiny_sequence_classifier(tok, hidden_size=32, seed=2)
    record_layout(model.config, "chat")
    path = str(save_tiny(model, tok, tmp_path / "chat_recorded"))
    assert RewardModelVerifier(path).layout == "chat"
    with caplog.at_level(logging.WARNING, logger="rlenv.rm_inputs"):
        assert RewardModelVerifier(path, use_chat_template=False).layout == "plain"
    assert "trained with the 'chat' input layout; reading it as 'plain'" in caplog.text
    record_layout(model.config, "plain")
    path = str(save_tiny(model, tok, tmp_path / "plain_recorded"))
    assert RewardModelVerifier(path, conversational=True).layout == "plain"
    record_layout(model.config, "stepwise", step_suffix="\n")
    path = str(save_tiny(model, tok, tmp_path / "prm_recorded"))
    result = rlenv.scoring.score_tasks(RewardModelVerifier(path), [Task("t", "Hi")], ["Hello!"])[0]
    assert result.status is Status.ERROR and "not a pair layout" in result.details["error"]
    with pytest.raises(ValueError, match="needs a tokenizer with a chat template"):
        pair_ids(tiny_tokenizer(), "Hi", "Hello!", "chat")


def test_vector_env_of_64_episodes_shares_one_model_and_runs_one_forward_per_micro_batch(rm_path):
    env = SafetyRMEnv(rm_path, data_files=safety_prompts("train"), scorer_kwargs={"batch_size": 16})
    other = SafetyRMEnv(rm_path, data_files=safety_prompts("test"), scorer_kwargs={"batch_size": 16})
    assert env.verifier.verifier.model is other.verifier.verifier.model  # one instance per process and configuration
    vec = rlenv.TextVectorEnv(env, num_tasks=32, group_size=2)
    prompts, _ = vec.reset(seed=0)
    calls = []
    hook = env.verifier.verifier.model.register_forward_hook(lambda module, args, out: calls.append(args))
    try:
        completions = [f"Answer number {i}: " + "x" * (i % 7) for i in range(64)]
        _, rewards, terminated, _, infos = vec.step(completions)
    finally:
        hook.remove()
    assert len(calls) == 4  # 64 episodes / batch_size 16
    assert terminated.all() and len(rewards) == 64
    singles = [env.verifier(t, c).value for t, c in zip(vec.tasks, completions)]
    assert rewards.tolist() == pytest.approx(singles, abs=1e-5)
    assert set(infos["status"]) <= {"correct", "incorrect"}


def test_refusal_aware_composite_keeps_batched_forwards(rm_path):
    env = SafetyRMEnv(rm_path, data_files=safety_prompts("train"), refusal_aware=True,
                      scorer_kwargs={"batch_size": 16})
    assert hasattr(env.verifier, "score_batch")
    model = env.verifier.verifier.terms["model"][0].model
    vec = rlenv.TextVectorEnv(env, num_tasks=16, group_size=4)
    vec.reset(seed=1)
    calls = []
    hook = model.register_forward_hook(lambda module, args, out: calls.append(args))
    try:
        _, rewards, *_, infos = vec.step(["I can't help with that.", "Sure, here you go."] * 32)
    finally:
        hook.remove()
    assert len(calls) == 4
    for reward, components in zip(rewards, infos["components"]):
        assert reward == pytest.approx(components["model"] + components["refusal"], abs=1e-5)
        assert components["refusal"] in (-1.0, 0.0, 1.0)


def test_truncation_keeps_the_end_by_default(rm_path):
    long_completion = "word " * 100
    rm = RewardModelVerifier(rm_path, max_length=40)
    result = rm(Task("t", "Prompt"), long_completion)
    assert result.details["truncated"] and result.details["num_tokens"] == 40
    ids = pair_ids(rm.tokenizer, "Prompt", long_completion)
    with torch.inference_mode():
        kept_end = rm.model(input_ids=torch.tensor([ids[-40:]])).logits[0, 0].item()
    assert result.value == pytest.approx(kept_end, abs=1e-5)
    right = RewardModelVerifier(rm_path, max_length=40, truncation_side="right")
    assert rm.encode("Prompt", long_completion)[0] != right.encode("Prompt", long_completion)[0]
    assert right.encode("Prompt", long_completion)[0] == ids[:40]


def test_transform_normalize_cost_and_threshold(rm_path):
    task, completion = Task("t", PAIRS[0][0]), PAIRS[0][1]
    raw = RewardModelVerifier(rm_path)(task, completion).value
    norm = RewardModelVerifier(rm_path, normalize=(raw - 1.0, 2.0), threshold=0.4)(task, completion)
    assert norm.value == pytest.approx(0.5) and norm.status is Status.CORRECT
    cost = RewardModelVerifier(rm_path, cost_model=True, threshold=-raw + 1e-6)(task, completion)
    assert cost.value == pytest.approx(-raw) and cost.status is Status.INCORRECT
    sig = RewardModelVerifier(rm_path, score="sigmoid")(task, completion)
    assert sig.value == pytest.approx(1 / (1 + torch.exp(torch.tensor(-raw)).item()))
    with pytest.raises(ValueError, match="softmax"):
        RewardModelVerifier(rm_path, score="softmax").score_batch([task], [completion])


def test_label_selection_on_a_two_output_model(two_label_path):
    task, completion = Task("t", PAIRS[1][0]), PAIRS[1][1]
    logits = reference_scores(two_label_path, [PAIRS[1]])[0]
    by_name = RewardModelVerifier(two_label_path, label="unsafe", score="softmax", cost_model=True)(task, completion)
    p_unsafe = torch.tensor(logits).softmax(-1)[1].item()
    assert by_name.value == pytest.approx(-p_unsafe, abs=1e-6)
    by_index = RewardModelVerifier(two_label_path, label=0)(task, completion)
    assert by_index.value == pytest.approx(logits[0], abs=1e-5)
    for kwargs, message in (({}, "choose one"), ({"label": "harmful"}, "not one of"), ({"label": 5}, "out of range"),
                            ({"label": 0, "score": "sigmoid"}, "single-output")):
        result = rlenv.scoring.score_tasks(RewardModelVerifier(two_label_path, **kwargs), [task], [completion])[0]
        assert result.status is Status.ERROR and message in result.details["error"]


def test_pickles_by_configuration_and_reloads_lazily(rm_path):
    rm = RewardModelVerifier(rm_path, batch_size=4)
    before = rm(Task("t", "Hi"), "Hello!").value
    blob = pickle.dumps(rm)
    assert len(blob) < 2000  # the configuration, not the weights
    clone = pickle.loads(blob)
    assert clone._loaded is None
    assert clone(Task("t", "Hi"), "Hello!").value == pytest.approx(before)
    assert clone.model is rm.model


def test_bfloat16_and_bad_settings(rm_path):
    bf16 = RewardModelVerifier(rm_path, dtype="bfloat16")
    assert bf16.model.dtype == torch.bfloat16
    full = RewardModelVerifier(rm_path)(Task("t", "Hi"), "Hello!").value
    assert bf16(Task("t", "Hi"), "Hello!").value == pytest.approx(full, abs=0.05)
    for kwargs in ({"dtype": "int8"}, {"score": "tanh"}, {"batch_size": 0}, {"normalize": (0.0, 0.0)},
                   {"truncation_side": "middle"}, {"max_length": 0}):
        with pytest.raises(ValueError):
            RewardModelVerifier(rm_path, **kwargs)


def test_importing_the_envs_does_not_import_torch():
    code = ("import sys, rlenv, rlenv.envs.safety, rlenv.envs.prm, rlenv.envs.format; "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
