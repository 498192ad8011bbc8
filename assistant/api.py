"""The Python API: a collection of abstracts that a notebook or a script opens, fills, searches and asks.

```python
from assistant import PaperCollection

papers = PaperCollection.open("paper-data")          # a data folder; or chroma_url="http://host:8000"
papers.ingest(["icml2026.jsonl"])                     # idempotent: re-ingesting changes nothing
hits = papers.search("KV cache compression", top_k=5, year="2025-2026")
answer = papers.ask("Which papers compress the KV cache?", llm="extractive")
print(answer.text, [c.paper.title for c in answer.citations])
```

Everything here wraps the product's own pipeline: `assistant.store.collection.PaperStore` (Chroma + BM25),
`assistant.retrieval.Retriever` (hybrid retrieval), `assistant.answering.answer` (relevance gate,
context packing, checked citations) and the answer events of `assistant.events`. Nothing is loaded
until it is used: opening a collection touches neither Chroma nor the embedding model.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from assistant.enums import BackendName
from assistant.events import Answer, AnswerEvent

if TYPE_CHECKING:
    from assistant.conversation import Conversation, Turn
    from assistant.llama_index import PaperQueryEngine, PaperRetriever
    from assistant.llm import LLM
    from assistant.retrieval import Filters, Mode, SearchResult
    from assistant.settings import Settings
    from assistant.store.collection import PaperStore
    from assistant.store.embeddings import Embedder
    from assistant.store.ingest import IngestReport
    from assistant.store.paper import Paper

LLMArg = Any
"""What ``llm=`` accepts: None (``settings.llm``), a backend name (``"openai"``, ``"local"``,
``"extractive"``, ``"auto"``), an object with the product's LLM protocol (`assistant.llm.LLM`) or
answer-synthesizer protocol (`assistant.llm.AnswerSynthesizer`), or any
llama-index LLM (``llama_index.core.llms.LLM``: OpenAI, Ollama, Anthropic, Bedrock, ``MockLLM``...),
which answers through the product's pipeline via `assistant.llama_index.LlamaIndexLLM`."""


def make_filters(venue: str | None = None, year: int | str | tuple[int | None, int | None] | None = None,
                 author: str | None = None) -> Filters:
    """`Filters` from the arguments users type: `venue` (case-insensitive, several comma-separated:
    ``"ICML,ICLR"``), `year` (``2026``, ``"2021-2023"``, ``"2021-"`` or a ``(min, max)`` tuple, inclusive)
    and `author` (whole name parts of any author, case-insensitive: ``"Chen"``, ``"Yann LeCun"``). Raises
    `assistant.retrieval.QueryError` (a `ValueError`, one line) for a year that is not a year or range."""
    from assistant.retrieval import Filters, parse_year

    if isinstance(year, tuple):
        lo, hi = year
    else:
        lo, hi = parse_year(year)
    return Filters(venue=venue or None, year_min=lo, year_max=hi, author=author or None)


def _check_setting_names(overrides: dict) -> None:
    """Raise `SettingsError` for a keyword that is no settings field (a typo would otherwise be
    ignored, as the config file's keys are not: `assistant.settings.load_settings`), naming the
    closest field (`difflib`)."""
    import difflib

    from assistant.settings import Settings, SettingsError

    for name in overrides:
        if name not in Settings.model_fields:
            close = difflib.get_close_matches(name, list(Settings.model_fields), n=1)
            hint = f"did you mean {close[0]}?" if close else "see assistant.settings.Settings for the names"
            raise SettingsError(f"PaperCollection.open: '{name}' is not a setting; {hint}")


class PaperCollection:
    """A collection of paper abstracts: a Chroma collection (embedded folder or server), its embedder
    (all-MiniLM-L6-v2 on ONNX by default) and its BM25 index, with ingest, search, ask and chat.

    Open one with `PaperCollection.open`. The object is cheap; Chroma and the model are opened on first
    use. Methods raise `assistant.store.chroma.StoreError` / `assistant.store.embeddings.EmbeddingError` (one-line messages)
    when the store or the model is unusable; answering never raises for LLM failures (see `ask`).
    """

    def __init__(self, settings: Settings, *, store: PaperStore | None = None, embedder: Embedder | None = None):
        from assistant.store.collection import PaperStore

        self.settings = settings
        self.store = store if store is not None else PaperStore(settings, embedder=embedder)
        self._backends: dict[tuple[str, str | None], LLM] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(cls, data_dir: str | PathLike | None = None, *, chroma_url: str | None = None,
             name: str | None = None, settings: Settings | None = None, embedder: Embedder | None = None,
             **overrides: Any) -> PaperCollection:
        """Open the collection `name` (default ``settings.collection``, ``"papers"``).

        `data_dir` is the folder for everything the product writes (the embedded Chroma store, BM25
        caches, logs; default ``$ASSISTANT_DATA_DIR``); `chroma_url` (``http://host:8000``) uses a Chroma
        server instead of the embedded store. `settings` (an `assistant.settings.Settings`) replaces the
        environment and config file; `overrides` are any other settings fields (``top_k=5``,
        ``llm="openai"``, ``model="gpt-4o-mini"``, ``embedding_model_dir=...``). `embedder` replaces the
        embedding model (an object with ``name``, ``dim`` and ``embed(texts) -> (n, dim) float32``).
        Raises `assistant.settings.SettingsError` for an invalid setting or a name that is no setting
        (``topk=2``: the error names ``top_k``); nothing else is checked until used.
        """
        fields = {"data_dir": Path(data_dir).expanduser() if data_dir is not None else None,
                  "chroma_url": chroma_url, "collection": name, **overrides}
        fields = {k: v for k, v in fields.items() if v is not None}
        _check_setting_names(overrides)
        if settings is None:
            from assistant.settings import load_settings

            settings = load_settings(keywords={"collection": "name"}, **fields)
        elif fields:
            settings = settings.model_copy(update=fields)
        return cls(settings, embedder=embedder)

    def __repr__(self) -> str:
        where = self.settings.chroma_url or str(self.settings.paths.chroma_dir)
        return f"PaperCollection({self.name!r} at {where})"

    @property
    def name(self) -> str:
        """The Chroma collection's name."""
        return self.store.name

    def __len__(self) -> int:
        return self.store.count()

    # --- papers -----------------------------------------------------------------------------------
    def ingest(self, paths: str | PathLike | Iterable[str | PathLike], *, venue: str = "", year: int | None = None,
               progress: Callable[[int, int], None] | None = None) -> IngestReport:
        """Add abstract files or folders (``.txt`` lists, ``.json``, ``.jsonl``, ``.csv``) to the collection.

        Idempotent: unchanged records are not re-embedded, an edited record replaces the old one (same
        id). `venue` / `year` fill records that name none; `progress(done, total)` is called as papers
        are embedded. Bad records and unreadable files do not raise: they are in the report's
        ``skipped`` list (file, line, reason) and ``report.ok`` is False. Returns a
        `assistant.store.ingest.IngestReport` (``added``, ``updated``, ``unchanged``, ``skipped``, ``seconds``).
        """
        from assistant.store.ingest import ingest

        items = [paths] if isinstance(paths, (str, PathLike)) else list(paths)
        return ingest([Path(p) for p in items], self.store, progress=progress, venue=venue, year=year)

    def remove(self, paper_ids: str | Iterable[str]) -> int:
        """Take papers out of the collection by id (``"p"`` + 16 hex digits, as in search results): their
        vectors, text and metadata, and from the BM25 index; the CLI's ``assistant remove``. Unknown ids
        are ignored. Returns how many were removed. Raises `assistant.store.chroma.StoreError` when the
        store cannot be written."""
        from assistant.store.ingest import remove

        return remove(self.store, [paper_ids] if isinstance(paper_ids, str) else list(paper_ids))

    def papers(self, *, venue: str | None = None, year: int | str | None = None,
               author: str | None = None) -> list[Paper]:
        """Every paper in the collection that matches the filters (see `make_filters`), sorted by id."""
        filters = make_filters(venue, year, author)
        return [p for p in self.store.papers() if filters.matches(p)]

    def stats(self, *, venue: str | None = None, year: int | str | None = None, author: str | None = None) -> dict:
        """The papers that match the filters (see `make_filters`) counted by venue and year
        (`assistant.stats.collection_stats`): ``{"total", "venues": [{"venue", "count", "years": [{"year",
        "count"}]}], "years": [{"year", "count"}]}``, venues by count, years in order, None for a paper
        without venue or year. ``assistant stats --json`` prints the same."""
        from assistant.stats import collection_stats

        return collection_stats(self.papers(venue=venue, year=year, author=author))

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this id (``"p"`` + 16 hex digits, as in search results), or None."""
        found = self.store.get([paper_id])
        return found[0] if found else None

    def search(self, query: str, top_k: int | None = None, *, venue: str | None = None,
               year: int | str | None = None, author: str | None = None, filters: Filters | None = None,
               mode: Mode = "hybrid") -> list[SearchResult]:
        """The `top_k` (default ``settings.top_k``) papers that best match `query`, best first.

        Hybrid retrieval (dense MiniLM kNN in Chroma ∪ BM25, fused by ``settings.fusion``); `mode`
        ``"dense"`` or ``"bm25"`` uses one retriever. Filters: `venue`, `year`, `author` as in
        `make_filters`, or a ready `filters`. Each `assistant.retrieval.SearchResult` has ``paper``,
        ``score`` (fused, higher is better), ``rank`` (from 1), ``dense_similarity`` (cosine, or None
        when not a dense candidate) and ``bm25_score``. Empty for a blank query or an empty collection.
        Raises `assistant.retrieval.QueryError` (a `ValueError`) for a bad year or a `top_k` below 1.
        """
        from assistant.retrieval import Retriever

        filters = filters or make_filters(venue, year, author)
        return Retriever(self.store, self.settings).search(query, top_k=top_k, filters=filters, mode=mode)

    # --- answering --------------------------------------------------------------------------------
    def llm(self, llm: LLMArg = None, model: str | None = None) -> LLM:
        """The LLM backend that answers: see `LLMArg` for what `llm` may be; `model` picks the model of a
        named backend. Named backends are built once per collection and reused. Raises
        `assistant.llm.LLMError` (kind ``"config"``) when a named backend cannot be set up (no API key,
        no llama-cpp-python) and `TypeError` for an object that is no LLM."""
        if llm is None or isinstance(llm, str):
            from assistant.llm import make_llm

            key = ((llm or self.settings.llm or BackendName.AUTO).strip().lower(), model)
            with self._lock:
                if key not in self._backends:
                    self._backends[key] = make_llm(self.settings, key[0], model)
                return self._backends[key]
        base = sys.modules.get("llama_index.core.base.llms.base")  # loaded if the caller made a llama-index LLM
        if base is not None and isinstance(llm, base.BaseLLM):
            from assistant.llama_index import LlamaIndexLLM

            return LlamaIndexLLM(llm, self.settings)
        if all(hasattr(llm, a) for a in ("name", "model", "max_tokens")) and (
                hasattr(llm, "synthesize") or all(hasattr(llm, a) for a in ("stream", "complete", "count_tokens"))):
            return llm  # an LLM backend, or an answer synthesizer (the extractive one)
        raise TypeError(f"llm must be a backend name ({', '.join(BackendName)}), an assistant LLM "
                        f"backend or a llama-index LLM, not {type(llm).__name__}")

    def stream(self, question: str, *, llm: LLMArg = None, model: str | None = None, top_k: int | None = None,
               venue: str | None = None, year: int | str | None = None, author: str | None = None,
               filters: Filters | None = None, conversation: Conversation | None = None,
               cancel: threading.Event | None = None) -> Iterator[AnswerEvent]:
        """Answer `question` as a stream of answer events (`assistant.events`): ``Sources`` (the numbered
        papers given to the model), ``TextDelta`` chunks (citation markers already checked),
        ``Citations``, ``Done``; or ``Error`` (one line, a ``kind``, the partial text) on a failure or
        when `cancel` is set. `top_k` papers (default ``settings.top_k``) are retrieved with the filters
        (as in `search`); when none is about the question the answer says so and cites nothing.
        With `conversation` (an `assistant.conversation.Conversation`) the question may be a follow-up
        (rewritten from its turns); the conversation is not changed (`Chat` adds the turns). Raises
        `assistant.retrieval.QueryError` (a `ValueError`) for an empty question, one longer than
        `assistant.retrieval.MAX_QUERY_CHARS` or a bad year, and `LLMError` / `TypeError` for an unusable
        `llm` (see `llm`), before the first event; never after.
        """
        from assistant.answering import answer
        from assistant.retrieval import QueryError, Retriever, checked_query

        if not checked_query(question):
            raise QueryError("the question is empty; ask something about the papers")
        backend = self.llm(llm, model)
        filters = filters or make_filters(venue, year, author)
        return answer(question, retriever=Retriever(self.store, self.settings), llm=backend, settings=self.settings,
                      conversation=conversation, filters=filters, top_k=top_k, cancel=cancel)

    def ask(self, question: str, *, llm: LLMArg = None, model: str | None = None, top_k: int | None = None,
            venue: str | None = None, year: int | str | None = None, author: str | None = None,
            filters: Filters | None = None, conversation: Conversation | None = None) -> Answer:
        """Answer `question` (arguments as in `stream`) and return the `assistant.events.Answer`: ``text``,
        ``sources``, ``citations`` (checked, each with its paper), ``standalone_question``, ``backend``,
        ``model``, ``usage`` (tokens), ``seconds``, ``refused``, ``note``. A failed answer does not raise:
        its ``error`` / ``error_kind`` are set and ``text`` is what came; ``answer.raise_for_error()``
        raises `assistant.events.AnswerError` instead.
        """
        backend = self.llm(llm, model)
        events = self.stream(question, llm=backend, top_k=top_k, venue=venue, year=year, author=author,
                             filters=filters, conversation=conversation)
        return Answer.from_events(events, question, backend=backend.name, model=backend.model)

    def chat(self, *, llm: LLMArg = None, model: str | None = None, top_k: int | None = None,
             venue: str | None = None, year: int | str | None = None, author: str | None = None,
             conversation: Conversation | None = None) -> Chat:
        """A `Chat` over this collection: follow-up questions are rewritten into standalone questions
        from the conversation so far (`conversation`, or a new one). Arguments as in `stream`."""
        from assistant.conversation import Conversation

        return Chat(self, self.llm(llm, model), conversation if conversation is not None else Conversation(),
                    top_k=top_k, filters=make_filters(venue, year, author))

    # --- llama-index ------------------------------------------------------------------------------
    def as_retriever(self, top_k: int | None = None, *, venue: str | None = None, year: int | str | None = None,
                     author: str | None = None, mode: Mode = "hybrid") -> PaperRetriever:
        """A llama-index retriever over this collection (`assistant.llama_index.PaperRetriever`): nodes are
        papers (node id = paper id, text = abstract, metadata title/venue/year/authors/url and scores)."""
        from assistant.llama_index import PaperRetriever

        return PaperRetriever(self, top_k=top_k, filters=make_filters(venue, year, author), mode=mode)

    def as_query_engine(self, llm: LLMArg = None, *, model: str | None = None, top_k: int | None = None,
                        venue: str | None = None, year: int | str | None = None, author: str | None = None,
                        streaming: bool = False) -> PaperQueryEngine:
        """A llama-index query engine answering through this product's pipeline
        (`assistant.llama_index.PaperQueryEngine`): its ``Response.source_nodes`` are the cited papers."""
        from assistant.llama_index import PaperQueryEngine

        return PaperQueryEngine(collection=self, llm=self.llm(llm, model), top_k=top_k,
                                filters=make_filters(venue, year, author), streaming=streaming)


class Chat:
    """A conversation with a collection: each question is answered with the turns so far as context
    (a follow-up such as "how much faster is it?" is rewritten into a standalone question before
    retrieval). `conversation` (an `assistant.conversation.Conversation`) holds the turns as plain,
    JSON-safe data; the turn of each answer is added when its stream ends, whatever the ending
    (`Conversation.record`)."""

    def __init__(self, collection: PaperCollection, llm: LLM, conversation: Conversation, *,
                 top_k: int | None = None, filters: Filters | None = None):
        self.collection = collection
        self.llm = llm
        self.conversation = conversation
        self.top_k = top_k
        self.filters = filters

    @property
    def turns(self) -> list[Turn]:
        """The questions and answers so far, oldest first."""
        return self.conversation.turns

    def stream(self, question: str, cancel: threading.Event | None = None) -> Iterator[AnswerEvent]:
        """Answer the next question as answer events (see `PaperCollection.stream`)."""
        events = self.collection.stream(question, llm=self.llm, top_k=self.top_k, filters=self.filters,
                                        conversation=self.conversation, cancel=cancel)
        return self.conversation.record(events, question, backend=self.llm.name, model=self.llm.model)

    def ask(self, question: str) -> Answer:
        """Answer the next question; returns the `Answer` (see `PaperCollection.ask`)."""
        return Answer.from_events(self.stream(question), question, backend=self.llm.name, model=self.llm.model)
