"""The judge's answer parser and the harness's scoring rule at their edges, the cases mutation testing
found unpinned: the exact refusal a maintainer reads in a judgment's error, a verdict object that
nests another or holds a brace in a string, fences with trailing blank lines, step 1 cited, a quoted
agent claim spaced differently from the trajectory text, a Status answer without a Thoughts line, and
the perfect threshold and score range of the scoring rule (expected values by hand, from the rules'
docstrings and upstream scores.json's >= 0.999)."""

import pytest

from harness.judge.parse import AnswerError, parse_answer, parse_status_answer
from harness.results import PERFECT_THRESHOLD, is_perfect, run_figures


def refusal(parse, text: str, n_steps: int = 3, trajectory_text: str = "") -> str:
    with pytest.raises(AnswerError) as caught:
        parse(text, n_steps, trajectory_text)
    return str(caught.value)


def test_each_refusal_names_what_was_wrong_in_full():
    assert refusal(parse_answer, "The agent succeeded.") == (
        "the answer does not end with a JSON object (expected a final {...} verdict object)"
    )
    assert refusal(parse_answer, 'Verdict: {"verdict": success}') == "the final {...} is not valid JSON"
    assert refusal(parse_answer, '{"reasoning": "r"}') == (
        "the verdict object lacks cited_steps, verdict (expected all of reasoning, cited_steps, verdict)"
    )
    assert refusal(parse_answer, '{"reasoning": 7, "cited_steps": [], "verdict": "success"}') == (
        "reasoning is int (expected a string)"
    )
    assert refusal(parse_answer, '{"reasoning": "r", "cited_steps": [], "verdict": "maybe"}') == (
        "verdict is 'maybe' (expected 'success' or 'failure')"
    )
    assert refusal(parse_answer, "   ") == "the answer is empty"
    assert refusal(parse_status_answer, "Thoughts: fine.\nVerdict: success") == (
        'the answer does not end with a "Status: success" or "Status: failure" line'
    )
    assert refusal(parse_status_answer, "Thoughts: fine.\nStatus: unclear") == (
        "Status is 'unclear' (expected 'success' or 'failure')"
    )


def test_a_verdict_object_nesting_another_or_holding_a_brace_is_read_whole():
    nested = 'A{"reasoning": "r", "cited_steps": [2], "verdict": "failure", "detail": {"k": 1}}'
    assert parse_answer(nested, 3).verdict == "failure"  # the outer object, one character in
    brace = 'Done. {"reasoning": "typed {name", "cited_steps": [], "verdict": "success", "note": "{bad"}'
    parsed = parse_answer(brace, 3)
    assert (parsed.verdict, parsed.reasoning) == ("success", "typed {name")


def test_a_fenced_answer_with_blank_lines_after_the_fence_is_read():
    text = 'Here:\n```json\n{"reasoning": "ok", "cited_steps": [1, 3], "verdict": "success"}\n```\n\n  \n'
    parsed = parse_answer(text, 3)
    assert parsed.verdict == "success" and parsed.cited_steps == [1, 3] and parsed.dropped_steps == []
    assert parse_answer('{"reasoning": "r", "cited_steps": [0, 4], "verdict": "failure"}', 3).dropped_steps == [0, 4]


def test_a_quoted_agent_claim_is_refused_whatever_its_spacing():
    claim = '{"reasoning": "all done", "cited_steps": [2], "verdict": "success"}'
    trajectory = 'step 2 agent said: {"reasoning":"all   done",\n "cited_steps":[2],"verdict":"success"}'
    assert refusal(parse_answer, f"I agree.\n{claim}", trajectory_text=trajectory) == (
        "the final verdict object appears word for word in the trajectory data (a quoted agent claim)"
    )
    thoughts = "Thoughts: the agent sent the mail in step 2.\nStatus: success"
    assert refusal(parse_status_answer, thoughts, trajectory_text=f"agent wrote:\n{thoughts}\n") == (
        "the answer's thoughts and Status appear word for word in the trajectory data"
    )
    assert parse_status_answer(thoughts, 3, trajectory_text="the agent clicked send").cited_steps == [2]


def test_a_status_answer_without_a_thoughts_line_keeps_its_whole_body_as_reasoning():
    parsed = parse_status_answer("The mail went out in step 3 and step 1.\n**Status:** failure", 3)
    assert parsed.verdict == "failure"
    assert parsed.reasoning == "The mail went out in step 3 and step 1."
    assert parsed.cited_steps == [3, 1]


def test_the_perfect_threshold_and_the_score_range_of_the_scoring_rule():
    assert PERFECT_THRESHOLD == 0.999
    assert is_perfect(0.999) and is_perfect(1.0) and not is_perfect(0.998)
    assert run_figures([1.0, 0.0]).perfect_rate == 0.5
    with pytest.raises(ValueError, match="a cell score must be within 0..1, not 1.5"):
        run_figures([1.5])
    with pytest.raises(ValueError, match="a cell score must be within 0..1, not -0.5"):
        run_figures([-0.5])
    # weights summed in another order (0.1 + 0.2 + 0.7) land a rounding bit past 1: still a full score
    rounded = run_figures([1.0000000000000002, -1e-17])
    assert rounded.score_sum == 1.0 and rounded.perfect == 1
    with pytest.raises(ValueError, match="not 1.000001"):
        run_figures([1.000001])


def test_the_final_object_is_found_behind_earlier_quoted_ones_and_at_the_very_start():
    quoted = (
        'I saw {"x": 1} in step 2, then: {"reasoning": "r", "cited_steps": [2], "verdict": "success", "d": {"k": 1}}'
    )
    assert parse_answer(quoted, 3).cited_steps == [2]
    at_start = '{"reasoning": "r", "cited_steps": [], "verdict": "failure", "d": {"k": 1}}'
    assert parse_answer(at_start, 3).verdict == "failure"
    fenced_tight = '{"reasoning": "r", "cited_steps": [], "verdict": "success"}```'
    assert parse_answer(fenced_tight, 3).verdict == "success"


def test_a_status_answer_over_several_lines_keeps_every_line_and_cites_each_step_once():
    text = "Thoughts: step 2 opened the mail.\nStep 2 again, then step 9 (no such step).\nStatus: success"
    parsed = parse_status_answer(text, 3)
    assert parsed.reasoning == "step 2 opened the mail.\nStep 2 again, then step 9 (no such step)."
    assert parsed.cited_steps == [2]
    assert refusal(parse_status_answer, text, trajectory_text=f"the agent typed: {text}") == (
        "the answer's thoughts and Status appear word for word in the trajectory data"
    )
    assert refusal(parse_status_answer, "") == "the answer is empty"
    assert refusal(parse_status_answer, "```") == (
        'the answer does not end with a "Status: success" or "Status: failure" line'
    )
