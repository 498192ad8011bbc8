"""The openai backend through the real `openai` SDK against a real HTTP server (tests/openai_stub.py)
scripted to fail in each way an OpenAI-compatible service can."""

from __future__ import annotations

import json
import time

import pytest

from assistant.events import Done, Error
from tests.conftest import free_port
from tests.openai_stub import Behaviour, OpenAIStub

PAPERS = [
    {"title": "KVPress: compressing the KV cache", "abstract": "KVPress compresses the KV cache of large "
     "language models by low-rank projection, reducing memory by 4x.", "venue": "ICML", "year": 2026},
    {"title": "AdamZ optimizer", "abstract": "AdamZ is an optimizer that trains language models 30% faster.",
     "venue": "ICML", "year": 2026},
]


@pytest.fixture
def stub():
    with OpenAIStub() as s:
        yield s


def make(settings, stub_or_url, **update):
    from assistant.llm import make_llm

    url = stub_or_url.url if isinstance(stub_or_url, OpenAIStub) else stub_or_url
    s = settings.model_copy(update={"openai_base_url": url, "openai_api_key": "sk-test", "model": "stub-model",
                                    "timeout": 5.0, "max_retries": 1, **update})
    return make_llm(s), s


@pytest.fixture
def store(fake_store, tmp_path):
    from assistant.store.ingest import ingest

    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n")
    ingest([f], fake_store)
    return fake_store


def ask(store, llm, settings, question="What does KVPress do?", **kw):
    from assistant.answering import answer
    from assistant.retrieval import Retriever

    settings = settings.model_copy(update={"min_relevance": 0.0, "min_relevance_llm": 0.0})
    events = answer(question, retriever=Retriever(store), llm=llm, settings=settings, **kw)
    conversation = kw.get("conversation")  # answer() reads it; the caller records the turn
    return list(events if conversation is None else conversation.record(events, question))


def one_line_error(events, kind: str) -> Error:
    err = events[-1]
    assert isinstance(err, Error), events
    assert err.kind == kind, err
    assert "\n" not in err.message and "Traceback" not in err.message
    return err


def test_streams_the_answer_with_usage_and_checks_citations(stub, settings, store):
    stub.reply = "KVPress cuts KV cache memory by 4x [1], see also [5]."
    llm, s = make(settings, stub)
    events = ask(store, llm, s)
    done = events[-1]
    assert isinstance(done, Done), events
    assert done.answer == "KVPress cuts KV cache memory by 4x [1], see also."
    assert done.backend == "openai" and done.model == "stub-model"
    assert done.usage["total_tokens"] > 0
    req = stub.chat_requests[-1]
    assert req["stream"] is True and req["stream_options"] == {"include_usage": True}
    assert req["model"] == "stub-model" and req["max_tokens"] == s.max_tokens
    assert "[1] KVPress" in req["messages"][1]["content"]  # the numbered sources reached the model


@pytest.mark.parametrize("where", ["question", "abstract", "history"])
def test_special_token_text_is_answered_not_a_crash(stub, settings, store, where, tmp_path):
    from assistant.conversation import Conversation, Turn
    from assistant.store.ingest import ingest

    token = "<|endoftext|>"
    llm, s = make(settings, stub)
    question, conversation = "What does KVPress do?", None
    if where == "question":
        question = f"What does KVPress do {token}?"
    elif where == "abstract":
        f = tmp_path / "more.jsonl"
        f.write_text(json.dumps({"title": "KVPress v2", "abstract": f"KVPress v2 compresses the KV cache {token} "
                                 f"further.", "venue": "ICML", "year": 2026}) + "\n")
        ingest([f], store)
    else:
        conversation = Conversation([Turn(question=f"What is KVPress? {token}", answer=f"A method {token} [1].")])
        question = "What does it do?"  # a follow-up that needs its history, so the history is sent
        stub.script(Behaviour("ok", text="What does KVPress do?"), "ok")
    stub.reply = "It compresses the KV cache [1]."
    events = ask(store, llm, s, question, conversation=conversation)
    assert isinstance(events[-1], Done), events[-1]
    assert events[-1].answer == "It compresses the KV cache [1]."
    sent = json.dumps(stub.chat_requests[-1 if where != "history" else 0]["messages"])
    assert token in sent  # the text reaches the model as written


def test_a_server_rejecting_stream_options_still_answers(stub, settings, store):
    stub.reject_stream_options = True
    stub.reply = "Answer without usage [1]."
    llm, s = make(settings, stub)
    events = ask(store, llm, s)
    assert isinstance(events[-1], Done) and events[-1].answer == "Answer without usage [1]."
    assert ["stream_options" in r for r in stub.chat_requests] == [True, False]
    ask(store, llm, s)  # remembered: no second rejected request
    assert ["stream_options" in r for r in stub.chat_requests] == [True, False, False]


def test_chunks_with_empty_choices_are_skipped(stub, settings, store):
    stub.empty_choices = True
    stub.reply = "Pieces arrive between empty chunks [2]."
    llm, s = make(settings, stub)
    events = ask(store, llm, s)
    assert isinstance(events[-1], Done) and events[-1].answer == "Pieces arrive between empty chunks [2]."


def test_401_is_one_clear_line(stub, settings, store):
    stub.default = Behaviour("401")
    llm, s = make(settings, stub)
    err = one_line_error(ask(store, llm, s), "auth")
    assert "401" in err.message and "OPENAI_API_KEY" in err.message
    assert len(stub.chat_requests) == 1  # not retried


def test_429_with_a_short_retry_after_waits_and_succeeds(stub, settings, store):
    stub.script(Behaviour("429", retry_after="1"))
    stub.reply = "After the wait [1]."
    llm, s = make(settings, stub)
    started = time.monotonic()
    events = ask(store, llm, s)
    elapsed = time.monotonic() - started
    assert isinstance(events[-1], Done) and events[-1].answer == "After the wait [1]."
    assert elapsed >= 0.9 and len(stub.chat_requests) == 2


def test_429_with_an_hour_long_retry_after_fails_at_once(stub, settings, store):
    stub.default = Behaviour("429", retry_after="3600")
    llm, s = make(settings, stub, max_retries=5)
    started = time.monotonic()
    err = one_line_error(ask(store, llm, s), "rate_limit")
    assert time.monotonic() - started < 5
    assert "3600" in err.message and len(stub.chat_requests) == 1


def test_429_every_time_gives_up_after_the_retries(stub, settings, store):
    stub.default = Behaviour("429", retry_after="0")
    llm, s = make(settings, stub, max_retries=2)
    one_line_error(ask(store, llm, s), "rate_limit")
    assert len(stub.chat_requests) == 3


def test_connection_refused(settings, store):
    llm, s = make(settings, f"http://127.0.0.1:{free_port()}/v1", max_retries=1)
    started = time.monotonic()
    err = one_line_error(ask(store, llm, s), "connection")
    assert "cannot connect" in err.message and "127.0.0.1" in err.message
    assert time.monotonic() - started < 10


def test_a_server_that_never_answers_is_bounded_by_timeout_and_retries(stub, settings, store):
    stub.default = Behaviour("hang")
    llm, s = make(settings, stub, timeout=1.0, max_retries=1)
    started = time.monotonic()
    err = one_line_error(ask(store, llm, s), "timeout")
    elapsed = time.monotonic() - started
    assert 1.5 <= elapsed < 8, elapsed
    assert "within 1 s" in err.message and len(stub.chat_requests) == 2


def test_cancel_while_the_server_hangs_returns_promptly(stub, settings, store):
    import threading

    stub.script(Behaviour("ok"))
    stub.chunk_delay = 0.3
    stub.reply = "a slow answer that streams for a long while " * 5
    llm, s = make(settings, stub, timeout=30.0)
    cancel = threading.Event()
    threading.Timer(0.8, cancel.set).start()
    started = time.monotonic()
    events = ask(store, llm, s, cancel=cancel)
    assert time.monotonic() - started < 3
    err = one_line_error(events, "cancelled")
    assert err.partial and len(err.partial) < len(stub.reply)


def test_a_prompt_too_long_for_the_server(stub, settings, store):
    stub.default = Behaviour("context_length")
    llm, s = make(settings, stub)
    err = one_line_error(ask(store, llm, s), "context_length")
    assert "too long" in err.message and "ASSISTANT_CONTEXT_WINDOW" in err.message
    assert len(stub.chat_requests) == 1


def test_a_stream_broken_before_any_text_is_retried(stub, settings, store):
    stub.script(Behaviour("broken"))
    stub.reply = "Second time lucky [1]."
    llm, s = make(settings, stub, max_retries=1)
    events = ask(store, llm, s)
    assert isinstance(events[-1], Done) and events[-1].answer == "Second time lucky [1]."
    # the broken stream, one non-streamed check, the retried stream
    assert [r.get("stream", False) for r in stub.chat_requests] == [True, False, True]


def test_a_stream_cut_after_some_text_keeps_it_as_partial(stub, settings, store):
    stub.default = Behaviour("cut")
    stub.reply = "This answer is cut off in the middle [1]."
    llm, s = make(settings, stub)
    err = one_line_error(ask(store, llm, s), "server")
    assert "before the answer was finished" in err.message and "--interrupt_requests False" in err.message
    assert err.partial and stub.reply.startswith(err.partial)


def test_a_500_after_retries(stub, settings, store):
    stub.default = Behaviour("500")
    llm, s = make(settings, stub, max_retries=1)
    err = one_line_error(ask(store, llm, s), "server")
    assert "HTTP 500" in err.message and len(stub.chat_requests) == 2


def test_no_api_key_and_no_base_url_is_a_config_error(settings):
    from assistant.llm import LLMError, make_llm

    with pytest.raises(LLMError, match="OPENAI_API_KEY") as info:
        make_llm(settings, "openai")
    assert info.value.kind == "config"


def test_auto_picks_openai_when_a_base_url_is_set(settings, monkeypatch):
    from assistant.llm import make_llm
    from assistant.settings import load_settings

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    llm = make_llm(load_settings())
    assert llm.name == "openai" and llm.notice == ""
    monkeypatch.delenv("OPENAI_BASE_URL")
    fallback = make_llm(load_settings())
    assert fallback.name in ("local", "extractive") and "OPENAI_API_KEY" in fallback.notice
    assert "\n" not in fallback.notice


def test_follow_up_rewrite_goes_through_the_server(stub, settings, store):
    from assistant.conversation import Conversation

    def reply(body):
        content = body["messages"][-1]["content"]
        if "Standalone question:" in content:
            return "Standalone question: How much memory does KVPress save?"
        return "It saves 4x [1]."

    stub.reply = reply
    llm, s = make(settings, stub)
    conv = Conversation()
    ask(store, llm, s, question="What does KVPress do?", conversation=conv)
    events = ask(store, llm, s, question="and how much memory does it save?", conversation=conv)
    assert events[0].question == "How much memory does KVPress save?"
    assert [r.get("stream", False) for r in stub.chat_requests] == [True, False, True]
    assert conv.turns[-1].status == "complete" and conv.turns[-1].answer == "It saves 4x [1]."


# --- the commands, end to end through the stub (bundled collection, real ONNX model) ------------------

@pytest.mark.integration
def test_ask_json_through_the_openai_backend(stub, bundled_store, monkeypatch):
    from typer.testing import CliRunner

    from assistant.cli import app

    monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
    monkeypatch.setenv("ASSISTANT_MODEL", "stub-model")
    stub.reply = "STAR-KV reaches 75% KV cache compression [1] and more [12]."
    result = CliRunner().invoke(app, ["ask", "--json", "-k", "3", "How much KV cache compression does STAR-KV achieve?"])
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    assert obj["backend"] == "openai" and obj["model"] == "stub-model"
    # all three retrieved papers are judged; only those above the LLM gate are given to the model
    assert len(obj["relevance"]) == 3 and obj["sources"][0]["title"] == "STAR-KV"
    assert all(s["relevance"] >= 0.12 for s in obj["sources"]) and len(obj["sources"]) < 3
    assert obj["citations"] == [{"n": 1, "id": obj["sources"][0]["id"], "title": "STAR-KV"}]
    assert obj["dropped_citations"] == [12]
    assert obj["usage"]["total_tokens"] > 0 and obj["seconds"] >= 0

    stub.default = Behaviour("401")
    result = CliRunner().invoke(app, ["ask", "--llm", "openai", "What is WinQ?"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ") and "(backend openai, model stub-model)" in result.stderr and "401" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.integration
def test_ask_a_question_with_special_token_text_exits_0(stub, bundled_store, monkeypatch):
    from typer.testing import CliRunner

    from assistant.cli import app

    monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
    stub.reply = "NorMuon is an optimizer [1]."
    for args in (["--json"], []):
        result = CliRunner().invoke(app, ["ask", "--llm", "openai", *args, "What is NorMuon <|endoftext|>?"])
        assert result.exit_code == 0, result.output
        assert "NorMuon is an optimizer [1]." in result.stdout and "Traceback" not in result.output
    assert json.loads(CliRunner().invoke(app, ["ask", "--llm", "openai", "--json", "What is NorMuon <|endoftext|>?"])
                      .stdout)["question"] == "What is NorMuon <|endoftext|>?"


def test_ask_with_the_openai_backend_and_no_key_is_one_line():
    from typer.testing import CliRunner

    from assistant.cli import app

    result = CliRunner().invoke(app, ["ask", "--llm", "openai", "What is WinQ?"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the openai backend needs an API key")
    assert "OPENAI_BASE_URL" in lines[0] and "Traceback" not in result.output


@pytest.mark.integration
@pytest.mark.parametrize("seq", ["\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\x1b]52;c;ZXZpbA==\x07", "\rOVERWRITE",
                                 "\x9b2J", "\x08\x08\x08"])
def test_ask_never_writes_a_models_control_sequences_to_the_terminal(stub, bundled_store, monkeypatch, seq):
    from typer.testing import CliRunner

    from assistant.cli import app

    monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
    stub.reply = f"WinQ speeds up{seq} training [1]."
    result = CliRunner().invoke(app, ["ask", "--llm", "openai", "-k", "2", "What does WinQ speed up?"])
    assert result.exit_code == 0, result.output
    assert not any(c in result.stdout for c in ("\x1b", "\x07", "\x08", "\r", "\x9b")), repr(result.stdout)
    assert "WinQ speeds up" in result.stdout and "training [1]." in result.stdout
    obj = json.loads(CliRunner().invoke(app, ["ask", "--llm", "openai", "-k", "2", "--json",
                                              "What does WinQ speed up?"]).stdout)
    assert obj["answer"] == f"WinQ speeds up{seq} training [1]."  # --json keeps the text; JSON escapes it
