"""BEIR SciFact, read in place from ``../shared/data/scifact`` (never copied into the repo).

Corpus: ``hf_allenai_scifact_csv/scifact.zip`` → ``corpus_train.csv`` (5,183 abstracts; ``doc_id`` is
the BEIR corpus id). Its ``abstract`` column is a numpy-array repr of the sentence list
(``['One.'\\n 'Two.']``, no commas), so the sentences are pulled out with a regex over quoted strings
and joined with a space, as BEIR's ``corpus.jsonl`` has them. Queries: ``beir/queries.jsonl``;
relevance judgments: ``beir/qrels/{train,test}.tsv`` (Thakur et al., "BEIR", NeurIPS 2021 D&B).

Metrics follow ``pytrec_eval`` / BEIR: nDCG@10 with graded gains ``rel`` and ``1/log2(rank+1)``
discounts, ideal DCG from the judged documents; Recall@100 = judged relevant found in the top 100 /
judged relevant; both averaged over the queries that have judgments.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ASSISTANT_SHARED_DIR", ROOT.parent / "shared"))
SCIFACT_DIR = SHARED / "data" / "scifact"
MODEL_DIR = Path(os.environ.get("ASSISTANT_EMBEDDING_MODEL_DIR", SHARED / "models" / "all-MiniLM-L6-v2"))
# Benchmark caches (SciFact JSONL for ingest, Chroma stores, query vectors) live outside the repo.
CACHE = Path(os.environ.get("ASSISTANT_BENCH_CACHE", Path.home() / ".cache" / "paper-assistant-bench"))

_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", re.S)
_ESCAPE = re.compile(r"\\(.)", re.S)


def parse_sentences(numpy_repr: str) -> list[str]:
    """The sentences of a numpy-repr list such as ``['One.'\\n 'It\\'s two.']`` → ``["One.", "It's two."]``."""
    out = []
    for m in _QUOTED.finditer(numpy_repr):
        raw = m.group(1) if m.group(1) is not None else m.group(2)
        out.append(_ESCAPE.sub(lambda e: {"n": "\n", "t": "\t"}.get(e.group(1), e.group(1)), raw))
    return out


@dataclass(frozen=True)
class Doc:
    doc_id: str
    title: str
    text: str


def load_corpus(folder: Path = SCIFACT_DIR) -> list[Doc]:
    """The 5,183 SciFact abstracts, in file order."""
    with zipfile.ZipFile(folder / "hf_allenai_scifact_csv" / "scifact.zip") as z:
        raw = z.read("corpus_train.csv").decode("utf-8")
    docs = []
    for row in csv.DictReader(io.StringIO(raw)):
        docs.append(Doc(str(row["doc_id"]).strip(), row["title"].strip(), " ".join(parse_sentences(row["abstract"]))))
    return docs


def load_queries(folder: Path = SCIFACT_DIR) -> dict[str, str]:
    with open(folder / "beir" / "queries.jsonl", encoding="utf-8") as f:
        return {str(q["_id"]): q["text"] for q in map(json.loads, f) if q}


def load_qrels(split: str, folder: Path = SCIFACT_DIR) -> dict[str, dict[str, int]]:
    """``{query_id: {doc_id: relevance}}`` for split ``train`` or ``test``."""
    out: dict[str, dict[str, int]] = {}
    with open(folder / "beir" / "qrels" / f"{split}.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            if line.strip():
                q, d, s = line.split("\t")
                out.setdefault(q, {})[d] = int(s)
    return out


def write_jsonl(docs: list[Doc], path: Path) -> Path:
    """The corpus as JSONL records (``id``, ``title``, ``abstract``, ``venue``) that `assistant ingest` reads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"id": d.doc_id, "title": d.title, "abstract": d.text, "venue": "SciFact"}) + "\n")
    tmp.replace(path)
    return path


def ndcg_at_k(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(rels.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: list[str], rels: dict[str, int], k: int = 100) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def evaluate(run: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    """Mean nDCG@10 and Recall@100 of `run` (``{query_id: ranked doc ids}``) over the judged queries."""
    qs = list(qrels)
    return {"ndcg@10": sum(ndcg_at_k(run.get(q, []), qrels[q]) for q in qs) / len(qs),
            "recall@100": sum(recall_at_k(run.get(q, []), qrels[q]) for q in qs) / len(qs)}


def open_store(data_dir: Path | None = None, collection: str = "scifact", **overrides):
    """The real product path: SciFact ingested (idempotently: a re-run embeds nothing) into an embedded
    Chroma `PaperStore` under the benchmark cache. Returns ``(store, report, {paper id: doc id})``."""
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore
    from assistant.store.ingest import ingest

    data_dir = data_dir or CACHE / "scifact-store"
    settings = load_settings(data_dir=data_dir, collection=collection, embedding_model_dir=MODEL_DIR, **overrides)
    store = PaperStore(settings)
    jsonl = CACHE / "scifact-corpus.jsonl"
    if not jsonl.exists():
        write_jsonl(load_corpus(), jsonl)
    report = ingest([jsonl], store)
    if not report.ok:
        raise RuntimeError(f"SciFact ingest had errors: {report.errors[:3]}")
    doc_of = {p.id: p.source_id for p in store.papers()}
    return store, report, doc_of
