"""The product's fixed vocabularies as string enums: LLM backend names, error kinds and turn statuses.

Each member *is* its string (``enum.StrEnum``): ``BackendName.OPENAI == "openai"``, ``json.dumps`` writes
``"openai"``, so ``--json`` output, answers files and saved chats read the same as before the enums.
This module imports nothing of the product, so any module may use it.
"""

from __future__ import annotations

from enum import StrEnum


class BackendName(StrEnum):
    """The LLM backends a user names: ``--llm``, ``ASSISTANT_LLM``, ``llm=`` in the Python API; also the
    ``backend`` field of answers (``Done.backend``, ``--json``, batch lines, saved chats), where a
    llama-index ``LLM`` object passed in from Python is ``"llama-index"``
    (`assistant.llama_index.LlamaIndexLLM`), a name no user chooses."""

    AUTO = "auto"
    """Not a backend: the choice of one (openai if an API key or base URL is set, else local with the
    user's own GGUF model, else extractive; `assistant.llm.make_llm`)."""
    OPENAI = "openai"
    """Any OpenAI-compatible endpoint through the ``openai`` SDK (OpenAI, llama.cpp server, vLLM, Ollama)."""
    LOCAL = "local"
    """An embedded llama.cpp model (``llama-cpp-python``)."""
    EXTRACTIVE = "extractive"
    """No LLM: the relevant papers named and the sentences that answer quoted, cited."""

    @classmethod
    def choices_text(cls) -> str:
        """``"openai, local, extractive or auto"``: the choices as help texts and error messages list them."""
        return ", ".join(b for b in cls if b != cls.AUTO) + f" or {cls.AUTO}"


class ErrorKind(StrEnum):
    """What failed: ``Error.kind`` of the answer events, ``error_kind`` of ``--json`` output and batch
    lines, and ``kind`` of every `assistant.errors.AssistantError`."""

    ERROR = "error"
    """Anything not named below (a backend bug, an unexpected exception)."""
    CANCELLED = "cancelled"
    """The answer was stopped (Esc in the chat, Ctrl+C in a batch, `cancel` set)."""
    EMPTY = "empty"
    """Nothing to answer from or with: the collection holds no abstract, or the backend answered nothing."""
    EXCEPTION = "exception"
    """The chat app's answer worker raised (the message names the exception's type)."""
    # the LLM backends (`assistant.llm.LLMError`)
    CONFIG = "config"
    """The backend cannot be set up: unknown name, no API key, no llama-cpp-python, no model file."""
    AUTH = "auth"
    """The LLM server rejected the API key (HTTP 401/403)."""
    RATE_LIMIT = "rate_limit"
    """The LLM server kept answering HTTP 429."""
    TIMEOUT = "timeout"
    """The LLM server did not answer within ``settings.timeout`` seconds."""
    CONNECTION = "connection"
    """The LLM server cannot be reached."""
    CONTEXT_LENGTH = "context_length"
    """The prompt does not fit the model's context window."""
    MODEL = "model"
    """The LLM server does not know the model (HTTP 404)."""
    SERVER = "server"
    """The LLM server failed (HTTP 5xx, a broken or cut stream)."""
    # the command line and the collection
    USAGE = "usage"
    """A mistake in the command: a bad option value, a missing file, a contradiction (`UserError`)."""
    SETTINGS = "settings"
    """An invalid setting (`assistant.settings.SettingsError`)."""
    STORE = "store"
    """The Chroma store or the conversations database cannot be opened or used."""
    EMBEDDING = "embedding"
    """The embedding model is missing or broken (`assistant.store.embeddings.EmbeddingError`)."""
    INPUT = "input"
    """An input file (abstracts, questions, answers) cannot be read (`assistant.store.readers.InputError`)."""


class TurnStatus(StrEnum):
    """How a conversation turn ended (the chat app, saved chats, ``Answer.status``)."""

    COMPLETE = "complete"
    """The answer finished (a refusal is complete too)."""
    PARTIAL = "partial"
    """An error after some text: the text is kept."""
    STOPPED = "stopped"
    """Cancelled, or the stream ended without ``Done``."""
    ERROR = "error"
    """An error before any text."""
