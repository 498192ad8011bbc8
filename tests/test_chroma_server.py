"""The same store through a real Chroma server (`chroma run`) started on a loopback port."""

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
