"""The ``assistant chat`` command: thin over `make_app`; Textual only imported when it runs."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from assistant.chats import ChatStore
from assistant.conversation import Turn


def test_help_does_not_import_textual():
    code = ("import sys; from typer.testing import CliRunner; from assistant.cli import app; "
            "r = CliRunner().invoke(app, ['chat', '--help']); assert r.exit_code == 0, r.output; "
            "assert 'Chat with the collection' in r.output; print('textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_open_unknown_conversation_is_one_line_error():
    from assistant.cli import app

    result = CliRunner().invoke(app, ["chat", "--open", "nope"])
    assert result.exit_code == 1
    assert "no saved conversation with id 'nope'" in result.output
    result = CliRunner().invoke(app, ["chat", "--open", "last"])
    assert result.exit_code == 1 and "no saved conversation yet" in result.output
    result = CliRunner().invoke(app, ["chat", "--llm", "gpt"])
    assert result.exit_code == 2 and "unknown LLM backend 'gpt'" in result.output
    result = CliRunner().invoke(app, ["chat", "--year", "soon"])
    assert result.exit_code == 2 and "--year" in result.output


def test_open_resolves_prefix_and_last(settings, monkeypatch):
    """--open hands the full id to make_app (the app itself is not run here)."""
    import assistant.tui.app as tui_app
    from assistant.cli import app

    chats = ChatStore(settings.paths.conversations_db)
    first = chats.create("first")
    chats.save_turn(first, 0, Turn(question="first"))
    seen = {}

    class FakeApp:
        def run(self):
            pass

    def fake_make_app(settings, **kw):
        seen.update(kw)
        return FakeApp()

    monkeypatch.setattr(tui_app, "make_app", fake_make_app)
    monkeypatch.setattr("assistant.cli.chat._has_terminal", lambda: True)  # CliRunner's streams are not one
    args = ["chat", "--open", first[:6], "--llm", "extractive", "--venue", "ICML"]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert seen["chat_id"] == first and seen["backend"] == "extractive" and seen["filters"].venue == "ICML"
    assert CliRunner().invoke(app, ["chat", "--open", "last"]).exit_code == 0
    assert seen["chat_id"] == first


def test_unknown_backend_is_the_same_message_in_chat_and_ask():
    runs = [subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True)
            for args in (["chat", "--llm", "bogus"], ["ask", "--llm", "bogus", "What is NorMuon?"])]
    assert [r.returncode for r in runs] == [2, 2]
    assert runs[0].stderr.strip() == runs[1].stderr.strip()
    assert runs[0].stderr.strip().startswith("error: --llm: unknown LLM backend 'bogus'")


@pytest.mark.integration
def test_similar_lists_the_nearest_papers(settings, bundled_store):
    import json

    from assistant.cli import app
    from assistant.similar import similar_papers

    normuon = next(p for p in bundled_store.papers() if p.display_name == "NorMuon")
    expected = [p.id for p, _ in similar_papers(bundled_store, normuon.id, 3)]
    result = CliRunner().invoke(app, ["similar", normuon.id[:8], "-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["id"] == normuon.id and [r["id"] for r in data["results"]] == expected
    assert normuon.id not in expected and len(expected) == 3
    sims = [r["similarity"] for r in data["results"]]
    assert sims == sorted(sims, reverse=True) and 0 < sims[-1] <= sims[0] < 1
    result = CliRunner().invoke(app, ["similar", normuon.id, "-k", "3"])
    assert result.exit_code == 0 and result.stdout.startswith("Papers like NorMuon")
    assert CliRunner().invoke(app, ["similar", "no-such-id"]).exit_code == 1


def test_chat_without_a_terminal_is_one_error_line_not_a_hang():
    """`assistant chat < questions.txt` (or in a pipe) would wait for a terminal forever; it says why and
    what to use instead."""
    from assistant.cli import app

    result = CliRunner().invoke(app, ["chat"], input="What is NorMuon?\n")  # stdin and stdout are not a terminal
    assert result.exit_code == 1
    assert result.stderr.startswith("error: assistant chat needs a terminal") and "assistant batch" in result.stderr
    assert len(result.stderr.splitlines()) == 1
