"""Does the int8 MiniLM lose retrieval quality? fp32 vs int8 side by side, in one run.

``python -m benchmarks.int8_quality [--airas 1000]``

SciFact: the product's hybrid (shipped settings) and dense retrieval over two SciFact stores under the
benchmark cache, one embedded with the shipped fp32 model (the store `retrieval_scifact.py` uses) and
one with the int8 copy (``embedding_precision="int8"``: `store.embeddings.quantized_model`);
nDCG@10 / Recall@100 on the BEIR train and test splits. airas known-item search: the first `--airas`
papers of airas-papers-db (the same reader order as `ingest_speed.py`'s 5k subset), each store
embedded with one precision; every paper with a real title is searched for by its title, and by
its abstract's first sentence (the document is title + abstract, as ingested); success@1 and MRR@10
of finding that paper. The int8 model may become the default only
if the SciFact test nDCG@10 of the hybrid drops by at most 0.005 and the known-item figures do not drop.
"""

from __future__ import annotations

import argparse
import json
import time

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import CACHE, MODEL_DIR, evaluate, load_qrels, load_queries, open_store


def _tag(precision: str) -> str:
    """The store folder's tag: ``int8v2`` for the int8 copy of `INT8_VERSION` 2 (a store embedded with an older
    copy is not reused), ``fp32`` as is."""
    from assistant.store.embeddings import INT8_VERSION

    return f"int8v{INT8_VERSION}" if precision == "int8" else precision


def scifact_rows(precision: str) -> list[list[object]]:
    from assistant.retrieval import Retriever

    data_dir = CACHE / ("scifact-store" if precision == "fp32" else f"scifact-store-{_tag(precision)}")
    t0 = time.perf_counter()
    store, report, doc_of = open_store(data_dir=data_dir, embedding_precision=precision)
    print(f"SciFact {precision}: {len(doc_of)} abstracts, embedded {report.embedded} in "
          f"{time.perf_counter() - t0:.0f} s", flush=True)
    queries = load_queries()
    rows = []
    for mode in ("hybrid", "dense"):
        row: list[object] = [f"{mode} ({precision})"]
        for split in ("train", "test"):
            qrels = load_qrels(split)
            run = {q: [doc_of[r.paper.id] for r in Retriever(store).search(queries[q], top_k=100, mode=mode)]
                   for q in qrels}
            m = evaluate(run, qrels)
            row += [m["ndcg@10"], m["recall@100"]]
            print(f"{row[0]:<16} {split:<5} nDCG@10 {m['ndcg@10']:.4f} R@100 {m['recall@100']:.4f}", flush=True)
        rows.append(row)
    return rows


def airas_subset(n: int):
    from benchmarks.ingest_speed import OUT, source_for

    src = source_for("5k")[0][0]
    path = OUT / f"airas-first-{n}.jsonl"
    if not path.exists():
        with open(src, encoding="utf-8") as f, open(path, "w", encoding="utf-8") as out:
            for k, line in enumerate(f):
                if k >= n:
                    break
                out.write(line)
    return path


def known_item_rows(precision: str, n: int) -> list[list[object]]:
    from assistant.retrieval import Retriever
    from assistant.settings import load_settings
    from assistant.text import split_sentences
    from assistant.store.collection import PaperStore
    from assistant.store.ingest import ingest

    path = airas_subset(n)
    settings = load_settings(data_dir=CACHE / f"airas-{n}-{_tag(precision)}", embedding_model_dir=MODEL_DIR,
                             embedding_precision=precision)
    store = PaperStore(settings)
    t0 = time.perf_counter()
    report = ingest([path], store)
    print(f"airas {n} {precision}: embedded {report.embedded} in {time.perf_counter() - t0:.0f} s", flush=True)
    papers = [p for p in store.papers() if not p.title_is_derived]
    retriever = Retriever(store)
    rows = []
    for kind in ("title", "first sentence"):
        for mode in ("hybrid", "dense"):
            hits1, rr = 0, 0.0
            for p in papers:
                q = p.title if kind == "title" else (split_sentences(p.abstract) or [p.abstract])[0]
                ranked = [r.paper.id for r in retriever.search(q, top_k=10, mode=mode)]
                if ranked and ranked[0] == p.id:
                    hits1 += 1
                if p.id in ranked:
                    rr += 1.0 / (ranked.index(p.id) + 1)
            rows.append([f"{mode} ({precision})", kind, len(papers), hits1 / len(papers), rr / len(papers)])
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--airas", type=int, default=1000, help="papers in the known-item test (0: skip it)")
    args = ap.parse_args()
    started = time.perf_counter()
    load_before = open("/proc/loadavg").read().split()[0]
    sci = scifact_rows("fp32") + scifact_rows("int8")
    sci.sort(key=lambda r: r[0].split()[0])
    write(sci, [], args.airas, load_before, started)  # SciFact first: the known-item part embeds 2 × n more
    if args.airas:
        known = known_item_rows("fp32", args.airas) + known_item_rows("int8", args.airas)
        known.sort(key=lambda r: (r[1], r[0].split()[0]))
        write(sci, known, args.airas, load_before, started)


def write(sci, known, n: int, load_before: str, started: float) -> None:
    body = markdown_table(["retriever (precision)", "train nDCG@10", "train R@100", "test nDCG@10", "test R@100"], sci)
    if known:
        body += "\n\n" + markdown_table(["retriever (precision)", "query", "papers", "success@1", "MRR@10"], known)
    body += (f"\n\nSciFact: BEIR train (809 queries) and test (300 queries), product settings (hybrid = tmm, "
             f"dense 0.8 / BM25 0.2, 100 candidates). int8 = the product's int8 copy (`quantized_model`: the "
             f"attention fused into onnxruntime's Attention operator, then `quantize_dynamic`, QInt8 weights per "
             f"channel) of the shipped fp32 file. ")
    body += (f"Known-item: the first {n} airas papers; each paper with a real title is the target of one query "
             f"(its title, or its abstract's first sentence). " if known else "Known-item: not measured in this run. ")
    body += (f"1-minute load average {load_before} at the start (2 cores shared with other work); run time "
             f"{time.perf_counter() - started:.0f} s.")
    write_section("int8_quality", "int8 vs fp32 MiniLM: retrieval quality", body,
                  f"python -m benchmarks.int8_quality --airas {n}")


if __name__ == "__main__":
    main()
