"""The fast paths give the same answers as the plain ones: filter masks as arrays, the memory-mapped
BM25 cache, the int8 embedding model recorded in the collection, the ONNX session loaded ahead."""

from __future__ import annotations

import re

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


def test_papers_cache_read_paper_by_paper_equals_the_papers_written(tmp_path, fake_store):
    from assistant.store.collection import _load_papers, _save_papers

    _save_papers(tmp_path, "key-1", PAPERS)
    lazy = _load_papers(tmp_path, "key-1")
    assert lazy.ids == [p.id for p in PAPERS] and len(lazy) == len(PAPERS)
    assert lazy[2] == PAPERS[2] and lazy[-1] == PAPERS[-1] and lazy[1:3] == PAPERS[1:3]
    assert lazy._items is None  # only the papers asked for were read
    with pytest.raises(IndexError):
        lazy[len(PAPERS)]
    assert list(lazy) == PAPERS and lazy.all() == PAPERS
    assert _load_papers(tmp_path, "key-2") is None  # another revision: read from Chroma, not reused

    # a new store over the same folder (a new process) reads its papers from that cache
    fake_store.upsert(PAPERS, fake_store.embedder.embed([p.document for p in PAPERS]))
    fake_store.mark_changed()
    expected = [(r.paper, r.score) for r in Retriever(fake_store).search("KV cache decoding", top_k=3)]
    from assistant.store.collection import PaperStore

    fresh = PaperStore(fake_store.settings, embedder=fake_store.embedder)
    got = [(r.paper, r.score) for r in Retriever(fresh).search("KV cache decoding", top_k=3)]
    assert got == expected and fresh.bm25()[0]._items is None
    assert fresh.papers() == fake_store.papers() and [p.id for p in fresh.papers()] == ["p1", "p2", "p3", "p4"]


needs_model = pytest.mark.skipif(not (MODEL_DIR / "onnx" / "model.onnx").exists(), reason="no ONNX model")


@pytest.mark.integration
@needs_model
def test_int8_collection_records_its_precision_and_refuses_an_explicit_fp32_model(data_dir, tmp_path, monkeypatch):
    from assistant.settings import load_settings
    from assistant.store.chroma import StoreError
    from assistant.store.collection import PaperStore
    from assistant.store.embeddings import OnnxMiniLM

    monkeypatch.setenv("ASSISTANT_MODEL_CACHE_DIR", str(tmp_path / "user-cache"))
    int8 = PaperStore(load_settings(embedding_precision="int8"))
    vectors = int8.embedder.embed([p.document for p in PAPERS])
    int8.upsert(PAPERS, vectors)
    int8.mark_changed()
    assert int8.collection.metadata["embedding_precision"] == "int8"
    # quantised once from the shipped file, into the per-user cache (not the data folder, not the model folder)
    model_file = int8.embedder.model_file()
    assert model_file.parent == tmp_path / "user-cache" and model_file.stat().st_size < 0.4 * (
        MODEL_DIR / "onnx" / "model.onnx").stat().st_size
    assert not list(data_dir.rglob("*.onnx"))
    fp32 = OnnxMiniLM(MODEL_DIR).embed([p.document for p in PAPERS])
    assert (vectors * fp32).sum(1).min() > 0.98  # same model, 8-bit weights
    assert Retriever(int8).search("KV cache compression", top_k=1)[0].paper.id == "p1"

    with pytest.raises(StoreError, match="int8 embeddings but the configured precision is fp32"):
        _ = PaperStore(load_settings(embedding_precision="fp32")).collection


@pytest.mark.integration
@needs_model
def test_an_fp32_collection_refuses_an_explicit_int8_model(data_dir):
    from assistant.settings import load_settings
    from assistant.store.chroma import StoreError
    from assistant.store.collection import PaperStore

    fp32 = PaperStore(load_settings(embedding_precision="fp32"))
    fp32.upsert(PAPERS, fp32.embedder.embed([p.document for p in PAPERS]))
    fp32.mark_changed()
    assert fp32.collection.metadata["embedding_precision"] == "fp32"
    with pytest.raises(StoreError, match="ASSISTANT_EMBEDDING_PRECISION=fp32"):
        _ = PaperStore(load_settings(embedding_precision="int8")).collection


@pytest.mark.integration
@needs_model
@pytest.mark.parametrize("built, recorded", [("fp32", True), ("fp32", False), ("int8", True)],
                         ids=["fp32", "fp32-made-before-precision-was-recorded", "int8"])
def test_a_collection_is_searched_with_the_precision_it_was_built_with_whatever_the_default(
        data_dir, tmp_path, monkeypatch, built, recorded):
    """A Chroma folder built with one precision (by a version that left no precision hint; the oldest
    fp32 ones recorded no precision either) is opened by a new process with the precision not set: no
    error, the query is embedded with the collection's precision (results and scores as the store that
    built it gives them), and an fp32 store never makes the int8 model."""
    from assistant.settings import load_settings
    from assistant.store.collection import PRECISION_HINTS, PaperStore
    from assistant.store.embeddings import OnnxMiniLM

    monkeypatch.setenv("ASSISTANT_MODEL_CACHE_DIR", str(tmp_path / "user-cache"))
    store = PaperStore(load_settings(embedding_precision=built))
    store.upsert(PAPERS, store.embedder.embed([p.document for p in PAPERS]))
    store.mark_changed()
    if not recorded:
        meta = {k: v for k, v in store._fresh().metadata.items() if k != "embedding_precision"}
        store._fresh().modify(metadata=meta)
        assert "embedding_precision" not in store._fresh().metadata
    expected = [(r.paper.id, r.score) for r in Retriever(store).search("KV cache decoding", top_k=4)]
    vector = store.embedder.embed(["KV cache decoding"])
    del store
    (data_dir / "cache" / PRECISION_HINTS).unlink()  # as the earlier version left the data folder

    for _ in range(2):  # a store made before hints, then the next process, which reads the hint
        opened = PaperStore(load_settings())
        assert "embedding_precision" not in opened.settings.model_fields_set
        assert opened.embedder.precision == built  # known before the collection is opened
        got = [(r.paper.id, r.score) for r in Retriever(opened).search("KV cache decoding", top_k=4)]
        assert got == expected
        assert np.allclose(opened.embedder.embed(["KV cache decoding"]), vector, atol=1e-6)
    if built == "fp32":
        assert opened.embedder.model_file() == MODEL_DIR / "onnx" / "model.onnx"
        assert not (tmp_path / "user-cache").exists()  # no int8 model was made for an fp32 store
        assert np.allclose(vector, OnnxMiniLM(MODEL_DIR).embed(["KV cache decoding"]), atol=1e-6)


@pytest.mark.integration
@needs_model
def test_a_stale_precision_hint_is_corrected_when_the_collection_opens(data_dir, tmp_path, monkeypatch):
    from assistant.settings import load_settings
    from assistant.store.collection import PRECISION_HINTS, PaperStore

    monkeypatch.setenv("ASSISTANT_MODEL_CACHE_DIR", str(tmp_path / "user-cache"))
    built = PaperStore(load_settings(embedding_precision="fp32"))
    built.upsert(PAPERS, built.embedder.embed([p.document for p in PAPERS]))
    built.mark_changed()
    (data_dir / "cache" / PRECISION_HINTS).write_text('{"local|papers": "int8"}')
    opened = PaperStore(load_settings())
    assert opened.embedder.precision == "int8"  # the hint, before Chroma is opened
    opened.embedder.load()
    _ = opened.collection
    assert opened.embedder.precision == "fp32" and "_session" not in opened.embedder.__dict__
    assert '"fp32"' in (data_dir / "cache" / PRECISION_HINTS).read_text()
    assert Retriever(opened).search("KV cache compression", top_k=1)[0].paper.id == "p1"


@pytest.mark.integration
@needs_model
def test_int8_model_is_made_once_per_user_and_falls_back_to_the_data_folder(tmp_path):
    from assistant.store.embeddings import EmbeddingError, OnnxMiniLM, quantized_model

    user = tmp_path / "user-cache"
    first = OnnxMiniLM(MODEL_DIR, precision="int8", cache_dir=tmp_path / "data1" / "cache", model_cache_dir=user)
    path = first.model_file()
    made = path.stat().st_mtime_ns
    second = OnnxMiniLM(MODEL_DIR, precision="int8", cache_dir=tmp_path / "data2" / "cache", model_cache_dir=user)
    assert second.model_file() == path and path.stat().st_mtime_ns == made  # reused, not quantised again
    assert [p.name for p in user.iterdir()] == [path.name]  # no temporary file left

    blocked = tmp_path / "a-file"
    blocked.write_text("")  # a folder that cannot be made (as a read-only home)
    fallback = OnnxMiniLM(MODEL_DIR, precision="int8", cache_dir=tmp_path / "data3" / "cache",
                          model_cache_dir=blocked / "models")
    assert fallback.model_file().parent == tmp_path / "data3" / "cache" / "models"
    assert np.allclose(fallback.embed(["KV cache"]), second.embed(["KV cache"]), atol=1e-6)
    with pytest.raises(EmbeddingError, match="ASSISTANT_MODEL_CACHE_DIR"):
        quantized_model(MODEL_DIR / "onnx" / "model.onnx", [blocked / "models"])


@pytest.mark.integration
@needs_model
def test_int8_copy_fuses_the_attention_and_never_reuses_an_older_copy(tmp_path, monkeypatch):
    import onnx

    from assistant.store.embeddings import OnnxMiniLM, fuse_attention, quantized_model

    fp32 = MODEL_DIR / "onnx" / "model.onnx"
    st = fp32.stat()
    user = tmp_path / "user-cache"
    user.mkdir()
    older = user / f"model-int8-{st.st_size}-{int(st.st_mtime)}.onnx"  # the unfused copy's name (INT8_VERSION 1)
    older.write_text("not a model")
    path = quantized_model(fp32, [user])
    assert path != older and path.name.startswith("model-int8v2-")
    ops = [n.op_type for n in onnx.load(str(path)).graph.node]
    assert ops.count("QAttention") == 6 and "Softmax" not in ops  # one fused attention per layer

    # the fused fp32 graph computes what the shipped one does (the int8 copy differs only by quantisation)
    graph = onnx.load(str(fp32))
    assert fuse_attention(graph) == 6
    fused = tmp_path / "fused.onnx"
    onnx.save(graph, str(fused))
    texts = [p.document for p in PAPERS] + ["KV cache"]
    shipped = OnnxMiniLM(MODEL_DIR, model_cache_dir=tmp_path / "none").embed(texts)  # no fused fp32 copy there
    rewritten = OnnxMiniLM(MODEL_DIR)
    monkeypatch.setattr(rewritten, "model_file", lambda make_fused=False: fused)
    assert np.allclose(rewritten.embed(texts), shipped, atol=1e-5)
    int8 = OnnxMiniLM(MODEL_DIR, precision="int8", model_cache_dir=user).embed(texts)
    assert (int8 * shipped).sum(1).min() > 0.98

    # a graph without the named attention blocks (or without an attention mask) is left as it is
    plain = onnx.load(str(fp32))
    plain.graph.input.remove(next(i for i in plain.graph.input if i.name == "attention_mask"))
    before = plain.SerializeToString()
    assert fuse_attention(plain) == 0 and plain.SerializeToString() == before


@pytest.mark.integration
@needs_model
def test_an_int8_collection_made_before_the_fused_copy_is_searched_with_the_copy_before(data_dir, tmp_path,
                                                                                        monkeypatch):
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore
    from assistant.store.embeddings import INT8_VERSION

    monkeypatch.setenv("ASSISTANT_MODEL_CACHE_DIR", str(tmp_path / "user-cache"))
    new = PaperStore(load_settings(embedding_precision="int8"))
    assert new.collection.metadata["embedding_int8_version"] == INT8_VERSION == 2
    assert new.embedder.model_file().name.startswith("model-int8v2-")

    # as the code before this change left it: int8, no copy recorded, vectors of the unfused copy
    old = PaperStore(load_settings(embedding_precision="int8", collection="old"))
    old.embedder.use_int8_version(1)
    old.upsert(PAPERS, old.embedder.embed([p.document for p in PAPERS]))
    meta = {k: v for k, v in old.collection.metadata.items() if k != "embedding_int8_version" and "hnsw" not in k}
    old.collection.modify(metadata=meta)
    old.mark_changed()

    opened = PaperStore(load_settings(collection="old"))  # the default precision, a fresh process
    assert opened.collection is not None and opened.embedder.int8_version == 1
    assert opened.embedder.model_file().name.startswith("model-int8-")  # the unfused copy, its old name
    assert opened.embedder.cache_key() != new.embedder.cache_key()  # no derived vectors shared between copies
    assert Retriever(opened).search("KV cache compression", top_k=1)[0].paper.id == "p1"


@pytest.mark.integration
@needs_model
def test_session_loaded_ahead_embeds_like_one_loaded_on_first_use():
    from assistant.store.embeddings import OnnxMiniLM

    ahead = OnnxMiniLM(MODEL_DIR)
    ahead.load()
    texts = [p.document for p in PAPERS]
    assert np.allclose(ahead.embed(texts), OnnxMiniLM(MODEL_DIR).embed(texts), atol=1e-6)


def _airas_abstracts(n: int) -> list[str]:
    from assistant.store.ingest import IngestReport, read_papers
    from tests.conftest import AIRAS_DIR

    return [p.document for p in read_papers([AIRAS_DIR / "iclr" / "2020.json"], IngestReport())[:n]]


@pytest.mark.integration
@needs_model
def test_fp32_fused_copy_is_made_by_an_ingest_once_and_embeds_like_the_shipped_file(tmp_path, monkeypatch):
    import sys

    import onnx

    from assistant.store import embeddings
    from assistant.store.embeddings import PARALLEL_MIN_TEXTS, OnnxMiniLM, fused_model

    fp32 = MODEL_DIR / "onnx" / "model.onnx"
    user = tmp_path / "user-cache"
    texts = _airas_abstracts(PARALLEL_MIN_TEXTS) + ["KV cache"]
    model = OnnxMiniLM(MODEL_DIR, threads=2, model_cache_dir=user)
    assert model.embed(["KV cache"]).shape == (1, 384)
    assert model.model_file() == fp32 and not user.exists()  # a query (or a small ingest) makes no copy
    vectors = model.embed(texts)  # an ingest's chunk: the bulk session makes the fused copy
    made = fused_model(fp32, [user], make=False)
    assert made is not None and [p.name for p in user.iterdir()] == [made.name]  # no temporary file left
    ops = [n.op_type for n in onnx.load(str(made)).graph.node]
    assert ops.count("Attention") == 6 and "Softmax" not in ops
    stamp = made.stat().st_mtime_ns

    shipped = OnnxMiniLM(MODEL_DIR, threads=1, model_cache_dir=tmp_path / "none")  # the shipped graph, in turn
    assert shipped.model_file() == fp32
    np.testing.assert_allclose(vectors, shipped.embed(texts), rtol=0, atol=1e-5)
    again = OnnxMiniLM(MODEL_DIR, model_cache_dir=user)
    assert again.model_file() == made and made.stat().st_mtime_ns == stamp  # reused by the next process's queries
    np.testing.assert_allclose(again.embed(["KV cache"]), vectors[-1:], rtol=0, atol=1e-5)

    monkeypatch.setitem(sys.modules, "onnx", None)  # a core install without the onnx package: the shipped file
    monkeypatch.setattr(embeddings, "_UNFUSABLE", set())
    assert fused_model(fp32, [tmp_path / "other"]) is None and not (tmp_path / "other").exists()
    plain = OnnxMiniLM(MODEL_DIR, threads=2, model_cache_dir=tmp_path / "other")
    np.testing.assert_allclose(plain.embed(texts), vectors, rtol=0, atol=1e-5)


@pytest.mark.integration
@needs_model
def test_int8_vector_of_a_text_does_not_depend_on_the_texts_embedded_with_it(tmp_path):
    from assistant.store.embeddings import PARALLEL_MIN_TEXTS, OnnxMiniLM

    user = tmp_path / "user-cache"
    texts = _airas_abstracts(PARALLEL_MIN_TEXTS + 6)
    int8 = OnnxMiniLM(MODEL_DIR, precision="int8", threads=2, model_cache_dir=user)
    chunk = int8.embed(texts)  # an ingest's chunk, on two workers
    alone = np.concatenate([int8.embed([t]) for t in texts[:5]])  # as queries are embedded, one by one
    np.testing.assert_allclose(chunk[:5], alone, rtol=0, atol=1e-5)
    fp32 = OnnxMiniLM(MODEL_DIR, threads=2, model_cache_dir=user).embed(texts)
    cosine = (chunk * fp32).sum(1)
    # measured: mean 0.9952 on a CPU with AVX-512 VNNI, 0.9927 (min 0.990) on an AVX2-only AMD EPYC, whose
    # integer kernels are coarser; a broken copy (wrong scales, unfused graph mismatch) falls far below
    assert cosine.mean() >= 0.99 and cosine.min() >= 0.985


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


def _ask(store, settings, question: str) -> dict:
    from assistant.answering import answer, answer_to_json
    from assistant.llm import make_llm

    obj = answer_to_json(question, answer(question, retriever=Retriever(store), llm=make_llm(settings, "extractive"),
                                          settings=settings))
    obj.pop("seconds")
    return obj


class _CountingEmbedder:
    """The store's real embedder, keeping the texts it embeds."""

    def __init__(self, inner):
        self.inner, self.texts = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed(self, texts):
        self.texts += list(texts)
        return self.inner.embed(texts)


@pytest.mark.integration
@needs_model
def test_answers_from_cached_sentence_vectors_equal_answers_without_the_cache(bundled_store, settings, monkeypatch):
    import assistant.relevance as relevance

    questions = ["How much did NorMuon save over AdamW?", "Which papers compress the KV cache, and by how much?",
                 "What is the capital of France?"]
    monkeypatch.setattr(relevance, "_SENTENCES", {})
    monkeypatch.setattr(relevance.SentenceVectorCache, "of", classmethod(lambda cls, embedder: None))
    without = [_ask(bundled_store, settings, q) for q in questions]
    monkeypatch.undo()

    counting = _CountingEmbedder(bundled_store.embedder)
    bundled_store._embedder = counting
    for q, expected in zip(questions, without):
        monkeypatch.setattr(relevance, "_SENTENCES", {})  # a new process: only the disk cache is left
        first = _ask(bundled_store, settings, q)
        monkeypatch.setattr(relevance, "_SENTENCES", {})
        counting.texts = []
        cached = _ask(bundled_store, settings, q)
        assert first == expected and cached == expected  # same sources, order, evidence and text
        # only the question and the question less a key word (the gate's 'uncovered' evidence) are embedded
        asked = set(re.findall(r"\w+", q.lower()))
        again = [t for t in counting.texts if not set(re.findall(r"\w+", t.lower())) <= asked]
        assert not again, f"the cached answer embedded abstract sentences again: {again[:2]}"
    assert without[0]["citations"][0]["title"] == "NorMuon" and "21.74" in without[0]["answer"]
    files = list((settings.paths.cache_dir / relevance.SENTENCE_CACHE).glob("all-MiniLM-L6-v2-*.sqlite3"))
    # one cache, of the model the sentences are embedded with: fp32 at either precision of the collection
    assert len(files) == 1 and "-fp32-" in files[0].name


@pytest.mark.integration
@needs_model
def test_an_edited_abstract_is_not_answered_from_the_old_cached_vectors(bundled_store, settings, monkeypatch):
    import dataclasses

    import assistant.relevance as relevance
    from assistant.text import split_sentences

    q = "How much did NorMuon save over AdamW?"
    monkeypatch.setattr(relevance, "_SENTENCES", {})
    before = _ask(bundled_store, settings, q)  # caches the sentence vectors of the retrieved abstracts
    paper = next(p for p in bundled_store.papers() if p.id == before["citations"][0]["id"])
    edited = dataclasses.replace(paper, abstract=paper.abstract.replace("21.74", "35.5") + " We release code.")
    assert edited.abstract != paper.abstract
    bundled_store.upsert([edited], bundled_store.embedder.embed([edited.document]))
    bundled_store.mark_changed()

    monkeypatch.setattr(relevance, "_SENTENCES", {})
    sentences, vectors = relevance.sentence_vectors(edited, bundled_store.embedder)
    assert sentences == split_sentences(edited.abstract) and sentences[-1] == "We release code."
    # the edited sentences, embedded as the gate embeds them (fp32 at either precision: `reference_embedder`)
    assert np.array_equal(vectors, relevance.reference_embedder(bundled_store.embedder).embed(sentences))
    after = _ask(bundled_store, settings, q)
    monkeypatch.setattr(relevance, "_SENTENCES", {})
    monkeypatch.setattr(relevance.SentenceVectorCache, "of", classmethod(lambda cls, embedder: None))
    assert after == _ask(bundled_store, settings, q)
    assert "35.5" in after["answer"] and "21.74" not in after["answer"]


@pytest.mark.integration
@needs_model
def test_a_finished_write_lets_the_next_opener_save_chromas_hnsw_index(bundled_store, settings):
    """Between writes the HNSW sync threshold is low (the next process to open the collection saves the
    index instead of replaying Chroma's log on every open); a write runs with Chroma's default."""
    import json
    import subprocess
    import sys

    from assistant.store.chroma import READ_SYNC_THRESHOLD, WRITE_SYNC_THRESHOLD
    from tests.conftest import ROOT

    def threshold():
        return bundled_store._fresh().configuration["hnsw"]["sync_threshold"]

    assert threshold() == READ_SYNC_THRESHOLD
    in_process = [r.paper.id for r in Retriever(bundled_store).search("KV cache compression", top_k=5)]
    script = ("import json; from assistant.retrieval import Retriever; from assistant.settings import load_settings;"
              "from assistant.store.collection import PaperStore;"
              "print(json.dumps([r.paper.id for r in Retriever(PaperStore(load_settings())).search("
              "'KV cache compression', top_k=5)]))")
    for _ in range(2):  # the first process replays the log and saves the index; the second reads it
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
        assert json.loads(out.stdout.strip().splitlines()[-1]) == in_process
    vector_dir = next(d for d in settings.paths.chroma_dir.iterdir() if d.is_dir())
    assert (vector_dir / "index_metadata.pickle").exists()  # Chroma saved its HNSW index

    bundled_store.begin_write()
    assert threshold() == WRITE_SYNC_THRESHOLD
    bundled_store.mark_changed()
    assert threshold() == READ_SYNC_THRESHOLD
