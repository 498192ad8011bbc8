"""Embedding models: all-MiniLM-L6-v2 on onnxruntime (default) or an OpenAI-compatible endpoint.

`Embedder.embed(texts)` returns an ``(n, dim) float32`` array of L2-normalised vectors. The ONNX
embedder computes what chromadb's default embedding function (`ONNXMiniLM_L6_V2`: mean pooling over
``last_hidden_state``, L2 normalisation, 256 word pieces at most, onnxruntime with all graph
optimisations but `DISABLED_OPTIMIZERS`) computes, with changes that keep its output identical (within
1e-6) but make it faster: batches are padded to their longest member instead of to 256 (by default a
batch is one text: no padding), texts are sorted by length before batching so a batch holds texts of
similar length, and fp32 may run a copy with the attention fused (`fused_model`). The session is opened
here from the model files (not through chromadb, whose import costs start-up time), optionally on an
int8 copy (`quantized_model`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from assistant.enums import ErrorKind
from assistant.errors import AssistantError

if TYPE_CHECKING:
    import numpy as np

    from assistant.settings import Settings

ONNX_FILES = ("config.json", "model.onnx", "special_tokens_map.json", "tokenizer_config.json",
              "tokenizer.json", "vocab.txt")
MAX_WORD_PIECES = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
PRECISIONS = ("fp32", "int8")
PARALLEL_MIN_TEXTS = 64  # an embed() call with fewer texts runs its batches in turn on the query session
DISABLED_OPTIMIZERS = ("SkipLayerNormFusion",)
"""onnxruntime graph optimisations the sessions leave out. ``SkipLayerNormFusion`` turns each residual Add +
LayerNormalization into one SkipLayerNormalization node, whose CPU kernel (onnxruntime 1.23) took ~5x the time of
the Add and LayerNormalization kernels it replaces: without it the int8 model costs 13 % less CPU per abstract
(34.7 -> 30.1 ms, batches of 8), fp32 the same (docs/benchmarks.md, "Ingest, fourth pass")."""


class EmbeddingError(AssistantError):
    """The embedding model cannot be loaded or called; the message is one line naming the setting."""

    kind = ErrorKind.EMBEDDING


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim) float32``, L2-normalised rows."""
        ...


@dataclass
class EmbedStats:
    """Counts from the last `embed` call: how many texts were cut to the model's input limit."""

    truncated: int = 0


class OnnxMiniLM:
    """all-MiniLM-L6-v2 on onnxruntime, from a local folder (``<dir>/onnx/model.onnx`` + tokenizer).

    `model_dir` may be the folder that contains ``onnx/`` or the ``onnx/`` folder itself. With no
    folder, chromadb's cache (``~/.cache/chroma/onnx_models/all-MiniLM-L6-v2``) is used and
    chromadb downloads the model there if it is missing.

    `precision` ``"fp32"`` runs the model as shipped, or the copy of it with each layer's attention fused
    (`fused_model`: the same vectors within 1e-7, ~10 % less CPU), which the first ingest of
    `PARALLEL_MIN_TEXTS` texts or more makes once per user when the onnx package is installed (a core
    dependency); ``"int8"`` runs a copy quantised once from the
    fp32 file with onnxruntime's own tool (`quantized_model`: each layer's attention fused into one
    Attention node, then `quantize_dynamic`, int8 weights per output channel, activations quantised on
    the fly), written once per user to `model_cache_dir` (default
    `default_model_cache_dir`, so every data folder and test run shares it; the model folder itself
    may be read-only) and reused; a copy an earlier version left in `cache_dir` (the data folder's
    cache) is reused too, and `cache_dir` is the fallback when the user cache cannot be written. It
    is never downloaded. `threads` sets onnxruntime's intra-op threads (0: one per core).

    Many texts at once (an ingest's chunk: `PARALLEL_MIN_TEXTS` texts or more) are embedded by one
    worker thread per core (`threads`, 0: `os.cpu_count()`), each running whole batches on a second
    session with one intra-op thread: onnxruntime releases the GIL while it runs, so both workers infer
    at once, and no operator waits for a thread that the machine's other work has descheduled (1.3x
    the rate of one two-thread session at load 8 on 2 cores, docs/benchmarks.md). Queries and small
    calls keep the first session, so search is unchanged.
    Raises `EmbeddingError` when the files are missing and cannot be downloaded, or the int8 copy
    cannot be made.
    """

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, model_dir: Path | None = None, batch_size: int = 1, precision: str = "fp32",
                 cache_dir: Path | None = None, threads: int = 0, model_cache_dir: Path | None = None):
        if precision not in PRECISIONS:
            raise EmbeddingError(f"embedding precision '{precision}' is not one of {', '.join(PRECISIONS)}; "
                                 f"check ASSISTANT_EMBEDDING_PRECISION")
        self.model_dir = Path(model_dir).expanduser() if model_dir else None
        self.batch_size = batch_size
        self.precision = precision
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.model_cache_dir = Path(model_cache_dir).expanduser() if model_cache_dir else None
        self.threads = threads
        self.int8_version = INT8_VERSION  # which int8 copy `model_file` runs (`use_int8_version`)
        self.stats = EmbedStats()
        self._load_lock = threading.Lock()

    @cached_property
    def _folder(self) -> Path:
        """The ``onnx/`` folder holding model.onnx and the tokenizer files."""
        if self.model_dir is not None:
            folder = self.model_dir
            if not ((folder / "model.onnx").exists() and folder.name == "onnx"):
                folder = folder / "onnx"
            missing = [f for f in ONNX_FILES if not (folder / f).exists()]
            if missing:
                raise EmbeddingError(
                    f"embedding model not found in {self.model_dir} (missing onnx/{missing[0]}); set "
                    f"ASSISTANT_EMBEDDING_MODEL_DIR (or --embedding-model-dir) to the folder that holds "
                    f"onnx/model.onnx")
            return folder
        from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

        ef = ONNXMiniLM_L6_V2(preferred_providers=["CPUExecutionProvider"])
        try:
            ef._download_model_if_not_exists()
        except Exception as exc:
            raise EmbeddingError(
                f"embedding model {self.name} is not in {ef.DOWNLOAD_PATH} and could not be downloaded "
                f"({type(exc).__name__}); set ASSISTANT_EMBEDDING_MODEL_DIR to a folder holding "
                f"onnx/model.onnx") from None
        return Path(ef.DOWNLOAD_PATH) / ef.EXTRACTED_FOLDER_NAME

    @cached_property
    def _tokenizer(self):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(self._folder / "tokenizer.json"))
        tok.enable_truncation(max_length=MAX_WORD_PIECES)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the longest in the batch
        return tok

    def model_file(self, make_fused: bool = False) -> Path:
        """The ONNX file this embedder runs: its int8 copy (made on first use); for fp32 the copy with the
        attention fused (`fused_model`: the same vectors, less CPU) when one was made, or `make_fused`
        and it can be made now, else the shipped file."""
        fp32 = self._folder / "model.onnx"
        folders = [self.model_cache_dir or default_model_cache_dir()]
        if self.cache_dir is not None:
            folders.append(self.cache_dir / "models")  # where earlier versions made it; the fallback
        if self.precision == "fp32":
            return fused_model(fp32, folders, make=make_fused) or fp32
        return quantized_model(fp32, folders, version=self.int8_version)

    def with_precision(self, precision: str) -> OnnxMiniLM:
        """A new embedder of the same model files, folders, batch size and threads running `precision`
        (the relevance gate embeds questions at fp32 for an int8 collection). Raises `EmbeddingError` for an
        unknown precision."""
        return type(self)(self.model_dir, batch_size=self.batch_size, precision=precision, cache_dir=self.cache_dir,
                          threads=self.threads, model_cache_dir=self.model_cache_dir)

    def use_precision(self, precision: str) -> None:
        """Run `precision` from now on (the precision an existing collection was built with): a session
        loaded (or loading) for the other precision is dropped. Raises `EmbeddingError` for an unknown
        precision."""
        if precision not in PRECISIONS:
            raise EmbeddingError(f"embedding precision '{precision}' is not one of {', '.join(PRECISIONS)}; "
                                 f"check ASSISTANT_EMBEDDING_PRECISION")
        with self._load_lock:  # a load in the background finishes first
            if precision != self.precision:
                self.precision = precision
                self.__dict__.pop("_session", None)
                self.__dict__.pop("_bulk_session", None)

    def use_int8_version(self, version: int) -> None:
        """Run int8 copy `version` of the model (`INT8_VERSION`; 1: the copy before the attention was fused)
        when the precision is int8: the copy an existing int8 collection was built with. A session loaded
        (or loading) for another copy is dropped."""
        with self._load_lock:
            if version != self.int8_version:
                self.int8_version = version
                if self.precision == "int8":
                    self.__dict__.pop("_session", None)
                    self.__dict__.pop("_bulk_session", None)

    def cache_key(self) -> str:
        """Names the vectors this embedder computes, for caches of derived vectors: the model name,
        the precision and the size and modification time of the shipped model file
        (``all-MiniLM-L6-v2-fp32-90405214-1700000000``; ``int8v2`` for the int8 copy of `INT8_VERSION` 2).
        Raises `EmbeddingError` when the files are missing."""
        st = (self._folder / "model.onnx").stat()
        precision = self.precision
        if precision == "int8" and self.int8_version > 1:
            precision = f"int8v{self.int8_version}"
        return f"{self.name}-{precision}-{st.st_size}-{int(st.st_mtime)}"

    @cached_property
    def _session(self):
        return self._open_session(self.threads)

    @cached_property
    def _bulk_session(self):
        """The session `embed` runs many batches on, from several worker threads: one intra-op thread each.
        For fp32 it makes the attention-fused copy if there is none yet (a few seconds, once per user; the
        query session only uses a copy already made, so a first small ingest or search never waits for it)."""
        return self._open_session(1, make_fused=True)

    def _open_session(self, threads: int, make_fused: bool = False):
        import onnxruntime as ort

        path = self.model_file(make_fused)  # raises EmbeddingError naming the setting when the files are missing
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.intra_op_num_threads = threads
        # Idle intra-op threads sleep instead of spinning: on a busy machine spinning threads compete with
        # the work (query embedding 8 ms instead of 20-30 ms at load 12 on 2 cores; benchmarks/embed_options.py)
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"],
                                        disabled_optimizers=list(DISABLED_OPTIMIZERS))
        except Exception as exc:
            raise EmbeddingError(f"cannot load the ONNX embedding model {path} ({str(exc)[:160]}); check "
                                 f"ASSISTANT_EMBEDDING_MODEL_DIR") from None

    def load(self) -> None:
        """Load the tokenizer and the ONNX session now instead of on the first `embed` (thread-safe:
        a second caller waits for the first). Raises `EmbeddingError` as `embed` would."""
        with self._load_lock:
            _ = self._tokenizer, self._session

    def load_in_background(self) -> None:
        """Start `load` in a daemon thread, so that the model loads while the caller opens Chroma and
        reads the BM25 index (onnxruntime builds the session without holding the GIL); `embed` waits
        for it. An error is raised by the `embed` call that needs the model, not here."""
        def run():
            try:
                self.load()
            except EmbeddingError:
                pass  # raised again, with its message, by the embed() that needs the model

        if "_session" not in self.__dict__:
            import atexit

            # The imports happen here, in the calling thread: a module imported by two threads at once
            # (numpy, by onnxruntime in the thread and by chromadb in the caller) can be seen half
            # initialised ("cannot import name '__cpu_features__' from partially initialized module").
            # They cost ~0.15 s, which chromadb's import would pay anyway; the thread builds the session.
            import numpy  # noqa: F401
            import onnxruntime  # noqa: F401
            import tokenizers  # noqa: F401

            thread = threading.Thread(target=run, name="load-onnx-model", daemon=True)
            thread.start()
            # A process that ends before it needed the model (a filter that matches nothing) must not
            # exit while onnxruntime is building the session: the C++ runtime aborts ("terminate called
            # without an active exception", exit 134). Wait for the load at exit instead.
            atexit.register(thread.join)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim) float32``, L2-normalised rows, in the order of `texts`.

        Up to `PARALLEL_MIN_TEXTS` texts (queries, the 19 bundled abstracts) are tokenised at once, sorted
        by their number of word pieces and cut into batches of `batch_size`, each padded to its longest member,
        and run in turn on the query session. More texts (an ingest's chunk) are sorted by their number of
        characters, cut into batches, and each batch is tokenised and run by one of `workers` threads on the
        bulk session (see the class docstring): the cores start on the first batch at once instead of idling
        while the whole call is tokenised. With `batch_size` 1 (the default) nothing is padded and each
        text's vector does not depend on the texts embedded with it (the int8 model quantises its
        activations with one scale per batch). Raises `EmbeddingError` when the model cannot be loaded.
        """
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        texts = [t or " " for t in texts]
        tokenizer = self._tokenizer
        workers = self.workers
        if workers > 1 and len(texts) >= PARALLEL_MIN_TEXTS:
            from concurrent.futures import ThreadPoolExecutor

            order = np.argsort([len(t) for t in texts], kind="stable")
            batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
            session = self._bulk_session
            truncated = 0
            with ThreadPoolExecutor(workers, thread_name_prefix="embed") as pool:
                futures = [pool.submit(self._encode_and_embed, session, tokenizer, [texts[i] for i in idx])
                           for idx in batches]
                try:
                    for idx, future in zip(batches, futures):
                        out[idx], cut = future.result()
                        truncated += cut
                except BaseException:  # Ctrl+C or an error: run no further batch (the running ones finish)
                    for future in futures:
                        future.cancel()
                    raise
            self.stats = EmbedStats(truncated=truncated)
            return out
        encoded = tokenizer.encode_batch(texts)  # padded to the longest text
        truncated = sum(1 for e in encoded if e.overflowing)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        pieces = mask.sum(1)
        order = np.argsort(pieces, kind="stable")
        if "_session" not in self.__dict__:
            self.load()
        session = self._session
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            longest = int(pieces[idx].max())  # the batch's rows, cut to its longest member (padding is on the right)
            out[idx] = self._embed_batch(session, ids[idx, :longest], mask[idx, :longest])
        self.stats = EmbedStats(truncated=truncated)
        return out

    @classmethod
    def _encode_and_embed(cls, session, tokenizer, texts: list[str]) -> tuple[np.ndarray, int]:
        """Tokenise one batch of texts (padded to its longest) and embed it: ``(len(texts), dim)`` vectors
        and how many texts were cut to `MAX_WORD_PIECES`."""
        import numpy as np

        encoded = tokenizer.encode_batch(texts) if len(texts) > 1 else [tokenizer.encode(texts[0])]
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        return cls._embed_batch(session, ids, mask), sum(1 for e in encoded if e.overflowing)

    @property
    def workers(self) -> int:
        """Threads that embed the batches of a large `embed` call: `threads`, or one per core when 0."""
        import os

        return self.threads or os.cpu_count() or 1

    @staticmethod
    def _embed_batch(session, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One batch of word-piece ids and attention masks ``(n, pieces) int64``: ``(n, dim)`` normalised
        mean-pooled vectors."""
        import numpy as np

        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        norms[norms == 0] = 1e-12
        return pooled / norms


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint, through the `openai` SDK."""

    def __init__(self, model: str, base_url: str | None, api_key: str | None, batch_size: int = 64,
                 timeout: float = 60.0, max_retries: int = 2):
        self.name = model
        self.batch_size = batch_size
        self._client_args = dict(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
                                 max_retries=max_retries)
        self.stats = EmbedStats()

    @cached_property
    def _client(self):
        import openai

        return openai.OpenAI(**self._client_args)

    @cached_property
    def dim(self) -> int:
        return int(self.embed(["dimension probe"]).shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np
        import openai

        rows: list[list[float]] = []
        try:
            for start in range(0, len(texts), self.batch_size):
                batch = [t or " " for t in texts[start : start + self.batch_size]]
                resp = self._client.embeddings.create(model=self.name, input=batch)
                rows.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding endpoint failed ({type(exc).__name__}: {str(exc)[:120]}); check "
                                 f"ASSISTANT_EMBEDDING_BASE_URL and the API key") from None
        arr = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        norms[norms == 0] = 1e-12
        return arr / norms


def default_model_cache_dir() -> Path:
    """The per-user folder for derived model files (the int8 MiniLM): ``$XDG_CACHE_HOME/paper-assistant/models``,
    else ``~/.cache/paper-assistant/models``."""
    import os

    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "paper-assistant" / "models"


INT8_VERSION = 2
"""Version of the int8 copy `quantized_model` makes, in its file name (a copy of another version is never
reused): 1 = `quantize_dynamic` of the shipped graph; 2 = the same after `fuse_attention`, which
`quantize_dynamic` turns into onnxruntime's QAttention: 34.3 vs 38.9 ms of CPU per airas abstract (-12 %),
mean cosine to the fp32 vectors 0.9952 both (docs/benchmarks.md, "Embedding throughput")."""


def fuse_attention(model, num_heads: int = 12) -> int:
    """Replace each BERT self-attention block of the ONNX graph `model` (an ``onnx.ModelProto``, changed
    in place) by one onnxruntime ``com.microsoft.Attention`` node: the three query/key/value projections
    (MatMul + bias Add, packed into one ``(hidden, 3 * hidden)`` weight), the scaled dot product, the
    padding mask and the softmax; the output projection (``attention/output/dense``) then reads the
    Attention node. onnxruntime's own fusion (``onnxruntime.transformers.optimizer``) does not recognise
    the attention of the shipped export (its mask is a ``Where`` and a NaN guard follows the softmax), so
    the blocks are found by the node names of a Hugging Face BERT export
    (``.../layer.N/attention/self/{query,key,value}/MatMul``). Returns the number of blocks fused (0
    when the graph has no such names or no ``attention_mask`` input: nothing is changed). The caller
    checks the fused graph's output against the original (`quantized_model` does).
    """
    import re

    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    g = model.graph
    if "attention_mask" not in {i.name for i in g.input}:
        return 0
    by_name = {n.name: n for n in g.node}
    weights = {t.name: t for t in g.initializer}
    block = re.compile(r"(.*/layer\.\d+/attention/)self/query/MatMul$")
    prefixes = sorted({m.group(1) for n in g.node if (m := block.match(n.name))})
    fused = []
    for p in prefixes:
        parts = [(by_name.get(f"{p}self/{k}/MatMul"), by_name.get(f"{p}self/{k}/Add"))
                 for k in ("query", "key", "value")]
        dense = by_name.get(f"{p}output/dense/MatMul")
        if dense is None or any(mm is None or add is None or mm.input[1] not in weights for mm, add in parts):
            return 0
        x = parts[0][0].input[0]
        biases = [next((i for i in add.input if i in weights), None) for _, add in parts]
        if None in biases or any(mm.input[0] != x for mm, _ in parts):
            return 0
        w = numpy_helper.from_array(np.concatenate([numpy_helper.to_array(weights[mm.input[1]]) for mm, _ in parts], 1),
                                    f"{p}qkv_weight")
        b = numpy_helper.from_array(np.concatenate([numpy_helper.to_array(weights[i]) for i in biases]), f"{p}qkv_bias")
        fused.append((p, x, w, b, dense))
    if not fused:
        return 0
    nodes = [helper.make_node("Cast", ["attention_mask"], ["attention_mask_int32"], to=TensorProto.INT32,
                              name="attention_mask_int32")]
    for p, x, w, b, dense in fused:
        g.initializer.extend([w, b])
        nodes.append(helper.make_node("Attention", [x, w.name, b.name, "attention_mask_int32"],
                                      [f"{p}Attention_output"], domain="com.microsoft", num_heads=num_heads,
                                      name=f"{p}Attention"))
        dense.input[0] = f"{p}Attention_output"
    g.node.extend(nodes)
    graph_outputs = {o.name for o in g.output}
    while True:  # drop the nodes nothing reads any more (the unfused attention)
        used = {i for n in g.node for i in n.input} | graph_outputs
        dead = [n for n in g.node if not any(o in used for o in n.output)]
        if not dead:
            break
        for n in dead:
            g.node.remove(n)
    used = {i for n in g.node for i in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    ready = {i.name for i in g.input} | {t.name for t in g.initializer} | {""}
    ordered, rest = [], list(g.node)
    while rest:  # topological order (the new nodes were appended at the end)
        now = [n for n in rest if all(i in ready for i in n.input)]
        if not now:
            raise ValueError("fused attention graph has a cycle")
        for n in now:
            ordered.append(n)
            ready.update(n.output)
        rest = [n for n in rest if n not in now]
    del g.node[:]
    g.node.extend(ordered)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return len(fused)


def _same_outputs(a: Path, b: Path) -> bool:
    """Whether ONNX files `a` and `b` compute the same first output (within 1e-4) on a probe batch of
    two padded word-piece sequences (one input in another order would differ far more)."""
    import numpy as np
    import onnxruntime as ort

    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 20000, size=(2, 24), dtype=np.int64)
    mask = np.ones_like(ids)
    mask[1, 15:] = 0
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    so = ort.SessionOptions()
    so.log_severity_level = 3
    outs = [ort.InferenceSession(str(f), so, providers=["CPUExecutionProvider"]).run(None, feed)[0] for f in (a, b)]
    return outs[0].shape == outs[1].shape and float(np.abs((outs[0] - outs[1]) * mask[:, :, None]).max()) < 1e-4


def _write_fused(fp32: Path, out: Path) -> bool:
    """Write `fp32` with its attention fused (`fuse_attention`) to `out`; True when the graph had blocks to
    fuse and the written file computes what `fp32` does (`_same_outputs`), else False with `out` removed.
    Raises what onnx raises for a file it cannot read or write."""
    import onnx

    graph = onnx.load(str(fp32))
    if not fuse_attention(graph):
        return False
    onnx.save(graph, str(out))
    if _same_outputs(fp32, out):
        return True
    out.unlink(missing_ok=True)
    return False


_UNFUSABLE: set[str] = set()  # fp32 files `fused_model` could not fuse in this process (not tried again)


def fused_model(fp32: Path, folders: Path | Sequence[Path], make: bool = True) -> Path | None:
    """The fp32 ONNX model `fp32` with each layer's attention fused into one onnxruntime Attention node
    (`fuse_attention`), as a file beside the int8 copy: it computes the same vectors (checked within 1e-4
    on a probe batch when made; 1e-7 on airas abstracts) for ~10 % less CPU per abstract
    (docs/benchmarks.md, "Ingest, fourth pass").

    `folders`: where to look for the copy, in order; with `make` it is made (a few seconds: load, fuse,
    check, save ~90 MB) into the first one that can be written, under a temporary name then renamed. The
    name carries the fp32 file's size and modification time (``model-fused-<size>-<mtime>.onnx``). Returns
    None, and the caller runs the shipped file, when there is no copy and `make` is False, or it cannot be
    made: the onnx package is missing (a core dependency; an install without it), the graph has no attention blocks
    `fuse_attention` knows, the fused graph computes something else, or no folder can be written. Never
    raises.
    """
    import os

    folders = [Path(folders)] if isinstance(folders, (str, Path)) else [Path(f) for f in folders]
    try:
        st = fp32.stat()
    except OSError:
        return None
    name = f"{fp32.stem}-fused-{st.st_size}-{int(st.st_mtime)}.onnx"
    for folder in folders:
        if (folder / name).exists():
            return folder / name
    if not make or f"{fp32}|{name}" in _UNFUSABLE:
        return None
    try:
        import onnx  # noqa: F401
    except ImportError:
        return None
    for folder in folders:
        out = folder / name
        tmp = out.with_name(f"{name}.{os.getpid()}.tmp")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not _write_fused(fp32, tmp):  # nothing to fuse, or it computes something else
                _UNFUSABLE.add(f"{fp32}|{name}")
                return None
            tmp.replace(out)
            return out
        except Exception as exc:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            if not isinstance(exc, OSError):  # the model, not the folder: no other folder does better
                _UNFUSABLE.add(f"{fp32}|{name}")
                return None
    return None


def quantized_model(fp32: Path, folders: Path | Sequence[Path], version: int = INT8_VERSION) -> Path:
    """The int8 copy of the ONNX model `fp32`, made on first use and reused afterwards: the self-attention
    blocks fused into onnxruntime's Attention operator (`fuse_attention`; kept only when the fused graph
    computes what the shipped one does, within 1e-4, else the graph is quantised as it is), then
    onnxruntime's `quantize_dynamic` (per-channel int8 weights, Jacob et al., CVPR 2018; the Attention
    nodes become QAttention).

    `folders`: where to look for the copy, in order; it is written to the first one that can be
    written (the others are fallbacks, e.g. a read-only home). `version` 1 makes the copy made before the
    attention was fused (no `fuse_attention`, the file name it had then), for int8 collections built with
    it. The file name carries the version and the fp32 file's size and modification time, so a changed
    model, or a copy made another way, is never reused; it is written under a temporary name and renamed, so two processes quantising at
    once both end with a whole file. Quantising takes a few seconds (docs/benchmarks.md). Raises
    `EmbeddingError` when the onnx package is missing or no folder can be written.
    """
    import os

    folders = [Path(folders)] if isinstance(folders, (str, Path)) else [Path(f) for f in folders]
    st = fp32.stat()
    tag = f"int8v{version}" if version > 1 else "int8"
    name = f"{fp32.stem}-{tag}-{st.st_size}-{int(st.st_mtime)}.onnx"
    for folder in folders:
        if (folder / name).exists():
            return folder / name
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise EmbeddingError(f"int8 embeddings need the onnx package ({exc.name} is missing): pip install "
                             f"'paper-assistant[int8]', or set ASSISTANT_EMBEDDING_PRECISION=fp32") from None
    failure = None
    root = logging.getLogger()
    for folder in folders:
        out = folder / name
        tmp = out.with_name(f"{name}.{os.getpid()}.tmp")
        fused = out.with_name(f"{name}.{os.getpid()}.fused.tmp")
        level, handlers = root.level, list(root.handlers)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            root.setLevel(logging.ERROR)  # the quantiser logs advice ("consider pre-processing") on the root logger
            source = fused if version > 1 and _write_fused(fp32, fused) else fp32
            quantize_dynamic(str(source), str(tmp), per_channel=True, weight_type=QuantType.QInt8,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
            tmp.replace(out)
            return out
        except Exception as exc:
            failure = failure or f"{folder} ({type(exc).__name__}: {str(exc)[:120]})"
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
        finally:
            try:
                fused.unlink(missing_ok=True)
            except OSError:
                pass
            # a module the quantiser imports calls logging.basicConfig: without this, every later log
            # record of the process (bm25s' DEBUG lines) would be printed on stderr
            root.setLevel(level)
            root.handlers[:] = handlers
    raise EmbeddingError(f"cannot write the int8 embedding model to {failure}; set ASSISTANT_MODEL_CACHE_DIR "
                         f"to a writable folder or ASSISTANT_EMBEDDING_PRECISION=fp32")


def make_embedder(settings: Settings, precision: str | None = None) -> Embedder:
    """The embedder chosen by ``settings.embedding_backend``; `precision` overrides
    ``settings.embedding_precision`` (the precision of the collection it will search)."""
    if settings.embedding_backend == "openai":
        return OpenAIEmbedder(settings.embedding_model, settings.embedding_base_url or settings.openai_base_url,
                              settings.openai_api_key, timeout=settings.timeout,
                              max_retries=settings.max_retries)
    return OnnxMiniLM(settings.embedding_model_dir, batch_size=settings.embedding_batch_size,
                      precision=precision or settings.embedding_precision, cache_dir=settings.paths.cache_dir,
                      threads=settings.embedding_threads, model_cache_dir=settings.model_cache_dir)
