"""An in-memory conversation: the turns of one chat, in order, as plain data the chat app can store.

`answer(..., conversation=conv)` appends one `Turn` per question when its answer stream ends, whatever
the ending: ``"complete"``, ``"partial"`` (an error after some text), ``"error"`` (no text), or
``"stopped"`` (cancelled, or the consumer stopped reading). Follow-up questions are rewritten from
`history_text()`. `to_dict` / `from_dict` give a JSON-safe form (``json.dumps`` works on it).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field

STATUSES = ("complete", "partial", "stopped", "error")


@dataclass
class Turn:
    """One question and its answer.

    `sources` are the papers given to the model (``Source.to_json()`` dicts: n, id, title, score, venue,
    year, url); `citations` the checked ones (n, id, title); `status` one of `STATUSES`; `seconds` wall
    time; `usage` token counts as the backend reported them.
    """

    question: str
    standalone_question: str = ""
    answer: str = ""
    sources: list[dict] = field(default_factory=list)
    citations: list[dict] = field(default_factory=list)
    dropped_citations: list[int] = field(default_factory=list)
    status: str = "complete"
    backend: str = ""
    model: str = ""
    error: str = ""
    refused: bool = False
    usage: dict = field(default_factory=dict)
    seconds: float = 0.0
    created_at: float = field(default_factory=time.time)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Turn:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        turn = cls(**known)
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
                "turns": [t.to_dict() for t in self.turns]}

    @classmethod
    def from_dict(cls, data: dict) -> Conversation:
        conv = cls(turns=[Turn.from_dict(t) for t in data.get("turns", [])],
                   title=str(data.get("title", "")), created_at=float(data.get("created_at", time.time())))
        if data.get("id"):
            conv.id = str(data["id"])
        return conv
