"""One error base class: every error a user reads is an `AssistantError` whose `kind` is the ``error_kind``
of ``--json``; the command line turns any of them into one ``error:`` line and exit code 1."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from assistant.enums import BackendName, ErrorKind, TurnStatus
from assistant.errors import AssistantError


def _error_classes():
    from assistant.answering import ContextError
    from assistant.batch import BatchError
    from assistant.chats import ChatStoreError
    from assistant.cli.common import EmptyCollectionError, UserError
    from assistant.evaluation import QuestionFileError
    from assistant.events import AnswerError
    from assistant.llm import LLMError
    from assistant.settings import SettingsError
    from assistant.store.chroma import StoreError
    from assistant.store.embeddings import EmbeddingError
    from assistant.prompts import PromptError
    from assistant.store.readers import InputError
    from assistant.retrieval import QueryError

    return [(QueryError, "usage"), (PromptError, "config"), (UserError, "usage"), (EmptyCollectionError, "empty"), (ContextError, "context_length"),
            (QuestionFileError, "input"), (LLMError, "error"), (SettingsError, "settings"), (BatchError, "input"),
            (ChatStoreError, "store"), (AnswerError, "error"), (StoreError, "store"), (EmbeddingError, "embedding"),
            (InputError, "input")]


def test_every_product_error_is_an_assistant_error_with_its_kind():
    for cls, kind in _error_classes():
        assert issubclass(cls, AssistantError), cls
        assert cls.kind == kind, cls
        assert kind in set(ErrorKind)  # every kind is in the one vocabulary


def test_a_kind_given_to_one_error_wins_over_its_class():
    from assistant.llm import LLMError
    from assistant.store.readers import InputError

    assert LLMError("the server went away", kind="connection").kind == ErrorKind.CONNECTION
    err = InputError("papers.csv", "not UTF-8", line=3)
    assert str(err) == "papers.csv:3: not UTF-8" and err.kind == "input"


def test_enum_members_are_their_strings_in_json_and_settings(settings):
    assert json.dumps({"backend": BackendName.OPENAI, "kind": ErrorKind.RATE_LIMIT, "status": TurnStatus.PARTIAL}) == \
        '{"backend": "openai", "kind": "rate_limit", "status": "partial"}'
    s = settings.model_copy(update={"llm": BackendName.EXTRACTIVE})
    assert s.model_dump(mode="json")["llm"] == "extractive" and s.llm == "extractive"


def test_an_unusable_conversations_database_is_one_error_line(settings):
    from assistant.cli import app

    settings.paths.conversations_db.mkdir(parents=True)  # a folder where the SQLite file should be
    result = CliRunner().invoke(app, ["chat", "--open", "last"])  # fails before the app would start
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: cannot open the conversations database ")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("command", [["eval", "qa.jsonl"], ["chat"], ["ask", "What is NorMuon?"]])
def test_every_command_names_the_backends_alike_for_an_unknown_llm(command, tmp_path, monkeypatch):
    from assistant.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "qa.jsonl").write_text(json.dumps({"id": "q1", "type": "single", "q": "What is NorMuon?"}) + "\n")
    result = CliRunner().invoke(app, [*command, "--llm", "GPT"])
    assert result.exit_code == 2  # a usage error, as Click's own
    assert result.stderr == "error: --llm: unknown LLM backend 'gpt': choose openai, local, extractive or auto\n"


def test_eval_on_an_empty_collection_says_so_like_ask(tmp_path, monkeypatch):
    from assistant.cli import app

    monkeypatch.setenv("ASSISTANT_COLLECTION", "empty_one")
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "q1", "type": "single", "q": "What is NorMuon?"}) + "\n")
    for command in (["eval", str(qa), "--retrieval-only"], ["ask", "What is NorMuon?", "--llm", "extractive"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 1, result.output
        assert result.stderr.startswith("error: the collection 'empty_one' is empty: add abstracts with "), command


def test_an_empty_llm_option_is_an_error_not_the_default(tmp_path):
    from typer.testing import CliRunner

    from assistant.cli import app

    res = CliRunner().invoke(app, ["--data-dir", str(tmp_path), "ask", "What is WinQ?", "--llm", ""])
    assert res.exit_code == 2 and "unknown LLM backend ''" in res.output


def test_a_global_option_after_the_command_says_where_it_goes(capsys):
    """`assistant ask "..." --chroma-url URL` said "No such option" and pointed at `ask --help`, which
    does not list it: the option exists, before the command."""
    from assistant.cli import main

    with pytest.raises(SystemExit) as code:
        main(["ask", "What is STAR-KV?", "--chroma-url", "http://localhost:8000"])
    err = capsys.readouterr().err
    assert code.value.code == 2 and err.count("\n") == 1
    assert "--chroma-url is an option of `assistant` itself: put it before the command" in err
    assert "ASSISTANT_CHROMA_URL" in err
    with pytest.raises(SystemExit) as code:
        main(["search", "x", "--bogus"])
    assert code.value.code == 2 and "No such option: --bogus" in capsys.readouterr().err
