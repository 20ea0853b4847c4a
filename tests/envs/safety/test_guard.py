"""GuardClassifierVerifier: P(first generated token is the unsafe label), checked against ``generate``."""

from __future__ import annotations

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from rlenv import Status, Task
from rlenv.envs.safety import GuardClassifierVerifier, SafetyRMEnv
from rlenv.envs.safety.synthetic import safety_prompts
from rlenv.trainers.tiny import save_tiny, tiny_causal_lm, tiny_tokenizer

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def guard_path(tmp_path_factory):
    tok = tiny_tokenizer(chat_template=True)
    return str(save_tiny(tiny_causal_lm(tok, hidden_size=32, seed=4), tok, tmp_path_factory.mktemp("guard")))


@pytest.fixture(scope="module")
def plain_lm_path(tmp_path_factory):
    tok = tiny_tokenizer()
    return str(save_tiny(tiny_causal_lm(tok, hidden_size=32, seed=5), tok, tmp_path_factory.mktemp("plain")))


PAIRS = [("How do I build a bomb?", "Sure, first get some"), ("How do I bake bread?", "Knead the dough."),
         ("Hi", "I can't help with that."), ("Explain how to pick a lock in detail please.", "No")]


def generate_first_token_logits(path, messages):
    """The logits ``generate`` produces for the first new token (one unpadded conversation)."""
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_dict=True, return_tensors="pt")
    out = model.generate(**ids, max_new_tokens=1, do_sample=False, output_logits=True, return_dict_in_generate=True,
                         pad_token_id=tok.pad_token_id)
    return out.logits[0][0].float(), tok


@pytest.mark.parametrize("renormalize", [False, True])
def test_p_unsafe_matches_the_first_token_of_generate(guard_path, renormalize):
    guard = GuardClassifierVerifier(guard_path, renormalize=renormalize, batch_size=3)
    results = guard.score_batch([Task(str(i), p) for i, (p, _) in enumerate(PAIRS)], [c for _, c in PAIRS])
    for (prompt, completion), result in zip(PAIRS, results):
        logits, tok = generate_first_token_logits(
            guard_path, [{"role": "user", "content": prompt}, {"role": "assistant", "content": completion}])
        u, s = tok.convert_tokens_to_ids("u"), tok.convert_tokens_to_ids("s")
        expected = logits[[u, s]].softmax(-1)[0].item() if renormalize else logits.softmax(-1)[u].item()
        assert result.components["p_unsafe"] == pytest.approx(expected, abs=1e-5)
        assert result.value == pytest.approx(1 - expected, abs=1e-5)
        assert result.status is (Status.CORRECT if expected < 0.5 else Status.INCORRECT)


def test_prompt_mode_classifies_the_user_turn_only(guard_path):
    guard = GuardClassifierVerifier(guard_path, mode="prompt")
    task = Task("t", PAIRS[0][0])
    assert guard(task, "anything").value == pytest.approx(guard(task, "something else").value)
    logits, tok = generate_first_token_logits(guard_path, [{"role": "user", "content": PAIRS[0][0]}])
    u, s = tok.convert_tokens_to_ids("u"), tok.convert_tokens_to_ids("s")
    assert guard(task, "x").components["p_unsafe"] == pytest.approx(logits[[u, s]].softmax(-1)[0].item(), abs=1e-5)


def test_template_mode_and_threshold(plain_lm_path):
    with pytest.raises(ValueError, match="template"):
        GuardClassifierVerifier(plain_lm_path)(Task("t", "Hi"), "Hello")
    guard = GuardClassifierVerifier(plain_lm_path, template="User: {prompt}\nAgent: {response}\nVerdict:")
    result = guard(Task("t", "Hi"), "Hello")
    strict = GuardClassifierVerifier(plain_lm_path, template="User: {prompt}\nAgent: {response}\nVerdict:",
                                     threshold=result.components["p_unsafe"])
    assert strict(Task("t", "Hi"), "Hello").status is Status.INCORRECT  # p_unsafe >= threshold
    ids, cut = guard.encode("Hi", "Hello")
    assert guard.tokenizer.decode(ids) == "User: Hi\nAgent: Hello\nVerdict:" and not cut


def test_a_guard_recording_the_plain_layout_needs_a_template(tmp_path):
    from rlenv.rm_inputs import record_layout

    tok = tiny_tokenizer(chat_template=True)  # the tokenizer ships a template the model was not trained on
    model = tiny_causal_lm(tok, hidden_size=32, seed=4)
    record_layout(model.config, "plain")
    path = str(save_tiny(model, tok, tmp_path / "plain_guard"))
    with pytest.raises(ValueError, match="records the 'plain' input layout.*template="):
        GuardClassifierVerifier(path)(Task("t", "Hi"), "Hello")
    guard = GuardClassifierVerifier(path, template="User: {prompt}\nAgent: {response}\nVerdict:")
    assert guard.tokenizer.decode(guard.encode("Hi", "Hello")[0]) == "User: Hi\nAgent: Hello\nVerdict:"


def test_labels_must_differ_at_the_first_token(guard_path):
    guard = GuardClassifierVerifier(guard_path, unsafe_token="bad", safe_token="benign")
    with pytest.raises(ValueError, match="same token id"):
        guard.label_ids()
    for kwargs in ({"mode": "both"}, {"threshold": 0.0}, {"template": "no prompt field"}, {"unsafe_token": ""}):
        with pytest.raises(ValueError):
            GuardClassifierVerifier(guard_path, **kwargs)


def test_safety_env_with_the_guard_scorer(guard_path):
    env = SafetyRMEnv(guard_path, data_files=safety_prompts("test"), scorer="guard",
                      scorer_kwargs={"batch_size": 4})
    prompt, info = env.reset(seed=0)
    _, reward, terminated, _, info = env.step("I can't help with that.")
    assert terminated and 0.0 <= reward <= 1.0
    assert info["components"]["p_unsafe"] == pytest.approx(1 - reward)
