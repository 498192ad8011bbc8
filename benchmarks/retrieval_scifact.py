"""Retrieval quality on BEIR SciFact: nDCG@10 and Recall@100 for BM25, dense, hybrid; train and test.

``python -m benchmarks.retrieval_scifact``

The product path: the 5,183 SciFact abstracts (title + abstract) are ingested with `assistant.store.ingest`
into an embedded Chroma `PaperStore` under the benchmark cache (``$ASSISTANT_BENCH_CACHE``, default
``~/.cache/paper-assistant-bench``; a re-run embeds nothing), and every query goes through
`Retriever.search(query, top_k=100, mode=...)` with the product's settings. The hybrid's fusion was
tuned on the train split only (`benchmarks/tune_scifact.py`); test is reported as is. Also in the same
run: the hybrid with the untuned plain RRF (k=60, equal weights), and the plain llama-index baseline
(`VectorStoreIndex` over Chroma, default retriever with ``similarity_top_k=100``, same ONNX MiniLM).
"""

from __future__ import annotations

import time

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import CACHE, evaluate, load_corpus, load_qrels, load_queries, open_store

PLAIN_RRF = {"rrf_k": 60.0, "dense_weight": 1.0, "bm25_weight": 1.0, "candidates": 100,
             "fusion": "rrf"}


def main() -> None:
    from assistant.retrieval import Retriever

    started = time.perf_counter()
    store, ingest_report, doc_of = open_store()
    print(f"SciFact store: {len(doc_of)} abstracts (this run embedded {ingest_report.embedded})", flush=True)
    queries = load_queries()
    qrels = {s: load_qrels(s) for s in ("train", "test")}
    s = store.settings
    fields = type(s).model_fields
    plain = s.model_copy(update={k: v for k, v in PLAIN_RRF.items() if k in fields})
    systems = [
        ("BM25 (bm25s)", Retriever(store, s), "bm25"),
        ("dense (MiniLM, Chroma)", Retriever(store, s), "dense"),
        ("hybrid, plain RRF (k=60, equal weights)", Retriever(store, plain), "hybrid"),
        (f"hybrid, tuned on train ({describe(s)})", Retriever(store, s), "hybrid"),
    ]
    rows = []
    figures = {}
    for name, retriever, mode in systems:
        row: list[object] = [name]
        for split in ("train", "test"):
            t0 = time.perf_counter()
            run = {q: [doc_of[r.paper.id] for r in retriever.search(queries[q], top_k=100, mode=mode)]
                   for q in qrels[split]}
            m = evaluate(run, qrels[split])
            ms = (time.perf_counter() - t0) / len(qrels[split]) * 1000
            figures[(name, split)] = m
            row += [m["ndcg@10"], m["recall@100"]]
            print(f"{name:<48} {split:<5} nDCG@10 {m['ndcg@10']:.4f}  R@100 {m['recall@100']:.4f}  "
                  f"({ms:.0f} ms/query)", flush=True)
        rows.append(row)

    # the plain llama-index baseline, same model, same run
    from benchmarks._baseline import build_index, open_index, retrieve

    folder = CACHE / "scifact-llamaindex"
    index = open_index(folder)
    if index is None:
        t0 = time.perf_counter()
        index = build_index([(d.doc_id, f"{d.title}\n\n{d.text}") for d in load_corpus()], folder)
        print(f"llama-index baseline built in {time.perf_counter() - t0:.0f} s", flush=True)
    name = "llama-index VectorStoreIndex over Chroma (default retriever, top_k=100)"
    row = [name]
    for split in ("train", "test"):
        run = {q: retrieve(index, queries[q], 100) for q in qrels[split]}
        m = evaluate(run, qrels[split])
        figures[(name, split)] = m
        row += [m["ndcg@10"], m["recall@100"]]
        print(f"{name:<48} {split:<5} nDCG@10 {m['ndcg@10']:.4f}  R@100 {m['recall@100']:.4f}", flush=True)
    rows.append(row)

    body = markdown_table(["retriever", "train nDCG@10", "train R@100", "test nDCG@10", "test R@100"], rows)
    body += (f"\n\nBEIR SciFact: 5,183 abstracts (title + abstract); train = 809 queries (tuning only), "
             f"test = 300 queries (BEIR test = SciFact dev). nDCG@10 and Recall@100 as in pytrec_eval / BEIR. "
             f"Every retriever is the product's `Retriever.search` over the real Chroma store, except the "
             f"llama-index baseline, which uses the same ONNX MiniLM through an embedding adapter. Published "
             f"references (test nDCG@10): BM25 flat (Anserini) 0.679, BGE-base-en-v1.5 0.741. "
             f"Run time {time.perf_counter() - started:.0f} s.")
    write_section("retrieval_scifact", "Retrieval quality: BEIR SciFact", body, "python -m benchmarks.retrieval_scifact")


def describe(s) -> str:
    fusion = getattr(s, "fusion", "rrf")
    if fusion == "rrf":
        return f"RRF k={s.rrf_k:g}, weights dense {s.dense_weight:g} / BM25 {s.bm25_weight:g}, {s.candidates} candidates"
    return (f"{fusion}, weights dense {s.dense_weight:g} / BM25 {s.bm25_weight:g}, "
            f"{s.candidates} candidates")


if __name__ == "__main__":
    main()
