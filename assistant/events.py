"""The answer event stream: what answering yields and what the CLI, batch runner and chat app consume.

An answer is a sequence ``Sources, TextDelta*, Citations, Done`` or ends early with ``Error``
(an ``Error`` may come after some ``TextDelta``s: what came is kept, marked partial).
Every event is a small frozen dataclass; none carries UI code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from store.paper import Paper


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
