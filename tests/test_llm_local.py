"""End to end against a real model, SmolLM2-135M-Instruct: the local backend in process (llama.cpp) and
the openai backend talking to `python -m llama_cpp.server` (ask and batch). Slow: integration.

A 135M model writes poor answers; these tests check what the product guarantees whatever the model
writes: the answer streams, fits the context window, names its backend, and cites only given sources.
"""

from __future__ import annotations

import json

import pytest

from assistant.events import Citations, Done, Error, Sources, TextDelta
from tests.llama_server import llama_server, missing  # noqa: F401  (session fixture)

pytestmark = pytest.mark.integration

QUESTION = "What speedup does WinQ give to quantization-aware training?"


@pytest.fixture
def local_settings(settings):
    why = missing()
    if why:
        pytest.skip(why)
    return settings.model_copy(update={"context_window": 2048, "max_tokens": 48, "top_k": 2})


def test_local_backend_in_process_answers_with_checked_citations(bundled_store, local_settings):
    from assistant.answering import answer
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    llm = make_llm(local_settings, "local")
    assert llm.name == "local" and llm.model.endswith(".gguf")
    events = list(answer(QUESTION, retriever=Retriever(bundled_store), llm=llm, settings=local_settings))
    assert isinstance(events[0], Sources) and events[0].sources[0].paper.title == "WinQ"
    assert any(isinstance(e, TextDelta) for e in events)
    done = events[-1]
    assert isinstance(done, Done), events[-1]
    assert done.backend == "local" and done.answer
    given = {s.n for s in events[0].sources}
    cites = next(e for e in events if isinstance(e, Citations))
    assert {c.n for c in cites.citations} <= given
    assert done.usage["prompt_tokens"] + local_settings.max_tokens <= local_settings.context_window


def test_local_backend_counts_special_token_text_as_plain_text(local_settings):
    from assistant.llm import make_llm

    llm = make_llm(local_settings, "local")
    for token in ("<|im_end|>", "<|endoftext|>", "<|im_start|>"):
        assert llm.count_tokens(f"What is NorMuon {token}?") >= llm.count_tokens("What is NorMuon ?") + 3  # not 1 special token


def test_local_backend_packs_a_tight_window_instead_of_overflowing(bundled_store, local_settings):
    from assistant.answering import answer
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever

    tight = local_settings.model_copy(update={"context_window": 512, "top_k": 5})
    llm = make_llm(tight, "local")
    events = list(answer(QUESTION, retriever=Retriever(bundled_store), llm=llm, settings=tight))
    assert isinstance(events[-1], Done), events[-1]
    assert 1 <= len(events[0].sources) < 5 and "left out" in events[0].note
    assert events[-1].usage["prompt_tokens"] + tight.max_tokens <= 512


def test_ask_through_the_llama_cpp_server(llama_server, bundled_store, monkeypatch):  # noqa: F811
    from typer.testing import CliRunner

    from assistant.cli import app

    for key, value in {"OPENAI_BASE_URL": llama_server.url, "ASSISTANT_MODEL": llama_server.model,
                       "ASSISTANT_CONTEXT_WINDOW": str(llama_server.context_window),
                       "ASSISTANT_MAX_TOKENS": "48"}.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(app, ["ask", "--json", "-k", "2", QUESTION])
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    assert obj["backend"] == "openai" and obj["model"] == llama_server.model
    assert obj["answer"] and obj["sources"][0]["title"] == "WinQ"
    assert {c["n"] for c in obj["citations"]} <= {s["n"] for s in obj["sources"]}

    # a context window set larger than the server's: the server's refusal is one clear line
    monkeypatch.setenv("ASSISTANT_CONTEXT_WINDOW", "16384")
    monkeypatch.setenv("ASSISTANT_MIN_RELEVANCE_LLM", "0")  # all 12 papers go to the model, overflowing it
    result = CliRunner().invoke(app, ["ask", "--json", "-k", "12", QUESTION])
    assert result.exit_code == 1
    obj = json.loads(result.stdout)
    assert obj["error_kind"] == "context_length", obj


def test_batch_through_the_llama_cpp_server(llama_server, bundled_store, tmp_path, monkeypatch):  # noqa: F811
    from typer.testing import CliRunner

    from assistant.cli import app

    for key, value in {"OPENAI_BASE_URL": llama_server.url, "ASSISTANT_MODEL": llama_server.model,
                       "ASSISTANT_CONTEXT_WINDOW": str(llama_server.context_window),
                       "ASSISTANT_MAX_TOKENS": "32"}.items():
        monkeypatch.setenv(key, value)
    questions = tmp_path / "q.txt"
    questions.write_text(f"{QUESTION}\nWhich paper proposes a new image segmentation architecture for medical scans?\n")
    out = tmp_path / "a.jsonl"
    result = CliRunner().invoke(app, ["batch", str(questions), "-o", str(out), "-k", "1", "-c", "2"])
    assert result.exit_code == 0, result.output
    records = {r["question_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert set(records) == {"1", "2"}
    assert records["1"]["backend"] == "openai" and records["1"]["answer"] and "error" not in records["1"]
    assert records["2"]["refused"] and records["2"]["sources"] == []
