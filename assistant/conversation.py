"""A conversation: the turns of one chat, in order. `Turn` is the one turn model: the in-memory
conversation, the saved chats (`assistant.chats`) and the chat app all hold it.

`answer()` reads a conversation (follow-ups are rewritten from `history_text()`) but never changes
it: the caller adds the turn, built from the folded answer with `Turn.from_answer`, or lets
`Conversation.record` do it as the stream passes. A turn's status is ``"complete"``, ``"partial"`` (an
error after some text), ``"error"`` (no text), or ``"stopped"`` (cancelled, or the consumer stopped
reading). `to_dict` / `from_dict` give a JSON-safe form (``json.dumps`` works on it).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from assistant.enums import TurnStatus
from assistant.events import Answer, AnswerEvent, Citation, Source
from assistant.store.paper import Paper

STATUSES = tuple(TurnStatus)


def paper_to_json(paper: Paper) -> dict:
    """Every field a reader of a saved turn needs (`Paper.to_json` plus source fields)."""
    out = paper.to_json()
    out["topic"] = paper.topic or None
    out["source_id"] = paper.source_id or None
    return out


def paper_from_json(d: dict) -> Paper:
    """The `Paper` of `paper_to_json` (or of a ``Source.to_json()`` / ``Citation.to_json()`` dict, which
    name only id, title, venue, year and url)."""
    return Paper(
        abstract=d.get("abstract") or "",
        title=d.get("title") or "",
        authors=tuple(d.get("authors") or ()),
        venue=d.get("venue") or "",
        year=d.get("year"),
        url=d.get("url") or "",
        source_id=d.get("source_id") or "",
        topic=d.get("topic") or "",
        title_is_derived=bool(d.get("title_is_derived", False)),
        id=d.get("id") or "",
    )


def _source_from_json(d: dict) -> Source:
    paper = paper_from_json(d["paper"] if "paper" in d else d)
    return Source(n=int(d["n"]), paper=paper, score=float(d.get("score") or 0.0),
                  similarity=d.get("dense_similarity"), bm25_matched=bool(d.get("bm25_matched", False)),
                  relevance=d.get("relevance"))


def _citation_from_json(d: dict) -> Citation:
    paper = paper_from_json(d["paper"] if "paper" in d else d)
    return Citation(n=int(d["n"]), paper=paper, sentences=tuple(d.get("sentences", ())))


@dataclass
class Turn:
    """One question and its answer.

    `sources` are the numbered papers given to the model (``Source``), `citations` the checked ones
    (``Citation``: n, paper, the answer sentences citing it), `dropped_citations` the marker numbers that
    named no given source; `status` one of `STATUSES` (`error` / `error_kind` the one-line message and
    kind when it failed); `standalone_question` the question as retrieval used it (a follow-up
    rewritten); `filters` the ``Filters.to_json()`` the answer was found under ({} for none); `note` why
    the sources are few or none (e.g. "no paper matches the filters (year=2025)"); `refused` whether the
    answer says the abstracts do not answer the question; `seconds` wall time; `usage` token counts as
    the backend reported them; `created_at` Unix seconds.
    """

    question: str
    standalone_question: str = ""
    answer: str = ""
    status: str = TurnStatus.COMPLETE
    sources: tuple[Source, ...] = ()
    citations: tuple[Citation, ...] = ()
    dropped_citations: tuple[int, ...] = ()
    backend: str = ""
    model: str = ""
    error: str = ""
    error_kind: str = ""
    refused: bool = False
    usage: dict = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""
    filters: dict = field(default_factory=dict)
    created_at: float = field(default_factory=time.time, compare=False)

    @classmethod
    def from_answer(cls, answer: Answer, **fields) -> Turn:
        """The turn of a folded answer (`assistant.events.Answer`, finished or not); `fields` set the
        rest (``filters``)."""
        return cls(question=answer.question, **fields).update(answer)

    def update(self, answer: Answer) -> Turn:
        """Take everything `answer` (the fold of this turn's events so far) knows; returns self."""
        self.standalone_question = answer.standalone_question or self.question
        self.answer = answer.text if answer.done else answer.text.strip()
        self.status = answer.status
        self.sources, self.citations = tuple(answer.sources), tuple(answer.citations)
        self.dropped_citations = tuple(answer.dropped_citations)
        self.backend, self.model = answer.backend or self.backend, answer.model or self.model
        self.error, self.error_kind = answer.error, answer.error_kind
        self.refused, self.usage, self.note = answer.refused, dict(answer.usage), answer.note
        if answer.seconds is not None:
            self.seconds = answer.seconds
        return self

    def to_json(self) -> dict:
        """The JSON-safe form (saved chats, `Conversation.to_dict`): the fields above, sources as
        ``{"n", "score", "paper"}`` and citations as ``{"n", "paper", "sentences"}`` (paper: `paper_to_json`)."""
        return {
            "question": self.question,
            "standalone_question": self.standalone_question,
            "answer": self.answer,
            "status": self.status,
            "backend": self.backend,
            "model": self.model,
            "error": self.error,
            "error_kind": self.error_kind,
            "seconds": round(self.seconds, 3),
            "filters": {k: v for k, v in self.filters.items() if v is not None},
            "note": self.note,
            "refused": self.refused,
            "usage": dict(self.usage),
            "created_at": self.created_at,
            "sources": [{"n": s.n, "score": s.score, "paper": paper_to_json(s.paper)} for s in self.sources],
            "citations": [{"n": c.n, "paper": paper_to_json(c.paper), "sentences": list(c.sentences)}
                          for c in self.citations],
            "dropped_citations": list(self.dropped_citations),
        }


    @classmethod
    def from_json(cls, d: dict) -> Turn:
        """The turn of `to_json` (also of an ``ask --json`` / batch record: sources and citations as
        ``Source.to_json()`` / ``Citation.to_json()``); an unknown status becomes ``"error"``."""
        turn = cls(
            question=d.get("question") or "",
            standalone_question=d.get("standalone_question") or "",
            answer=d.get("answer") or "",
            status=d.get("status") or TurnStatus.COMPLETE,
            backend=d.get("backend") or "",
            model=d.get("model") or "",
            error=d.get("error") or "",
            error_kind=d.get("error_kind") or "",
            seconds=float(d.get("seconds") or 0.0),
            filters=dict(d.get("filters") or {}),
            note=d.get("note") or "",
            refused=bool(d.get("refused", False)),
            usage=dict(d.get("usage") or {}),
            sources=tuple(_source_from_json(s) for s in d.get("sources") or ()),
            citations=tuple(_citation_from_json(c) for c in d.get("citations") or ()),
            dropped_citations=tuple(int(n) for n in d.get("dropped_citations") or ()),
        )
        if d.get("created_at") is not None:
            turn.created_at = float(d["created_at"])
        if turn.status not in STATUSES:
            turn.status = "error"
        return turn



@dataclass
class Conversation:
    """The turns of one chat, oldest first. `id` is a random hex string; `title` is the first question
    (clipped) unless set."""

    turns: list[Turn] = field(default_factory=list)
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    title: str = ""
    created_at: float = field(default_factory=time.time)

    def add(self, turn: Turn) -> Turn:
        """Append `turn` (and take the title from the first question)."""
        self.turns.append(turn)
        if not self.title:
            self.title = turn.question.strip()[:80]
        return turn

    def __len__(self) -> int:
        return len(self.turns)

    def record(self, events: Iterable[AnswerEvent], question: str, *, backend: str | None = None,
               model: str | None = None) -> Iterator[AnswerEvent]:
        """Pass `events` (an ``answer()`` stream for `question`) through and add their turn
        (`Turn.from_answer`) when the stream ends, whatever the ending: also when the consumer stops
        reading (the turn is then ``"stopped"`` and `events` is closed). `backend` / `model` name the
        LLM when the stream fails before ``Done``."""
        folded = Answer(question=question, backend=backend, model=model)
        try:
            for event in events:
                folded.add(event)
                yield event
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                close()
            self.add(Turn.from_answer(folded))

    def history_messages(self, max_turns: int = 3, answer_chars: int = 600) -> list[dict]:
        """The last `max_turns` turns as chat messages ``[{"role": "user"|"assistant", "content"}]``
        (answers clipped to `answer_chars` characters; a turn without text gives only its question)."""
        out: list[dict] = []
        for turn in self.turns[-max_turns:] if max_turns else []:
            out.append({"role": "user", "content": turn.question})
            if turn.answer:
                text = turn.answer if len(turn.answer) <= answer_chars else turn.answer[:answer_chars] + "…"
                out.append({"role": "assistant", "content": text})
        return out

    def history_text(self, max_turns: int = 3, answer_chars: int = 600) -> str:
        """`history_messages` as ``User: ...`` / ``Assistant: ...`` lines (for the rewrite prompt)."""
        return "\n".join(f"{'User' if m['role'] == 'user' else 'Assistant'}: {m['content']}"
                         for m in self.history_messages(max_turns, answer_chars))

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "created_at": self.created_at,
                "turns": [t.to_json() for t in self.turns]}

    @classmethod
    def from_dict(cls, data: dict) -> Conversation:
        conv = cls(turns=[Turn.from_json(t) for t in data.get("turns", [])],
                   title=str(data.get("title", "")), created_at=float(data.get("created_at", time.time())))
        if data.get("id"):
            conv.id = str(data["id"])
        return conv
