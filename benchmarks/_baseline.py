"""The plain baseline a user would otherwise write: a llama-index `VectorStoreIndex` over a Chroma
collection, with its default node parser (`SentenceSplitter`, 1024-token chunks) and default retriever
(dense top-k by cosine; ``similarity_top_k`` raised from its default 2 to what each benchmark needs).

Embeddings come from the same local all-MiniLM-L6-v2 ONNX model as the product, through a small
llama-index `BaseEmbedding` adapter over `assistant.store.embeddings.OnnxMiniLM`, so nothing is downloaded and
the comparison isolates the pipeline, not the model. Import cost is part of what is measured.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks._scifact import MODEL_DIR


def onnx_embedding(model_dir: Path = MODEL_DIR, batch_size: int = 32):
    """A llama-index embedding model backed by `OnnxMiniLM` (384-dim, L2-normalised)."""
    from llama_index.core.embeddings import BaseEmbedding
    from pydantic import PrivateAttr

    from assistant.store.embeddings import OnnxMiniLM

    class OnnxMiniLMEmbedding(BaseEmbedding):
        _model: OnnxMiniLM = PrivateAttr()

        def __init__(self, **kwargs):
            super().__init__(model_name="all-MiniLM-L6-v2", embed_batch_size=batch_size, **kwargs)
            self._model = OnnxMiniLM(model_dir, batch_size=batch_size)

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._model.embed([query])[0].tolist()

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._model.embed([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._model.embed(texts).tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

    return OnnxMiniLMEmbedding()


def build_index(texts: list[tuple[str, str]], chroma_dir: Path, name: str = "baseline", embed_model=None):
    """Index ``[(doc_id, text)]`` into a new Chroma collection `name` in `chroma_dir`, the way the
    llama-index docs show it (``VectorStoreIndex.from_documents`` with a ``ChromaVectorStore``)."""
    import chromadb
    from llama_index.core import Document, StorageContext, VectorStoreIndex
    from llama_index.vector_stores.chroma import ChromaVectorStore

    client = chromadb.PersistentClient(path=str(chroma_dir))
    collection = client.get_or_create_collection(name)
    store = ChromaVectorStore(chroma_collection=collection)
    ctx = StorageContext.from_defaults(vector_store=store)
    docs = [Document(text=t, id_=i) for i, t in texts]
    return VectorStoreIndex.from_documents(docs, storage_context=ctx, embed_model=embed_model or onnx_embedding())


def build_index_from_store(data_dir: Path, chroma_dir: Path, name: str = "baseline"):
    """The same baseline over the papers of the product store in `data_dir`, from that store's own
    vectors (same papers, same embeddings, no re-embedding): one ``TextNode`` per paper with its
    stored embedding, in a new Chroma collection `name` in `chroma_dir`."""
    import chromadb
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.schema import TextNode
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore

    store = PaperStore(load_settings(data_dir=data_dir, embedding_model_dir=MODEL_DIR))
    nodes = []
    for page in store.iter_raw(["documents", "embeddings"]):
        nodes += [TextNode(id_=i, text=d, embedding=list(map(float, e)))
                  for i, d, e in zip(page["ids"], page["documents"], page["embeddings"])]
    client = chromadb.PersistentClient(path=str(chroma_dir))
    vs = ChromaVectorStore(chroma_collection=client.get_or_create_collection(name))
    return VectorStoreIndex(nodes, storage_context=StorageContext.from_defaults(vector_store=vs),
                            embed_model=onnx_embedding())


def open_index(chroma_dir: Path, name: str = "baseline", embed_model=None):
    """The index over an existing collection (None when it does not exist or is empty)."""
    import chromadb
    from llama_index.core import VectorStoreIndex
    from llama_index.vector_stores.chroma import ChromaVectorStore

    client = chromadb.PersistentClient(path=str(chroma_dir))
    names = {c if isinstance(c, str) else c.name for c in client.list_collections()}
    if name not in names:
        return None
    collection = client.get_collection(name)
    if collection.count() == 0:
        return None
    return VectorStoreIndex.from_vector_store(ChromaVectorStore(chroma_collection=collection),
                                              embed_model=embed_model or onnx_embedding())


def retrieve(index, query: str, top_k: int) -> list[str]:
    """Doc ids of the default retriever's nodes, best first, each doc once (chunks of one doc merged)."""
    nodes = index.as_retriever(similarity_top_k=top_k).retrieve(query)
    return list(dict.fromkeys(n.node.ref_doc_id or n.node.node_id for n in nodes))
