"""Ingest throughput (abstracts/s) at 19, 1k, 5k and 16k abstracts, re-ingest of an unchanged collection,
and the plain llama-index baseline, in the same run.

``python -m benchmarks.ingest_speed [--sizes 19,5k,16k] [--precisions fp32,int8] [--before 819de1a]``

Each measurement runs in a fresh process (import cost included, peak memory from the child's rusage)
into a fresh store under the benchmark cache (``$ASSISTANT_BENCH_CACHE``; the 19 and 16k stores are
kept for `search_latency.py`). Collections: 19 = the bundled ICML 2026 abstracts; 16k = the whole
airas-papers-db folder as it is (18,246 records, 16k after duplicates); 5k = the first 5,000 papers
the product's reader yields from that folder. The product: `assistant ingest` (reading, ids,
duplicate checks, ONNX MiniLM, Chroma upserts). The baseline: the same papers (title + abstract) as
llama-index `Document`s into `VectorStoreIndex.from_documents` over Chroma, same ONNX model.
`--precisions` measures the product with each embedding precision (``ASSISTANT_EMBEDDING_PRECISION``;
the int8 copy of the model is made by the run, as on a first ingest). `--before COMMIT` measures the
product's code at COMMIT (exported with ``git archive`` into the benchmark cache, run by the same
interpreter) right before this checkout's, row for row, so both see the same load. 1k = the first
1,000 papers of the 5k subset.
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
SIZES = {"19": None, "1k": 1000, "5k": 5000, "16k": None}
OUT = CACHE / "ingest"


def store_dir(system: str, size: str, precision: str = "", code: str = "") -> Path:
    """The data folder a measurement writes (the default precision's is the one other benchmarks read)."""
    return OUT / f"{system}-{size}" if not (precision or code) else OUT / f"{system}-{size}-{precision}{code}"


def source_for(size: str) -> tuple[list[Path], dict]:
    """Input paths for the product and extra ingest options."""
    from assistant.store.ingest import BUNDLED_VENUE, BUNDLED_YEAR, bundled_collection

    if size == "19":
        return [bundled_collection()], {"venue": BUNDLED_VENUE, "year": BUNDLED_YEAR}
    if size == "16k":
        return [AIRAS], {}
    path = OUT / f"airas-first-{SIZES[size]}.jsonl"
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

def child(system: str, size: str, fresh: bool, precision: str = "", code: str = "") -> dict:
    started = time.perf_counter()
    if code:  # the code of another commit (exported by `before_root`) wins over this checkout's
        sys.path.insert(0, str(before_root(code)))
    paths, opts = source_for(size)
    folder = store_dir(system, size, precision, code)
    if fresh:
        shutil.rmtree(folder, ignore_errors=True)
    if system == "product":
        from assistant.settings import load_settings
        from assistant.store.collection import PaperStore
        from assistant.store.ingest import ingest

        settings = load_settings(data_dir=folder, embedding_model_dir=MODEL_DIR,
                                 **({"embedding_precision": precision} if precision else {}))
        if code:
            import assistant.store.ingest as module

            assert Path(module.__file__).resolve().is_relative_to(before_root(code).resolve()), module.__file__
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


def measure(system: str, size: str, fresh: bool = True, precision: str = "", code: str = "") -> dict:
    """Run `child` in a new interpreter and return what it printed, with the load average around it."""
    cmd = ([sys.executable, "-m", "benchmarks.ingest_speed", "--child", system, size]
           + ([] if fresh else ["--reuse"]) + (["--precision", precision] if precision else [])
           + (["--code", code] if code else []))
    load_before = load()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                          env={**os.environ, "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)})
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed with code {proc.returncode}")
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "load": f"{load_before} → {load()}"}


def load() -> str:
    """The 1-minute load average (runnable processes; the machine has `os.cpu_count()` cores)."""
    return open("/proc/loadavg").read().split()[0]


def before_root(commit: str) -> Path:
    """The code of `commit`, exported once into the benchmark cache (``git archive``)."""
    folder = OUT.parent / f"code-{commit}"
    if not (folder / "store").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    # Installed, store/ and prompts/ are `assistant.store` / `assistant.prompts`; an editable install maps
    # those names to the checkout's folders, so without these links the exported code would import this
    # checkout's store (checked in `child`).
    for name in ("store", "prompts"):
        link = folder / "assistant" / name
        if (folder / name).is_dir() and not link.exists():
            link.symlink_to(Path("..") / name)
    return folder


RESULTS = OUT / "results.json"
NAMES = {"product": "assistant ingest", "baseline": "llama-index VectorStoreIndex over Chroma"}


def default_plan(sizes: list[str], precisions: list[str], before: str) -> list[tuple[str, str, bool, str, str]]:
    """Per size: the product (the code before, then this checkout, per precision), then the baseline;
    the re-ingest of the largest collection right after its ingest. Items: (system, size, fresh, precision, code)."""
    plan = []
    for size in sizes:
        for precision in precisions:
            if before:
                plan.append(("product", size, True, precision, before))
            plan.append(("product", size, True, precision, ""))
        if size == sizes[-1]:
            plan.append(("product", size, False, precisions[-1], ""))
        plan.append(("baseline", size, True, "", ""))
    return plan


def _key(system: str, size: str, fresh: bool, precision: str, code: str) -> str:
    return ":".join([system, size] + ([] if fresh else ["re"]) + ([precision] if precision else [])
                    + ([f"@{code}"] if code else []))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="19,5k,16k")
    ap.add_argument("--precisions", default="", help="embedding precisions of the product rows, e.g. fp32,int8 "
                                                     "(default: the configured one)")
    ap.add_argument("--before", default="", help="a commit whose product code is measured before this checkout's")
    ap.add_argument("--only", default="", help="Measure only these items (their keys in results.json, "
                                               "comma-separated); the other rows come from the last run's results.")
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--precision", default="")
    ap.add_argument("--code", default="")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child, fresh=not args.reuse, precision=args.precision, code=args.code)))
        return
    sizes = args.sizes.split(",")
    plan = default_plan(sizes, args.precisions.split(",") if args.precisions else [""], args.before)
    only = {x for x in args.only.split(",") if x}
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for item in plan:
        key = _key(*item)
        if only and key not in only:
            continue
        r = measure(item[0], item[1], item[2], item[3], item[4])
        saved[key] = r
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(saved, indent=1))
        rate = r["abstracts"] / r["seconds"]
        print(f"{_name(*item):<60} {item[1]:>4}: {r['abstracts']:>6} abstracts in {r['seconds']:7.1f} s = "
              f"{rate:6.1f}/s, embedded {r['embedded']}, peak {r['peak_mib']:.0f} MiB, load {r['load']}", flush=True)
        _write(plan, saved, args)
    _write(plan, saved, args)


def _name(system: str, size: str, fresh: bool, precision: str, code: str) -> str:
    return (NAMES[system] + (f" {precision}" if precision else "") + (f", code before ({code})" if code else "")
            + ("" if fresh else ", re-ingest unchanged"))


def _write(plan, saved: dict, args) -> None:
    rows, missing = [], []
    for item in plan:
        r = saved.get(_key(*item))
        if r is None:
            missing.append(f"{_name(*item)} at {item[1]}")
            continue
        rows.append([_name(*item), item[1], r["abstracts"], r["embedded"], f"{r['seconds']:.1f}",
                     f"{r['abstracts'] / r['seconds']:.1f}",
                     f"{r['abstracts'] / max(r['work_seconds'], 1e-9):.1f}", f"{r['peak_mib']:.0f}",
                     r.get("load", "")])
    body = markdown_table(["pipeline", "collection", "abstracts", "embedded", "process s", "abstracts/s",
                           "abstracts/s after start-up", "peak MiB", "1-min load"], rows)
    body += ("\n\n'process s' and 'abstracts/s': wall time of a fresh process (imports, reading, ids, "
             "embedding with all-MiniLM-L6-v2 on onnxruntime (CPU), Chroma writes) into a new embedded Chroma "
             "store; 'after start-up' counts only the ingest call (`assistant.store.ingest.ingest`, or "
             "`VectorStoreIndex.from_documents`). 19 = bundled ICML 2026 abstracts; 1k / 5k = the first 1,000 / "
             "5,000 papers of airas-papers-db; 16k = the whole airas-papers-db folder (18,246 records; duplicates "
             "reported and skipped). 'embedded' is how many abstracts went through the model: a re-ingest of "
             "an unchanged collection embeds none. int8 rows of the code before 2e618fa include making the int8 "
             "copy of the model (in each new data folder, ~2 s); later code makes it once per user, and it was "
             "already made when these rows ran. Peak MiB is the process's maximum resident memory. '1-min load' "
             "is the load average before → after the row, on 2 cores shared with other work: compare rows "
             "measured side by side, not runs.")
    if missing:
        body += "\n\nNot measured (yet): " + "; ".join(missing) + "."
    cmd = f"python -m benchmarks.ingest_speed --sizes {args.sizes}"
    cmd += f" --precisions {args.precisions}" if args.precisions else ""
    cmd += f" --before {args.before}" if args.before else ""
    write_section("ingest_speed", "Ingest throughput", body, cmd)


if __name__ == "__main__":
    main()
