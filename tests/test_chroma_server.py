"""The same store through a real Chroma server (`chroma run`) started on a loopback port."""

import json

import pytest

from assistant.retrieval import Retriever
from assistant.settings import load_settings
from assistant.store.chroma import StoreError
from assistant.store.collection import PaperStore
from assistant.store.ingest import ensure_default_collection, ingest

from tests.conftest import ICML_FILE, free_port

pytestmark = [pytest.mark.integration, pytest.mark.server]


def test_ingest_and_search_through_a_chroma_server(chroma_server):
    settings = load_settings(chroma_url=chroma_server, collection="server_test")
    store = PaperStore(settings)
    report = ingest([ICML_FILE], store)
    assert report.added == 19
    assert PaperStore(settings).count() == 19  # a new client sees the same data
    again = ingest([ICML_FILE], PaperStore(settings))
    assert again.unchanged == 19 and again.embedded == 0
    results = Retriever(PaperStore(settings)).search("KV cache compression", top_k=3)
    assert results[0].paper.title == "STAR-KV"


def test_default_collection_is_loaded_on_a_server_too(chroma_server):
    settings = load_settings(chroma_url=chroma_server, collection="papers")
    store = PaperStore(settings)
    ensure_default_collection(store)
    assert store.count() == 19
    assert {p.venue_year for p in store.papers()} == {"ICML 2026"}


def test_a_server_that_is_down_is_one_clear_line():
    settings = load_settings(chroma_url=f"http://127.0.0.1:{free_port()}")
    with pytest.raises(StoreError) as err:
        PaperStore(settings).count()
    message = str(err.value)
    assert "not reachable" in message and "ASSISTANT_CHROMA_URL" in message and "\n" not in message


def test_a_batch_stops_when_the_server_stops_and_resume_finishes_it(tmp_path):
    """The server goes away mid-run: the batch stops after `STOP_AFTER` failures in a row instead of
    failing every remaining question, each error is one line with the hint to restart the server, and
    the answers written before stay for --resume."""
    import shutil
    import sys
    from pathlib import Path

    from assistant.batch import STOP_AFTER, BatchQuestion, run_batch
    from assistant.llm import make_llm
    from tests.conftest import serve

    chroma = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    if not Path(chroma).exists():
        pytest.skip("the chroma CLI is not installed")
    port = free_port()
    cmd = [chroma, "run", "--path", str(tmp_path / "db"), "--host", "127.0.0.1", "--port", str(port)]
    questions = [BatchQuestion(id=str(i), question=q) for i, q in enumerate(
        ["What is STAR-KV?", "What is NorMuon?", "What is WinQ?", "What is EDEN?", "What is RePro?",
         "What is OPUS?", "What is PowerFlow?"], start=1)]
    out = tmp_path / "answers.jsonl"
    with serve(cmd, port, tmp_path / "server.log", 60, "chroma run") as proc:
        settings = load_settings(chroma_url=f"http://127.0.0.1:{port}", collection="stop_test", llm="extractive")
        store = PaperStore(settings)
        ingest([ICML_FILE], store)
        retriever = Retriever(store, settings)
        llm = make_llm(settings)
        first = run_batch(questions[:2], out, retriever=retriever, llm=llm, settings=settings)
        assert first.answered == 2 and not first.stopped
        proc.terminate()
        proc.wait(10)
        second = run_batch(questions, out, retriever=retriever, llm=llm, settings=settings, resume=True)
    assert second.skipped == 2 and second.failed == STOP_AFTER and second.answered == 0
    assert "in a row failed (store)" in second.stopped and "chroma run" in second.stopped
    assert "\n" not in second.stopped
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["question_id"] for r in records if not r.get("error")] == ["1", "2"]
    assert [r["question_id"] for r in records if r.get("error")] == ["3", "4", "5"]  # 6 and 7 never asked
    with serve(cmd, port, tmp_path / "server2.log", 60, "chroma run"):
        third = run_batch(questions, out, retriever=Retriever(PaperStore(settings), settings), llm=llm,
                          settings=settings, resume=True)
    assert third.answered == 5 and third.failed == 0 and third.retried_errors == STOP_AFTER
