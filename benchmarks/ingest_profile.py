"""Where an ingest's CPU goes: one in-process `ingest` of the first N airas abstracts into a new data folder,
with CPU time per abstract (user + system of the process, all threads) for the whole ingest and for its parts.

``python -m benchmarks.ingest_profile [--size 1k] [--precision int8] [--data DIR]``

Parts: the embedding workers' batches (tokenising and ONNX run and pooling, `time.thread_time` in the
worker), the main thread inside `embed`, reading the files and ids, the Python side of the Chroma upserts;
the CPU of every thread of the process is sampled from ``/proc/self/task`` every 50 ms, so work in threads
the product does not name (Chroma's own, the tokenizer's pool) shows up too, and the share of the two
cores the process used is given as a histogram. Prints one report; writes nothing to docs (figures from it
are in docs/benchmarks.md, "Ingest, fourth pass"). Run it against the code before by running it with
another checkout's interpreter and path first on ``sys.path``. The int8 / fused copies of the model should be
made beforehand (a first run makes them, and their cost then counts).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import threading
import time
from pathlib import Path

CLK = os.sysconf("SC_CLK_TCK")


def thread_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of each thread of this process, by thread id."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            stat = open(f"/proc/self/task/{tid}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / CLK
    return out


def main() -> None:
    from benchmarks._scifact import CACHE, MODEL_DIR
    from benchmarks.ingest_speed import source_for

    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1k", choices=["1k", "5k", "16k"])
    ap.add_argument("--precision", default="int8", choices=["fp32", "int8"])
    ap.add_argument("--data", default=str(CACHE / "ingest" / "profile"), help="data folder (emptied first)")
    args = ap.parse_args()
    shutil.rmtree(args.data, ignore_errors=True)
    paths, opts = source_for(args.size)

    samples: list[tuple[float, dict[int, float]]] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            samples.append((time.perf_counter(), thread_cpu()))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    from assistant.settings import load_settings
    from assistant.store import embeddings, ingest
    from assistant.store.collection import PaperStore

    spent: dict[str, float] = {}
    roles: dict[int, str] = {}
    lock = threading.Lock()

    def timed(name: str, role: str, fn):
        def wrapper(*a, **k):
            roles[threading.get_native_id()] = role
            c0 = time.thread_time()
            try:
                return fn(*a, **k)
            finally:
                with lock:
                    spent[name] = spent.get(name, 0.0) + time.thread_time() - c0
        return wrapper

    model = embeddings.OnnxMiniLM
    model._embed_batch = staticmethod(timed("embedding workers: ONNX run, pooling", "embed worker",
                                            model._embed_batch))
    if hasattr(model, "_encode_and_embed"):  # workers that tokenise their own batch
        model._encode_and_embed = classmethod(timed("embedding workers: tokenise + the above", "embed worker",
                                                     model._encode_and_embed.__func__))
    model.embed = timed("main thread in embed()", "main", model.embed)
    PaperStore.upsert = timed("Chroma upsert, Python side (writer thread)", "chroma writer", PaperStore.upsert)
    ingest.read_papers = timed("reading files, ids, duplicates", "main", ingest.read_papers)

    settings = load_settings(data_dir=Path(args.data), embedding_model_dir=MODEL_DIR, embedding_precision=args.precision)
    store = PaperStore(settings)
    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    report = ingest.ingest(paths, store, **opts)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    stop.set()
    sampler.join()
    n = max(report.embedded, 1)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    print(f"{args.precision} {args.size}: embedded {report.embedded} in {wall:.1f} s ({report.embedded / wall:.1f}/s), "
          f"CPU {cpu:.1f} s = {1000 * cpu / n:.1f} ms per abstract, peak {after.ru_maxrss / 1024:.0f} MiB, "
          f"1-min load {open('/proc/loadavg').read().split()[0]}")
    for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<50} {seconds:8.2f} s  {1000 * seconds / n:6.2f} ms per abstract")
    first, last = samples[0][1], samples[-1][1]
    threads = sorted(((last[t] - first.get(t, 0.0), t) for t in last), reverse=True)
    print("  threads alive at the end, CPU s:", ", ".join(f"{roles.get(t, t)}={c:.1f}" for c, t in threads if c >= 0.05))
    busy = [(sum(b.values()) - sum(a.get(t, 0.0) for t in b)) / (tb - ta)
            for (ta, a), (tb, b) in zip(samples, samples[1:]) if ta >= started]
    if busy:
        hist = [0] * 5
        for u in busy:
            hist[min(4, int(u / 0.5))] += 1
        print("  cores busy (share of 50 ms samples at 0-0.5, 0.5-1, 1-1.5, 1.5-2, 2+):",
              [round(h / len(busy), 3) for h in hist], f"mean {sum(busy) / len(busy):.2f}")


if __name__ == "__main__":
    main()
