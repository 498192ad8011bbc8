"""The answer event stream: what answering yields and what the CLI, batch runner and chat app consume.

An answer is a sequence ``Sources, TextDelta*, Citations, Done`` or ends early with ``Error``
(an ``Error`` may come after some ``TextDelta``s: what came is kept, marked partial).
Every event is a small frozen dataclass; none carries UI code. `Answer` is the one fold of a stream
into a result (text, sources, citations, backend, usage, status): build it with `Answer.from_events`,
or feed it event by event with `Answer.add` while showing the text as it streams.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from assistant.enums import TurnStatus
from assistant.errors import AssistantError
from assistant.store.paper import Paper


@dataclass(frozen=True)
class Source:
    """A paper given to the model as source ``[n]`` (n starts at 1)."""

    n: int
    paper: Paper
    score: float  # the retrieval's fused score (relative: the top paper has 1.0 under tmm fusion)
    similarity: float | None = None  # dense cosine similarity of the question to the paper (MiniLM)
    bm25_matched: bool = False  # a word of the question is in the paper (BM25 score > 0)
    relevance: float | None = None  # `relevance.judge`'s estimated probability that it is about the question

    def to_json(self) -> dict:
        r = lambda x: None if x is None else round(x, 4)  # noqa: E731
        return {"n": self.n, "id": self.paper.id, "title": self.paper.title, "score": round(self.score, 6),
                "dense_similarity": r(self.similarity), "bm25_matched": self.bm25_matched,
                "relevance": r(self.relevance),
                "venue": self.paper.venue or None, "year": self.paper.year, "url": self.paper.url or None}


@dataclass(frozen=True)
class Citation:
    """A checked citation: marker ``[n]`` in the answer maps to `paper`. `sentences` are the
    answer sentences that carry the marker (what the answer relied on it for)."""

    n: int
    paper: Paper
    sentences: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"n": self.n, "id": self.paper.id, "title": self.paper.title}


@dataclass(frozen=True)
class Sources:
    """The numbered papers given to the model (may be empty: nothing relevant was found)."""

    sources: tuple[Source, ...]
    question: str = ""  # the standalone question used for retrieval
    note: str = ""  # e.g. why the list is empty
    relevance: tuple[dict, ...] = ()  # per retrieved paper: the relevance evidence (`relevance.Evidence`)


@dataclass(frozen=True)
class TextDelta:
    """A chunk of answer text as the model streams it."""

    text: str


@dataclass(frozen=True)
class Citations:
    """The checked citations of the finished answer, and markers that named no given source."""

    citations: tuple[Citation, ...]
    dropped: tuple[int, ...] = ()


@dataclass(frozen=True)
class Done:
    """The answer is complete. `answer` is the final text (dropped markers removed)."""

    answer: str
    backend: str
    model: str
    usage: dict = field(default_factory=dict)
    seconds: float = 0.0
    refused: bool = False  # the answer says the abstracts do not answer the question
    note: str = ""  # e.g. that a repetition loop was cut


@dataclass(frozen=True)
class Error:
    """Answering failed; `message` is one line for the user. `partial` is text that came before."""

    message: str
    kind: str = "error"  # e.g. "connection", "auth", "rate_limit", "timeout", "context_length", "empty"
    partial: str = ""


AnswerEvent = Sources | TextDelta | Citations | Done | Error


class AnswerError(AssistantError):
    """An answer failed (`Answer.raise_for_error`). `str(exc)` is one line for the user; `kind` names the
    failure (``Error.kind``: ``"connection"``, ``"cancelled"``, ...); `partial` is the text that came."""

    def __init__(self, message: str, kind: str = "error", partial: str = ""):
        super().__init__(message)
        self.kind = kind
        self.partial = partial


@dataclass
class Answer:
    """An answer as one object: the fold of its event stream (`from_events`, or `add` one event at a time).

    - `text`: the answer text (citation markers checked; after an ``Error`` the partial text, stripped);
    - `sources`: the numbered papers given to the model (``Source``: n from 1, paper, fused score);
      empty when no paper was relevant;
    - `citations`: the checked citations (``Citation``: n, paper, the answer sentences citing it), in
      order of first use; `dropped_citations` the marker numbers that named no given source;
    - `standalone_question`: the question retrieval used (a follow-up rewritten from the conversation);
    - `backend` / `model`: the LLM's ``name`` / ``model``; `usage`: token counts as the backend
      reported them (``{"prompt_tokens", "completion_tokens", "total_tokens"}``, may be empty);
    - `seconds`: wall time in seconds (from ``Done``; after an ``Error``, since the fold began; None
      while the stream is unfinished); `refused`: the answer says no paper or abstract answers it;
    - `note`: retrieval's explanation (why no paper was close enough, papers left out to fit the context
      window) and the backend's (a repetition loop cut), joined by "; ", or ""; `notes` the same, one
      string each, in that order;
    - `relevance`: per retrieved paper, the relevance evidence (``relevance.Evidence`` as a dict);
    - `error` / `error_kind`: the ``Error`` event's message and kind, or "".

    `status` is ``"complete"``, ``"partial"`` (an error after some text), ``"error"`` (no text),
    ``"stopped"`` (cancelled, or the stream ended without ``Done``), the statuses of a conversation turn.
    """

    question: str = ""
    standalone_question: str = ""
    text: str = ""
    sources: tuple[Source, ...] = ()
    citations: tuple[Citation, ...] = ()
    dropped_citations: tuple[int, ...] = ()
    backend: str | None = None
    model: str | None = None
    usage: dict = field(default_factory=dict)
    seconds: float | None = None
    refused: bool = False
    note: str = ""
    notes: tuple[str, ...] = ()
    relevance: tuple[dict, ...] = ()
    error: str = ""
    error_kind: str = ""
    done: bool = False
    _parts: list[str] = field(default_factory=list, init=False, repr=False, compare=False)
    _started: float = field(default_factory=time.perf_counter, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.standalone_question = self.standalone_question or self.question

    @classmethod
    def from_events(cls, events: Iterable[AnswerEvent], question: str = "", *, backend: str | None = None,
                    model: str | None = None) -> Answer:
        """Consume `events` (an ``answer()`` stream) and return the folded answer. `backend` / `model`
        name the LLM when the stream fails before ``Done`` (which names it otherwise)."""
        out = cls(question=question, backend=backend, model=model)
        for event in events:
            out.add(event)
        return out

    def add(self, event: AnswerEvent) -> Answer:
        """Fold one event into the answer (in stream order); returns self."""
        if isinstance(event, Sources):
            self.sources = tuple(event.sources)
            self.standalone_question = event.question or self.question
            if event.note:
                self.notes = (*self.notes, event.note)
                self.note = "; ".join(self.notes)
            self.relevance = tuple(event.relevance)
        elif isinstance(event, TextDelta):
            self._parts.append(event.text)
            self.text = "".join(self._parts)
        elif isinstance(event, Citations):
            self.citations = tuple(event.citations)
            self.dropped_citations = tuple(event.dropped)
        elif isinstance(event, Done):
            self.text, self.backend, self.model = event.answer, event.backend, event.model
            self.usage, self.seconds, self.refused, self.done = dict(event.usage), event.seconds, event.refused, True
            if event.note:
                self.notes = (*self.notes, event.note)
                self.note = "; ".join(self.notes)
        elif isinstance(event, Error):
            self.text = (event.partial or "".join(self._parts)).strip()
            self.error, self.error_kind = event.message, event.kind
            self.seconds = time.perf_counter() - self._started
        return self

    @property
    def ok(self) -> bool:
        """True when the answer is complete (``Done`` came, no ``Error``)."""
        return self.done and not self.error

    @property
    def status(self) -> str:
        if self.error:
            if self.error_kind == "cancelled":
                return TurnStatus.STOPPED
            return TurnStatus.PARTIAL if self.text else TurnStatus.ERROR
        return TurnStatus.COMPLETE if self.done else TurnStatus.STOPPED

    @property
    def cited_papers(self) -> list[Paper]:
        """The papers of `citations`, in order of first use."""
        return [c.paper for c in self.citations]

    def raise_for_error(self) -> Answer:
        """Return self, or raise `AnswerError` (message, kind, partial text) when the answer failed."""
        if self.error:
            raise AnswerError(self.error, self.error_kind or "error", self.text)
        return self

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> dict:
        """The ``ask --json`` object: ``{"question", "standalone_question", "answer", "sources": [{"n", "id",
        "title", "score", "venue", "year", "url"}], "citations": [{"n", "id", "title"}], "dropped_citations":
        [int], "backend", "model", "usage", "seconds", "refused"}``, plus ``"note"`` when retrieval explained
        itself, ``"relevance"`` (per retrieved paper, the relevance evidence) when the gate judged the
        papers, and ``"error"`` / ``"error_kind"`` when it failed (``answer`` is then the partial text)."""
        out: dict = {"question": self.question, "standalone_question": self.standalone_question or self.question,
                     "answer": self.text, "sources": [s.to_json() for s in self.sources],
                     "citations": [c.to_json() for c in self.citations],
                     "dropped_citations": list(self.dropped_citations), "backend": self.backend,
                     "model": self.model, "usage": dict(self.usage),
                     "seconds": None if self.seconds is None else round(self.seconds, 3), "refused": self.refused}
        if self.note:
            out["note"] = self.note
        if self.relevance:
            out["relevance"] = list(self.relevance)
        if self.error:
            out["error"], out["error_kind"] = self.error, self.error_kind
        return out
