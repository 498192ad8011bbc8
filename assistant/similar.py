"""Papers like a paper: its nearest neighbours in the collection by the stored abstract vectors.

Used by ``assistant similar ID`` and by the chat's abstract viewer (S). The vectors are the ones
ingestion stored in Chroma (all-MiniLM-L6-v2 by default), so nothing is embedded again; similarity
is Chroma's cosine (1 - cosine distance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.store.collection import PaperStore
    from assistant.store.paper import Paper


def similar_papers(store: PaperStore, paper_id: str, k: int = 8) -> list[tuple[Paper, float]]:
    """The `k` papers nearest to paper `paper_id`: ``[(Paper, cosine similarity)]``, most similar first,
    the paper itself left out. A paper missing from the store gives []; store failures raise the
    store's error (`assistant.store.chroma.StoreError`)."""
    import numpy as np

    got = store._call("get", store.collection.get, ids=[paper_id], include=["embeddings"])
    embeddings = got.get("embeddings")
    if embeddings is None or len(embeddings) == 0:
        return []
    pairs = [(i, sim) for i, sim in store.dense_query(np.asarray(embeddings[0], dtype=np.float32), k + 1)
             if i != paper_id][:k]
    by_id = {p.id: p for p in store.get([i for i, _ in pairs])}
    return [(by_id[i], sim) for i, sim in pairs if i in by_id]
