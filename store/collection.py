"""`PaperStore`: the Chroma collection of papers, its embedder and its BM25 index, in one object.

Chroma is the single source of truth (documents, metadata, vectors); the BM25 index and the in-memory
list of papers are derived from it and refreshed when the collection's revision changes. Writers mark the
collection before their first upsert (`begin_write`) and after their last (`mark_changed`), and the
cached index is keyed by a hash of the stored documents, so a killed ingest never leaves a stale index.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from assistant.store.chroma import (READ_SYNC_THRESHOLD, WRITE_SYNC_THRESHOLD, ReadOnlyStoreError, StoreError,
                                    built_int8_version,
                                    built_precision, bump_revision, is_read_only_error, make_client,
                                    open_collection, read_only_message, revision, set_sync_threshold)
from assistant.store.embeddings import PRECISIONS, Embedder, make_embedder
from assistant.store.paper import Paper

if TYPE_CHECKING:
    import numpy as np

    from assistant.settings import Settings
    from assistant.store.bm25 import BM25Index

PAGE = 2000  # records per Chroma get() page
PRECISION_HINTS = "embedding_precision.json"  # in the cache folder: {"<chroma url or 'local'>|<collection>": precision}


class PaperStore:
    """The collection named by ``settings.collection`` in the configured Chroma.

    Opening is lazy: nothing touches Chroma or the model until a method needs it.
    The ONNX embedder runs the precision the collection was built with (recorded in its metadata;
    unrecorded = fp32), whatever the default (an int8 collection opens under the fp32 default, and an
    fp32 one would under an int8 default); ``settings.embedding_precision`` chooses the precision of a
    new collection, and, when set explicitly, is checked against an existing one (`open_collection`).
    The precision is known before Chroma is imported (a hint in the cache folder, written when the
    collection is opened), so the model can load while Chroma opens.
    Raises `StoreError` / `EmbeddingError` (one-line messages) when the store or model is unusable.
    """

    def __init__(self, settings: Settings, embedder: Embedder | None = None, client=None):
        self.settings = settings
        self._embedder = embedder
        self._client = client
        self._snapshot: tuple[tuple, PaperList, BM25Index] | None = None
        self._writing = False  # this object has started a write (begin_write) not yet marked finished

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings, precision=self._existing_precision())
        return self._embedder

    @cached_property
    def client(self):
        return self._client if self._client is not None else make_client(self.settings)

    @cached_property
    def collection(self):
        embedder = self.embedder
        precision = getattr(embedder, "precision", None)
        explicit = "embedding_precision" in self.settings.model_fields_set
        collection = open_collection(self.client, self.settings.collection, embedder.name, embedder.dim,
                                     embedding_precision=precision, check_precision=explicit)
        if precision is not None:
            built = built_precision(collection)
            if built != precision:  # the hint was missing or stale: run what the collection was built with
                embedder.use_precision(built)
            if built == "int8":  # an int8 collection made before the attention-fused copy runs the copy before
                embedder.use_int8_version(built_int8_version(collection))
            self._remember_precision(built)
        return collection

    def _hint_key(self) -> str:
        return f"{self.settings.chroma_url or 'local'}|{self.settings.collection}"

    def _read_hints(self) -> dict:
        import json

        try:
            hints = json.loads((self.settings.paths.cache_dir / PRECISION_HINTS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return hints if isinstance(hints, dict) else {}

    def _remember_precision(self, precision: str) -> None:
        """Note the collection's precision in the cache folder, for the next process (best effort)."""
        import json
        import os

        hints = self._read_hints()
        if hints.get(self._hint_key()) == precision:
            return
        hints[self._hint_key()] = precision
        path = self.settings.paths.cache_dir / PRECISION_HINTS
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{PRECISION_HINTS}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(hints, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            pass  # a read-only data folder: the next process reads the precision from Chroma instead

    def _existing_precision(self) -> str | None:
        """The ONNX precision of the existing collection, when the setting was not given explicitly: the
        hint `_remember_precision` left, else (a store made before hints) read from Chroma; None for a
        new collection, an explicit setting or another embedding backend (the setting then applies)."""
        s = self.settings
        if s.embedding_backend != "onnx" or "embedding_precision" in s.model_fields_set:
            return None
        hint = self._read_hints().get(self._hint_key())
        if hint in PRECISIONS:
            return hint
        if not s.chroma_url and not (s.paths.chroma_dir / "chroma.sqlite3").exists():
            return None  # no store yet
        listed = self._call("list collections", self.client.list_collections)
        names = {c if isinstance(c, str) else c.name for c in listed}
        if s.collection not in names:
            return None
        built = built_precision(self._call("get collection", self.client.get_collection, s.collection,
                                           embedding_function=None))
        self._remember_precision(built)
        return built

    @property
    def name(self) -> str:
        return self.settings.collection

    def _call(self, what: str, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:
            if not self.settings.chroma_url and is_read_only_error(exc):
                raise ReadOnlyStoreError(read_only_message(self.settings, exc)) from None
            where = self.settings.chroma_url or str(self.settings.paths.chroma_dir)
            detail = " ".join(str(exc).split())[:160]  # one line: a server's error text can span several
            hint = ""
            if self.settings.chroma_url and _is_connection_error(exc):
                hint = "; is the server still running? start it (chroma run --path DIR --port N) and try again"
            raise StoreError(f"Chroma {what} failed at {where} ({type(exc).__name__}: {detail}){hint}") from None

    # --- reading -----------------------------------------------------------------------------------
    def count(self) -> int:
        return self._call("count", self.collection.count)

    def _fresh(self):
        """The collection as Chroma has it now (another process may have changed its metadata)."""
        _ = self.collection  # created on first use
        return self._call("get collection", self.client.get_collection, self.settings.collection,
                          embedding_function=None)

    def revision(self) -> int:
        """The collection's change counter, read from Chroma (another process may have changed it)."""
        return revision(self._fresh())

    def _state(self) -> tuple[int, str, bool]:
        """(revision, revision token, a write started and not finished), read from Chroma."""
        fresh = self._fresh()
        meta = fresh.metadata or {}
        return revision(fresh), str(meta.get("revision_token", "")), bool(meta.get("writing", False))

    def get(self, ids: Sequence[str]) -> list[Paper]:
        """Papers with these ids, in the given order; unknown ids are left out."""
        if not ids:
            return []
        res = self._call("get", self.collection.get, ids=list(ids), include=["documents", "metadatas"])
        found = {i: Paper.from_chroma(i, d, m) for i, d, m in zip(res["ids"], res["documents"], res["metadatas"])}
        return [found[i] for i in ids if i in found]

    def find(self, id_or_prefix: str) -> list[Paper]:
        """The paper with this id, or every paper whose id starts with the prefix."""
        exact = self.get([id_or_prefix])
        if exact:
            return exact
        return [p for p in self.papers() if p.id.startswith(id_or_prefix)]

    def iter_raw(self, include: list[str]):
        """Yield Chroma get() pages of the whole collection."""
        total = self.count()
        for offset in range(0, total, PAGE):
            yield self._call("get", self.collection.get, limit=PAGE, offset=offset, include=include)

    def existing_hashes(self, ids: Sequence[str]) -> dict[str, str]:
        """``{id: content_hash}`` for the ids already in the collection."""
        out: dict[str, str] = {}
        for start in range(0, len(ids), PAGE):
            res = self._call("get", self.collection.get, ids=list(ids[start : start + PAGE]), include=["metadatas"])
            out.update({i: str((m or {}).get("content_hash", "")) for i, m in zip(res["ids"], res["metadatas"])})
        return out

    def ids_from_source(self, source: str) -> dict[str, int | None]:
        """``{id: position}`` of the papers read from the file named `source`."""
        res = self._call("get", self.collection.get, where={"source": source}, include=["metadatas"])
        return {i: (m or {}).get("position") for i, m in zip(res["ids"], res["metadatas"])}

    def _load_snapshot(self) -> tuple[tuple, PaperList, BM25Index]:
        """The papers and their BM25 index, matching what Chroma holds.

        Reused in memory while the collection's revision and token are unchanged and no write is
        unfinished. On disk, the papers and the index are cached under (revision, token, count) after a
        finished write; while a write is marked unfinished (an ingest killed between its upserts and its
        final bump) they are read from Chroma and keyed by a SHA-256 of every (id, document) pair, so an
        index is only used when it was built from exactly what is stored now.
        """
        import hashlib

        from assistant.store.bm25 import BM25Index, cache_folder

        state = self._state()
        if self._snapshot is not None and self._snapshot[0] == state and not state[2]:
            return self._snapshot
        rev, token, writing = state
        folder = cache_folder(self.settings.paths.cache_dir, str(self.collection.id))
        papers = index = None
        if not writing:
            # A finished write leaves a new revision and token, so they name what is stored. The papers
            # are cached beside the BM25 index under that key: reading 16k papers back from Chroma was
            # the largest share of a cold search's own work.
            key = f"{self.collection.id}:{rev}:{token}:{self.count()}"
            papers = _load_papers(folder, key)
            index = BM25Index.load(folder, key) if papers is not None else None
        if papers is None or index is None or index.ids != papers.ids:
            papers = []
            for page in self.iter_raw(["documents", "metadatas"]):
                papers.extend(Paper.from_chroma(i, d, m)
                              for i, d, m in zip(page["ids"], page["documents"], page["metadatas"]))
            papers.sort(key=lambda p: p.id)
            if writing:  # a write started and did not finish (killed): key by what is stored now
                digest = hashlib.sha256()
                for p in papers:
                    digest.update(f"{p.id}\x1f{p.document}\x1e".encode("utf-8", "surrogatepass"))
                key = f"{self.collection.id}:{len(papers)}:{digest.hexdigest()}"
            else:
                key = f"{self.collection.id}:{rev}:{token}:{len(papers)}"
            index = BM25Index.load(folder, key)
            if index is None or index.ids != [p.id for p in papers]:
                index = BM25Index.build([p.id for p in papers], [p.document for p in papers])
                if papers:
                    try:
                        index.save(folder, key)
                    except OSError:
                        pass  # a read-only data folder only costs a rebuild next time
            if papers:
                _save_papers(folder, key, papers)
            papers = PaperList([p.id for p in papers], papers)
        self._snapshot = (state, papers, index)
        return self._snapshot

    def papers(self) -> list[Paper]:
        """Every paper in the collection, sorted by id."""
        return self._load_snapshot()[1].all()

    def bm25(self) -> tuple[PaperList, BM25Index]:
        """The papers and the BM25 index over them (same order), rebuilt if the collection changed. The
        papers are a `PaperList`: read from the cache one by one as they are asked for."""
        _, papers, index = self._load_snapshot()
        return papers, index

    def dense_query(self, vector: np.ndarray, n: int, where: dict | None = None,
                    ids: list[str] | None = None) -> list[tuple[str, float]]:
        """Nearest neighbours of one ``(dim,)`` vector: ``[(id, cosine similarity)]``, best first."""
        if n <= 0:
            return []
        kwargs = {"query_embeddings": [vector.tolist()], "n_results": n, "include": ["distances"]}
        if where:
            kwargs["where"] = where
        if ids is not None:
            kwargs["ids"] = ids
        res = self._call("query", self.collection.query, **kwargs)
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0])]

    # --- writing -----------------------------------------------------------------------------------
    def begin_write(self) -> None:
        """Mark the collection as being written, before the first upsert or delete (both call it): every
        BM25 index built before is stale from now on, here and in other processes, even if the write is
        killed before `mark_changed`."""
        if not self._writing:
            fresh = self._fresh()
            self._call("update metadata", bump_revision, fresh, True)
            set_sync_threshold(fresh, WRITE_SYNC_THRESHOLD, only_from=READ_SYNC_THRESHOLD)
            self._writing = True
            self._snapshot = None

    def upsert(self, papers: Sequence[Paper], embeddings: np.ndarray) -> None:
        if not papers:
            return
        self.begin_write()
        self._call("upsert", self.collection.upsert, ids=[p.id for p in papers],
                   documents=[p.document for p in papers], metadatas=[p.to_metadata() for p in papers],
                   embeddings=embeddings)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self.begin_write()
            self._call("delete", self.collection.delete, ids=list(ids))

    def mark_changed(self) -> None:
        """The write is finished: bump the revision and clear the mark `begin_write` set."""
        fresh = self._fresh()
        self._call("update metadata", bump_revision, fresh, False)
        if not self.settings.chroma_url:
            # the next process that opens the collection saves Chroma's HNSW index once
            set_sync_threshold(fresh, READ_SYNC_THRESHOLD, only_from=WRITE_SYNC_THRESHOLD)
        self._writing = False
        self._snapshot = None


PAPERS_CACHE = "papers.v2.pickle"
_HEADER = struct.Struct("<Q")


class PaperList(Sequence[Paper]):
    """The papers of a snapshot, sorted by id; ``ids[i]`` is ``self[i].id``.

    Read from the papers cache (`_save_papers`) lazily: the ids at once, a paper when it is first
    asked for, all papers when the list is iterated (or `all` is called). A cold search at 16k papers
    reads its top-k papers instead of unpickling all 16k (~0.4 s). The cache file stays open, so a
    newer cache written meanwhile by another process does not change this snapshot."""

    def __init__(self, ids: list[str], items: list[Paper] | None = None, source: tuple | None = None):
        self.ids = ids
        self._items = items
        self._some: dict[int, Paper] = {}
        self._source = source  # (open file, offset of the first paper, end offset of each paper)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.ids)

    def _read(self, start: int, end: int) -> bytes:
        f, base, _ = self._source
        with self._lock:  # threads of a batch run share the file position
            f.seek(base + start)
            return f.read(end - start)

    def __getitem__(self, i):
        import pickle

        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if self._items is not None:
            return self._items[i]
        i = range(len(self.ids))[i]  # negative indices; IndexError when out of range
        paper = self._some.get(i)
        if paper is None:
            ends = self._source[2]
            paper = self._some[i] = pickle.loads(self._read(ends[i - 1] if i else 0, ends[i]))
        return paper

    def all(self) -> list[Paper]:
        """Every paper, in order (read from the cache once)."""
        import pickle

        if self._items is None:
            ends = self._source[2]
            data = memoryview(self._read(0, ends[-1] if ends else 0))
            self._items = [pickle.loads(data[a:b]) for a, b in zip([0, *ends[:-1]], ends)]
            self._source[0].close()
        return self._items

    def __iter__(self):
        return iter(self.all())


def _load_papers(folder, key: str) -> PaperList | None:
    """The papers cached in `folder` under `key`, as a lazily read `PaperList`, else None."""
    import pickle

    try:
        f = open(folder / PAPERS_CACHE, "rb")
    except OSError:
        return None
    try:
        (size,) = _HEADER.unpack(f.read(_HEADER.size))
        cached_key, ids, ends = pickle.loads(f.read(size))
        if cached_key != key or len(ids) != len(ends):
            f.close()
            return None
    except Exception:
        f.close()
        return None
    return PaperList(ids, source=(f, _HEADER.size + size, ends))


def _save_papers(folder, key: str, papers: list[Paper]) -> None:
    """Write the papers cache: a header (key, ids, end offset of each paper) and each paper pickled on
    its own, so that one paper can be read without the others (`PaperList`)."""
    import os
    import pickle

    try:
        folder.mkdir(parents=True, exist_ok=True)
        blobs = [pickle.dumps(p, protocol=pickle.HIGHEST_PROTOCOL) for p in papers]
        ends, total = [], 0
        for b in blobs:
            total += len(b)
            ends.append(total)
        header = pickle.dumps((key, [p.id for p in papers], ends), protocol=pickle.HIGHEST_PROTOCOL)
        tmp = folder / (PAPERS_CACHE + f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            f.write(_HEADER.pack(len(header)))
            f.write(header)
            f.writelines(blobs)
        tmp.replace(folder / PAPERS_CACHE)
        (folder / "papers.pickle").unlink(missing_ok=True)  # the cache's earlier format
    except OSError:
        pass  # a read-only data folder only costs reading the papers from Chroma next time


def _is_connection_error(exc: BaseException) -> bool:
    """Whether `exc` (or what caused it) says the Chroma server could not be reached: httpx's
    ``ConnectError``/``ConnectTimeout`` or an `OSError` such as connection refused."""
    seen = 0
    while exc is not None and seen < 5:
        name = type(exc).__name__
        if name in ("ConnectError", "ConnectTimeout", "RemoteProtocolError") or isinstance(exc, ConnectionError):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False
