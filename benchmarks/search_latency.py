"""Search latency: warm p50/p95 (ms) and a cold process (s) at 19 and 16k abstracts; peak memory;
against the plain llama-index baseline in the same run.

``python -m benchmarks.search_latency [--sizes 19,16k]``

Uses the stores `ingest_speed.py` left under the benchmark cache (it is run first if they are
missing). Warm: one process opens the store, runs one search to load the model and the BM25 index,
then times `Retriever.search(q, top_k=10)` (hybrid) over a fixed list of queries. Cold: a new
process runs ``assistant search QUERY -k 10 --json`` (the user's command, imports included); the
median of three. Baseline: the llama-index `VectorStoreIndex` over the same papers in Chroma, its
default retriever with ``similarity_top_k=10`` (dense only), the same ONNX MiniLM; where
`ingest_speed.py` did not build it, it is built from the product store's own vectors (no re-embedding).
Peak memory is the maximum resident size of each process.
"""

from __future__ import annotations

import argparse
import json
import os
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


def baseline_dir(size: str):
    """The llama-index baseline's Chroma folder: the one `ingest_speed.py` built, else one built here
    from the product store's own vectors (same papers, same embeddings, no re-embedding)."""
    built = store_dir("baseline", size) / "chroma"
    if built.exists():
        return built
    return OUT / f"baseline-from-vectors-{size}" / "chroma"


def build_baseline_from_vectors(size: str) -> None:
    if baseline_dir(size).exists():
        return
    import chromadb
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.schema import TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from assistant.settings import load_settings
    from benchmarks._baseline import onnx_embedding
    from store.collection import PaperStore

    folder = baseline_dir(size)
    if folder.exists():
        return
    store = PaperStore(load_settings(data_dir=store_dir("product", size), embedding_model_dir=MODEL_DIR))
    nodes = []
    for page in store.iter_raw(["documents", "embeddings"]):
        nodes += [TextNode(id_=i, text=d, embedding=list(map(float, e)))
                  for i, d, e in zip(page["ids"], page["documents"], page["embeddings"])]
    client = chromadb.PersistentClient(path=str(folder))
    vs = ChromaVectorStore(chroma_collection=client.get_or_create_collection("baseline"))
    VectorStoreIndex(nodes, storage_context=StorageContext.from_defaults(vector_store=vs),
                     embed_model=onnx_embedding())


def child_warm(system: str, size: str) -> dict:
    import resource

    started = time.perf_counter()
    if system == "product":
        from assistant.retrieval import Retriever
        from assistant.settings import load_settings
        from store.collection import PaperStore

        store = PaperStore(load_settings(data_dir=store_dir("product", size), embedding_model_dir=MODEL_DIR))
        retriever = Retriever(store)
        n = store.count()

        def search(q):
            return retriever.search(q, top_k=10)
    else:
        from benchmarks._baseline import open_index, retrieve

        index = open_index(baseline_dir(size))
        n = index.vector_store._collection.count()

        def search(q):
            return retrieve(index, q, 10)
    search("warm-up query")
    ready = time.perf_counter() - started
    times = []
    for _ in range(WARM_REPEATS):
        for q in QUERIES:
            t0 = time.perf_counter()
            search(q)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {"abstracts": n, "p50_ms": statistics.median(times), "p95_ms": times[int(0.95 * (len(times) - 1))],
            "ready_s": ready, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


BASELINE_COLD = """
import sys
from benchmarks._baseline import open_index, retrieve
index = open_index(__import__('pathlib').Path(sys.argv[1]))
print(retrieve(index, sys.argv[2], 10))
"""


def cold(system: str, size: str, query: str = "KV cache compression with quantization") -> tuple[float, float]:
    """(median seconds of three cold processes, peak MiB)."""
    env = {**os.environ, "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)}
    if system == "product":
        env["ASSISTANT_DATA_DIR"] = str(store_dir("product", size))
        cmd = [str(ROOT / ".venv" / "bin" / "assistant") if (ROOT / ".venv" / "bin" / "assistant").exists()
               else "assistant", "search", query, "-k", "10", "--json"]
    else:
        cmd = [sys.executable, "-c", BASELINE_COLD, str(baseline_dir(size)), query]
    runs, peaks = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        runs.append(time.perf_counter() - t0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{cmd[:3]} failed: {proc.stderr.read().decode()[-300:]}")
        peaks.append(usage.ru_maxrss / 1024)
    return statistics.median(runs), max(peaks)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="19,16k")
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--build-baseline")
    args = ap.parse_args()
    if args.build_baseline:
        build_baseline_from_vectors(args.build_baseline)
        return
    if args.child:
        print(json.dumps(child_warm(*args.child)))
        return
    sizes = args.sizes.split(",")
    for size in sizes:
        if not store_dir("product", size).exists():
            raise SystemExit(f"no product store for {size}: run python -m benchmarks.ingest_speed first")
        # in a child process: a big parent would inflate every child's peak memory (Linux keeps the
        # resident-size high-water mark across fork and exec)
        subprocess.run([sys.executable, "-m", "benchmarks.search_latency", "--build-baseline", size], cwd=ROOT,
                       check=True, env={**os.environ, "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)})
    rows = []
    for size in sizes:
        for system in ("product", "baseline"):
            out = subprocess.run([sys.executable, "-m", "benchmarks.search_latency", "--child", system, size],
                                 cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True,
                                 env={**os.environ, "ASSISTANT_EMBEDDING_MODEL_DIR": str(MODEL_DIR)})
            w = json.loads(out.stdout.strip().splitlines()[-1])
            cold_s, cold_mib = cold(system, size)
            name = ("assistant hybrid search (dense + BM25)" if system == "product"
                    else "llama-index VectorStoreIndex retriever (dense)")
            print(f"{name:<46} {size:>4} ({w['abstracts']} abstracts): warm p50 {w['p50_ms']:.1f} ms, "
                  f"p95 {w['p95_ms']:.1f} ms; cold process {cold_s:.2f} s; peak {max(w['peak_mib'], cold_mib):.0f} MiB",
                  flush=True)
            rows.append([name, size, w["abstracts"], f"{w['p50_ms']:.1f}", f"{w['p95_ms']:.1f}", f"{cold_s:.2f}",
                         f"{w['peak_mib']:.0f}", f"{cold_mib:.0f}"])
    body = markdown_table(["retriever", "collection", "abstracts", "warm p50 ms", "warm p95 ms", "cold process s",
                           "peak MiB (warm process)", "peak MiB (cold process)"], rows)
    body += (f"\n\nWarm: {len(QUERIES)} fixed queries × {WARM_REPEATS}, top 10, in a process that has already run "
             "one search (model loaded, BM25 index built or read from its cache). Cold: median of three fresh "
             "processes running `assistant search QUERY -k 10 --json` (for the baseline: a Python process that "
             "opens the index and retrieves), imports and model loading included. The hybrid does a dense kNN "
             "in Chroma and BM25 over every abstract, then fuses; the baseline does the dense kNN only. The "
             "machine is shared with other work, so timings are noisy.")
    write_section("search_latency", "Search latency and memory", body,
                  f"python -m benchmarks.search_latency --sizes {args.sizes}")


if __name__ == "__main__":
    main()
