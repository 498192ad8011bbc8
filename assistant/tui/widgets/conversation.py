"""The conversation view: each turn is the question (verbatim), the standalone question retrieval used
when it differs (dimmed), the answer as streaming Markdown, why its sources are few or none, and a
status line (backend, time, stopped / error). Questions, notes and errors are `rich.text.Text`, never
markup; the answer is Markdown because the model writes Markdown, passed through `verbatim_markdown`
so brackets and tags show as they are. What is shown is readable text: LaTeX rendered as Unicode
(`assistant.text.render_latex`) and terminal control sequences removed (`assistant.text.printable`);
the raw text is what is saved.

Streaming is batched: `TurnView.write` is called about once per frame with what came since the last
call, and only text up to a point where no ``$...$`` is open is rendered, so LaTeX is never cut in
half. The answer is drawn by `AnswerView` as a few `Static` pieces of Rich Markdown (one per ~1,500
characters of finished blocks, plus the block being written): each frame re-parses only the block
being written, and a long answer is a handful of widgets rather than hundreds (Textual's `Markdown`
widget mounts one or more widgets per paragraph and list item, which made layout and restyling on
every key press grow with the answer; see benchmarks/tui_latency.py).
"""

from __future__ import annotations

import re

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import events
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from assistant.enums import TurnStatus
from assistant.text import printable, render_latex
from assistant.tui.textutil import link_citations, verbatim_markdown

_DOLLAR = re.compile(r"(?<!\\)\$")


def readable(text: str) -> str:
    """What a person reads: LaTeX rendered as Unicode text, terminal control sequences removed."""
    return printable(render_latex(printable(text)))


def answer_markdown(text: str, cited: list[int] | tuple[int, ...] = (), position: int = 0) -> str:
    """The Markdown shown for a finished answer: readable text, checked markers linked to their source."""
    return link_citations(verbatim_markdown(readable(text)), list(cited), position) if text else ""


def safe_cut(text: str) -> int:
    """How much of streamed `text` can be rendered now: up to its last whitespace (a LaTeX macro or a
    word may be cut), and not inside an unclosed ``$...$``. Returns a length (0: wait for more)."""
    cut = max(text.rfind(" "), text.rfind("\n")) + 1
    while cut > 0 and len(_DOLLAR.findall(text, 0, cut)) % 2:
        cut = max(text.rfind(" ", 0, cut - 1), text.rfind("\n", 0, cut - 1)) + 1
    return cut


_FENCE = re.compile(r"^\s*(```|~~~)")


def split_blocks(markdown: str) -> tuple[list[str], str]:
    """Split `markdown` into its finished blocks (each ending with its blank line; a blank line inside a
    fenced code block does not end one) and the unfinished rest."""
    blocks: list[str] = []
    current: list[str] = []
    in_fence = False
    lines = markdown.split("\n")
    for line in lines[:-1]:  # the last element has no newline yet: it belongs to the rest
        current.append(line + "\n")
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not line.strip() and not in_fence and "".join(current).strip():
            blocks.append("".join(current))
            current = []
    return blocks, "".join(current) + lines[-1]


class MarkdownPiece(Widget):
    """A piece of an answer: Markdown drawn by Rich, its lines cached per width (Textual's line API), so
    a repaint (a modal screen opening above, a focus change) copies lines instead of laying the
    Markdown out again."""

    DEFAULT_CSS = "MarkdownPiece { height: auto; }"

    def __init__(self, markdown: str, **kwargs):
        super().__init__(**kwargs)
        self.markdown = markdown
        self._lines: tuple[int, object, list[Strip]] | None = None  # (width, style, lines)

    def set_markdown(self, markdown: str) -> None:
        self.markdown = markdown
        self._lines = None
        self.refresh(layout=True)

    def _render_lines(self, width: int) -> list[Strip]:
        style = self.rich_style
        if self._lines is None or self._lines[0] != width or self._lines[1] != style:
            console = self.app.console
            options = console.options.update(width=max(1, width), height=None, highlight=False)
            lines = console.render_lines(RichMarkdown(self.markdown, hyperlinks=True), options, pad=False)
            self._lines = (width, style, [Strip(line).apply_style(style) for line in lines])
        return self._lines[2]

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self._render_lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width or self.size.width
        lines = self._render_lines(width)
        return lines[y] if 0 <= y < len(lines) else Strip.blank(width, self.rich_style)


class AnswerView(Vertical):
    """The answer as Markdown (`source`), drawn as `Static` pieces of Rich Markdown: finished blocks are
    grouped into pieces of about `PIECE_CHARS` characters that no longer change once full, and the
    block being streamed is the last piece. Clicking a link posts `LinkClicked` (``cite:<turn>:<n>``
    opens source n of that turn; the app handles it)."""

    DEFAULT_CSS = """
    AnswerView { height: auto; padding: 0 1 0 2; margin: 0 0 1 0; }
    AnswerView > MarkdownPiece { height: auto; }
    """
    PIECE_CHARS = 1500

    class LinkClicked(Message):
        def __init__(self, href: str):
            super().__init__()
            self.href = href

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.source = ""
        self._pieces: list[tuple[MarkdownPiece, str]] = []  # finished blocks: (widget, its Markdown)
        self._tail: tuple[MarkdownPiece, str] | None = None  # the block being streamed
        self._rest = ""

    async def update(self, markdown: str) -> None:
        """Show `markdown` as the whole answer (a finished or saved one)."""
        await self.remove_children()
        self.source, self._pieces, self._tail, self._rest = "", [], None, ""
        await self.append(markdown + "\n\n")
        self.source = markdown

    async def append(self, markdown: str) -> None:
        """Add streamed Markdown: finished blocks join the last piece (or start a new one when it is
        full), the block being written is redrawn alone."""
        self.source += markdown
        blocks, self._rest = split_blocks(self._rest + markdown)
        for block in blocks:
            if self._pieces and len(self._pieces[-1][1]) + len(block) <= self.PIECE_CHARS:
                widget, text = self._pieces[-1]
                self._pieces[-1] = (widget, text + block)
                widget.set_markdown(text + block)
            else:
                widget = MarkdownPiece(block)
                await self.mount(widget, before=self._tail[0] if self._tail else None)
                self._pieces.append((widget, block))
        if self._rest.strip():
            if self._tail is None:
                self._tail = (MarkdownPiece(self._rest, classes="tail"), self._rest)
                await self.mount(self._tail[0])
            elif self._tail[1] != self._rest:
                self._tail = (self._tail[0], self._rest)
                self._tail[0].set_markdown(self._rest)
        elif self._tail is not None:
            await self._tail[0].remove()
            self._tail = None

    def on_click(self, event: events.Click) -> None:
        link = event.style.link if event.style else None
        if link:
            event.stop()
            self.post_message(self.LinkClicked(link))


class TurnView(Vertical):
    """One question and its answer. Streaming: `write` fragments, then `finish` or `fail`."""

    class Selected(Message):
        """The user clicked this turn: show its sources."""

        def __init__(self, position: int):
            super().__init__()
            self.position = position

    def __init__(self, position: int, question: str, **kwargs):
        super().__init__(classes="turn", **kwargs)
        self.position = position
        self.question = question
        self.text = ""
        self.status = "streaming"
        self._rendered = 0  # characters of `text` handed to the Markdown stream

    def compose(self):
        q = Text("› ", style="bold")
        q.append(readable(self.question))
        yield Static(q, classes="question", markup=False)
        yield Static("", classes="standalone", markup=False)
        yield AnswerView(classes="answer")
        yield Static("", classes="reason", markup=False)
        yield Static(Text("answering…", style="dim italic"), classes="status", markup=False)

    def on_click(self) -> None:
        self.post_message(self.Selected(self.position))

    @property
    def markdown(self) -> AnswerView:
        return self.query_one(AnswerView)

    @property
    def status_line(self) -> Static:
        return self.query_one(".status", Static)

    def show_standalone(self, standalone: str) -> None:
        """Show the rewritten (standalone) question retrieval used, dimmed, when it differs."""
        from assistant.answering import rewrote

        widget = self.query_one(".standalone", Static)
        if not rewrote(self.question, standalone):
            widget.update("")
            widget.display = False
            return
        t = Text("↳ asked as: ", style="dim")
        t.append(readable(standalone), style="dim italic")
        widget.update(t)
        widget.display = True

    def show_reason(self, reason: str) -> None:
        """Why the answer has no sources (e.g. no paper matches the filters), shown as part of the answer."""
        widget = self.query_one(".reason", Static)
        widget.update(Text(reason, style="bold") if reason else "")
        widget.display = bool(reason)

    def on_mount(self) -> None:
        self.query_one(".standalone", Static).display = False
        self.query_one(".reason", Static).display = False

    async def write(self, fragment: str) -> None:
        """Append streamed answer text; what can be rendered (see `safe_cut`) goes to the Markdown stream."""
        if self.status != "streaming" or not fragment:
            return
        self.text += fragment
        pending = self.text[self._rendered:]
        cut = safe_cut(pending)
        if not cut:
            return
        self._rendered += cut
        await self.markdown.append(verbatim_markdown(readable(pending[:cut])))

    async def finish(self, answer: str | None, cited: list[int], status: str, note: Text | None = None) -> None:
        """End the turn: show the final `answer` (markers of `cited` become links), set the status line."""
        if answer is not None:
            self.text = answer
        self.status = status
        await self.markdown.update(answer_markdown(self.text, cited, self.position))
        self.set_class(status == TurnStatus.STOPPED, "-stopped")
        self.status_line.update(note if note is not None else Text(""))

    async def fail(self, message: str, partial: str = "", note: Text | None = None) -> None:
        """End the turn with an error shown in the conversation; text that came is kept."""
        if partial and len(partial) > len(self.text):
            self.text = partial
        status = TurnStatus.PARTIAL if self.text.strip() else TurnStatus.ERROR
        line = Text("⚠ ", style="bold red")
        line.append(printable(message), style="red")
        if note is not None:
            line.append("  ")
            line.append_text(note)
        await self.finish(None, [], status, line)
        self.add_class("-error")

    def show_saved(self, answer: str, cited: list[int], status: str, note: Text) -> None:
        """Show a finished turn from a saved conversation (no streaming)."""
        self.text = answer
        self.status = status
        self.call_after_refresh(self.markdown.update, answer_markdown(answer, cited, self.position))
        self.status_line.update(note)
        self.set_class(status == TurnStatus.STOPPED, "-stopped")
        self.set_class(status in (TurnStatus.ERROR, TurnStatus.PARTIAL) and not answer.strip(), "-error")


class ConversationView(VerticalScroll):
    """The scrolling list of `TurnView`s and notes (welcome text, store problems). Posts `InView`
    when scrolling brings another turn to the middle of the view; typing while it has focus goes to
    the question input."""

    class InView(Message):
        """Turn `position` is now the one in the middle of the view."""

        def __init__(self, position: int):
            super().__init__()
            self.position = position

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._in_view: int | None = None
        self._shown: tuple[int, float | None] | None = None
        """(position, scroll_y) of the turn `show_turn` scrolled to: it stays the turn in view until the
        view scrolls elsewhere (scroll_y None: the scroll is not applied yet)."""

    def show_turn(self, view: TurnView) -> None:
        """Scroll `view`'s turn to the top (as far as the view scrolls) and keep it the turn in view, though
        the middle of the view may show the next one (a short turn, or one near the end): Ctrl+Up/Down
        then move one turn from the selected one, not from the one the middle rule would pick."""
        self._shown = (view.position, None)
        self._in_view = view.position
        self.scroll_to_widget(view, animate=False, top=True)
        self.call_after_refresh(self._settle_shown, view.position)

    def _settle_shown(self, position: int) -> None:
        if self._shown is not None and self._shown[0] == position:
            self._shown = (position, self.scroll_y)

    def turns(self) -> list[TurnView]:
        return list(self.query(TurnView))

    async def add_turn(self, position: int, question: str) -> TurnView:
        view = TurnView(position, question)
        await self.mount(view)
        self.anchor()
        self._in_view = position
        self._shown = None
        return view

    async def add_note(self, text: Text, classes: str = "note") -> Static:
        note = Static(text, classes=classes, markup=False)
        await self.mount(note)
        self.anchor()
        return note

    async def clear(self) -> None:
        self._in_view = None
        self._shown = None
        await self.remove_children()

    def turn_in_view(self) -> int | None:
        """The position of the turn at the middle of the view (the last one whose top is above it);
        the last turn when the view is scrolled to the end; the turn `show_turn` showed while the view
        stays where that put it."""
        views = self.turns()
        if self._shown is not None:
            position, y = self._shown
            if (y is None or abs(self.scroll_y - y) < 1) and any(v.position == position for v in views):
                return position
            self._shown = None  # scrolled elsewhere since
        following_end = self._anchored and not self._anchor_released  # see `Widget.anchor`
        if views and (following_end or self.scroll_y >= self.max_scroll_y - 1):
            return views[-1].position
        middle = self.scroll_y + self.scrollable_content_region.height / 2
        found = None
        for view in views:
            if view.virtual_region.y <= middle or found is None:
                found = view.position
        return found

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if round(old) == round(new):
            return
        position = self.turn_in_view()
        if position is not None and position != self._in_view:
            self._in_view = position
            self.post_message(self.InView(position))

    async def _on_key(self, event) -> None:
        if type_into_question(self, event):
            return
        await super()._on_key(event)


def type_into_question(widget, event) -> bool:
    """Send a printable key pressed on `widget` to the question input (nothing typed is lost)."""
    if not (event.is_printable and event.character and event.character != " "):
        return False
    try:
        target = widget.app.query_one("#question")
    except Exception:
        return False
    event.stop()
    event.prevent_default()
    target.focus()
    target.insert(event.character)
    return True
