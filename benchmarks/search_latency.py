"""Search latency: warm p50/p95 (ms) and cold processes (s) at 19 and 16k abstracts; peak memory;
this checkout against the code before the speed work and the plain llama-index baseline, in one run.

``python -m benchmarks.search_latency [--sizes 19,16k] [--rounds 3] [--before c76ae31]``

Uses the stores `ingest_speed.py` left under the benchmark cache (``$ASSISTANT_BENCH_CACHE``; run it
first, or copy a data folder that holds the 16k airas collection to ``<cache>/ingest/product-16k``).
Warm: one process opens the store, runs one search to load the model and the BM25 index, then times
`Retriever.search(q, top_k=10)` (hybrid) over a fixed list of queries, and the same queries with a
venue + year filter. Cold: a new process runs ``python -m assistant search QUERY -k 10 --json`` and
``python -m assistant ask QUESTION --llm extractive --json`` (the user's commands, imports included),
under ``/usr/bin/time -v`` for the peak resident memory. `--before COMMIT` adds the same
measurements for the code of COMMIT (exported with ``git archive`` into the cache; same store, same
interpreter). Baseline: the llama-index `VectorStoreIndex` over the same papers in Chroma, its default
retriever with ``similarity_top_k=10`` (dense only), the same ONNX MiniLM; where `ingest_speed.py` did
not build it, it is built from the product store's own vectors (no re-embedding). Every system is
measured once per round, systems interleaved, `--rounds` rounds; the tables give medians over rounds
(warm: over every query of every round). A phase table shows where a warm search of this checkout
spends its time, next to the per-query work the code before it did.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import MODEL_DIR, ROOT
from benchmarks.ingest_speed import OUT, store_dir

QUERIES = [
    "KV cache compression", "What is NorMuon and what does it combine?", "diffusion language models",
    "reinforcement learning from human feedback reward models", "graph neural networks over-smoothing",
    "quantization-aware training speedup", "Which papers study optimizers for training large language models?",
    "contrastive learning for image representations", "mixture of experts routing", "21.74%",
    "federated learning with non-IID data", "adversarial robustness certification", "GRPO",
    "vision transformers for object detection", "in-context learning theory", "Monte Carlo Tree Search",
    "sparse attention long context", "neural architecture search", "causal inference with neural networks",
    "protein structure prediction", "offline reinforcement learning", "test-time adaptation",
    "low-rank adaptation fine-tuning", "speculative decoding", "medical image segmentation",
]
WARM_REPEATS = 2  # each query this many times
QUESTION = "Which papers compress the KV cache, and by how much?"
COLD_QUERY = "KV cache compression with quantization"


def baseline_dir(size: str):
    """The llama-index baseline's Chroma folder: the one `ingest_speed.py` built, else one built here
    from the product store's own vectors (same papers, same embeddings, no re-embedding)."""
    built = store_dir("baseline", size) / "chroma"
    if built.exists():
        return built
    return OUT / f"baseline-from-vectors-{size}" / "chroma"


def build_baseline_from_vectors(size: str) -> None:
    from benchmarks._baseline import build_index_from_store

    if not baseline_dir(size).exists():
        build_index_from_store(store_dir("product", size), baseline_dir(size))


def filter_for(size: str):
    from assistant.retrieval import Filters

    return Filters(venue="ICML", year_min=2026) if size == "19" else Filters(venue="ICML,NeurIPS", year_min=2023)


def child_warm(system: str, size: str) -> dict:
    import resource

    started = time.perf_counter()
    filtered = None
    if system == "product":  # this checkout, or the code before (the child runs in that folder)
        from assistant.retrieval import Retriever
        from assistant.settings import load_settings
        from assistant.store.collection import PaperStore

        store = PaperStore(load_settings(data_dir=store_dir("product", size), embedding_model_dir=MODEL_DIR))
        retriever = Retriever(store)
        n = store.count()
        flt = filter_for(size)

        def search(q):
            return retriever.search(q, top_k=10)

        def filtered(q):
            return retriever.search(q, top_k=10, filters=flt)
    else:
        from benchmarks._baseline import open_index, retrieve

        index = open_index(baseline_dir(size))
        n = index.vector_store._collection.count()

        def search(q):
            return retrieve(index, q, 10)
    search("warm-up query")
    ready = time.perf_counter() - started
    times, ftimes = [], []
    for _ in range(WARM_REPEATS):
        for q in QUERIES:
            t0 = time.perf_counter()
            search(q)
            times.append((time.perf_counter() - t0) * 1000)
            if filtered is not None:
                t0 = time.perf_counter()
                filtered(q)
                ftimes.append((time.perf_counter() - t0) * 1000)
    return {"abstracts": n, "times": times, "ftimes": ftimes, "ready_s": ready,
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def child_phases(size: str) -> dict:
    """Median ms per query of each part of a warm hybrid search of this checkout, and of the per-query
    work the code before it did (an id→row dict and a Python filter loop over every paper)."""
    import numpy as np

    from assistant.retrieval import PaperTable, Retriever
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore

    store = PaperStore(load_settings(data_dir=store_dir("product", size), embedding_model_dir=MODEL_DIR))
    retriever = Retriever(store)
    retriever.search("warm-up query")
    papers, bm25 = store.bm25()
    flt = filter_for(size)
    vector = store.embedder.embed(["warm-up"])[0]
    parts = {
        "revision check (Chroma metadata)": lambda q: store.revision(),
        "snapshot lookup (papers + BM25 index)": lambda q: store.bm25(),
        "query embedding (ONNX MiniLM)": lambda q: store.embedder.embed([q]),
        "dense kNN, 100 candidates (Chroma HNSW)": lambda q: store.dense_query(vector, 100),
        "dense kNN, 100 candidates, venue+year where": lambda q: store.dense_query(vector, 100,
                                                                                    where=flt.chroma_where()),
        "BM25 score vector (bm25s) + top 100": lambda q: np.argpartition(-bm25.scores(q), min(99, len(papers) - 1))[:100],
        "filter mask (arrays)": lambda q: PaperTable.of(store, papers).mask(flt),
        "whole search, no filter": lambda q: retriever.search(q, top_k=10),
        "whole search, venue+year filter": lambda q: retriever.search(q, top_k=10, filters=flt),
        "before, per query: id->row dict": lambda q: {p.id: i for i, p in enumerate(papers)},
        "before, per query: Python filter loop": lambda q: np.array([flt.matches(p) for p in papers]),
    }
    out = {}
    for name, fn in parts.items():
        ts = []
        for q in QUERIES:
            t0 = time.perf_counter()
            fn(q)
            ts.append((time.perf_counter() - t0) * 1000)
        out[name] = statistics.median(ts)
    return out


def child_cold_phases(size: str) -> dict:
    """Seconds spent by a fresh process in each step of a first search of this checkout, in order, as
    ``assistant search`` does them: the ONNX model starts loading in a thread before chromadb is
    imported, so its row is what the search still waits for."""
    t = [time.perf_counter()]
    from assistant.retrieval import Retriever
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore

    store = PaperStore(load_settings(data_dir=store_dir("product", size), embedding_model_dir=MODEL_DIR))
    store.embedder.load_in_background()
    t.append(time.perf_counter())
    import chromadb  # noqa: F401

    t.append(time.perf_counter())
    store.count()
    t.append(time.perf_counter())
    retriever = Retriever(store)
    store.bm25()
    t.append(time.perf_counter())
    store.embedder.embed([COLD_QUERY])
    t.append(time.perf_counter())
    retriever.search(COLD_QUERY, top_k=10)
    t.append(time.perf_counter())
    names = ["import the product (settings, retrieval, store); model loading starts", "import chromadb",
             "open Chroma, count", "paper ids + BM25 index from the cache",
             "first query embedding (waits for the model)", "the search itself"]
    return {n: b - a for n, a, b in zip(names, t, t[1:])}


BASELINE_COLD = """
import sys
from benchmarks._baseline import open_index, retrieve
index = open_index(__import__('pathlib').Path(sys.argv[1]))
print(retrieve(index, sys.argv[2], 10))
"""


def cold(system: str, size: str, command: str, root) -> tuple[float, float]:
    """(seconds, peak MiB) of one fresh process: ``search`` or ``ask`` (``--llm extractive``) for the
    product, run from `root` so that its code is the one imported; the retrieval script for the baseline."""
    env = {**os.environ, "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR), "PYTHONPATH": str(root)}
    if system == "baseline":
        cmd = [sys.executable, "-c", BASELINE_COLD, str(baseline_dir(size)), COLD_QUERY]
    else:
        env["ASSISTANT_DATA_DIR"] = str(store_dir("product", size))
        cmd = [sys.executable, "-m", "assistant"] + (
            ["search", COLD_QUERY, "-k", "10", "--json"] if command == "search"
            else ["ask", QUESTION, "--llm", "extractive", "--json"])
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v"] + cmd, cwd=root, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:5]} failed: {proc.stderr[-400:]}")
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    return seconds, peak_kb / 1024


def before_root(commit: str):
    """The code of `commit`, exported once into the benchmark cache (``git archive``)."""
    folder = OUT.parent / f"code-{commit}"
    if not (folder / "assistant").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def load() -> str:
    return " / ".join(open("/proc/loadavg").read().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="19,16k")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", default="", help="a commit to measure next to this checkout (e.g. c76ae31)")
    ap.add_argument("--note", default="", help="a sentence about the stores, appended to the notes")
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--phases")
    ap.add_argument("--cold-phases")
    ap.add_argument("--build-baseline")
    args = ap.parse_args()
    if args.build_baseline:
        build_baseline_from_vectors(args.build_baseline)
        return
    if args.child:
        print(json.dumps(child_warm(*args.child)))
        return
    if args.phases:
        print(json.dumps(child_phases(args.phases)))
        return
    if args.cold_phases:
        print(json.dumps(child_cold_phases(args.cold_phases)))
        return
    sizes = args.sizes.split(",")
    env = {**os.environ, "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)}
    for size in sizes:
        if not store_dir("product", size).exists():
            raise SystemExit(f"no product store for {size}: run python -m benchmarks.ingest_speed first")
        # in a child process: a big parent would inflate every child's peak memory (Linux keeps the
        # resident-size high-water mark across fork and exec)
        subprocess.run([sys.executable, "-m", "benchmarks.search_latency", "--build-baseline", size], cwd=ROOT,
                       check=True, env=env)
    roots = {"product": ROOT}
    if args.before:
        roots["before"] = before_root(args.before)
    roots["baseline"] = ROOT
    names = {"product": "assistant hybrid search (dense + BM25), this change",
             "before": f"assistant hybrid search, before ({args.before})",
             "baseline": "llama-index VectorStoreIndex retriever (dense)"}
    load_start = load()
    res: dict = {}
    for r in range(args.rounds):
        for size in sizes:
            for system, root in roots.items():
                kind = "baseline" if system == "baseline" else "product"
                # this file's child code, importing the product from `root` (PYTHONPATH comes first)
                out = subprocess.run([sys.executable, __file__, "--child", kind, size],
                                     cwd=root, stdout=subprocess.PIPE, text=True, check=True,
                                     env={**env, "PYTHONPATH": str(root)})
                w = json.loads(out.stdout.strip().splitlines()[-1])
                acc = res.setdefault((system, size), {"times": [], "ftimes": [], "peak": [], "n": w["abstracts"],
                                                      "search": [], "ask": []})
                acc["times"] += w["times"]
                acc["ftimes"] += w.get("ftimes", [])
                acc["peak"].append(w["peak_mib"])
                acc["search"].append(cold(system, size, "search", root))
                if system != "baseline":
                    acc["ask"].append(cold(system, size, "ask", root))
                print(f"round {r + 1} {names[system]:<55} {size:>4}: warm p50 {statistics.median(w['times']):.1f} ms; "
                      f"cold search {acc['search'][-1][0]:.2f} s, {acc['search'][-1][1]:.0f} MiB"
                      + (f"; cold ask {acc['ask'][-1][0]:.2f} s, {acc['ask'][-1][1]:.0f} MiB" if acc["ask"] else ""),
                      flush=True)
    load_end = load()
    phases = {}
    for size in sizes:
        out = subprocess.run([sys.executable, "-m", "benchmarks.search_latency", "--phases", size], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True, check=True, env=env)
        phases[size] = json.loads(out.stdout.strip().splitlines()[-1])
    cold_phases = {}
    for size in sizes:
        runs = []
        for _ in range(3):
            out = subprocess.run([sys.executable, "-m", "benchmarks.search_latency", "--cold-phases", size],
                                 cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True, env=env)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        cold_phases[size] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}

    def ms(values, q=0.5):
        v = sorted(values)
        return f"{v[int(q * (len(v) - 1))]:.1f}" if v else "–"

    rows = []
    for size in sizes:
        for system in roots:
            a = res[(system, size)]
            rows.append([names[system], size, a["n"], ms(a["times"]), ms(a["times"], 0.95), ms(a["ftimes"]),
                         f"{statistics.median(s for s, _ in a['search']):.2f}",
                         f"{statistics.median(s for s, _ in a['ask']):.2f}" if a["ask"] else "–",
                         f"{statistics.median(a['peak']):.0f}",
                         f"{max(m for _, m in a['search'] + a['ask']):.0f}"])
    body = markdown_table(["retriever", "collection", "abstracts", "warm p50 ms", "warm p95 ms",
                           "warm p50 ms, venue+year filter", "cold search s", "cold ask (extractive) s",
                           "peak MiB (warm process)", "peak MiB (cold processes)"], rows)
    body += "\n\nWhere a warm search spends its time (median ms per query, this change; the last two rows are " \
            "work the code before it did on every query and no longer does):\n\n"
    body += markdown_table(["part"] + [f"{s} ms" for s in sizes],
                           [[name] + [f"{phases[s][name]:.2f}" for s in sizes] for name in phases[sizes[0]]])
    body += "\n\nWhere a cold search of this change spends its time (seconds, median of three fresh processes):\n\n"
    body += markdown_table(["step"] + [f"{s} s" for s in sizes],
                           [[name] + [f"{cold_phases[s][name]:.3f}" for s in sizes] for name in cold_phases[sizes[0]]])
    body += (f"\n\nWarm: {len(QUERIES)} fixed queries × {WARM_REPEATS} per round, top 10, in a process that has "
             "already run one search (model loaded, BM25 index built or read from its cache); the filtered column "
             "adds venue ICML (19) or ICML,NeurIPS (16k) and year ≥ 2026 / 2023. Cold: fresh processes running "
             f"`python -m assistant search \"{COLD_QUERY}\" -k 10 --json` and `python -m assistant ask "
             f"\"{QUESTION}\" --llm extractive --json` (for the baseline: a Python process that opens the index "
             f"and retrieves), imports and model loading included, peak memory from `/usr/bin/time -v`. "
             f"{args.rounds} rounds, systems interleaved within each round; medians over rounds. The hybrid does a "
             "dense kNN in Chroma and BM25 over every abstract, then fuses; the baseline does the dense kNN only. "
             f"Load average (1/5/15 min) {load_start} at the start and {load_end} at the end, on 2 cores shared "
             "with other work: compare rows of one run, not runs." + (f" {args.note}" if args.note else ""))
    write_section("search_latency", "Search latency and memory", body,
                  f"python -m benchmarks.search_latency --sizes {args.sizes} --rounds {args.rounds}"
                  + (f" --before {args.before}" if args.before else "")
                  + (f" --note {json.dumps(args.note)}" if args.note else ""))


if __name__ == "__main__":
    main()
