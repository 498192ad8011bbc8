"""`assistant eval` on ``../shared/eval/seed_dev_qa.jsonl`` for the extractive and local backends, with
the plain llama-index retriever's recall@5 / MRR on the same questions.

``python -m benchmarks.eval_seed [--backends extractive,local]``

Each backend runs the user's command, ``assistant eval QA --llm NAME --json``, in a fresh process over
the bundled ICML 2026 collection (a temporary data folder, so the bundled abstracts are ingested
first, outside the timing of the answers). The baseline is a llama-index `VectorStoreIndex` over Chroma
built from the same 19 papers with the same ONNX MiniLM; its default retriever (``similarity_top_k``
10) is scored with the same recall@5 / MRR code (it has no answers, so no answer metrics).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import CACHE, MODEL_DIR, ROOT, SHARED

SEED = SHARED / "eval" / "seed_dev_qa.jsonl"
METRICS = ("recall_at_5", "mrr", "fact_recall", "citation_precision", "refusal_rate")


def run_backend(name: str, data_dir: Path) -> tuple[dict, float]:
    exe = ROOT / ".venv" / "bin" / "assistant"
    report = CACHE / f"eval-seed-{name}.json"  # the full per-question report, kept for inspection
    report.parent.mkdir(parents=True, exist_ok=True)
    cmd = [str(exe) if exe.exists() else "assistant", "eval", str(SEED), "--llm", name, "--json", "-o", str(report)]
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(data_dir), "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)}
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"assistant eval --llm {name} exited {proc.returncode}: {proc.stderr[-500:]}")
    return json.loads(proc.stdout), seconds


def baseline(data_dir: Path) -> dict:
    """recall@5 and MRR of the llama-index default retriever over the same papers."""
    from assistant.evaluation import QuestionResult, load_questions, resolve_gold, score, summarize
    from assistant.settings import load_settings
    from benchmarks._baseline import build_index, retrieve
    from assistant.store.collection import PaperStore

    papers = PaperStore(load_settings(data_dir=data_dir, embedding_model_dir=MODEL_DIR)).papers()
    with tempfile.TemporaryDirectory() as tmp:
        index = build_index([(p.id, p.document) for p in papers], Path(tmp) / "chroma")
        results = []
        for q in load_questions(SEED):
            gold = resolve_gold(q.gold, papers)[0] if q.type != "out_of_corpus" else []
            results.append(score(QuestionResult(q, gold_ids=gold, retrieved=retrieve(index, q.q, 10)), answered=False))
    return {"summary": summarize(results)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backends", default="extractive,local")
    args = ap.parse_args()
    rows, per_type = [], []
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        # ingest the bundled collection once, outside the timed runs
        env = {**os.environ, "ASSISTANT_DATA_DIR": str(data_dir), "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)}
        subprocess.run([str(ROOT / ".venv" / "bin" / "assistant"), "papers", "--json"], cwd=ROOT, env=env,
                       stdout=subprocess.DEVNULL, check=True)
        for name in args.backends.split(","):
            data, seconds = run_backend(name, data_dir)
            o = data["summary"]["overall"]
            answer_s = sorted(q["seconds"] for q in data["questions"])
            med = answer_s[len(answer_s) // 2]
            label = f"assistant eval --llm {name} ({data.get('model') or name})"
            print(f"{label}: " + ", ".join(f"{m} {o[m]}" for m in METRICS) +
                  f"; errors {o['errors']}; {seconds:.0f} s for {o['n']} questions; median {med:.1f} s per question",
                  flush=True)
            rows.append([label, o["n"], *(_f(o[m]) for m in METRICS), o["errors"], f"{med:.1f}", f"{seconds:.0f}"])
            for t, block in data["summary"].items():
                if t != "overall":
                    per_type.append([name, t, block["n"], *(_f(block[m]) for m in METRICS)])
        b = baseline(data_dir)["summary"]["overall"]
        label = "llama-index VectorStoreIndex retriever (retrieval only)"
        print(f"{label}: recall_at_5 {b['recall_at_5']}, mrr {b['mrr']}", flush=True)
        rows.append([label, b["n"], _f(b["recall_at_5"]), _f(b["mrr"]), "–", "–", "–", "–", "–", "–"])
    body = markdown_table(["run", "questions", "recall@5", "MRR", "fact recall", "citation precision",
                           "refusal rate", "errors", "median s / question", "total s"], rows)
    body += "\n\nBy question type:\n\n" + markdown_table(
        ["backend", "type", "n", "recall@5", "MRR", "fact recall", "citation precision", "refusal rate"], per_type)
    body += ("\n\n12 development questions over the 19 bundled abstracts (9 single, 1 multi, 1 out of corpus, "
             "1 not in the abstract): too few for fine distinctions; a held-out set of the same format is used "
             "to judge the product. Metrics as defined in `assistant/evaluation.py`; '–' = not applicable. "
             "Seconds are wall time on a shared 2-core machine (local = SmolLM2-135M-Instruct on llama.cpp, CPU).")
    write_section("eval_seed", "Answer quality: assistant eval on seed_dev_qa.jsonl", body,
                  f"python -m benchmarks.eval_seed --backends {args.backends}")


def _f(v) -> str:
    return "–" if v is None else f"{v:.2f}"


if __name__ == "__main__":
    main()
