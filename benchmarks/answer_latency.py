"""Answer latency per backend and batch throughput against a llama.cpp server, on the bundled collection.

For each backend (extractive; local = SmolLM2-135M in process; openai = the same model behind
``python -m llama_cpp.server``): seconds to the first text chunk and to the full answer (``Done``), the
median over the questions after one warm-up answer. Then `run_batch` through the openai backend at
concurrency 1 and 8: questions per minute. Writes its section of docs/benchmarks.md.

    .venv/bin/python -m benchmarks.answer_latency [--questions 6] [--batch 8] [--max-tokens 64] [-k 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "What speedup does WinQ give to quantization-aware training?",
    "How much KV cache compression does STAR-KV achieve?",
    "What does NorMuon combine?",
    "Which paper trains a coder model for interactive frontend games?",
    "How does DiffuSearch choose the infilling order?",
    "What problem with GRPO training does PCR address?",
    "Which papers compress the KV cache?",
    "What does EDEN adapt during decoding?",
]


def time_answer(question, retriever, llm, settings) -> tuple[float | None, float, str]:
    """``(seconds to first text, seconds to Done or Error, error message or "")``."""
    from assistant.answering import answer
    from assistant.events import Done, Error, TextDelta

    started = time.perf_counter()
    first = None
    for ev in answer(question, retriever=retriever, llm=llm, settings=settings):
        if isinstance(ev, TextDelta) and first is None:
            first = time.perf_counter() - started
        elif isinstance(ev, Done):
            return first, time.perf_counter() - started, ""
        elif isinstance(ev, Error):
            return first, time.perf_counter() - started, ev.message
    return first, time.perf_counter() - started, "no Done"


def latency_row(label, questions, retriever, llm, settings) -> list[object]:
    time_answer(questions[0], retriever, llm, settings)  # warm-up: model load, caches
    firsts, totals, errors = [], [], 0
    for q in questions:
        first, total, error = time_answer(q, retriever, llm, settings)
        if error:
            errors += 1
            print(f"  {label}: error: {error}", file=sys.stderr)
            continue
        totals.append(total)
        if first is not None:
            firsts.append(first)
        print(f"  {label}: first {first if first is None else round(first, 2)} s, full {total:.2f} s  {q}",
              file=sys.stderr)
    med = lambda xs: round(statistics.median(xs), 3) if xs else "-"  # noqa: E731
    return [label, llm.model, len(totals), med(firsts), med(totals), max(totals) if totals else "-", errors]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=6, help="questions per backend for latency")
    ap.add_argument("--batch", type=int, default=8, help="questions per batch run")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("-k", "--top-k", type=int, default=3)
    ap.add_argument("--no-local", action="store_true", help="skip the in-process local backend")
    args = ap.parse_args()

    os.environ.setdefault("ASSISTANT_EMBEDDING_MODEL_DIR", str(ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2"))
    data_dir = Path(tempfile.mkdtemp(prefix="bench-answer-"))
    from assistant.batch import BatchQuestion, run_batch
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore
    from assistant.store.ingest import ensure_default_collection
    from tests.llama_server import missing, start_llama_server

    base = load_settings(data_dir=data_dir, top_k=args.top_k, max_tokens=args.max_tokens, context_window=2048,
                         openai_api_key=None, openai_base_url=None)
    store = PaperStore(base)
    ensure_default_collection(store)
    retriever = Retriever(store)
    questions = (QUESTIONS * 4)[: args.questions]
    rows = [latency_row("extractive", questions, retriever, make_llm(base, "extractive"), base)]
    why = missing()
    batch_rows: list[list[object]] = []
    if why:
        print(f"skipping local and llama.cpp server: {why}", file=sys.stderr)
    else:
        if not args.no_local:
            rows.append(latency_row("local (llama.cpp in process)", questions, retriever,
                                    make_llm(base, "local"), base))
        with start_llama_server(n_ctx=2048) as server:
            s = base.model_copy(update={"openai_base_url": server.url, "openai_api_key": None,
                                        "model": server.model, "timeout": 300.0})
            llm = make_llm(s, "openai")
            rows.append(latency_row("openai (llama_cpp.server)", questions, retriever, llm, s))
            batch_qs = [BatchQuestion(str(i), q) for i, q in enumerate((QUESTIONS * 4)[: args.batch], start=1)]
            for concurrency in (1, 8):
                out = data_dir / f"batch-{concurrency}.jsonl"
                summary = run_batch(batch_qs, out, retriever=retriever, llm=llm, settings=s, concurrency=concurrency)
                batch_rows.append([concurrency, len(batch_qs), summary.answered, summary.failed,
                                   round(summary.seconds, 2), round(summary.per_minute, 2)])
                print(f"  batch c={concurrency}: {summary.to_json()}", file=sys.stderr)

    from benchmarks._report import markdown_table, write_section

    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())

    body = (f"Bundled ICML 2026 collection (19 abstracts), top_k={args.top_k}, max_tokens={args.max_tokens}, "
            f"context window 2048 tokens, temperature 0; median over {len(questions)} questions after one warm-up "
            f"answer (retrieval included). Load average at the end (1/5/15 min): {load} on a machine shared with "
            f"other jobs, so the model rows vary several-fold between runs.\n\n"
            + markdown_table(["backend", "model", "answers", "first text (s, median)", "full answer (s, median)",
                              "full answer (s, max)", "errors"], rows))
    if batch_rows:
        body += ("\n\nBatch throughput, `run_batch` through the openai backend against `python -m llama_cpp.server` "
                 "(SmolLM2-135M-Instruct Q4_1, n_ctx 2048, 2 threads, --interrupt_requests False). The server runs one "
                 "model, so concurrency overlaps retrieval, HTTP and queueing rather than generation; on this "
                 "shared 2-core machine the difference between the rows is mostly the load at the time.\n\n"
                 + markdown_table(["concurrency", "questions", "answered", "failed", "seconds", "questions/minute"],
                                  batch_rows))
    write_section("answer_latency", "Answer latency and batch throughput", body,
                  "python -m benchmarks.answer_latency " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
