"""The Chroma collection: an embedded `PersistentClient` in the data folder, or a Chroma server
through `HttpClient` when ``ASSISTANT_CHROMA_URL`` is set.

The collection records the embedding model, dimension and ONNX precision it was built with (collection
metadata ``embedding_model`` / ``embedding_dim`` / ``embedding_precision``, and for int8 which copy of the
model, ``embedding_int8_version``) and a ``revision`` counter
that every change bumps (before the first write and after the last), so derived indexes (BM25) know
when to rebuild. Vectors are compared by cosine distance.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from assistant.enums import ErrorKind
from assistant.errors import AssistantError

if TYPE_CHECKING:
    from chromadb.api.models.Collection import Collection

    from assistant.settings import Settings

# Chroma prints telemetry warnings and tries to reach its telemetry host; neither belongs here.
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


class StoreError(AssistantError):
    """The store cannot be opened or used; the message is one line saying what to do. `problem` names
    the failure in a few words (the chat app's header shows it)."""

    kind = ErrorKind.STORE
    problem = "store unavailable"


class PrecisionMismatchError(StoreError):
    """The collection was built at another ONNX precision than ``ASSISTANT_EMBEDDING_PRECISION`` says."""

    problem = "embedding precision mismatch"


class ReadOnlyStoreError(StoreError):
    """The data folder (the embedded Chroma store) cannot be written."""

    problem = "read-only data folder"


_READ_ONLY_ERRNOS = {30, 13, 1}  # EROFS, EACCES, EPERM


def is_read_only_error(exc: BaseException) -> bool:
    """Whether `exc` says a file could not be written: an `OSError` with EROFS / EACCES / EPERM, or
    SQLite's "attempt to write a readonly database" (code 8, SQLITE_READONLY) as Chroma reports it."""
    if isinstance(exc, OSError) and exc.errno in _READ_ONLY_ERRNOS:
        return True
    text = str(exc).lower()
    return "readonly database" in text or "read-only file system" in text or "permission denied" in text


def read_only_message(settings: Settings, exc: BaseException) -> str:
    """One line for a data folder the store cannot write: which folder, the system's reason, and what to do
    (Chroma's embedded store writes to its folder even to search)."""
    folder = settings.paths.data_dir
    text = " ".join(str(exc).split())
    reason = (getattr(exc, "strerror", None)
              or ("SQLite: attempt to write a readonly database" if "readonly database" in text.lower() else text[-80:]))
    copy = f"e.g. a copy made with `cp -a {folder} ~/paper-data`" if folder.is_dir() else "e.g. ~/paper-data"
    return (f"the data folder {folder} is read-only ({reason}), and the Chroma store needs to write there even "
            f"to search; point ASSISTANT_DATA_DIR (or --data-dir) at a folder you can write, {copy}")


def make_client(settings: Settings):
    """A Chroma client: `HttpClient` for ``settings.chroma_url``, else a `PersistentClient` in
    ``<data_dir>/chroma``. Raises `StoreError` when the server is unreachable or the folder cannot be
    written (a read-only data folder: the message says so and names ASSISTANT_DATA_DIR / --data-dir)."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    logging.getLogger("chromadb").setLevel(logging.ERROR)
    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_url:
        url = urlparse(settings.chroma_url if "://" in settings.chroma_url else f"http://{settings.chroma_url}")
        host, port = url.hostname or "localhost", url.port or (443 if url.scheme == "https" else 8000)
        try:
            client = chromadb.HttpClient(host=host, port=port, ssl=url.scheme == "https", settings=chroma_settings)
            client.heartbeat()
        except Exception:
            read_as = f"{'https' if url.scheme == 'https' else 'http'}://{host}:{port}"
            shown = settings.chroma_url if settings.chroma_url == read_as else f"{settings.chroma_url} (read as {read_as})"
            raise StoreError(f"Chroma server at {shown} is not reachable; start it (chroma run --path DIR --port N), "
                             f"fix the URL, or unset ASSISTANT_CHROMA_URL") from None
        return client
    path = settings.paths.chroma_dir
    try:
        path.mkdir(parents=True, exist_ok=True)
        import tempfile

        # Chroma opens its SQLite file for writing even to read; on a read-only folder it fails with an
        # error of its own, and a second attempt in the same process with an unrelated one (a chat retrying)
        with tempfile.TemporaryFile(dir=path):
            pass
        return chromadb.PersistentClient(path=str(path), settings=chroma_settings)
    except Exception as exc:
        if is_read_only_error(exc):
            raise ReadOnlyStoreError(read_only_message(settings, exc)) from None
        blocking = next((p for p in [path, *path.parents] if p.exists() and not p.is_dir()), None)
        if blocking is not None:  # "--data-dir notes.txt": the data folder given is a file
            raise StoreError(f"cannot open the Chroma store in {path}: {blocking} is a file, not a folder; give a "
                             f"data folder with ASSISTANT_DATA_DIR (or --data-dir)") from None
        raise StoreError(f"cannot open the Chroma store in {path} ({type(exc).__name__}: {exc}); "
                         f"check the data folder, ASSISTANT_DATA_DIR (or --data-dir)") from None


def open_collection(client, name: str, embedding_model: str, embedding_dim: int,
                    create: bool = True, embedding_precision: str | None = None,
                    check_precision: bool = True) -> Collection | None:
    """Get (or create) the collection `name`, checking it was built with `embedding_model` (and, for
    the ONNX model with `check_precision`, `embedding_precision`: ``"fp32"`` or ``"int8"``;
    collections made before the precision was recorded are fp32). A new collection records
    `embedding_precision`; `built_precision` reads it back.

    Returns None when the collection does not exist and `create` is False. Raises `StoreError`
    naming both models when the collection was built with another embedding model, dimension or
    (checked) precision.
    """
    try:
        if create:
            metadata = {"hnsw:space": "cosine", "embedding_model": embedding_model,
                        "embedding_dim": embedding_dim, "revision": 0}
            if embedding_precision:
                metadata["embedding_precision"] = embedding_precision
            if embedding_precision == "int8":
                from assistant.store.embeddings import INT8_VERSION

                metadata["embedding_int8_version"] = INT8_VERSION
            collection = client.get_or_create_collection(name, embedding_function=None, metadata=metadata)
        else:
            names = {c if isinstance(c, str) else c.name for c in client.list_collections()}
            if name not in names:
                return None
            collection = client.get_collection(name, embedding_function=None)
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"cannot open collection '{name}' ({type(exc).__name__}: {exc})") from None
    meta = collection.metadata or {}
    built_with = meta.get("embedding_model")
    built_dim = meta.get("embedding_dim")
    if built_with and (built_with != embedding_model or (built_dim and int(built_dim) != embedding_dim)):
        raise StoreError(
            f"collection '{name}' was built with embedding model {built_with} ({built_dim} dims) but the "
            f"configured model is {embedding_model} ({embedding_dim} dims); set ASSISTANT_EMBEDDING_MODEL "
            f"back, or use another collection (ASSISTANT_COLLECTION)")
    recorded = built_precision(collection)
    if built_with and embedding_precision and check_precision and recorded != embedding_precision:
        raise PrecisionMismatchError(precision_mismatch_message(name, built_with, collection, embedding_precision))
    set_search_ef(collection)
    return collection


SEARCH_EF = 400
"""Candidates Chroma's HNSW search keeps (``hnsw.ef_search``; Chroma's default 100, and a query for k
neighbours searches with ``max(ef_search, k)``). At 16,124 papers and the retriever's 100 dense
candidates, 100 missed the exact nearest paper of 3 of 151 development questions (airas_dev and
airas_fresh..fresh3; one a known item whose paper came only from BM25 and so had no dense similarity)
and 2.6% of the exact ten nearest (recall of the exact 100: 0.912); 400 missed 1 and 0.5% (0.988).
BEIR SciFact test nDCG@10: dense 0.642 -> 0.645, hybrid 0.735 -> 0.733 (train 0.7395 -> 0.7398)."""


def set_search_ef(collection, value: int = SEARCH_EF) -> None:
    """Raise the collection's HNSW ``ef_search`` to `value` (a larger one a user chose is kept). Best
    effort: a Chroma that refuses (a server of another version, a non-HNSW index) keeps its setting,
    which costs recall of the nearest papers at scale, not correctness."""
    try:
        hnsw = (collection.configuration or {}).get("hnsw") or {}
        current = hnsw.get("ef_search")
        if current is None or current >= value:
            return
        collection.modify(configuration={"hnsw": {"ef_search": value}})
    except Exception as exc:  # recall only
        logging.getLogger(__name__).debug("cannot set hnsw ef_search: %s", exc)


def precision_mismatch_message(name: str, built_with: str, collection, configured: str) -> str:
    """One line for a collection built at another ONNX precision than ``ASSISTANT_EMBEDDING_PRECISION``
    set explicitly: what it was built with (for int8, whether with the old copy of the model:
    ``embedding_int8_version`` 1 or unrecorded) and the ways out: unset the setting (a collection is
    searched with the precision it was built with), set it to the collection's, or re-ingest into another
    collection."""
    recorded = built_precision(collection)
    built = f"{built_with} {recorded} embeddings"
    if recorded == "int8":
        from assistant.store.embeddings import INT8_VERSION

        version = (collection.metadata or {}).get("embedding_int8_version")
        if built_int8_version(collection) < INT8_VERSION:
            built += (" of the old int8 copy (embedding_int8_version " + (f"{version}" if version else "unrecorded")
                      + "; int8 runs that copy for it)")
    return (f"collection '{name}' was built with {built} but the configured precision is {configured}; unset "
            f"ASSISTANT_EMBEDDING_PRECISION (each collection is searched at its own) or set "
            f"ASSISTANT_EMBEDDING_PRECISION={recorded}, or re-ingest into another collection (ASSISTANT_COLLECTION)")


def built_precision(collection) -> str:
    """The ONNX precision the collection's vectors were made with: its ``embedding_precision`` metadata,
    ``"fp32"`` when unrecorded (collections made before it was recorded, when fp32 was the only one)."""
    return str((collection.metadata or {}).get("embedding_precision") or "fp32")


def built_int8_version(collection) -> int:
    """Which int8 copy of the model an int8 collection's vectors were made with (`INT8_VERSION`): its
    ``embedding_int8_version`` metadata, 1 when unrecorded (int8 collections made before it was recorded)."""
    return int((collection.metadata or {}).get("embedding_int8_version") or 1)


def revision(collection) -> int:
    """The collection's change counter (0 for a new collection)."""
    return int((collection.metadata or {}).get("revision", 0))


def bump_revision(collection, writing: bool = False) -> None:
    """Mark the collection as changed: ``revision`` + 1 and a new random ``revision_token`` (two writers
    that read the same revision still leave different tokens), so derived indexes rebuild on their next
    use. `writing` True says a write has started and not finished (set before the first upsert, cleared
    by the bump after the last; a killed ingest leaves it set). Pass a freshly fetched collection."""
    import secrets

    meta = {k: v for k, v in (collection.metadata or {}).items() if not k.startswith("hnsw:")}
    meta["revision"] = revision(collection) + 1
    meta["revision_token"] = secrets.token_hex(8)
    meta["writing"] = writing
    collection.modify(metadata=meta)


# Chroma's embedded store writes new vectors to its log (SQLite) at once, but saves its HNSW index
# only every `sync_threshold` records (Chroma's default 1000); every process that opens the
# collection replays the log since the last save into the index first. After an ingest up to 999
# vectors are left to replay on every open (~0.9 s of a cold search at 16k papers; 0.1 s once saved).
# Chroma has no call that saves the index (chroma-core/chroma#7463), so between writes the threshold
# is set low: the next process that opens the collection replays the tail once and saves the index;
# a write sets it back before its first upsert, so an ingest saves as often as before.
WRITE_SYNC_THRESHOLD = 1000  # Chroma's default `hnsw.sync_threshold`
READ_SYNC_THRESHOLD = 2  # the smallest value Chroma documents for its HNSW batch settings


def set_sync_threshold(collection, value: int, only_from: int | None = None) -> None:
    """Set the collection's HNSW ``sync_threshold`` (records applied before Chroma saves its HNSW
    index) to `value`; with `only_from`, only when it is that value now (a threshold a user chose is
    kept). Best effort: a Chroma that refuses (a server of another version, a non-HNSW index) keeps
    its setting, which costs start-up time, not correctness."""
    try:
        hnsw = (collection.configuration or {}).get("hnsw") or {}
        current = hnsw.get("sync_threshold")
        if current is None or current == value or (only_from is not None and current != only_from):
            return
        collection.modify(configuration={"hnsw": {"sync_threshold": value}})
    except Exception as exc:  # an optimisation only
        logging.getLogger(__name__).debug("cannot set hnsw sync_threshold: %s", exc)

