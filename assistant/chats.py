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

from assistant.conversation import Turn
from assistant.text import hard_line_breaks
from assistant.enums import ErrorKind, TurnStatus
from assistant.errors import AssistantError
from assistant.events import Citation
from assistant.store.paper import Paper


class ChatStoreError(AssistantError):
    """The conversations database cannot be opened or written; the message is one line."""

    kind = ErrorKind.STORE


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
    turns: list[Turn] = field(default_factory=list)


def title_from(question: str, max_chars: int = 60) -> str:
    """The first line of the first question, clipped at a word to `max_chars` characters."""
    line = " ".join(question.split())
    if len(line) <= max_chars:
        return line or "(untitled)"
    cut = line[: max_chars - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


# --- the store ---------------------------------------------------------------------------------------

def _what_to_do(exc: BaseException) -> str:
    """The way out of a database failure a user can fix: a read-only data folder (as the store judges
    one, `assistant.store.chroma.is_read_only_error`) or a full disk."""
    from assistant.store.chroma import is_read_only_error

    if is_read_only_error(exc):
        return ("; the data folder is read-only: answers are shown but not saved; set ASSISTANT_DATA_DIR "
                "(or --data-dir) to a folder you can write")
    if "disk is full" in str(exc).casefold() or getattr(exc, "errno", 0) == 28:
        return "; the disk is full: free some space to save conversations again"
    return ""


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
            raise ChatStoreError(f"cannot open the conversations database {self.path} ({exc}){_what_to_do(exc)}") from None

    def _run(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        db = self._connect()
        try:
            with db:
                return fn(db)
        except sqlite3.Error as exc:
            raise ChatStoreError(f"conversations database {self.path}: {exc}{_what_to_do(exc)}") from None
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

    def save_turn(self, chat_id: str, position: int, turn: Turn, settings: dict | None = None) -> None:
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

    def update_settings(self, chat_id: str, settings: dict) -> None:
        """Replace what the conversation is set to (backend, model, filters), e.g. when the filters change
        between questions; the update time is left alone."""
        self._run(lambda db: db.execute("UPDATE chats SET settings = ? WHERE id = ?",
                                        (json.dumps(settings, ensure_ascii=False), chat_id)))

    def delete_turns_from(self, chat_id: str, position: int) -> int:
        """Delete turn `position` and every later one (an answer being asked again); returns how many."""
        return self._run(lambda db: db.execute("DELETE FROM turns WHERE chat_id = ? AND position >= ?",
                                               (chat_id, position)).rowcount)

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
                             [Turn.from_json(json.loads(t[0])) for t in turns])

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


# --- export and copy ---------------------------------------------------------------------------------

def readable(text: str) -> str:
    """`text` as a person reads it: LaTeX rendered as Unicode text (`assistant.text.render_latex`) and
    terminal control sequences removed (`assistant.text.printable`). Storage keeps the raw text."""
    from assistant.text import printable, render_latex

    return printable(render_latex(text or ""))


def cited_papers(turns: Iterable[Turn]) -> list[Paper]:
    """The distinct papers cited anywhere in the conversation, in order of first citation."""
    seen: dict[str, Paper] = {}
    for turn in turns:
        for c in sorted(turn.citations, key=lambda c: c.n):
            key = c.paper.id or c.paper.title
            seen.setdefault(key, c.paper)
    return list(seen.values())


def cited_sentences(turn: Turn, citation: Citation) -> tuple[str, ...]:
    """The answer sentences that cite `citation` (its own, else those of the answer carrying its marker)."""
    if citation.sentences:
        return tuple(citation.sentences)
    from assistant.text import sentences_citing

    return sentences_citing(turn.answer, citation.n)


def evidence(turn: Turn, citation: Citation) -> list[str]:
    """The sentences of the cited abstract the answer relied on for `citation`, in abstract order
    (the ones the abstract viewer highlights: `assistant.text.relied_spans`)."""
    from assistant.text import relied_spans

    abstract = citation.paper.abstract
    return [abstract[s:e] for s, e in relied_spans(abstract, cited_sentences(turn, citation))]


def _renumber(answer: str, turn: Turn, ref_of: dict[str, int]) -> str:
    """Rewrite the turn's own markers ``[n]`` to the conversation-wide reference numbers."""
    import re

    from assistant.text import CITATION_MARKER, marker_groups

    local = {c.n: ref_of[c.paper.id or c.paper.title] for c in turn.citations}

    def sub(m: re.Match) -> str:
        nums = marker_groups(m.group(0))[0]
        if not all(n in local for n in nums):
            return m.group(0)
        return "".join(f"[{local[n]}]" for n in nums)

    return CITATION_MARKER.sub(sub, answer)


def reference_line(n: int, paper: Paper) -> str:
    """``1. Authors. *Title*. Venue Year. id `ID`. <URL>`` as Markdown (fields the paper lacks are left
    out; title and authors readable: LaTeX rendered, control characters removed)."""
    parts = []
    if paper.authors:
        authors = [readable(a) for a in paper.authors]
        parts.append(", ".join(authors[:6]) + (" et al." if len(authors) > 6 else "") + ".")
    parts.append(f"*{_md_escape(readable(paper.title))}*." if paper.title else "")
    if paper.venue_year:
        parts.append(f"{readable(paper.venue_year)}.")
    if paper.id:
        parts.append(f"id `{readable(paper.id)}`.")
    if paper.url:
        parts.append(f"<{readable(paper.url)}>")
    return f"{n}. " + " ".join(p for p in parts if p)


def reference_text(n: int, paper: Paper, sentences: Iterable[str] = ()) -> str:
    """A plain-text reference: ``[1] Title. Authors. Venue Year. id: ID. URL`` and, indented, the
    abstract sentences the answer relied on (for the clipboard, where Markdown is not rendered)."""
    parts = [readable(paper.title) + "."]
    if paper.authors:
        authors = [readable(a) for a in paper.authors]
        parts.append(", ".join(authors[:6]) + (" et al." if len(authors) > 6 else "") + ".")
    if paper.venue_year:
        parts.append(readable(paper.venue_year) + ".")
    if paper.id:
        parts.append(f"id: {readable(paper.id)}.")
    if paper.url:
        parts.append(readable(paper.url))
    lines = [f"[{n}] " + " ".join(parts)]
    lines += [f"    “{readable(s).strip()}”" for s in sentences]
    return "\n".join(lines)


def answer_with_references(turn: Turn) -> str:
    """One answer for the clipboard: the answer as read (LaTeX rendered, control characters removed),
    the note on its sources if any, then ``References`` with each cited paper under the answer's own
    marker numbers and the abstract sentences the answer relied on."""
    out = [readable(turn.answer).strip()]
    if turn.note and not turn.sources:
        out += ["", f"({readable(turn.note)})"]
    if turn.citations:
        out += ["", "References"]
        out += [reference_text(c.n, c.paper, evidence(turn, c)) for c in sorted(turn.citations, key=lambda c: c.n)]
    return "\n".join(out) + "\n"


def filters_text(filters: dict) -> str:
    """``venue=ICML, year=2025`` for a `Filters.to_json()` dict ("" for none)."""
    if not filters or not any(v for v in filters.values()):
        return ""
    from assistant.retrieval import Filters

    try:
        return Filters(**{k: v for k, v in filters.items() if v is not None}).describe()
    except TypeError:  # a field this version does not know
        return ", ".join(f"{k}={v}" for k, v in filters.items() if v)


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_")


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines() or [""])


def to_markdown(chat: SavedChat) -> str:
    """The conversation as Markdown: each question once (as the heading when it is one short line,
    else quoted), the standalone question when retrieval used a rewritten one, the filters each answer
    was found under, the answer with markers renumbered to one conversation-wide reference list, and
    at the end that list (authors, title, venue, year, id, link) with the abstract sentences each
    paper was cited for. Text is readable: LaTeX rendered, control characters removed."""
    from assistant.answering import rewrote

    papers = cited_papers(chat.turns)
    ref_of = {(p.id or p.title): i for i, p in enumerate(papers, start=1)}
    why: dict[int, list[str]] = {i: [] for i in range(1, len(papers) + 1)}
    for turn in chat.turns:
        for c in turn.citations:
            bucket = why[ref_of[c.paper.id or c.paper.title]]
            bucket.extend(s for s in evidence(turn, c) if s not in bucket)
    out = [f"# {readable(chat.title)}", ""]
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(chat.created))
    meta = [f"Started {when}", f"{len(chat.turns)} question{'s' if len(chat.turns) != 1 else ''}"]
    filters = filters_text(chat.settings.get("filters_json") or {}) or chat.settings.get("filters") or ""
    meta.append(f"filters now: {filters}" if filters else "no filters now")
    out += ["_" + "; ".join(meta) + "_", ""]
    for i, turn in enumerate(chat.turns, start=1):
        question = readable(turn.question).strip()
        if "\n" not in question and len(question) <= 100:
            out += [f"## {i}. {question}", ""]
        else:
            out += [f"## {i}.", "", _quote(question), ""]
        standalone = readable(turn.standalone_question).strip()
        details = []
        if rewrote(question, standalone):
            details.append(f"asked as: {standalone}")
        f = filters_text(turn.filters)
        if f:
            details.append(f"filters: {f}")
        if details:
            out += ["_" + _md_escape("; ".join(details)) + "_", ""]
        if turn.answer:
            out += [hard_line_breaks(_renumber(readable(turn.answer), turn, ref_of)), ""]
        if turn.note and not turn.sources:
            out += [f"_({_md_escape(readable(turn.note))})_", ""]
        if turn.status == TurnStatus.STOPPED:
            out += ["_(answer stopped)_", ""]
        elif turn.status == TurnStatus.PARTIAL:
            out += ["_(answer incomplete)_", ""]
        if turn.status in (TurnStatus.ERROR, TurnStatus.PARTIAL) and turn.error:
            out += [f"_Error: {_md_escape(readable(turn.error))}_", ""]
        if turn.backend:
            out += [f"<sub>{readable(turn.backend)} · {readable(turn.model)}</sub>", ""]
    if papers:
        out += ["## References", ""]
        for i, p in enumerate(papers, start=1):
            out.append(reference_line(i, p))
            out += [f"   > {readable(s).strip()}" for s in why[i]]
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
