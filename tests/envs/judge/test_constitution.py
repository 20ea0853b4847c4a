"""Constitutional AI: critique-and-revise SFT rows from a real tiny local policy (HF ``generate``),
AI preference labels from the deterministic judge double (a test double of an LLM judge,
:mod:`tests.envs.judge.judge_server`, on 127.0.0.1) consumed by the real reward-model trainer."""

import pytest

from rlenv.envs.judge import JudgeModel
from rlenv.envs.judge.constitution import (
    DEFAULT_CONSTITUTION,
    Constitution,
    Principle,
    constitution_pairwise,
    critique_and_revise,
    preference_labels,
)
from rlenv.inference import Sampling, make_completer
from tests.envs.judge.judge_server import judge_app
from tests.waiting import scaled

pytestmark = pytest.mark.usefixtures("one_torch_thread")

PROMPTS = ["Explain why the sky is blue.", "Give one tip for sleeping better."]


@pytest.fixture(scope="module")
def tiny_policy(tmp_path_factory):
    from rlenv.trainers.tiny import save_tiny, tiny_causal_lm, tiny_tokenizer

    tokenizer = tiny_tokenizer()
    return str(save_tiny(tiny_causal_lm(tokenizer, seed=3), tokenizer, tmp_path_factory.mktemp("policy")))


def test_critique_and_revise_builds_sft_rows_from_the_policys_own_answers(tiny_policy):
    sampling = Sampling(max_new_tokens=8, temperature=1.0, seed=0)
    policy = make_completer("hf", tiny_policy, sampling, chat="off")
    reviser = JudgeModel("hf", tiny_policy, sampling=sampling, chat="off")
    rows = critique_and_revise(policy, reviser, PROMPTS)
    assert [r["prompt"] for r in rows] == PROMPTS  # nothing failed, nothing lost
    for row in rows:
        assert [s["principle"] for s in row["steps"]] == ["helpful", "honest", "harmless"]
        assert row["completion"] == row["steps"][-1]["revision"] and row["completion"].strip()
        assert all(s["critique"].strip() for s in row["steps"])


def test_a_failed_critique_request_leaves_the_prompt_out_with_a_warning(tiny_policy, serve_app, caplog):
    policy = make_completer("hf", tiny_policy, Sampling(max_new_tokens=4, temperature=1.0), chat="off")
    slow_url = serve_app(judge_app(delay_s=scaled(1.0) + 0.5)) + "/v1"
    timing_out = JudgeModel("openai", "fair", base_url=slow_url, max_retries=0, timeout=0.5)
    assert critique_and_revise(policy, timing_out, PROMPTS, Constitution((Principle("kind", "Be kind."),))) == []
    assert "2 of 2 prompts left out" in caplog.text
    with pytest.raises(ValueError, match="distinct names"):
        Constitution((Principle("a", "x"), Principle("a", "y")))


def test_ai_preference_labels_train_the_reward_model(judge_url):
    from rlenv.trainers.reward_models import RewardModelConfig, pairwise_accuracy, train_reward_model
    from rlenv.trainers.tiny import tiny_sequence_classifier, tiny_word_tokenizer

    judge = constitution_pairwise(JudgeModel("openai", "fair", base_url=judge_url), DEFAULT_CONSTITUTION)
    topics = ["sky", "sleep", "tea", "bread", "rain", "code", "books", "music", "trees", "cats", "maps", "boats"]
    rows = [{"prompt": f"Tell me about {t}.", "a": f"{t} is good" if i % 2 else f"{t} is bad",
             "b": f"{t} is bad" if i % 2 else f"{t} is good"} for i, t in enumerate(topics)]
    rows.append({"prompt": "Tie?", "a": "good", "b": "good"})
    labels, counts = preference_labels(judge, rows)
    assert counts == {"decided": 12, "undecided": 1, "errors": 0}
    assert all(label["chosen"].endswith("good") and label["rejected"].endswith("bad") for label in labels)
    tokenizer = tiny_word_tokenizer([r["prompt"] + " " + r["a"] for r in rows])
    model = tiny_sequence_classifier(tokenizer, hidden_size=32, seed=0)
    config = RewardModelConfig(lr=3e-3, epochs=12, batch_size=4, seed=0, progress=False)
    report = train_reward_model(model, tokenizer, labels, config)
    assert report.num_pairs == 12
    assert pairwise_accuracy(model, tokenizer, labels, config) == 1.0
