"""Multi-line question input: Enter sends, Ctrl+J (or Shift/Alt+Enter) breaks the line, Up/Down on the
first/last line walk the history of sent questions."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = ("ctrl+j", "shift+enter", "alt+enter")


class QuestionInput(TextArea):
    """A `TextArea` for questions, with a history (oldest first) that Up/Down walk through."""

    @dataclass
    class Submitted(Message):
        input: QuestionInput
        text: str

    def __init__(self, questions: list[str] | None = None, **kwargs):
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.questions: list[str] = list(questions or [])
        self._index: int | None = None  # position in history while browsing; None = editing a draft
        self._draft = ""

    def remember(self, question: str) -> None:
        if question and (not self.questions or self.questions[-1] != question):
            self.questions.append(question)
        self._index = None
        self._draft = ""

    def _show(self, text: str, at_end: bool) -> None:
        self.load_text(text)
        lines = text.split("\n")
        self.move_cursor((len(lines) - 1, len(lines[-1])) if at_end else (0, len(lines[0])))

    async def _on_key(self, event) -> None:
        if self.read_only:
            return await super()._on_key(event)
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text = self.text.strip()
            if text:
                self.post_message(self.Submitted(self, text))
                # cleared now, not when the app handles the message: keys typed in between (a fast
                # typist, a paste) start the next question instead of being glued onto this one
                self.clear()
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        row, _ = self.cursor_location
        if event.key == "up" and row == 0 and self.questions:
            event.stop()
            event.prevent_default()
            if self._index is None:
                self._draft = self.text
                self._index = len(self.questions) - 1
            elif self._index > 0:
                self._index -= 1
            self._show(self.questions[self._index], at_end=False)
            return
        if event.key == "down" and row == self.document.line_count - 1 and self._index is not None:
            event.stop()
            event.prevent_default()
            if self._index < len(self.questions) - 1:
                self._index += 1
                self._show(self.questions[self._index], at_end=True)
            else:
                self._index = None
                self._show(self._draft, at_end=True)
            return
        return await super()._on_key(event)
