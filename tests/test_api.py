"""The public Python API: the README's example runs as printed, `PaperCollection` ingests, searches with
filters, asks, streams and chats, and `Answer` is the fold of the event stream that `ask --json` prints.

Unit tests use the fake embedder on a real Chroma folder and a scripted LLM; the README example and
the Chroma-server test use the real ONNX model (integration).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from assistant.events import Answer, AnswerError, Citations, Done, Error, Sources, TextDelta
from assistant.llm import LLMError
from tests.test_answering import PAPERS, ScriptedLLM

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def papers(fake_store, settings, tmp_path):
    """A `PaperCollection` over the three test papers (fake embedder, relevance gate off)."""
    from assistant import PaperCollection

    f = tmp_path / "papers.jsonl"
    f.write_text("\n".join(json.dumps(p) for p in PAPERS) + "\n")
    collection = PaperCollection(settings.model_copy(update={"min_relevance": 0.0, "min_relevance_llm": 0.0}), store=fake_store)
    report = collection.ingest(f)
    assert report.added == 3 and report.ok
    return collection


# --- the README example --------------------------------------------------------------------------

def readme_python_block(heading: str = "## From Python") -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(heading, 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.integration
def test_readme_python_example_runs_and_prints_cited_answers(real_store, tmp_path):
    code = readme_python_block()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ASSISTANT_DATA_DIR": str(tmp_path / "env-data")}
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "19 added, 19 papers" in out
    assert re.search(r"^1 STAR-KV ", out, re.M), out  # the KV cache paper ranks first
    assert "21.74" in out and "[1] NorMuon ICML 2026" in out
    assert "By how much? (STAR-KV) -> ['STAR-KV']" in out
    assert (tmp_path / "paper-data" / "chroma").is_dir()  # the folder named in the example holds the store


@pytest.mark.integration
@pytest.mark.server
def test_open_a_collection_on_a_chroma_server(chroma_server, tmp_path):
    from assistant import PaperCollection, bundled_collection

    papers = PaperCollection.open(tmp_path / "local", chroma_url=chroma_server, name="api-test")
    assert papers.ingest(bundled_collection(), venue="ICML", year=2026).added == 19
    again = PaperCollection.open(tmp_path / "elsewhere", chroma_url=chroma_server, name="api-test")
    assert len(again) == 19 and again.ingest(bundled_collection(), venue="ICML", year=2026).unchanged == 19
    assert again.search("NorMuon optimizer", top_k=1)[0].paper.title == "NorMuon"
    assert not (tmp_path / "local" / "chroma").exists()  # nothing went to an embedded store


# --- PaperCollection -----------------------------------------------------------------------------

def test_open_takes_a_data_folder_and_setting_overrides(tmp_path):
    from assistant import PaperCollection

    papers = PaperCollection.open(tmp_path / "mine", name="notes", top_k=3)
    assert papers.settings.paths.chroma_dir == tmp_path / "mine" / "chroma"
    assert papers.name == "notes" and papers.settings.top_k == 3
    assert not (tmp_path / "mine").exists()  # opening touches nothing


def test_open_rejects_an_invalid_setting_in_one_line(tmp_path):
    from assistant import PaperCollection, SettingsError

    with pytest.raises(SettingsError, match=r"^setting 'top_k' \(keyword top_k=\): .*; got '0'; give a valid value, "
                                            r"e\.g\. the default 8$"):
        PaperCollection.open(tmp_path, top_k=0)
    # the keyword as the caller typed it (not the CLI's option), and an enum's default as its value
    with pytest.raises(SettingsError, match=r"^setting 'collection' \(keyword name=\): "):
        PaperCollection.open(tmp_path, name="my papers")
    with pytest.raises(SettingsError, match=r"\(keyword llm=\): .*; got 'gpt'; .* e\.g\. the default 'auto'$"):
        PaperCollection.open(tmp_path, llm="gpt")


def test_open_names_a_misspelled_setting(tmp_path):
    from assistant import PaperCollection, SettingsError

    with pytest.raises(SettingsError, match="'topk' is not a setting; did you mean top_k"):
        PaperCollection.open(tmp_path, topk=2)  # was ignored: search still returned 8


def test_search_refuses_a_top_k_below_one_and_a_bad_year_as_usage_errors(papers):
    from assistant import AssistantError

    for k in (-1, 0):  # -1 returned all papers but the last (a slice from the end), 0 the default 8
        with pytest.raises(AssistantError, match="top_k must be .* at least 1") as err:
            papers.search("KV cache", top_k=k)
        assert err.value.kind == "usage"
        with pytest.raises(ValueError, match="at least 1"):
            papers.as_retriever(top_k=k).retrieve("KV cache")
    with pytest.raises(AssistantError, match="not a year") as err:
        papers.search("x", year="abc")
    assert err.value.kind == "usage" and isinstance(err.value, ValueError)


def test_ask_refuses_an_empty_or_pasted_megabyte_question_as_a_usage_error(papers):
    from assistant import AssistantError

    for question in ("", "   \n"):  # was answered "No paper in the collection is about this question."
        with pytest.raises(AssistantError, match="the question is empty") as err:
            papers.ask(question, llm="extractive")
        assert err.value.kind == "usage" and isinstance(err.value, ValueError)
    with pytest.raises(ValueError, match="the question is 30,000 characters long; at most 20,000"):
        papers.stream("x" * 30_000, llm="extractive")
    with pytest.raises(ValueError, match="the query is 30,000 characters long"):
        papers.search("x" * 30_000)


def test_remove_takes_papers_out_of_search_and_the_count(papers):
    top = papers.search("compress the KV cache", top_k=1)[0].paper
    assert papers.remove([top.id, "p0000000000000000"]) == 1  # an unknown id is ignored
    assert len(papers) == 2 and papers.get(top.id) is None
    assert top.id not in {r.paper.id for r in papers.search("compress the KV cache")}  # BM25 too
    assert papers.remove(top.id) == 0


def test_search_filters_by_venue_year_and_author(papers):
    assert [r.paper.title for r in papers.search("language models", venue="NeurIPS")] == [PAPERS[2]["title"]]
    assert {r.paper.venue for r in papers.search("language models", year="2025-2026")} == {"ICML"}
    assert [r.paper.year for r in papers.search("optimizer", year=2025)] == [2025]
    assert papers.search("KV cache", author="nobody") == []
    top = papers.search("compress the KV cache", top_k=1)[0]
    assert top.rank == 1 and top.paper.title == PAPERS[0]["title"] and papers.get(top.paper.id) == top.paper
    with pytest.raises(ValueError, match="not a year"):
        papers.search("x", year="last year")


def test_stats_counts_the_papers_by_venue_and_year_with_filters(papers):
    stats = papers.stats()
    assert stats["total"] == 3
    assert [(v["venue"], v["count"]) for v in stats["venues"]] == [("ICML", 2), ("NeurIPS", 1)]
    assert stats["years"] == [{"year": 2024, "count": 1}, {"year": 2025, "count": 1}, {"year": 2026, "count": 1}]
    assert papers.stats(venue="ICML", year="2026")["venues"] == [
        {"venue": "ICML", "count": 1, "years": [{"year": 2026, "count": 1}]}]


def test_ask_returns_the_answer_with_checked_citations(papers):
    llm = ScriptedLLM(["KVPress cuts memory [1]", " and beats all [9]."])
    answer = papers.ask("What does KVPress do?", llm=llm, top_k=2)
    assert answer.ok and answer.status == "complete"
    assert answer.text == "KVPress cuts memory [1] and beats all."
    assert [c.paper.title for c in answer.citations] == [PAPERS[0]["title"]]
    assert answer.citations[0].sentences == ("KVPress cuts memory [1] and beats all.",)
    assert answer.dropped_citations == (9,) and len(answer.sources) == 2
    assert answer.backend == "scripted" and answer.model == "scripted-1" and answer.usage["total_tokens"] == 15
    assert answer.standalone_question == "What does KVPress do?" and answer.seconds >= 0
    assert answer.to_json()["citations"] == [{"n": 1, "id": answer.sources[0].paper.id, "title": PAPERS[0]["title"]}]


def test_ask_with_filters_gives_the_model_only_matching_papers(papers):
    llm = ScriptedLLM(["BeamLess [1]."])
    answer = papers.ask("Which decoding method replaces beam search?", llm=llm, venue="NeurIPS")
    assert [s.paper.title for s in answer.sources] == [PAPERS[2]["title"]]
    none = papers.ask("Which decoding method replaces beam search?", llm=ScriptedLLM(), year=1999)
    assert none.refused and none.sources == () and "no paper matches the filters" in none.note


def test_a_failed_answer_keeps_the_partial_text_and_can_raise(papers):
    llm = ScriptedLLM(["KVPress [1] compresses"], fail=LLMError("the server went away", kind="connection"))
    answer = papers.ask("What does KVPress do?", llm=llm)
    assert not answer.ok and answer.status == "partial"
    assert answer.error == "the server went away" and answer.error_kind == "connection"
    assert answer.text == "KVPress [1] compresses"
    with pytest.raises(AnswerError) as info:
        answer.raise_for_error()
    assert info.value.kind == "connection" and info.value.partial == "KVPress [1] compresses"


def test_llm_argument_is_checked(papers):
    with pytest.raises(TypeError, match="backend name"):
        papers.ask("What does KVPress do?", llm=42)
    with pytest.raises(LLMError, match="unknown LLM backend"):
        papers.ask("What does KVPress do?", llm="gpt-17")


def test_stream_yields_the_events_and_stops_on_cancel(papers):
    events = list(papers.stream("What does KVPress do?", llm=ScriptedLLM(["KVPress [1]."])))
    assert [type(e) for e in events] == [Sources, TextDelta, Citations, Done]
    cancel = threading.Event()
    llm = ScriptedLLM(["one ", "two ", "three"], on_chunk=lambda i: cancel.set() if i == 1 else None)
    answer = Answer.from_events(papers.stream("What does KVPress do?", llm=llm, cancel=cancel))
    assert answer.status == "stopped" and answer.error_kind == "cancelled" and answer.text == "one"


def test_chat_rewrites_follow_ups_and_keeps_the_turns(papers):
    llm = ScriptedLLM(["It compresses the KV cache [1]."], rewrite="How much memory does KVPress save?")
    chat = papers.chat(llm=llm)
    first = chat.ask("What does KVPress do?")
    follow = chat.ask("How much does it save?")
    assert first.standalone_question == "What does KVPress do?"
    assert follow.standalone_question == "How much memory does KVPress save?"
    assert "What does KVPress do?" in llm.completions[0][0]["content"]  # the history went into the rewrite
    assert [t.question for t in chat.turns] == ["What does KVPress do?", "How much does it save?"]
    assert chat.turns[1].citations[0].paper.title == PAPERS[0]["title"]


# --- Answer: the one fold of the event stream --------------------------------------------------------

def test_answer_status_for_each_ending(papers):
    from assistant.events import Source

    src = papers.search("KV cache", top_k=1)[0]
    sources = Sources((Source(1, src.paper, src.score),), "q", "")
    assert Answer.from_events([sources, TextDelta("a"), Citations(()), Done("a", "b", "m")]).status == "complete"
    assert Answer.from_events([sources, TextDelta("a"), Error("x", "server", "a")]).status == "partial"
    assert Answer.from_events([Error("x", "config")]).status == "error"
    assert Answer.from_events([sources, Error("Answer stopped.", "cancelled")]).status == "stopped"
    cut = Answer.from_events([sources, TextDelta("half")])  # the consumer stopped reading
    assert cut.status == "stopped" and cut.text == "half" and cut.seconds is None


def test_answer_to_json_is_the_answer_fold(papers):
    from assistant.answering import answer_to_json

    llm = ScriptedLLM(["KVPress [1] and [9]."])
    events = list(papers.stream("What does KVPress do?", llm=llm))
    obj = answer_to_json("What does KVPress do?", iter(events))
    assert obj == Answer.from_events(events, "What does KVPress do?").to_json()
    assert list(obj) == ["question", "standalone_question", "answer", "sources", "citations", "dropped_citations",
                         "backend", "model", "usage", "seconds", "refused", "relevance"]
    failed = answer_to_json("q", iter([Error("down", "connection")]), backend="openai", model="m")
    assert failed["error"] == "down" and failed["error_kind"] == "connection" and failed["backend"] == "openai"
