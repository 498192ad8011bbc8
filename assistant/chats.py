"""Saved conversations: one SQLite file (``settings.paths.conversations_db``), written as a chat goes.

Each turn is saved when it ends (complete, partial, stopped or error), so quitting or a crash loses at
most the answer that was streaming. A conversation can be listed, reopened, deleted and exported to
Markdown with a numbered reference list of the papers its answers cite.

The schema is versioned by a tiny numbered-migration table (``_migrations``), in the manner of
simonw/llm's ``migrations.py``: each migration runs once, in order, inside a transaction.
Only the standard library is used (``sqlite3``, ``json``).
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.events import Citation, Source
from store.paper import Paper


class ChatStoreError(Exception):
    """The conversations database cannot be opened or written; the message is one line."""


# --- schema ------------------------------------------------------------------------------------------

def _m001_initial(db: sqlite3.Connection) -> None:
    db.execute("""CREATE TABLE chats (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        settings TEXT NOT NULL DEFAULT '{}'
    )""")
    db.execute("""CREATE TABLE turns (
        chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (chat_id, position)
    )""")
    db.execute("CREATE INDEX chats_updated ON chats(updated)")


MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("001_initial", _m001_initial),
]
"""Numbered migrations, applied in order; append new ones, never edit an applied one."""


# --- records -----------------------------------------------------------------------------------------

def paper_to_json(paper: Paper) -> dict:
    """Every field a reader of the saved chat needs (`Paper.to_json` plus source fields)."""
    out = paper.to_json()
    out["topic"] = paper.topic or None
    out["source_id"] = paper.source_id or None
    return out


def paper_from_json(d: dict) -> Paper:
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


@dataclass
class SavedTurn:
    """One question and its answer as saved. `status` is "complete", "partial", "stopped" or "error";
    `error` is the one-line message when status is "error"."""

    question: str
    answer: str = ""
    status: str = "complete"
    standalone_question: str = ""
    sources: tuple[Source, ...] = ()
    citations: tuple[Citation, ...] = ()
    backend: str = ""
    model: str = ""
    error: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {
            "question": self.question,
            "standalone_question": self.standalone_question,
            "answer": self.answer,
            "status": self.status,
            "backend": self.backend,
            "model": self.model,
            "error": self.error,
            "seconds": round(self.seconds, 3),
            "sources": [{"n": s.n, "score": s.score, "paper": paper_to_json(s.paper)} for s in self.sources],
            "citations": [{"n": c.n, "paper": paper_to_json(c.paper), "sentences": list(c.sentences)}
                          for c in self.citations],
        }

    @classmethod
    def from_json(cls, d: dict) -> SavedTurn:
        return cls(
            question=d.get("question", ""),
            standalone_question=d.get("standalone_question", ""),
            answer=d.get("answer", ""),
            status=d.get("status", "complete"),
            backend=d.get("backend", ""),
            model=d.get("model", ""),
            error=d.get("error", ""),
            seconds=float(d.get("seconds") or 0.0),
            sources=tuple(Source(n=int(s["n"]), paper=paper_from_json(s["paper"]), score=float(s.get("score", 0.0)))
                          for s in d.get("sources", ())),
            citations=tuple(Citation(n=int(c["n"]), paper=paper_from_json(c["paper"]),
                                     sentences=tuple(c.get("sentences", ())))
                            for c in d.get("citations", ())),
        )


@dataclass(frozen=True)
class ChatSummary:
    """A row of the conversation list. Times are Unix seconds."""

    id: str
    title: str
    created: float
    updated: float
    turns: int


@dataclass
class SavedChat:
    """A whole saved conversation. `settings` holds what the chat was set to (backend, model, filters)."""

    id: str
    title: str
    created: float
    updated: float
    settings: dict[str, Any] = field(default_factory=dict)
    turns: list[SavedTurn] = field(default_factory=list)


def title_from(question: str, max_chars: int = 60) -> str:
    """The first line of the first question, clipped at a word to `max_chars` characters."""
    line = " ".join(question.split())
    if len(line) <= max_chars:
        return line or "(untitled)"
    cut = line[: max_chars - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


# --- the store ---------------------------------------------------------------------------------------

class ChatStore:
    """Conversations in one SQLite file. Each method opens its own short connection, so the store can
    be used from the UI thread and from workers alike. Raises `ChatStoreError` on database failure."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._migrated = False

    def _connect(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=5.0)
            db.execute("PRAGMA foreign_keys = ON")
            if not self._migrated:
                migrate(db)
                self._migrated = True
            return db
        except (sqlite3.Error, OSError) as exc:
            raise ChatStoreError(f"cannot open the conversations database {self.path} ({exc})") from None

    def _run(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        db = self._connect()
        try:
            with db:
                return fn(db)
        except sqlite3.Error as exc:
            raise ChatStoreError(f"conversations database {self.path}: {exc}") from None
        finally:
            db.close()

    def create(self, title: str, settings: dict | None = None, chat_id: str | None = None) -> str:
        """A new empty conversation; returns its id (32 hex characters)."""
        chat_id = chat_id or uuid.uuid4().hex
        now = time.time()
        self._run(lambda db: db.execute(
            "INSERT INTO chats (id, title, created, updated, settings) VALUES (?, ?, ?, ?, ?)",
            (chat_id, title, now, now, json.dumps(settings or {}, ensure_ascii=False))))
        return chat_id

    def save_turn(self, chat_id: str, position: int, turn: SavedTurn, settings: dict | None = None) -> None:
        """Insert or replace turn `position` (from 0) of the conversation and touch its update time."""
        data = json.dumps(turn.to_json(), ensure_ascii=False)

        def go(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO turns (chat_id, position, data) VALUES (?, ?, ?)",
                       (chat_id, position, data))
            if settings is None:
                db.execute("UPDATE chats SET updated = ? WHERE id = ?", (time.time(), chat_id))
            else:
                db.execute("UPDATE chats SET updated = ?, settings = ? WHERE id = ?",
                           (time.time(), json.dumps(settings, ensure_ascii=False), chat_id))

        self._run(go)

    def list(self) -> list[ChatSummary]:
        """All conversations, the most recently updated first."""
        rows = self._run(lambda db: db.execute(
            "SELECT c.id, c.title, c.created, c.updated, COUNT(t.position) FROM chats c "
            "LEFT JOIN turns t ON t.chat_id = c.id GROUP BY c.id ORDER BY c.updated DESC, c.created DESC"
        ).fetchall())
        return [ChatSummary(*row) for row in rows]

    def load(self, chat_id: str) -> SavedChat | None:
        """The conversation with this id (or a unique id prefix), or None."""
        def go(db: sqlite3.Connection):
            rows = db.execute("SELECT id, title, created, updated, settings FROM chats WHERE id LIKE ? || '%'",
                              (chat_id,)).fetchall()
            if len(rows) != 1:
                return None
            cid, title, created, updated, settings = rows[0]
            turns = db.execute("SELECT data FROM turns WHERE chat_id = ? ORDER BY position", (cid,)).fetchall()
            return SavedChat(cid, title, created, updated, json.loads(settings or "{}"),
                             [SavedTurn.from_json(json.loads(t[0])) for t in turns])

        return self._run(go)

    def delete(self, chat_id: str) -> bool:
        """Delete a conversation and its turns; False if there was none with this id."""
        return self._run(lambda db: db.execute("DELETE FROM chats WHERE id = ?", (chat_id,)).rowcount) > 0


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded in ``_migrations``; returns the names applied."""
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied REAL NOT NULL)")
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    applied = []
    for name, fn in MIGRATIONS:
        if name in done:
            continue
        with db:
            fn(db)
            db.execute("INSERT INTO _migrations (name, applied) VALUES (?, ?)", (name, time.time()))
        applied.append(name)
    return applied


# --- export ------------------------------------------------------------------------------------------

def cited_papers(turns: Iterable[SavedTurn]) -> list[Paper]:
    """The distinct papers cited anywhere in the conversation, in order of first citation."""
    seen: dict[str, Paper] = {}
    for turn in turns:
        for c in sorted(turn.citations, key=lambda c: c.n):
            key = c.paper.id or c.paper.title
            seen.setdefault(key, c.paper)
    return list(seen.values())


def _renumber(answer: str, turn: SavedTurn, ref_of: dict[str, int]) -> str:
    """Rewrite the turn's own markers ``[n]`` to the conversation-wide reference numbers."""
    import re

    local = {c.n: ref_of[c.paper.id or c.paper.title] for c in turn.citations}

    def sub(m: re.Match) -> str:
        nums = [int(x) for x in re.findall(r"\d+", m.group(0))]
        if not all(n in local for n in nums):
            return m.group(0)
        return "".join(f"[{local[n]}]" for n in nums)

    return re.sub(r"\[\d+(?:\s*,\s*\d+)*\]", sub, answer)


def reference_line(n: int, paper: Paper) -> str:
    """``1. Authors. *Title*. Venue Year. URL`` (fields the paper lacks are left out)."""
    parts = []
    if paper.authors:
        authors = list(paper.authors)
        parts.append(", ".join(authors[:6]) + (" et al." if len(authors) > 6 else "") + ".")
    parts.append(f"*{_md_escape(paper.title)}*." if paper.title else "")
    if paper.venue_year:
        parts.append(f"{paper.venue_year}.")
    if paper.url:
        parts.append(f"<{paper.url}>")
    return f"{n}. " + " ".join(p for p in parts if p)


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_")


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines() or [""])


def to_markdown(chat: SavedChat) -> str:
    """The conversation as Markdown: each question (as a quote) and answer, markers renumbered to one
    conversation-wide numbered reference list of the cited papers at the end."""
    papers = cited_papers(chat.turns)
    ref_of = {(p.id or p.title): i for i, p in enumerate(papers, start=1)}
    out = [f"# {chat.title}", ""]
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(chat.created))
    meta = [f"Started {when}"]
    filters = chat.settings.get("filters") or ""
    if filters:
        meta.append(f"filters: {filters}")
    out += ["_" + "; ".join(meta) + "_", ""]
    for i, turn in enumerate(chat.turns, start=1):
        out += [f"## {i}. {title_from(turn.question, 80)}", "", _quote(turn.question), ""]
        if turn.answer:
            out += [_renumber(turn.answer, turn, ref_of), ""]
        if turn.status == "stopped":
            out += ["_(answer stopped)_", ""]
        elif turn.status == "partial":
            out += ["_(answer incomplete)_", ""]
        if turn.status == "error" and turn.error:
            out += [f"_Error: {turn.error}_", ""]
        if turn.backend:
            out += [f"<sub>{turn.backend} · {turn.model}</sub>", ""]
    if papers:
        out += ["## References", ""]
        out += [reference_line(i, p) for i, p in enumerate(papers, start=1)]
        out.append("")
    return "\n".join(out)


def export_markdown(chat: SavedChat, folder: Path) -> Path:
    """Write `to_markdown(chat)` to ``folder/chat-<date>-<id8>.md`` and return the path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M", time.localtime(chat.created))
    path = folder / f"chat-{stamp}-{chat.id[:8]}.md"
    path.write_text(to_markdown(chat), encoding="utf-8")
    return path
