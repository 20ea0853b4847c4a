"""Reading judge verdicts: every accepted form, and an error (never a score) for everything else."""

import pytest

from rlenv.envs.judge.parsing import (
    JudgeVerdictError,
    parse_choice,
    parse_criteria,
    parse_ranking,
    parse_score,
)


@pytest.mark.parametrize(("reply", "score"), [
    ("<score>7</score>", 7.0), ("Reasoning first. <score> 6.5 </score>", 6.5), ('{"score": 3}', 3.0),
    ('```json\n{"score": 9, "why": "clear"}\n```', 9.0), ("Score: 8", 8.0), ("Rating: **4**/10", 4.0),
    ("5", 5.0), (" 10. ", 10.0), ("<score>2</score> and again <score>2</score>", 2.0),
])
def test_scores_are_read_in_every_accepted_form(reply, score):
    assert parse_score(reply, 1, 10) == score


@pytest.mark.parametrize(("reply", "message"), [
    ("It is pretty good.", "no score found"), ("<score>11</score>", r"outside the scale \[1, 10\]"),
    ("<score>3</score> <score>9</score>", "2 different scores"), ("<score>high</score>", "not a number"),
    ('{"score": NaN}', "outside the scale"), ("", "no score found"), ("<score>nan</score>", "outside the scale"),
])
def test_anything_else_is_a_verdict_error_quoting_the_reply(reply, message):
    with pytest.raises(JudgeVerdictError, match=message):
        parse_score(reply, 1, 10)


def test_criteria_from_json_tags_or_lines_and_missing_ones_are_errors():
    names = ["clarity", "accuracy"]
    assert parse_criteria('{"clarity": 7, "accuracy": 9}', names, 1, 10) == {"clarity": 7.0, "accuracy": 9.0}
    assert parse_criteria("<clarity>2</clarity><accuracy>3</accuracy>", names, 1, 10) == {"clarity": 2.0, "accuracy": 3.0}
    assert parse_criteria("- Clarity: 4\n- accuracy = 5", names, 1, 10) == {"clarity": 4.0, "accuracy": 5.0}
    with pytest.raises(JudgeVerdictError, match=r"no criterion \['accuracy'\]"):
        parse_criteria('{"clarity": 7}', names, 1, 10)
    with pytest.raises(JudgeVerdictError, match="outside the scale"):
        parse_criteria('{"clarity": 70, "accuracy": 1}', names, 1, 10)


def test_choices_and_rankings():
    options = ("A", "B", "tie")
    assert [parse_choice(r, options) for r in ("<winner>B</winner>", '{"winner": "tie"}', "[[A]]", "Winner: b")] == \
        ["B", "tie", "A", "B"]
    for bad, message in (("<winner>C</winner>", "no winner"), ("A is better", "no winner"),
                         ("<winner>A</winner><winner>B</winner>", "2 different winners")):
        with pytest.raises(JudgeVerdictError, match=message):
            parse_choice(bad, options)
    labels = ["A", "B", "C"]
    assert parse_ranking("<ranking>C > A > B</ranking>", labels) == ["C", "A", "B"]
    assert parse_ranking('{"ranking": ["B", "C", "A"]}', labels) == ["B", "C", "A"]
    assert parse_ranking("Ranking: A, C, B", labels) == ["A", "C", "B"]
    for bad in ("<ranking>A > B</ranking>", "<ranking>A > A > B</ranking>", "A then B then C"):
        with pytest.raises(JudgeVerdictError):
            parse_ranking(bad, labels)
