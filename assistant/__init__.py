"""paper-assistant: question answering over research-paper abstracts, with checked citations.

The public Python API (see the README, "From Python")::

    from assistant import PaperCollection
    papers = PaperCollection.open("paper-data")
    answer = papers.ask("How much did NorMuon save over AdamW?", llm="extractive")

Names are imported on first use (module ``__getattr__``, PEP 562), so ``import assistant`` and
``assistant --help`` load nothing heavy; the llama-index classes load llama-index-core when touched.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    # opening, ingesting, searching, asking, chatting
    "PaperCollection": "assistant.api",
    "Chat": "assistant.api",
    "make_filters": "assistant.api",
    "bundled_collection": "assistant.store.ingest",
    "IngestReport": "assistant.store.ingest",
    "Paper": "assistant.store.paper",
    "Filters": "assistant.retrieval",
    "SearchResult": "assistant.retrieval",
    "collection_stats": "assistant.stats",
    # answers and their events
    "Answer": "assistant.events",
    "AnswerError": "assistant.events",
    "AnswerEvent": "assistant.events",
    "Sources": "assistant.events",
    "Source": "assistant.events",
    "TextDelta": "assistant.events",
    "Citations": "assistant.events",
    "Citation": "assistant.events",
    "Done": "assistant.events",
    "Error": "assistant.events",
    "Conversation": "assistant.conversation",
    "Turn": "assistant.conversation",
    # settings, backends, errors
    "BackendName": "assistant.enums",
    "ErrorKind": "assistant.enums",
    "TurnStatus": "assistant.enums",
    "AssistantError": "assistant.errors",
    "Settings": "assistant.settings",
    "load_settings": "assistant.settings",
    "SettingsError": "assistant.settings",
    "make_llm": "assistant.llm",
    "LLMError": "assistant.llm",
    "StoreError": "assistant.store.chroma",
    "EmbeddingError": "assistant.store.embeddings",
    # llama-index
    "PaperRetriever": "assistant.llama_index",
    "PaperQueryEngine": "assistant.llama_index",
    "LlamaIndexLLM": "assistant.llama_index",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'assistant' has no attribute '{name}'")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # for type checkers and IDEs; not run
    from assistant.api import Chat, PaperCollection, make_filters
    from assistant.conversation import Conversation, Turn
    from assistant.enums import BackendName, ErrorKind, TurnStatus
    from assistant.errors import AssistantError
    from assistant.events import (Answer, AnswerError, AnswerEvent, Citation, Citations, Done, Error, Source,
                                  Sources, TextDelta)
    from assistant.llama_index import LlamaIndexLLM, PaperQueryEngine, PaperRetriever
    from assistant.llm import LLMError, make_llm
    from assistant.retrieval import Filters, SearchResult
    from assistant.settings import Settings, SettingsError, load_settings
    from assistant.stats import collection_stats
    from assistant.store.chroma import StoreError
    from assistant.store.embeddings import EmbeddingError
    from assistant.store.ingest import IngestReport, bundled_collection
    from assistant.store.paper import Paper
