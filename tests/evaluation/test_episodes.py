"""Multi-turn episodes in evaluation (``rlenv.evaluation.episodes`` and ``evaluate_policy``), on an
in-process ``ToolEnv`` (a ``multiply`` tool) played by scripted policies: pure functions of the
conversation they are shown, so that what the runner shows them and does with their turns is
what is checked."""

import dataclasses
import json

import pytest

from rlenv import Completion, Task
from rlenv.evaluation import EvalOptions, evaluate_policy, read_results
from rlenv.evaluation.episodes import play_episodes
from rlenv.sources import ProceduralSource
from rlenv.tools import ToolEnv
from tests.tools.test_env import FinalEquals, multiply

OPTIONS = EvalOptions(ks=[1], n_resamples=50, plot=False, report=False, progress=False, batch_size=4)


def product_task(rng, index):
    a, b = rng.randint(100, 999), rng.randint(100, 999)
    return Task(f"mul-{index}", f"What is {a} * {b}?", reference=str(a * b))


def make_env(**kwargs):
    return ToolEnv(ProceduralSource(product_task, size=6), FinalEquals(), tools=[multiply], **kwargs)


def factors(text):
    return [int(x) for x in text.rsplit("What is ", 1)[1].split("?")[0].split(" * ")]


class Policy:
    """Calls ``multiply`` on the prompt's factors, then answers the result (text or chat mode); records its calls."""

    def __init__(self, fail_on_turn=None):
        self.calls = []
        self.fail_on_turn = fail_on_turn

    def __call__(self, conversations, tools=None):
        self.calls.append((len(conversations), tools))
        turns = []
        for shown in conversations:
            text = shown if isinstance(shown, str) else json.dumps(shown)
            results = text.count("<tool_response>") if isinstance(shown, str) else \
                sum(m["role"] == "tool" for m in shown)
            if self.fail_on_turn == results + 1:
                turns.append(Completion.failed("HTTP 500 after 4 retries"))
            elif results:
                turns.append((shown.rsplit("<tool_response>\n", 1)[1] if isinstance(shown, str)
                              else shown[-1]["content"]).split()[0])
            else:
                a, b = factors(text if isinstance(shown, str) else shown[-1]["content"])
                turns.append(f'<tool_call>{{"name": "multiply", "arguments": {{"a": {a}, "b": {b}}}}}</tool_call>')
        return turns


def test_episodes_are_played_in_lockstep_rows_keep_their_turns_and_a_rerun_plays_nothing(tmp_path):
    policy = Policy()
    summary = evaluate_policy(make_env(), policy, range(6), 2, tmp_path, OPTIONS, make_env=make_env)
    assert summary["metrics"]["pass@1"]["value"] == 1.0
    # 12 episodes, 4 at a time, 2 turns each: 3 rounds of 2 calls of 4 conversations
    assert policy.calls == [(4, None)] * 6
    rows = read_results(tmp_path / "results.jsonl")
    assert len(rows) == 12 and {r["status"] for r in rows} == {"correct"}
    first = rows[0]
    assert first["episode"]["turns"] == 2 and first["episode"]["limit"] is None
    assert first["episode"]["tool_metrics"]["calls"] == 1 and first["episode"]["tool_metrics"]["errors"] == 0
    roles = [m["role"] for m in first["episode"]["messages"]]
    assert roles == ["assistant", "user", "assistant"] and first["completion"] == first["reference"]
    assert first["prompt"].endswith(f"What is {' * '.join(map(str, factors(first['prompt'])))}?")
    evaluate_policy(make_env(), policy, range(6), 2, tmp_path, OPTIONS, make_env=make_env)
    assert len(policy.calls) == 6  # every episode is stored: nothing is generated again


def test_without_more_envs_episodes_are_played_one_at_a_time_the_same_way(tmp_path):
    policy = Policy()
    evaluate_policy(make_env(), policy, range(3), 1, tmp_path / "one", OPTIONS)
    assert policy.calls == [(1, None)] * 6
    batched = Policy()
    evaluate_policy(make_env(), batched, range(3), 1, tmp_path / "four", OPTIONS, make_env=make_env)
    strip = [{k: v for k, v in r.items() if k != "cluster"} for r in read_results(tmp_path / "one" / "results.jsonl")]
    assert strip == [{k: v for k, v in r.items() if k != "cluster"}
                     for r in read_results(tmp_path / "four" / "results.jsonl")]


def test_chat_episodes_offer_the_tools_and_show_the_whole_conversation():
    env = make_env(chat=True)
    policy = Policy()
    episodes = play_episodes([env], [(0, "mul-0", 0)], policy)
    assert [calls for calls, _ in policy.calls] == [1, 1]
    assert policy.calls[0][1] == env.tool_schemas  # tools= for the chat template or the server
    (episode,) = episodes
    assert episode.info["status"] == "correct" and [m["role"] for m in episode.messages] == \
        ["assistant", "tool", "assistant"]


def test_a_failed_generation_ends_its_episode_as_an_error_and_a_limit_cuts_it(tmp_path):
    counted = dataclasses.replace(OPTIONS, errors="count-as-wrong")
    evaluate_policy(make_env(), Policy(fail_on_turn=2), range(2), 1, tmp_path / "failed", counted, make_env=make_env)
    rows = read_results(tmp_path / "failed" / "results.jsonl")
    assert [r["status"] for r in rows] == ["error", "error"]
    assert rows[0]["details"]["error"] == "generation failed: HTTP 500 after 4 retries"
    assert rows[0]["episode"]["turns"] == 1 and len(rows[0]["episode"]["messages"]) == 2

    def call_forever(conversations, tools=None):
        return ['<tool_call>{"name": "multiply", "arguments": {"a": 1, "b": 2}}</tool_call>'] * len(conversations)

    summary = evaluate_policy(make_env(max_turns=3), call_forever, range(2), 1, tmp_path / "cut", OPTIONS)
    rows = read_results(tmp_path / "cut" / "results.jsonl")
    assert [(r["episode"]["turns"], r["episode"]["limit"], r["truncated"], r["status"]) for r in rows] == \
        [(3, "max_turns", True, "incorrect")] * 2
    episodes = summary["episodes"]
    assert (episodes["count"], episodes["turns"], episodes["cut_by"]) == (2, {"mean": 3.0, "max": 3}, {"max_turns": 2})
    assert episodes["tool_metrics"]["calls"] == 6 and episodes["tool_errors_per_call"] == 0.0
    assert ("Multi-turn: 2 episodes, 3.00 turns per episode (max 3), 3.00 tool calls per episode, 0.0% of calls "
            "answered with a tool error; cut by a limit: 2 by max_turns.") in (tmp_path / "cut" / "summary.md").read_text()


def test_play_episodes_needs_a_multi_turn_env():
    import rlenv

    with pytest.raises(TypeError, match="plays multi-turn envs, got TextEnv"):
        play_episodes([rlenv.make("rlenv/ExactMatch-v0")], [(0, "x", 0)], Policy())
