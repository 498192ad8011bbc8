"""Ingestion into a real embedded Chroma store: idempotence, in-place edits, ids, duplicates, bad input.

Most tests use the deterministic fake embedder (fast); the ones about the real model say so.
"""

import json

import pytest

from assistant.store.chroma import StoreError
from assistant.store.collection import PaperStore
from assistant.store.ingest import ingest

from tests.conftest import AIRAS_DIR, ICML_FILE, FakeEmbedder


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def test_reingesting_the_same_file_changes_nothing_and_embeds_nothing(fake_store):
    first = ingest([ICML_FILE], fake_store)
    assert (first.added, first.updated, first.unchanged) == (19, 0, 0) and first.ok
    embedded = fake_store.embedder.embedded
    again = ingest([ICML_FILE], fake_store)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 19)
    assert fake_store.count() == 19
    assert fake_store.embedder.embedded == embedded  # nothing re-embedded


def test_edited_abstract_replaces_the_old_one_in_place(fake_store, tmp_path):
    f = write_jsonl(tmp_path / "p.jsonl", [{"id": "x1", "title": "Paper X", "abstract": "Old text about cats."},
                                           {"id": "x2", "title": "Paper Y", "abstract": "Dogs."}])
    ingest([f], fake_store)
    write_jsonl(f, [{"id": "x1", "title": "Paper X", "abstract": "New text about zebras."},
                    {"id": "x2", "title": "Paper Y", "abstract": "Dogs."}])
    report = ingest([f], fake_store)
    assert (report.added, report.updated, report.unchanged) == (0, 1, 1)
    assert fake_store.count() == 2
    abstracts = [p.abstract for p in fake_store.papers()]
    assert "New text about zebras." in abstracts and "Old text about cats." not in abstracts


def test_edited_paragraph_of_a_text_list_replaces_the_old_one(fake_store, tmp_path):
    f = tmp_path / "list.txt"
    more = " It is trained on a large set of labelled photographs and tested on held-out ones, where it beats the baselines."
    alpha, beta = "We propose AlphaNet for cats." + more, "We introduce BetaNet for dogs." + more
    f.write_text(f"My list\n\n{alpha}\n\n{beta}\n")
    ingest([f], fake_store)
    edited = alpha.replace("cats", "cats and lions")
    f.write_text(f"My list\n\n{edited}\n\n{beta}\n")
    report = ingest([f], fake_store)
    assert report.updated == 1 and report.added == 0
    assert sorted(p.abstract for p in fake_store.papers()) == [beta, edited]


def test_same_id_in_another_venue_or_year_is_another_paper(fake_store, tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [{"id": "dup", "title": "Paper A", "abstract": "A.", "conference": "iclr", "year": 2023}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"id": "dup", "title": "Paper B", "abstract": "B.", "conference": "icml", "year": 2023}])
    ingest([a], fake_store)
    ingest([b], fake_store)
    assert sorted(p.title for p in fake_store.papers()) == ["Paper A", "Paper B"]


def test_same_id_with_a_different_title_in_one_file_keeps_both(fake_store, tmp_path):
    f = write_jsonl(tmp_path / "f.jsonl", [{"id": "same", "title": "One", "abstract": "1."},
                                           {"id": "same", "title": "Two", "abstract": "2."}])
    report = ingest([f], fake_store)
    assert report.added == 2 and fake_store.count() == 2


def test_duplicate_records_in_one_file_are_reported_once(fake_store, tmp_path):
    row = {"id": "d", "title": "Dup", "abstract": "Same."}
    f = write_jsonl(tmp_path / "f.jsonl", [row, row, {"id": "e", "title": "Other", "abstract": "x"}])
    report = ingest([f], fake_store)
    assert report.added == 2 and report.ok
    assert len(report.duplicates) == 1
    assert report.duplicates[0].line == 2 and "duplicate of" in report.duplicates[0].reason


def test_a_record_of_a_minified_json_array_is_named_by_its_place_not_only_its_line(fake_store, tmp_path):
    # a new user's trial: "f.json:1: duplicate of f.json:1" could not be found in a one-line array
    row = {"id": "d", "title": "Dup", "abstract": "Same."}
    f = tmp_path / "f.json"
    f.write_text(json.dumps([row, {"id": "e", "title": "Other", "abstract": "x"}, row,
                             {"id": "f", "title": "No text"}]))
    report = ingest([f], fake_store)
    assert report.added == 2
    assert [str(s) for s in report.skipped] == [f"{f}:1 (record 3): duplicate of {f}:1 (record 1)",
                                                f"{f}:1 (record 4): " + report.skipped[1].reason]
    assert report.to_json()["skipped_records"][0]["record"] == 3


def test_broken_line_is_reported_and_the_rest_is_ingested(fake_store, tmp_path):
    f = tmp_path / "f.jsonl"
    f.write_text('{"title": "A", "abstract": "a"}\n{oops\n{"title": "B", "abstract": "b"}\n{"title": "C"}\n')
    report = ingest([f], fake_store)
    assert report.added == 2 and not report.ok
    assert [(e.line, e.reason.split(" (")[0]) for e in report.errors] == [(2, "broken JSON"), (4, "record has no abstract")]


def test_a_missing_file_does_not_stop_the_others(fake_store, tmp_path):
    good = write_jsonl(tmp_path / "good.jsonl", [{"title": "A", "abstract": "a"}])
    empty = tmp_path / "empty.json"
    empty.write_text("")
    report = ingest([good, empty], fake_store)
    assert report.added == 1 and len(report.errors) == 1 and "empty" in report.errors[0].reason


def test_control_characters_are_cleaned_and_the_record_kept(fake_store, tmp_path):
    f = tmp_path / "f.jsonl"
    f.write_text(json.dumps({"title": "Ctrl\u0007 title", "abstract": "Text with \u0000 nul and \ud800 surrogate."}) + "\n")
    report = ingest([f], fake_store)
    assert report.added == 1
    (p,) = fake_store.papers()
    assert p.title == "Ctrl title" and "\x00" not in p.abstract and "\ud800" not in p.abstract


def test_metadata_lists_and_nulls_are_mapped_and_shown_in_full(fake_store, tmp_path):
    f = write_jsonl(tmp_path / "f.jsonl", [{"id": "1", "title": "T", "abstract": "a", "authors": ["A B", "C D"],
                                            "topic": None, "paper_url": None, "year": 2024, "conference": "iclr"}])
    assert ingest([f], fake_store).added == 1
    (p,) = fake_store.papers()
    assert p.authors == ("A B", "C D") and p.url == "" and p.year == 2024 and p.venue == "ICLR"


def test_opening_with_another_embedding_model_is_a_clear_error(settings, fake_store):
    ingest([ICML_FILE], fake_store)

    class OtherModel(FakeEmbedder):
        name = "other-model"
        dim = 32

    with pytest.raises(StoreError) as err:
        PaperStore(settings, embedder=OtherModel()).count()
    assert "fake-hash-64" in str(err.value) and "other-model" in str(err.value)


def test_airas_file_with_duplicate_ids_ingests_with_a_correct_summary(fake_store):
    # ICML 2022: every record appears twice (SOURCE.md: 2,466 records, 1,233 ids, 1,229 identical dupes)
    report = ingest([AIRAS_DIR / "icml" / "2022.json"], fake_store)
    assert report.ok
    assert report.added + len(report.duplicates) == 2466
    assert fake_store.count() == report.added
    assert 1233 <= report.added <= 1237  # the 4 ids whose copies differ in text are kept once each


@pytest.mark.integration
def test_a_100kb_abstract_is_stored_in_full_and_truncation_is_reported(real_store, tmp_path):
    long = "We propose LongNet. " + " ".join(f"word{i}" for i in range(15000))
    assert len(long) > 100_000
    f = write_jsonl(tmp_path / "long.jsonl", [{"title": "Long", "abstract": long}])
    report = ingest([f], real_store)
    assert report.added == 1 and report.truncated == 1
    (p,) = real_store.papers()
    assert p.abstract == long


@pytest.mark.integration
def test_missing_embedding_model_names_the_setting(tmp_path, monkeypatch):
    from assistant.settings import load_settings
    from assistant.store.embeddings import EmbeddingError

    monkeypatch.setenv("ASSISTANT_EMBEDDING_MODEL_DIR", str(tmp_path / "nowhere"))
    store = PaperStore(load_settings())
    with pytest.raises(EmbeddingError, match="ASSISTANT_EMBEDDING_MODEL_DIR"):
        ingest([ICML_FILE], store)


# --- the BM25 index always matches what is stored -----------------------------------------------------

def _bm25_titles(store, word):
    from assistant.retrieval import Retriever

    return [r.paper.title for r in Retriever(store).search(word, top_k=5, mode="bm25")]


def test_bm25_matches_the_store_after_writes_that_never_finished(fake_store, settings, tmp_path):
    from assistant.store.ingest import paper_id
    from assistant.store.paper import Paper

    f = write_jsonl(tmp_path / "p.jsonl", [{"id": "a", "title": "Paper A", "abstract": "Cats purr loudly."},
                                           {"id": "b", "title": "Paper B", "abstract": "Dogs bark."}])
    ingest([f], fake_store)
    assert _bm25_titles(fake_store, "cats") == ["Paper A"]  # index built (and cached on disk)
    # an ingest killed after its upserts, before the end: one new paper, one edited in place (same count
    # of papers and same ids as before would be, had the new one replaced another)
    old_a = next(p for p in fake_store.papers() if p.title == "Paper A")
    new = Paper(abstract="Zebras gallop.", title="Paper C", source_id="c")
    edited = Paper(abstract="Lions roar.", title="Paper A", source_id="a", source=old_a.source)
    writer = PaperStore(settings, embedder=FakeEmbedder())
    papers = [new.with_id(paper_id(new)), edited.with_id(old_a.id)]
    writer.upsert(papers, writer.embedder.embed([p.document for p in papers]))  # no mark_changed: killed
    for store in (fake_store, PaperStore(settings, embedder=FakeEmbedder())):  # long-lived, and a new process
        assert _bm25_titles(store, "zebras") == ["Paper C"]
        assert _bm25_titles(store, "lions") == ["Paper A"]
        assert _bm25_titles(store, "cats") == []


@pytest.mark.integration
def test_bm25_search_after_an_ingest_killed_with_sigkill(bundled_store, settings, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from typer.testing import CliRunner

    from assistant.cli import app
    from tests.conftest import ROOT

    def bm25(word):
        result = CliRunner().invoke(app, ["search", word, "--mode", "bm25", "--json"])
        assert result.exit_code == 0, result.output
        return [r["title"] for r in json.loads(result.stdout)["results"]]

    assert bm25("quokkas") == []  # builds and caches the index of the 19 bundled abstracts
    assert _bm25_titles(bundled_store, "quokkas") == []  # a long-lived store (the chat app) has its own
    f = write_jsonl(tmp_path / "new.jsonl", [{"id": str(i), "title": f"New {i}", "abstract": f"Quokkas study {i}."}
                                             for i in range(6)])
    flag = tmp_path / "written"
    script = ("import sys, time, store.ingest as ing\n"
              "from assistant.settings import load_settings\n"
              "from assistant.store.collection import PaperStore\n"
              "ing.CHUNK = 2\n"
              "def progress(done, total):\n"
              f"    if done >= 2: open({str(flag)!r}, 'w').close(); time.sleep(600)\n"
              f"ing.ingest([{str(f)!r}], PaperStore(load_settings()), progress=progress)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=dict(os.environ))
    try:
        deadline = time.time() + 120
        while not flag.exists():
            assert proc.poll() is None and time.time() < deadline, "the ingest ended before it was killed"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert sorted(bm25("quokkas")) == ["New 0", "New 1"]  # the two records written before the kill
    assert sorted(_bm25_titles(bundled_store, "quokkas")) == ["New 0", "New 1"]
    assert bundled_store.count() == 21


# --- one word, any Unicode form -------------------------------------------------------------------------

UNICODE_PAPERS = [
    {"id": "1", "title": "Détection d'objets", "abstract": "Une méthode de détection rapide.", "venue": "ICML",
     "year": 2026, "authors": ["José Núñez"]},
    {"id": "2", "title": "NorMuon", "abstract": "NorMuon saves 21.74% of compute over AdamW.", "venue": "ICLR",
     "year": 2025, "authors": ["Ann Lee"]},
    {"id": "3", "title": "Schrödinger bridges", "abstract": "Schrödinger bridges for generative modelling.",
     "venue": "NeurIPS", "year": 2024, "authors": ["Zoë Brandt"]},
]


@pytest.mark.parametrize("stored, typed", [
    ("détection", "de\u0301tection"),  # decomposed, as macOS types it
    ("Schrödinger", "Schro\u0308dinger"),
    ("NorMuon", "ＮｏｒＭｕｏｎ"),  # fullwidth letters
    ("21.74%", "２１.７４%"),  # fullwidth digits
    ("NorMuon 21.74%", "ＮＯＲＭＵＯＮ　２１．７４％"),  # fullwidth capitals, space and punctuation
])
def test_a_word_in_another_unicode_form_finds_the_same_papers_with_the_same_scores(fake_store, tmp_path, stored, typed):
    from assistant.retrieval import Retriever

    ingest([write_jsonl(tmp_path / "u.jsonl", UNICODE_PAPERS)], fake_store)
    retriever = Retriever(fake_store)
    for mode in ("bm25", "hybrid"):
        want = [(r.paper.title, round(r.score, 6), round(r.bm25_score, 6)) for r in retriever.search(stored, mode=mode)]
        got = [(r.paper.title, round(r.score, 6), round(r.bm25_score, 6)) for r in retriever.search(typed, mode=mode)]
        assert got == want and want[0][2] > 0, mode


def test_bm25_indexes_documents_in_any_unicode_form_alike_and_old_caches_are_rebuilt(tmp_path):
    import unicodedata

    from assistant.store.bm25 import PARAMS, BM25Index

    docs = ["Une méthode de détection rapide.", "Schrödinger bridges.", "ＮｏｒＭｕｏｎ saves ２１.７４%."]
    plain = BM25Index.build(["a", "b", "c"], [unicodedata.normalize("NFC", d) for d in docs])
    nfd = BM25Index.build(["a", "b", "c"], [unicodedata.normalize("NFD", d) for d in docs])
    for query in ("détection", "Schrödinger", "NorMuon 21.74%"):
        assert list(nfd.scores(query)) == list(plain.scores(query)) and max(plain.scores(query)) > 0
    plain.save(tmp_path / "idx", "k")
    assert BM25Index.load(tmp_path / "idx", "k") is not None
    meta = json.loads((tmp_path / "idx" / "ids.json").read_text())
    (tmp_path / "idx" / "ids.json").write_text(json.dumps({**meta, "params": "lucene k1=0.9 b=0.4 tokens=1"}))
    assert BM25Index.load(tmp_path / "idx", "k") is None  # a cache from before NFKC tokens is rebuilt
    assert "nfkc" in PARAMS


@pytest.mark.parametrize("venue, author, titles", [
    ("ＩＣＭＬ", None, ["Détection d'objets"]),
    ("icml, ｎｅｕｒｉｐｓ", None, ["Détection d'objets", "Schrödinger bridges"]),
    (None, "Jose\u0301", ["Détection d'objets"]),  # decomposed, as macOS types it
    (None, "ｚｏë", ["Schrödinger bridges"]),
    (None, "ZOE\u0308 BRANDT", ["Schrödinger bridges"]),
])
def test_filters_match_values_typed_in_another_unicode_form(fake_store, tmp_path, venue, author, titles):
    from assistant.retrieval import Filters, Retriever

    ingest([write_jsonl(tmp_path / "u.jsonl", UNICODE_PAPERS)], fake_store)
    filters = Filters(venue=venue, author=author)
    assert sorted(p.title for p in fake_store.papers() if filters.matches(p)) == titles
    for mode in ("hybrid", "dense", "bm25"):  # dense filters through Chroma's venue_key
        found = Retriever(fake_store).search("détection bridges NorMuon", top_k=5, filters=filters, mode=mode)
        assert sorted(r.paper.title for r in found) == titles, mode


# --- pipelined ingest: the same papers and vectors as one chunk after another ---------------------------

@pytest.mark.integration
def test_pipelined_ingest_stores_the_vectors_a_sequential_embedding_gives(real_store, monkeypatch):
    """Chunks embedded on two worker threads while the previous chunk is written store the same ids and
    vectors as the product's embedder run on one thread, chunk by chunk, in order (real model, real Chroma)."""
    import numpy as np

    from assistant.store import embeddings
    from assistant.store import ingest as ing
    from assistant.store.embeddings import MAX_WORD_PIECES, OnnxMiniLM
    from assistant.store.ingest import IngestReport, read_papers
    from tests.conftest import MODEL_DIR

    monkeypatch.setattr(ing, "CHUNK", 24)
    monkeypatch.setattr(embeddings, "PARALLEL_MIN_TEXTS", 20)  # chunks of 24: the parallel path
    # 24 batches of one a chunk (the product's batch size: an int8 vector then depends on no neighbour), tokenised
    # by the workers
    real_store.embedder.batch_size, real_store.embedder.threads = 1, 2
    source = AIRAS_DIR / "iclr" / "2020.json"
    papers = read_papers([source], IngestReport())[:60]  # chunks of 24, 24 and 12 (the last one sequential)
    f = write_jsonl(real_store.settings.paths.data_dir.parent / "sixty.jsonl",
                    [{"id": p.source_id, "title": p.title, "abstract": p.abstract, "venue": p.venue, "year": p.year}
                     for p in papers])
    progress = []
    report = ingest([f], real_store, progress=lambda done, total: progress.append((done, total)))
    assert report.ok and report.added == report.embedded == 60
    assert progress == [(0, 60), (24, 60), (48, 60), (60, 60)]  # each chunk reported once it is stored
    tokenizer = real_store.embedder._tokenizer
    too_long = sum(1 for p in papers if len(tokenizer.encode(p.document).overflowing) > 0)
    assert report.truncated == too_long > 0  # counted by the workers that tokenise as by the sequential path
    assert len(tokenizer.encode(papers[0].document).ids) <= MAX_WORD_PIECES

    stored = real_store.collection.get(include=["embeddings"])
    by_id = dict(zip(stored["ids"], np.asarray(stored["embeddings"])))
    sequential = OnnxMiniLM(MODEL_DIR, batch_size=1, threads=1,  # one worker: batches in turn, one session
                            precision=real_store.embedder.precision, cache_dir=real_store.settings.paths.cache_dir)
    written = read_papers([f], IngestReport())
    assert sorted(by_id) == sorted(p.id for p in written)
    for start in range(0, 60, 24):
        chunk = written[start : start + 24]
        expected = sequential.embed([p.document for p in chunk])
        got = np.stack([by_id[p.id] for p in chunk])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)

    again = ingest([f], real_store)  # re-ingest: nothing embedded, nothing changed
    assert (again.unchanged, again.embedded, real_store.count()) == (60, 0, 60)


def test_a_failed_chroma_write_is_not_counted_and_stops_the_ingest(fake_store, tmp_path, monkeypatch):
    from assistant.store import ingest as ing

    monkeypatch.setattr(ing, "CHUNK", 2)
    f = write_jsonl(tmp_path / "p.jsonl", [{"title": f"Paper {i}", "abstract": f"About {i}."} for i in range(6)])
    upsert, calls = fake_store.upsert, []

    def fail_second(papers, vectors):
        calls.append(len(papers))
        if len(calls) == 2:
            raise StoreError("Chroma upsert failed (disk full)")
        upsert(papers, vectors)

    monkeypatch.setattr(fake_store, "upsert", fail_second)
    with pytest.raises(StoreError, match="disk full"):
        ingest([f], fake_store)
    assert fake_store.count() == 2 and calls == [2, 2]  # the third chunk was never written
    assert ingest([f], fake_store).added == 4  # the same ingest again adds the rest
