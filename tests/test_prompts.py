"""Prompt templates: every bundled prompt loads and renders; bad placeholders are errors."""

from __future__ import annotations

import pytest

from assistant import prompts
from assistant.prompts import CANNOT_ANSWER, PLACEHOLDERS, PromptError, check, load_prompts, says_cannot_answer


def test_every_bundled_prompt_loads_and_renders():
    loaded = load_prompts()
    assert set(loaded) == set(PLACEHOLDERS)
    for name, prompt in loaded.items():
        text = prompt.render(**{p: f"<{p}>" for p in PLACEHOLDERS[name]})
        for p in PLACEHOLDERS[name]:
            assert f"<{p}>" in text, (name, p)
        assert "{" not in text.replace("{n}", ""), name  # nothing left unfilled


def test_the_cannot_answer_phrase_is_shared_by_prompt_and_code():
    from assistant.answering import build_messages

    system, user = build_messages("What GPU?", ["[1] Paper\nabstract"])
    assert CANNOT_ANSWER in system["content"] and CANNOT_ANSWER in user["content"]
    assert says_cannot_answer(CANNOT_ANSWER)
    assert says_cannot_answer("Sorry. the abstracts DO NOT say")
    assert says_cannot_answer("The abstracts don’t say which GPU.")
    assert not says_cannot_answer("NorMuon combines orthogonalization with Adam [1].")


@pytest.mark.parametrize("text, expected, message", [
    ("Hello {question} {extra}", frozenset({"question"}), "unknown placeholder(s) {extra}"),
    ("Hello", frozenset({"question"}), "missing placeholder(s) {question}"),
    ("Hello {0}", frozenset(), "not a plain name"),
    ("Hello {question.attr}", frozenset({"question"}), "not a plain name"),
    ("Hello } {question}", frozenset({"question"}), "Single '}'"),
])
def test_bad_placeholders_are_errors(text, expected, message):
    with pytest.raises(PromptError, match=message.replace("{", r"\{").replace("}", r"\}").replace("(", r"\(")
                       .replace(")", r"\)").replace("'", "'")):
        check("answer", text, expected)


def test_rendering_without_a_value_is_an_error():
    with pytest.raises(PromptError, match="no value for"):
        prompts.get("answer").render(question="q")


def test_literal_braces_are_allowed_when_doubled():
    p = check("x", "JSON like {{\"a\": 1}} for {question}", frozenset({"question"}))
    assert p.render(question="Q") == 'JSON like {"a": 1} for Q\n'
