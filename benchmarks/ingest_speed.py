"""Ingest throughput (abstracts/s) at 19, 5k and 16k abstracts, re-ingest of an unchanged collection,
and the plain llama-index baseline, in the same run.

``python -m benchmarks.ingest_speed [--sizes 19,5k,16k]``

Each measurement runs in a fresh process (import cost included, peak memory from the child's rusage)
into a fresh store under the benchmark cache (``$ASSISTANT_BENCH_CACHE``; the 19 and 16k stores are
kept for `search_latency.py`). Collections: 19 = the bundled ICML 2026 abstracts; 16k = the whole
airas-papers-db folder as it is (18,246 records, 16k after duplicates); 5k = the first 5,000 papers
the product's reader yields from that folder. The product: `assistant ingest` (reading, ids,
duplicate checks, ONNX MiniLM, Chroma upserts). The baseline: the same papers (title + abstract) as
llama-index `Document`s into `VectorStoreIndex.from_documents` over Chroma, same ONNX model.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import CACHE, MODEL_DIR, ROOT, SHARED

AIRAS = SHARED / "data" / "airas-papers-db" / "data"
SIZES = {"19": None, "5k": 5000, "16k": None}
OUT = CACHE / "ingest"


def store_dir(system: str, size: str) -> Path:
    return OUT / f"{system}-{size}"


def source_for(size: str) -> tuple[list[Path], dict]:
    """Input paths for the product and extra ingest options."""
    from assistant.store.ingest import BUNDLED_VENUE, BUNDLED_YEAR, bundled_collection

    if size == "19":
        return [bundled_collection()], {"venue": BUNDLED_VENUE, "year": BUNDLED_YEAR}
    if size == "16k":
        return [AIRAS], {}
    path = OUT / "airas-first-5000.jsonl"
    if not path.exists():
        from assistant.store.ingest import IngestReport, read_papers

        papers = read_papers([AIRAS], IngestReport())[:SIZES[size]]
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            for p in papers:
                f.write(json.dumps({"id": p.source_id, "title": p.title, "abstract": p.abstract,
                                    "authors": list(p.authors), "venue": p.venue, "year": p.year,
                                    "url": p.url}, ensure_ascii=False) + "\n")
    return [path], {}


# --- one measurement, in a child process -------------------------------------------------------------

def child(system: str, size: str, fresh: bool) -> dict:
    started = time.perf_counter()
    paths, opts = source_for(size)
    folder = store_dir(system, size)
    if fresh:
        shutil.rmtree(folder, ignore_errors=True)
    if system == "product":
        from assistant.settings import load_settings
        from assistant.store.collection import PaperStore
        from assistant.store.ingest import ingest

        settings = load_settings(data_dir=folder, embedding_model_dir=MODEL_DIR)
        report = ingest(paths, PaperStore(settings), **opts)
        work = report.seconds
        n, embedded = report.added + report.updated + report.unchanged, report.embedded
        extra = {"added": report.added, "unchanged": report.unchanged, "skipped": len(report.skipped)}
    else:
        from assistant.store.ingest import IngestReport, read_papers

        papers = read_papers(paths, IngestReport(), **opts)
        from benchmarks._baseline import build_index

        t0 = time.perf_counter()
        build_index([(p.id, p.document) for p in papers], folder / "chroma")
        work = time.perf_counter() - t0
        n = embedded = len(papers)
        extra = {}
    import resource

    return {"system": system, "size": size, "abstracts": n, "embedded": embedded,
            "seconds": time.perf_counter() - started, "work_seconds": work,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}


def measure(system: str, size: str, fresh: bool = True) -> dict:
    """Run `child` in a new interpreter and return what it printed."""
    cmd = [sys.executable, "-m", "benchmarks.ingest_speed", "--child", system, size] + ([] if fresh else ["--reuse"])
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                          env={**os.environ, "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)})
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed with code {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


RESULTS = OUT / "results.json"
NAMES = {"product": "assistant ingest", "baseline": "llama-index VectorStoreIndex over Chroma"}


def default_plan(sizes: list[str]) -> list[tuple[str, str, bool]]:
    """Product then baseline per size; the re-ingest of the largest collection right after its ingest."""
    plan = []
    for size in sizes:
        plan.append(("product", size, True))
        if size == sizes[-1]:
            plan.append(("product", size, False))
        plan.append(("baseline", size, True))
    return plan


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="19,5k,16k")
    ap.add_argument("--only", default="", help="Measure only these items (system:size[:re], comma-separated); "
                                               "the other rows come from the last run's saved results.")
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--reuse", action="store_true")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child, fresh=not args.reuse)))
        return
    sizes = args.sizes.split(",")
    plan = default_plan(sizes)
    only = {tuple(x.split(":")) for x in args.only.split(",") if x}
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for system, size, fresh in plan:
        key = f"{system}:{size}" + ("" if fresh else ":re")
        if only and tuple(key.split(":")) not in only:
            continue
        r = measure(system, size, fresh)
        saved[key] = r
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(saved, indent=1))
        rate = r["abstracts"] / r["seconds"]
        print(f"{_name(system, fresh):<44} {size:>4}: {r['abstracts']:>6} abstracts in {r['seconds']:7.1f} s = "
              f"{rate:6.1f}/s, embedded {r['embedded']}, peak {r['peak_mib']:.0f} MiB", flush=True)
        _write(plan, saved, args.sizes)
    _write(plan, saved, args.sizes)


def _name(system: str, fresh: bool) -> str:
    return NAMES[system] + ("" if fresh else ", re-ingest unchanged")


def _write(plan, saved: dict, sizes: str) -> None:
    rows, missing = [], []
    for system, size, fresh in plan:
        key = f"{system}:{size}" + ("" if fresh else ":re")
        r = saved.get(key)
        if r is None:
            missing.append(f"{_name(system, fresh)} at {size}")
            continue
        rows.append([_name(system, fresh), size, r["abstracts"], r["embedded"], f"{r['seconds']:.1f}",
                     f"{r['abstracts'] / r['seconds']:.1f}",
                     f"{r['abstracts'] / max(r['work_seconds'], 1e-9):.1f}", f"{r['peak_mib']:.0f}"])
    body = markdown_table(["pipeline", "collection", "abstracts", "embedded", "process s", "abstracts/s",
                           "abstracts/s after start-up",
                           "peak MiB"], rows)
    body += ("\n\n'process s' and 'abstracts/s': wall time of a fresh process (imports, reading, ids, "
             "embedding with all-MiniLM-L6-v2 on onnxruntime (CPU), Chroma writes) into a new embedded Chroma "
             "store; 'after start-up' counts only the ingest call (`assistant.store.ingest.ingest`, or "
             "`VectorStoreIndex.from_documents`). 19 = bundled ICML 2026 abstracts; 5k = the first 5,000 "
             "papers of airas-papers-db; 16k = the whole airas-papers-db folder (18,246 records; duplicates "
             "reported and skipped). 'embedded' is how many abstracts went through the model: a re-ingest of "
             "an unchanged collection embeds none. Peak MiB is the process's maximum resident memory. The "
             "machine is shared with other work, so rates are noisy; chromadb's own ONNX embedding function is "
             "measured beside the product's embedder, in one run, under 'Embedding throughput: onnxruntime "
             "options' (`benchmarks/embed_options.py`).")
    if missing:
        body += "\n\nNot measured (yet): " + "; ".join(missing) + "."
    write_section("ingest_speed", "Ingest throughput", body, f"python -m benchmarks.ingest_speed --sizes {sizes}")


if __name__ == "__main__":
    main()
