"""The conversation view: each turn is the question (verbatim), the answer as streaming Markdown, and
a status line (backend, time, stopped / error). Questions, notes and errors are `rich.text.Text`,
never markup; the answer is Markdown because the model writes Markdown, passed through
`verbatim_markdown` so LaTeX, brackets and tags show as they are."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Markdown, Static

from assistant.tui.textutil import link_citations, verbatim_markdown


class AnswerMarkdown(Markdown):
    """The answer. Links ``cite:<turn>:<n>`` are handled by the app (open source n of that turn)."""

    DEFAULT_CSS = "AnswerMarkdown { margin: 0; padding: 0 1 0 2; }"


class TurnView(Vertical):
    """One question and its answer. Streaming: `write` fragments, then `finish` or `fail`."""

    def __init__(self, position: int, question: str, **kwargs):
        super().__init__(classes="turn", **kwargs)
        self.position = position
        self.question = question
        self.text = ""
        self.status = "streaming"
        self._stream = None

    def compose(self):
        q = Text("› ", style="bold")
        q.append(self.question)
        yield Static(q, classes="question", markup=False)
        yield AnswerMarkdown("", open_links=False, classes="answer")
        yield Static(Text("answering…", style="dim italic"), classes="status", markup=False)

    @property
    def markdown(self) -> AnswerMarkdown:
        return self.query_one(AnswerMarkdown)

    @property
    def status_line(self) -> Static:
        return self.query_one(".status", Static)

    async def write(self, fragment: str) -> None:
        """Append streamed answer text (Markdown is rendered incrementally, see `Markdown.get_stream`)."""
        if self.status != "streaming" or not fragment:
            return
        self.text += fragment
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        await self._stream.write(verbatim_markdown(fragment))

    async def _stop_stream(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()

    async def finish(self, answer: str | None, cited: list[int], status: str, note: Text | None = None) -> None:
        """End the turn: show the final `answer` (markers of `cited` become links), set the status line."""
        await self._stop_stream()
        if answer is not None:
            self.text = answer
        self.status = status
        shown = link_citations(verbatim_markdown(self.text), cited, self.position) if self.text else ""
        await self.markdown.update(shown)
        self.set_class(status == "stopped", "-stopped")
        self.status_line.update(note if note is not None else Text(""))

    async def fail(self, message: str, partial: str = "", note: Text | None = None) -> None:
        """End the turn with an error shown in the conversation; text that came is kept."""
        if partial and len(partial) > len(self.text):
            self.text = partial
        status = "partial" if self.text.strip() else "error"
        line = Text("⚠ ", style="bold red")
        line.append(message, style="red")
        if note is not None:
            line.append("  ")
            line.append_text(note)
        await self.finish(None, [], status, line)
        self.add_class("-error")

    def show_saved(self, answer: str, cited: list[int], status: str, note: Text) -> None:
        """Show a finished turn from a saved conversation (no streaming)."""
        self.text = answer
        self.status = status
        self.call_after_refresh(self.markdown.update, link_citations(verbatim_markdown(answer), cited, self.position))
        self.status_line.update(note)
        self.set_class(status == "stopped", "-stopped")
        self.set_class(status in ("error", "partial") and not answer.strip(), "-error")


class ConversationView(VerticalScroll):
    """The scrolling list of `TurnView`s and notes (welcome text, store problems)."""

    def turns(self) -> list[TurnView]:
        return list(self.query(TurnView))

    async def add_turn(self, position: int, question: str) -> TurnView:
        view = TurnView(position, question)
        await self.mount(view)
        self.anchor()
        return view

    async def add_note(self, text: Text, classes: str = "note") -> Static:
        note = Static(text, classes=classes, markup=False)
        await self.mount(note)
        self.anchor()
        return note

    async def clear(self) -> None:
        await self.remove_children()
