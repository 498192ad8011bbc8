"""Embedding throughput (abstracts/s) of all-MiniLM-L6-v2 under onnxruntime options, in one run.

``python -m benchmarks.embed_options [--n 600] [--rounds 2]``

The first `n` airas abstracts (title + abstract, as ingested) are embedded by each configuration in
turn, `rounds` times, interleaved (A B C … A B C …) so that load from other work on a shared machine
falls on every configuration alike; the table gives the median rate and the spread. Configurations:
the product's embedder (`assistant.store.embeddings.OnnxMiniLM`, fp32, graph optimisation ALL, one intra-op
thread per core that sleeps rather than spins when idle, batches of 8), the same with other batch sizes / thread counts / graph optimisation
levels / tokenisation of the next batch overlapped with inference, the int8 copy made with
onnxruntime's `quantize_dynamic` in several variants (per-channel or per-tensor weights, QInt8 or QUInt8
weights, reduce_range, after onnxruntime's transformer optimizer, after the product's attention fusion
`store.embeddings.fuse_attention`, attention MatMuls quantised too, session graph optimisation levels),
and chromadb's own embedding function (`ONNXMiniLM_L6_V2`, batches of 32 padded to 256 pieces) as the
reference. Fidelity: the cosine of each configuration's vectors to the product's fp32 vectors (mean and
minimum over the abstracts). Cost: besides the rate, the process's CPU time (user + system, all threads)
per abstract, the figure that load from other work disturbs least (a shared machine slows the wall
clock, not the work). Model loading is outside the timed part (measured once per configuration, 'load s').
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import MODEL_DIR


def load_texts(n: int) -> list[str]:
    from benchmarks.ingest_speed import AIRAS
    from assistant.store.ingest import IngestReport, read_papers

    papers = []
    for path in sorted(AIRAS.glob("*")):
        papers += read_papers([path], IngestReport())
        if len(papers) >= n:
            break
    return [p.document for p in papers[:n]]


class Configured:
    """`OnnxMiniLM` with onnxruntime session options set by hand (the product's own code path for
    tokenising, batching and pooling)."""

    def __init__(self, label: str, batch_size: int = 1, threads: int = 0, opt: str = "all",
                 precision: str = "fp32", overlap: bool = False, cache_dir: Path | None = None,
                 inter_threads: int = 0, spinning: bool = False, variant=None, skip_layer_norm: bool = False):
        from assistant.store.embeddings import OnnxMiniLM

        self.label = label
        self.model = OnnxMiniLM(MODEL_DIR, batch_size=batch_size, precision=precision, cache_dir=cache_dir,
                                threads=threads, model_cache_dir=cache_dir)
        self.opt, self.overlap, self.inter_threads, self.spinning = opt, overlap, inter_threads, spinning
        self.variant, self.cache_dir = variant, cache_dir  # variant(fp32 file, folder) -> the ONNX file to run
        self.skip_layer_norm = skip_layer_norm  # onnxruntime's SkipLayerNormFusion on (the product leaves it out)

    def load(self) -> None:
        import onnxruntime as ort

        levels = {"basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                  "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                  "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
                  "none": ort.GraphOptimizationLevel.ORT_DISABLE_ALL}
        from assistant.store.embeddings import DISABLED_OPTIMIZERS

        # fp32 rows run the shipped file unless their variant says otherwise (the product's fused copy is `fused`)
        path = self.model.model_file() if self.model.precision == "int8" else self.model._folder / "model.onnx"
        if self.variant is not None:
            path = self.variant(self.model._folder / "model.onnx", self.cache_dir)

        def session(threads: int):
            so = ort.SessionOptions()
            so.log_severity_level = 3
            so.graph_optimization_level = levels[self.opt]
            so.intra_op_num_threads = threads
            if not self.spinning:
                so.add_session_config_entry("session.intra_op.allow_spinning", "0")
            if self.inter_threads:
                so.execution_mode = ort.ExecutionMode.ORT_PARALLEL
                so.inter_op_num_threads = self.inter_threads
            disabled = [] if self.skip_layer_norm else list(DISABLED_OPTIMIZERS)
            return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"],
                                        disabled_optimizers=disabled)

        # both sessions: queries and small calls run on the first, a call of 64 texts or more on the second
        # from one worker thread per core (the product's ingest path)
        self.model.__dict__["_session"] = session(self.model.threads)
        self.model.__dict__["_bulk_session"] = session(1)
        _ = self.model._tokenizer

    def embed(self, texts: list[str]):
        if not self.overlap:
            return self.model.embed(texts)
        return embed_overlapped(self.model, texts)


def embed_overlapped(model, texts: list[str]):
    """`OnnxMiniLM.embed`, with the next batch tokenised in a thread while the current one runs."""
    import numpy as np

    out = np.zeros((len(texts), model.dim), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    batches = [order[s : s + model.batch_size] for s in range(0, len(order), model.batch_size)]
    tok, session = model._tokenizer, model._session

    def encode(idx):
        enc = tok.encode_batch([texts[i] or " " for i in idx])
        return (np.array([e.ids for e in enc], dtype=np.int64), np.array([e.attention_mask for e in enc], dtype=np.int64))

    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(encode, batches[0]) if batches else None
        for k, idx in enumerate(batches):
            ids, mask = pending.result()
            if k + 1 < len(batches):
                pending = pool.submit(encode, batches[k + 1])
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
            out[idx] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


class ChromaDefault:
    label = "chromadb ONNXMiniLM_L6_V2 (its own batches of 32, padded to 256)"

    def load(self) -> None:
        from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

        self.ef = ONNXMiniLM_L6_V2(preferred_providers=["CPUExecutionProvider"])
        self.ef.DOWNLOAD_PATH = MODEL_DIR
        _ = self.ef.model, self.ef.tokenizer

    def embed(self, texts: list[str]):
        import numpy as np

        return np.asarray(self.ef(texts), dtype=np.float32)


def quantized(name: str, source: str = "shipped", **options):
    """A variant for `Configured`: `quantize_dynamic(**options)` of the shipped fp32 file (`source`
    "shipped"), of it after onnxruntime's transformer optimizer ("optimizer": BERT fusions, 12 heads of
    384; it fuses the layer norms and GELUs of this export, not its attention) or after the product's
    attention fusion ("fused"), written once to the run's temporary folder."""
    def make(fp32: Path, folder: Path) -> Path:
        import logging

        import onnx
        from onnxruntime.quantization import quantize_dynamic

        out = folder / f"{name}.onnx"
        if out.exists():
            return out
        logging.getLogger().setLevel(logging.ERROR)
        src = fused(fp32, folder) if source == "fused" else optimized(fp32, folder) if source == "optimizer" else fp32
        extra = {"DefaultTensorType": onnx.TensorProto.FLOAT, **options.get("extra_options", {})}
        quantize_dynamic(str(src), str(out), extra_options=extra,
                         **{k: v for k, v in options.items() if k != "extra_options"})
        return out
    return make


def fused(fp32: Path, folder: Path) -> Path:
    """The fp32 file with each self-attention block fused into one Attention node (`fuse_attention`)."""
    import onnx

    from assistant.store.embeddings import fuse_attention

    out = folder / "fp32-fused-attention.onnx"
    if not out.exists():
        model = onnx.load(str(fp32))
        assert fuse_attention(model) == 6
        onnx.save(model, str(out))
    return out


def optimized(fp32: Path, folder: Path) -> Path:
    """The fp32 file after onnxruntime's transformer optimizer (model type bert, 12 heads, hidden 384)."""
    from onnxruntime.transformers.optimizer import optimize_model

    out = folder / "fp32-optimizer.onnx"
    if not out.exists():
        optimize_model(str(fp32), model_type="bert", num_heads=12, hidden_size=384, opt_level=0,
                       use_gpu=False).save_model_to_file(str(out))
    return out


def configurations(cache_dir: Path) -> list:
    from onnxruntime.quantization import QuantType

    s8, u8 = QuantType.QInt8, QuantType.QUInt8
    v1 = quantized("pc-s8", per_channel=True, weight_type=s8)  # the product's int8 copy before INT8_VERSION 2

    def variant(label: str, make, **kw) -> Configured:
        return Configured(label, variant=make, cache_dir=cache_dir, **kw)

    return [
        variant("product: fp32 attention fused, opt ALL but SkipLayerNormFusion, threads=cores, no spinning, batch 1",
                fused),
        Configured("fp32 as before (issue 12, third pass): shipped graph, SkipLayerNormFusion on, batch 8",
                   batch_size=8, skip_layer_norm=True),
        Configured("fp32 shipped graph, batch 1"),
        Configured("fp32, batch 8", batch_size=8),
        Configured("fp32, idle threads spinning (onnxruntime's default)", spinning=True),
        Configured("fp32, batch 4", batch_size=4),
        Configured("fp32, batch 16", batch_size=16),
        Configured("fp32, batch 32", batch_size=32),
        Configured("fp32, 1 intra-op thread", threads=1),
        Configured("fp32, parallel execution, 2 inter-op threads", inter_threads=2),
        Configured("fp32, graph opt BASIC", opt="basic"),
        Configured("fp32, graph opt EXTENDED", opt="extended"),
        Configured("fp32, next batch tokenised in a thread", overlap=True),
        variant("fp32, attention fused (fuse_attention)", fused),
        Configured("product int8: attention fused, then quantize_dynamic per-channel QInt8, batch 1", precision="int8",
                   cache_dir=cache_dir),
        Configured("int8 as before (third pass): SkipLayerNormFusion on, batch 8", precision="int8",
                   cache_dir=cache_dir, batch_size=8, skip_layer_norm=True),
        Configured("int8 product, SkipLayerNormFusion on", precision="int8", cache_dir=cache_dir, skip_layer_norm=True),
        Configured("int8 product, batch 8", precision="int8", cache_dir=cache_dir, batch_size=8),
        Configured("int8 product, batch 16", precision="int8", cache_dir=cache_dir, batch_size=16),
        variant("int8 per-channel QInt8, unfused (the int8 copy before)", v1),
        variant("int8 per-channel QInt8, unfused, graph opt EXTENDED", v1, opt="extended"),
        variant("int8 per-channel QInt8, unfused, graph opt BASIC", v1, opt="basic"),
        variant("int8 per-tensor QInt8", quantized("pt-s8", per_channel=False, weight_type=s8)),
        variant("int8 per-channel QUInt8", quantized("pc-u8", per_channel=True, weight_type=u8)),
        variant("int8 per-tensor QUInt8", quantized("pt-u8", per_channel=False, weight_type=u8)),
        variant("int8 per-channel QInt8, reduce_range",
                quantized("pc-s8-rr", per_channel=True, weight_type=s8, reduce_range=True)),
        variant("int8 per-channel QInt8, attention MatMuls too (MatMulConstBOnly off)",
                quantized("pc-s8-all", per_channel=True, weight_type=s8, extra_options={"MatMulConstBOnly": False})),
        variant("int8 per-channel QInt8 after the transformer optimizer (attention not fused)",
                quantized("opt-pc-s8", "optimizer", per_channel=True, weight_type=s8)),
        variant("int8 per-channel QInt8, attention fused, Attention left fp32 (MatMul only)",
                quantized("fused-mm", "fused", per_channel=True, weight_type=s8, op_types_to_quantize=["MatMul"])),
        ChromaDefault(),
    ]


def main() -> None:
    import numpy as np

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    texts = load_texts(args.n)
    load_before = open("/proc/loadavg").read().split()[:3]
    with tempfile.TemporaryDirectory() as tmp:
        configs = configurations(Path(tmp))
        loads = {}
        for c in configs:
            t0 = time.perf_counter()
            c.load()
            loads[c.label] = time.perf_counter() - t0
            c.embed(texts[:16])  # first-run allocations outside the timing
        rates: dict[str, list[float]] = {c.label: [] for c in configs}
        cpu: dict[str, list[float]] = {c.label: [] for c in configs}
        vectors: dict[str, np.ndarray] = {}
        for r in range(args.rounds):
            for c in configs:
                t0, c0 = time.perf_counter(), time.process_time()
                vectors[c.label] = c.embed(texts)
                rates[c.label].append(len(texts) / (time.perf_counter() - t0))
                cpu[c.label].append((time.process_time() - c0) / len(texts) * 1000)
                print(f"round {r + 1}: {c.label:<62} {rates[c.label][-1]:6.1f} abstracts/s "
                      f"{cpu[c.label][-1]:6.1f} ms CPU each", flush=True)
    load_after = open("/proc/loadavg").read().split()[:3]
    ref = vectors[configs[0].label]
    base = statistics.median(rates[configs[0].label])
    base_cpu = statistics.median(cpu[configs[0].label])
    rows = []
    for c in configs:
        cos = (vectors[c.label] * ref).sum(1)
        med = statistics.median(rates[c.label])
        ms = statistics.median(cpu[c.label])
        rows.append([c.label, f"{ms:.1f}", f"{min(cpu[c.label]):.1f}–{max(cpu[c.label]):.1f}", f"{ms / base_cpu:.2f}",
                     f"{med:.1f}", f"{min(rates[c.label]):.1f}–{max(rates[c.label]):.1f}",
                     f"{med / base:.2f}", f"{loads[c.label]:.2f}", f"{cos.mean():.5f}", f"{cos.min():.4f}"])
    body = markdown_table(["configuration", "CPU ms per abstract (median)", "range", "CPU vs product fp32",
                           "abstracts/s (median)", "range", "vs product", "load s",
                           "mean cos to fp32", "min cos to fp32"], rows)
    body += (f"\n\n{len(texts)} airas abstracts (title + abstract), {args.rounds} interleaved rounds per "
             f"configuration, model loading excluded. 1-minute load average {load_before[0]} before and "
             f"{load_after[0]} after (2 cores shared with other work, so compare rows, not runs; the CPU time "
             "per abstract is what load disturbs least). Every int8 model is quantised from the shipped fp32 "
             "file in a temporary folder; the product's int8 quality on retrieval is in the SciFact table.")
    write_section("embed_options", "Embedding throughput: onnxruntime options", body,
                  f"python -m benchmarks.embed_options --n {args.n} --rounds {args.rounds}")


if __name__ == "__main__":
    main()
