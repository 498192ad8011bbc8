"""`PaperStore`: the Chroma collection of papers, its embedder and its BM25 index, in one object.

Chroma is the single source of truth (documents, metadata, vectors); the BM25 index and the in-memory
list of papers are derived from it and refreshed when the collection's revision changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from store.chroma import StoreError, bump_revision, make_client, open_collection, revision
from store.embeddings import Embedder, make_embedder
from store.paper import Paper

if TYPE_CHECKING:
    import numpy as np

    from assistant.settings import Settings
    from store.bm25 import BM25Index

PAGE = 2000  # records per Chroma get() page


class PaperStore:
    """The collection named by ``settings.collection`` in the configured Chroma.

    Opening is lazy: nothing touches Chroma or the model until a method needs it.
    Raises `StoreError` / `EmbeddingError` (one-line messages) when the store or model is unusable.
    """

    def __init__(self, settings: Settings, embedder: Embedder | None = None, client=None):
        self.settings = settings
        self._embedder = embedder
        self._client = client
        self._snapshot: tuple[int, list[Paper], BM25Index] | None = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings)
        return self._embedder

    @cached_property
    def client(self):
        return self._client if self._client is not None else make_client(self.settings)

    @cached_property
    def collection(self):
        return open_collection(self.client, self.settings.collection, self.embedder.name, self.embedder.dim,
                               embedding_precision=getattr(self.embedder, "precision", None))

    @property
    def name(self) -> str:
        return self.settings.collection

    def _call(self, what: str, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:
            where = self.settings.chroma_url or str(self.settings.paths.chroma_dir)
            raise StoreError(f"Chroma {what} failed at {where} ({type(exc).__name__}: {str(exc)[:160]})") from None

    # --- reading -----------------------------------------------------------------------------------
    def count(self) -> int:
        return self._call("count", self.collection.count)

    def revision(self) -> int:
        """The collection's change counter, read from Chroma (another process may have changed it)."""
        _ = self.collection  # created on first use
        fresh = self._call("get collection", self.client.get_collection, self.settings.collection,
                           embedding_function=None)
        return revision(fresh)

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

    def _load_snapshot(self) -> tuple[int, list[Paper], BM25Index]:
        from store.bm25 import BM25Index, cache_folder

        rev = self.revision()
        if self._snapshot is not None and self._snapshot[0] == rev:
            return self._snapshot
        folder = cache_folder(self.settings.paths.cache_dir, str(self.collection.id))
        # The papers are cached beside the BM25 index under the same key (collection, revision, count):
        # reading 16k papers back from Chroma was the largest share of a cold search's own work.
        key = f"{self.collection.id}:{rev}:{self.count()}"
        papers = _load_papers(folder, key)
        index = BM25Index.load(folder, key) if papers is not None else None
        if papers is None or index is None or index.ids != [p.id for p in papers]:
            papers = []
            for page in self.iter_raw(["documents", "metadatas"]):
                papers.extend(Paper.from_chroma(i, d, m)
                              for i, d, m in zip(page["ids"], page["documents"], page["metadatas"]))
            papers.sort(key=lambda p: p.id)
            key = f"{self.collection.id}:{rev}:{len(papers)}"
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
        self._snapshot = (rev, papers, index)
        return self._snapshot

    def papers(self) -> list[Paper]:
        """Every paper in the collection, sorted by id."""
        return self._load_snapshot()[1]

    def bm25(self) -> tuple[list[Paper], BM25Index]:
        """The papers and the BM25 index over them (same order), rebuilt if the collection changed."""
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
    def upsert(self, papers: Sequence[Paper], embeddings: np.ndarray) -> None:
        if not papers:
            return
        self._call("upsert", self.collection.upsert, ids=[p.id for p in papers],
                   documents=[p.document for p in papers], metadatas=[p.to_metadata() for p in papers],
                   embeddings=embeddings)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._call("delete", self.collection.delete, ids=list(ids))

    def mark_changed(self) -> None:
        self._call("update metadata", bump_revision, self.collection)
        self._snapshot = None


PAPERS_CACHE = "papers.pickle"


def _load_papers(folder, key: str) -> list[Paper] | None:
    """The papers cached in `folder` under `key` (this process's own cache file), else None."""
    import pickle

    try:
        with open(folder / PAPERS_CACHE, "rb") as f:
            cached_key, papers = pickle.load(f)
    except Exception:
        return None
    return papers if cached_key == key else None


def _save_papers(folder, key: str, papers: list[Paper]) -> None:
    import os
    import pickle

    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / (PAPERS_CACHE + f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump((key, papers), f, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(folder / PAPERS_CACHE)
    except OSError:
        pass  # a read-only data folder only costs reading the papers from Chroma next time
