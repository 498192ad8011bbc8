"""The fast paths give the same answers as the plain ones: filter masks as arrays, the memory-mapped
BM25 cache, the int8 embedding model recorded in the collection, the ONNX session loaded ahead."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.retrieval import Filters, PaperTable, Retriever
from assistant.store.paper import Paper
from tests.conftest import MODEL_DIR

PAPERS = [
    Paper(title="Alpha", abstract="KV cache compression with low rank.", authors=("Ana Chen", "Bo Li"),
          venue="ICML", year=2023, id="p1"),
    Paper(title="Beta", abstract="Diffusion language models.", authors=("Chen Wu",), venue="NeurIPS", year=2024,
          id="p2"),
    Paper(title="Gamma", abstract="Optimizers for transformers.", authors=(), venue="icml", year=None, id="p3"),
    Paper(title="Delta", abstract="Speculative decoding of KV caches.", authors=("Dana Müller",), venue="",
          year=2021, id="p4"),
]


@pytest.mark.parametrize("filters", [
    Filters(venue="ICML"), Filters(venue="icml, NeurIPS"), Filters(year_min=2023), Filters(year_max=2023),
    Filters(year_min=2022, year_max=2024), Filters(author="chen"), Filters(author="MÜLLER"),
    Filters(author="li", venue="icml"), Filters(author="nobody"), Filters(venue="ICLR", year_min=2020),
])
def test_filter_mask_equals_matching_paper_by_paper(filters):
    mask = PaperTable(PAPERS).mask(filters)
    assert mask.tolist() == [filters.matches(p) for p in PAPERS]


def test_filtered_search_equals_unfiltered_search_restricted_to_the_filter(fake_store):
    fake_store.upsert(PAPERS, fake_store.embedder.embed([p.document for p in PAPERS]))
    fake_store.mark_changed()
    retriever = Retriever(fake_store)
    everything = retriever.search("KV cache compression", top_k=10)
    icml = retriever.search("KV cache compression", top_k=10, filters=Filters(venue="ICML"))
    assert icml[0].paper.id == "p1" and {r.paper.id for r in icml} == {"p1", "p3"}
    bm25_of = {r.paper.id: r.bm25_score for r in everything}
    assert all(r.bm25_score == pytest.approx(bm25_of[r.paper.id]) for r in icml)


def test_bm25_cache_is_read_memory_mapped_and_scores_the_same(tmp_path):
    from assistant.store.bm25 import BM25Index

    docs = [p.document for p in PAPERS]
    built = BM25Index.build([p.id for p in PAPERS], docs)
    built.save(tmp_path / "bm25", "key-1")
    loaded = BM25Index.load(tmp_path / "bm25", "key-1")
    assert loaded is not None and loaded.ids == built.ids
    assert isinstance(loaded._retriever.scores["data"], np.memmap)
    for q in ("KV cache", "diffusion", "decoding caches", "the of"):
        assert np.allclose(loaded.scores(q), built.scores(q))
    assert BM25Index.load(tmp_path / "bm25", "key-2") is None  # another revision: rebuilt, not reused


needs_model = pytest.mark.skipif(not (MODEL_DIR / "onnx" / "model.onnx").exists(), reason="no ONNX model")


@pytest.mark.integration
@needs_model
def test_int8_collection_records_its_precision_and_refuses_the_fp32_model(data_dir):
    from assistant.settings import load_settings
    from assistant.store.chroma import StoreError
    from assistant.store.collection import PaperStore
    from assistant.store.embeddings import OnnxMiniLM

    int8 = PaperStore(load_settings(embedding_precision="int8"))
    vectors = int8.embedder.embed([p.document for p in PAPERS])
    int8.upsert(PAPERS, vectors)
    int8.mark_changed()
    assert int8.collection.metadata["embedding_precision"] == "int8"
    # quantised once from the shipped file, cached in the data folder
    model_file = int8.embedder.model_file()
    assert model_file.is_relative_to(data_dir) and model_file.stat().st_size < 0.4 * (
        MODEL_DIR / "onnx" / "model.onnx").stat().st_size
    fp32 = OnnxMiniLM(MODEL_DIR).embed([p.document for p in PAPERS])
    assert (vectors * fp32).sum(1).min() > 0.98  # same model, 8-bit weights
    assert Retriever(int8).search("KV cache compression", top_k=1)[0].paper.id == "p1"

    with pytest.raises(StoreError, match="int8 embeddings but the configured precision is fp32"):
        _ = PaperStore(load_settings()).collection


@pytest.mark.integration
@needs_model
def test_an_fp32_collection_refuses_the_int8_model(bundled_store):
    from assistant.settings import load_settings
    from assistant.store.chroma import StoreError
    from assistant.store.collection import PaperStore

    assert bundled_store.collection.metadata["embedding_precision"] == "fp32"
    with pytest.raises(StoreError, match="ASSISTANT_EMBEDDING_PRECISION=fp32"):
        _ = PaperStore(load_settings(embedding_precision="int8")).collection


@pytest.mark.integration
@needs_model
def test_session_loaded_ahead_embeds_like_one_loaded_on_first_use():
    from assistant.store.embeddings import OnnxMiniLM

    ahead = OnnxMiniLM(MODEL_DIR)
    ahead.load()
    texts = [p.document for p in PAPERS]
    assert np.allclose(ahead.embed(texts), OnnxMiniLM(MODEL_DIR).embed(texts), atol=1e-6)


def test_filtered_dense_candidates_equal_chromas_filtered_knn(fake_store, monkeypatch):
    import assistant.retrieval as retrieval

    words = ["cache", "attention", "diffusion", "optimizer", "graph", "speech", "vision", "reward"]
    papers = [Paper(title=f"Paper {k}", abstract=f"{words[k % 8]} {words[(k * 3) % 8]} study number {k}.",
                    authors=(f"Author {k % 5}",), venue=["ICML", "ICLR", "NeurIPS"][k % 3], year=2020 + k % 6,
                    id=f"p{k:03d}") for k in range(90)]
    vectors = np.random.default_rng(7).standard_normal((len(papers), fake_store.embedder.dim)).astype(np.float32)
    fake_store.upsert(papers, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))  # no ties
    fake_store.mark_changed()
    retriever = Retriever(fake_store, fake_store.settings.model_copy(update={"candidates": 10}))
    for flt in (Filters(venue="ICML"), Filters(year_min=2022), Filters(venue="ICLR,NeurIPS", year_max=2024),
                Filters(author="author 3")):
        fast = retriever.search("cache attention study", top_k=10, filters=flt, mode="dense")
        monkeypatch.setattr(retrieval, "OVERSAMPLE_LIMIT", 0)  # always Chroma's own where / ids filter
        chroma = retriever.search("cache attention study", top_k=10, filters=flt, mode="dense")
        monkeypatch.undo()
        assert [r.paper.id for r in fast] == [r.paper.id for r in chroma] and len(fast) == 10
        assert all(flt.matches(r.paper) for r in fast)
        assert [r.dense_similarity for r in fast] == pytest.approx([r.dense_similarity for r in chroma])
