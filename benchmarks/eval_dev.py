"""Answer quality on the development sets of ``../shared/eval/`` (issue 8's measures), at 19 and at 16k
abstracts, with the plain llama-index retriever's recall on the same questions.

``python -m benchmarks.eval_dev [--sets icml,chats,airas] [--llm extractive]``

- ``icml`` / ``chats``: ``assistant eval icml2026_dev.jsonl`` / ``icml2026_chats_dev.jsonl --llm NAME
  --json`` in a fresh process over the 19 bundled ICML 2026 abstracts (a temporary data folder; the
  collection is ingested first, outside the timing). Conversation turns are asked in order, each with
  the assistant's own earlier answers as history.
- ``airas``: ``assistant eval airas_dev.jsonl`` over the 16k airas-papers-db collection (40 known-item
  questions, gold by record id + venue + year; 10 out-of-collection). The store is a copy of the
  pre-ingested ``/work/airas16k-data`` (``$AIRAS16K_DATA``) when it is there, else the one
  `ingest_speed.py` left in the benchmark cache, else ``assistant ingest`` of the folder (~15 min).
  The copy lives in the benchmark cache (``$ASSISTANT_BENCH_CACHE``) and is reused.

Baseline: a llama-index `VectorStoreIndex` over Chroma with its default retriever (dense top-k by
cosine, ``similarity_top_k`` 10) and the same ONNX MiniLM (`benchmarks/_baseline.py`); at 19 built from
the papers' text, at 16k from the product store's own vectors (same papers, same embeddings, no
re-embedding). It has no answers and no conversation, so it is scored on recall@5 / MRR of each question
as asked (a chat turn by its own words). Metrics as defined in `assistant/evaluation.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import CACHE, MODEL_DIR, ROOT, SHARED

EVAL = SHARED / "eval"
SETS = {"icml": EVAL / "icml2026_dev.jsonl", "chats": EVAL / "icml2026_chats_dev.jsonl",
        "airas": EVAL / "airas_dev.jsonl"}
AIRAS = SHARED / "data" / "airas-papers-db" / "data"
PREINGESTED = Path(os.environ.get("AIRAS16K_DATA", "/work/airas16k-data"))
AIRAS_DATA = CACHE / "eval-dev" / "airas16k-data"
COLUMNS = ("recall_at_5", "mrr", "gold_cited", "multi_recall", "fact_recall", "citation_precision",
           "false_refusal_rate", "not_in_abstract_rate", "out_of_corpus_rate")
HEADS = ("recall@5", "MRR", "gold cited", "multi recall", "facts", "citation precision", "false refusals",
         "not in abstract", "out of corpus refused")


def _exe() -> str:
    exe = ROOT / ".venv" / "bin" / "assistant"
    return str(exe) if exe.exists() else "assistant"


def _env(data_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("ASSISTANT_CONFIG", "ASSISTANT_COLLECTION", "ASSISTANT_CHROMA_URL", "ASSISTANT_LLM")}
    return {**env, "ASSISTANT_DATA_DIR": str(data_dir), "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)}


def run_eval(qa: Path, data_dir: Path, llm: str, name: str) -> tuple[dict, float]:
    """``assistant eval QA --llm LLM --json`` in a new process; the full report is kept in the cache."""
    report = CACHE / "eval-dev" / f"{name}-{llm}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    cmd = [_exe(), "eval", str(qa), "--llm", llm, "--json", "-o", str(report)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=_env(data_dir), capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"assistant eval {qa.name} exited {proc.returncode}: {proc.stderr[-800:]}")
    return json.loads(proc.stdout), seconds


def airas_store() -> Path:
    """A data folder holding the 16k airas collection (see the module docstring)."""
    from benchmarks.ingest_speed import store_dir

    if (AIRAS_DATA / "chroma").exists():
        return AIRAS_DATA
    AIRAS_DATA.parent.mkdir(parents=True, exist_ok=True)
    for source in (PREINGESTED, store_dir("product", "16k")):
        if (source / "chroma").exists() and (source != PREINGESTED or (source / "READY").exists()):
            print(f"copying the 16k store from {source}", flush=True)
            shutil.copytree(source, AIRAS_DATA, symlinks=True)
            return AIRAS_DATA
    print(f"ingesting {AIRAS} (16k abstracts) into {AIRAS_DATA}", flush=True)
    subprocess.run([_exe(), "ingest", str(AIRAS)], cwd=ROOT, env=_env(AIRAS_DATA), check=True,
                   stdout=subprocess.DEVNULL)
    return AIRAS_DATA


def baseline_index(data_dir: Path, papers, folder: Path, from_vectors: bool):
    """The llama-index baseline over the same papers: built from their text, or from the product
    store's own vectors; kept in `folder` and reopened when it is there."""
    from benchmarks._baseline import build_index, build_index_from_store, open_index

    index = open_index(folder)
    if index is not None:
        return index
    if not from_vectors:
        return build_index([(p.id, p.document) for p in papers], folder)
    return build_index_from_store(data_dir, folder)


def baseline(qa: Path, data_dir: Path, folder: Path, from_vectors: bool) -> dict:
    """recall@5 / MRR of the llama-index default retriever (top 10) on each question as asked."""
    from assistant.evaluation import QuestionResult, load_questions, question_gold, score, summarize
    from assistant.settings import load_settings
    from benchmarks._baseline import retrieve
    from assistant.store.collection import PaperStore

    papers = PaperStore(load_settings(data_dir=data_dir, embedding_model_dir=MODEL_DIR)).papers()
    index = baseline_index(data_dir, papers, folder, from_vectors)
    results = []
    for q in load_questions(qa):
        gold = question_gold(q, papers)[0]
        results.append(score(QuestionResult(q, gold_ids=gold, retrieved=retrieve(index, q.q, 10)), answered=False))
    return summarize(results)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="icml,chats,airas")
    ap.add_argument("--llm", default="extractive")
    args = ap.parse_args()
    wanted = [s for s in args.sets.split(",") if s]
    rows, per_type = [], []
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "data"
        if {"icml", "chats"} & set(wanted):  # ingest the bundled collection once, outside the timed runs
            subprocess.run([_exe(), "papers", "--json"], cwd=ROOT, env=_env(small), stdout=subprocess.DEVNULL,
                           check=True)
        for name in wanted:
            qa = SETS[name]
            data_dir = airas_store() if name == "airas" else small
            data, seconds = run_eval(qa, data_dir, args.llm, name)
            o = data["summary"]["overall"]
            med = sorted(q["seconds"] for q in data["questions"])[len(data["questions"]) // 2]
            papers = data["papers"]
            label = f"{qa.name} ({papers:,} papers): assistant eval --llm {args.llm}"
            print(f"{label}: " + ", ".join(f"{m} {o[m]}" for m in COLUMNS) +
                  f"; errors {o['errors']}; {seconds:.0f} s; median {med:.2f} s per question", flush=True)
            rows.append([label, o["n"], *(_f(o[m]) for m in COLUMNS), o["errors"], f"{med:.2f}"])
            for t, block in data["summary"].items():
                if t != "overall":
                    per_type.append([qa.name, t, block["n"], *(_f(block[m]) for m in COLUMNS)])
            folder = Path(tmp) / f"baseline-{name}" if name != "airas" else CACHE / "eval-dev" / "baseline-airas16k"
            b = baseline(qa, data_dir, folder, from_vectors=name == "airas")["overall"]
            label = f"{qa.name} ({papers:,} papers): llama-index VectorStoreIndex retriever (retrieval only)"
            print(f"{label}: recall_at_5 {b['recall_at_5']}, mrr {b['mrr']}", flush=True)
            rows.append([label, b["n"], _f(b["recall_at_5"]), _f(b["mrr"]), *("–" for _ in COLUMNS[2:]), "–", "–"])
    body = markdown_table(["run", "questions", *HEADS, "errors", "median s / question"], rows)
    body += "\n\nBy question type (`chat` = every conversation turn; a type's block counts its turns too):\n\n"
    body += markdown_table(["set", "type", "n", *HEADS], per_type)
    body += ("\n\nDevelopment sets of `../shared/eval/` (README there): `icml2026_dev.jsonl` 80 questions and "
             "`icml2026_chats_dev.jsonl` 15 conversations (46 turns) over the 19 bundled abstracts; "
             "`airas_dev.jsonl` 40 known-item + 10 out-of-collection questions over the 16k airas-papers-db "
             "collection, where 'gold cited' is the known item cited and 'out of corpus refused' the "
             "out-of-collection question answered 'no paper' with nothing cited. A held-out set of the same "
             "format judges the product; nothing is tuned to these questions. 'gold cited', 'false refusals': "
             "single and multi questions; 'multi recall': share of a multi question's gold papers cited; "
             "'–' = not applicable. The baseline has no answers and no conversation: each question (each "
             "chat turn) is retrieved as asked. Seconds are wall time on a shared 2-core machine.")
    write_section("eval_dev", "Answer quality on the development sets (19 and 16k abstracts)", body,
                  f"python -m benchmarks.eval_dev --sets {args.sets} --llm {args.llm}")


def _f(v) -> str:
    return "–" if v is None else f"{v:.2f}"


if __name__ == "__main__":
    main()
