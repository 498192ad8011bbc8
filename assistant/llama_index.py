"""llama-index as the integration surface: the product's pipeline in llama-index's terms, both ways.

- `PaperRetriever`: a llama-index ``BaseRetriever`` over a `PaperCollection`'s hybrid retrieval; each
  result is a ``NodeWithScore`` whose ``TextNode`` has the paper id as node id, the abstract as text and
  ``title``, ``venue``, ``year``, ``authors``, ``url`` plus the score parts as metadata. It plugs into
  llama-index's own engines (``RetrieverQueryEngine``, ``CondensePlusContextChatEngine``, agents).
- `PaperQueryEngine`: a llama-index query engine (``CustomQueryEngine``, streaming too) that answers
  with the product's pipeline (relevance gate, context packing, checked citations); its ``Response``
  has the answer text, ``source_nodes`` = the cited papers, and ``metadata`` = the ``ask --json``
  object. Wrap it in ``QueryEngineTool.from_defaults(engine, name=..., description=...)`` for agents.
- `LlamaIndexLLM`: the reverse direction: any llama-index ``LLM`` (OpenAI, OpenAILike, Ollama,
  Anthropic, Bedrock, ``MockLLM``...) as a backend of the product's pipeline (the `assistant.llm.LLM`
  protocol), so ``PaperCollection.ask(question, llm=Ollama(...))`` keeps the gate and the citation check.

The product's own pipeline stays the engine; these classes only wrap it (see DESIGN.md, "Where
llama-index fits"). Importing this module imports llama-index-core (about a second).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.base.response.schema import Response, StreamingResponse
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from assistant.enums import ErrorKind
from assistant.events import Answer, Source, TextDelta
from assistant.llm import AnswerRequest, Chunk, LLMError, bpe_token_counter
from assistant.store.paper import AUTHOR_SEPARATOR

if TYPE_CHECKING:
    from assistant.api import PaperCollection
    from assistant.retrieval import Filters, Mode, SearchResult
    from assistant.settings import Settings
    from assistant.store.paper import Paper

SCORE_KEYS = ("score", "rank", "dense_similarity", "bm25_score", "citation")
"""Node metadata that is about the retrieval, not the paper: kept out of the text an LLM or an
embedding model sees (``excluded_llm_metadata_keys`` / ``excluded_embed_metadata_keys``)."""


def paper_node(paper: Paper, **scores: Any) -> TextNode:
    """A llama-index ``TextNode`` for `paper`: ``id_`` = paper id, ``text`` = abstract, metadata
    ``title`` (str), ``venue`` (str, "" if unknown), ``year`` (int or None), ``authors`` (str, joined
    with ``"; "``: flat, as vector stores require), ``url`` (str) and the given `scores` (e.g. ``score``,
    ``rank``, ``dense_similarity``, ``bm25_score``), which the LLM and embedding texts leave out."""
    metadata = {"title": paper.title, "venue": paper.venue, "year": paper.year,
                "authors": AUTHOR_SEPARATOR.join(paper.authors), "url": paper.url, **scores}
    hidden = ["url", *[k for k in SCORE_KEYS if k in metadata]]
    return TextNode(id_=paper.id, text=paper.abstract, metadata=metadata,
                    excluded_llm_metadata_keys=hidden, excluded_embed_metadata_keys=hidden)


def result_node(result: SearchResult) -> NodeWithScore:
    """A search result as ``NodeWithScore``: score = the fused score (higher is better); metadata has
    ``score``, ``rank`` (from 1), ``dense_similarity`` (cosine, or None) and ``bm25_score`` too."""
    node = paper_node(result.paper, score=result.score, rank=result.rank,
                      dense_similarity=result.dense_similarity, bm25_score=result.bm25_score)
    return NodeWithScore(node=node, score=result.score)


def cited_nodes(answer: Answer) -> list[NodeWithScore]:
    """The cited papers of `answer` as ``NodeWithScore``, in order of first citation: score = the fused
    retrieval score of the source; metadata ``citation`` = its marker number n ([n] in the text)."""
    by_n: dict[int, Source] = {s.n: s for s in answer.sources}
    out = []
    for c in answer.citations:
        source = by_n.get(c.n)
        score = source.score if source is not None else None
        out.append(NodeWithScore(node=paper_node(c.paper, score=score, citation=c.n), score=score))
    return out


class PaperRetriever(BaseRetriever):
    """llama-index retriever over a `PaperCollection` (the product's hybrid retrieval: dense MiniLM kNN
    in Chroma ∪ BM25, fused). Returns up to `top_k` (default ``settings.top_k``) ``NodeWithScore``, best
    first (see `result_node`), filtered by `filters` (`assistant.retrieval.Filters`); `mode` ``"dense"``
    or ``"bm25"`` uses one retriever. Raises `StoreError` / `EmbeddingError` when the store is unusable."""

    def __init__(self, collection: PaperCollection, top_k: int | None = None, filters: Filters | None = None,
                 mode: Mode = "hybrid", **kwargs: Any):
        super().__init__(**kwargs)
        self.collection = collection
        self.top_k = top_k
        self.filters = filters
        self.mode = mode

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = self.collection.search(query_bundle.query_str, top_k=self.top_k, filters=self.filters,
                                         mode=self.mode)
        return [result_node(r) for r in results]


class PaperQueryEngine(CustomQueryEngine):
    """llama-index query engine over the product's answering (`assistant.answering.answer`).

    ``query(question)`` returns a ``Response``: ``response`` = the answer text (citation markers [n]
    checked), ``source_nodes`` = the cited papers (`cited_nodes`; empty when nothing relevant was found
    or nothing was cited), ``metadata`` = the ``ask --json`` object (sources, citations, standalone
    question, backend, usage, refused, note). With ``streaming=True`` it returns a ``StreamingResponse``
    whose ``response_gen`` yields the checked text; its ``source_nodes`` and ``metadata`` are filled when
    the generator ends. A failed answer raises `assistant.events.AnswerError` (one line, ``kind``,
    ``partial`` text), at the end of the stream when streaming. `llm` is what `PaperCollection.llm`
    accepts (a backend name, a product LLM or a llama-index LLM).
    """

    collection: Any
    llm: Any = None
    top_k: int | None = None
    filters: Any = None
    streaming: bool = False

    def _events(self, query_str: str):
        return self.collection.stream(query_str, llm=self.llm, top_k=self.top_k, filters=self.filters)

    def custom_query(self, query_str: str) -> Response | StreamingResponse:
        if self.streaming:
            return self._stream(query_str)
        answer = Answer.from_events(self._events(query_str), query_str).raise_for_error()
        return Response(answer.text, source_nodes=cited_nodes(answer), metadata=answer.to_json())

    def _stream(self, query_str: str) -> StreamingResponse:
        source_nodes: list[NodeWithScore] = []
        metadata: dict = {}

        def text() -> Iterator[str]:
            answer = Answer(question=query_str)
            for event in self._events(query_str):
                answer.add(event)
                if isinstance(event, TextDelta):
                    yield event.text
            source_nodes.extend(cited_nodes(answer))
            metadata.update(answer.to_json())
            answer.raise_for_error()

        return StreamingResponse(response_gen=text(), source_nodes=source_nodes, metadata=metadata)


class LlamaIndexLLM:
    """The product's LLM protocol (`assistant.llm.LLM`) over a llama-index ``LLM`` object.

    Answers stream through ``llm.stream_chat(messages)`` (each ``ChatResponse.delta`` is a chunk; token
    usage is taken from ``additional_kwargs`` when the integration reports it, as llama-index's OpenAI
    ones do); follow-up rewriting uses ``llm.chat``. ``name`` is ``"llama-index"``, ``model`` the LLM's
    ``metadata.model_name`` (or its class name); ``context_window`` (tokens) comes from
    ``llm.metadata.context_window`` (llama-index's default is 3900 when the integration does not know);
    ``max_tokens`` (tokens reserved for the answer when packing sources) from ``metadata.num_output``,
    else ``settings.max_tokens``; the answer's length itself is the LLM object's own setting.
    ``count_tokens`` is the product's BPE estimate (`assistant.llm.bpe_token_counter`). Failures raise
    `LLMError` with a kind: ``"auth"``, ``"rate_limit"``, ``"timeout"``, ``"connection"``,
    ``"context_length"``, ``"server"`` (from openai/httpx exceptions) or ``"error"``.
    """

    name = "llama-index"
    can_chat = True

    def __init__(self, llm: Any, settings: Settings | None = None, *, context_window: int | None = None,
                 max_tokens: int | None = None):
        meta = llm.metadata
        self.llm = llm
        model_name = meta.model_name if meta.model_name and meta.model_name != "unknown" else ""
        self.model = model_name or type(llm).__name__
        self.context_window = context_window or meta.context_window or None
        num_output = meta.num_output if meta.num_output and meta.num_output > 0 else None
        self.max_tokens = max_tokens or num_output or (settings.max_tokens if settings is not None else 512)
        self.notice = ""
        self.count_tokens = bpe_token_counter(self.model)

    def __repr__(self) -> str:
        return f"LlamaIndexLLM({type(self.llm).__name__}, model={self.model!r})"

    @staticmethod
    def _messages(messages: Sequence[dict]) -> list[ChatMessage]:
        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def _error(self, exc: Exception) -> LLMError:
        import httpx
        import openai

        who = f"the llama-index LLM {type(self.llm).__name__} ({self.model})"
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return LLMError(f"{who} was refused: the server rejected the API key", kind=ErrorKind.AUTH)
        if isinstance(exc, openai.RateLimitError):
            return LLMError(f"{who} is rate limited (HTTP 429); try again later", kind=ErrorKind.RATE_LIMIT)
        if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException | TimeoutError):
            return LLMError(f"{who} did not answer in time; raise its timeout or check the server",
                            kind=ErrorKind.TIMEOUT)
        if isinstance(exc, openai.APIConnectionError | httpx.TransportError | ConnectionError):
            return LLMError(f"{who} cannot connect to its server; is it running?", kind=ErrorKind.CONNECTION)
        text = " ".join(str(exc).split())[:160]
        if isinstance(exc, openai.APIStatusError):
            lowered = text.lower()
            if exc.status_code in (400, 413, 422) and any(p in lowered for p in ("context", "too long", "too many tokens")):
                return LLMError(f"the prompt is too long for {who}; lower top_k or pass context_window=",
                                kind=ErrorKind.CONTEXT_LENGTH)
            return LLMError(f"{who} failed: HTTP {exc.status_code}: {text}", kind=ErrorKind.SERVER)
        return LLMError(f"{who} failed ({type(exc).__name__}: {text})")

    def stream(self, request: AnswerRequest, cancel: threading.Event | None = None) -> Iterator[Chunk]:
        """The answer to `request.messages` as chunks; the last carries the usage if the LLM reported it."""
        usage: dict = {}
        try:
            responses = self.llm.stream_chat(self._messages(request.messages))
            try:
                for response in responses:
                    if cancel is not None and cancel.is_set():
                        return
                    counts = {k: int(v) for k, v in (response.additional_kwargs or {}).items()
                              if k in ("prompt_tokens", "completion_tokens", "total_tokens") and v is not None}
                    if counts:
                        usage = counts
                    if response.delta:
                        yield Chunk(response.delta)
            finally:
                close = getattr(responses, "close", None)
                if close is not None:
                    close()
        except GeneratorExit:
            raise
        except Exception as exc:
            raise self._error(exc) from None
        yield Chunk("", usage or None)

    def complete(self, messages: list[dict], max_tokens: int = 128) -> str:
        """A short reply to `messages` (``llm.chat``); `max_tokens` is left to the LLM object's setting."""
        try:
            response = self.llm.chat(self._messages(messages))
        except Exception as exc:
            raise self._error(exc) from None
        return response.message.content or ""


__all__ = ["LlamaIndexLLM", "PaperQueryEngine", "PaperRetriever", "cited_nodes", "paper_node", "result_node"]
