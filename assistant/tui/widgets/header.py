"""One-line header: collection name and size (and how many papers match the filters), LLM backend and
model, active filters. It fits its width: at 80 columns the app name goes first, then labels shorten;
the collection, the count, the backend and the filters stay."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from assistant.text import printable


class ChatHeader(Static):
    """Shows ``collection · N abstracts · M match │ backend · model │ filters``. Values are shown verbatim."""

    DEFAULT_CSS = """
    ChatHeader { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    def __init__(self, **kwargs):
        super().__init__("", markup=False, **kwargs)
        self.collection = ""
        self.count: int | None = None
        self.matching: int | None = None  # papers matching the filters (None: no filters or not counted yet)
        self.backend = ""
        self.model = ""
        self.filters = ""
        self.problem = ""

    def set_state(self, **values) -> None:
        """Update any of collection, count, matching, backend, model, filters, problem and redraw."""
        for key, value in values.items():
            setattr(self, key, value)
        self.update(self.render_text())

    def on_resize(self) -> None:
        self.update(self.render_text())

    def render_text(self, width: int | None = None) -> Text:
        """The header for `width` columns (default: the widget's): the fullest form that fits. Forms
        drop, in turn: the app name, the model, the word "abstracts", the collection name."""
        width = width or (self.size.width - 2 if self.size.width else 200)
        for compact in range(5):
            t = self._text(compact)
            if t.cell_len <= width:
                return t
        return t

    def _text(self, compact: int) -> Text:
        sep = "  │  " if compact == 0 else " │ "
        t = Text(no_wrap=True, overflow="ellipsis")
        if compact == 0:
            t.append("Paper assistant  ", style="bold")
        if compact < 4:
            t.append((printable(self.collection) or "…") + " · ", style="bold cyan")
        if self.count is None:
            if not self.problem:
                t.append("loading…", style="dim")
        else:
            t.append(f"{self.count} abstract{'s' if self.count != 1 else ''}" if compact < 3 else f"{self.count}")
        if self.filters and self.matching is not None and self.count is not None:
            style = "bold red" if self.matching == 0 else "yellow"
            t.append(f" · {self.matching} match{'es' if self.matching == 1 else ''}", style=style)
        if self.problem:  # after the count, or in its place when the store never answered
            t.append(f"{' · ' if self.count is not None else ''}{self.problem}", style="bold red")
        t.append(sep, style="dim")
        if self.backend:
            t.append(printable(self.backend), style="bold green")
            if self.model and compact < 2:
                t.append(f" · {printable(self.model)}")
        else:
            t.append("backend …", style="dim")
        t.append(sep, style="dim")
        if self.filters:
            t.append(("filters: " if compact == 0 else "") + printable(self.filters), style="yellow")
        else:
            t.append("no filters", style="dim")
        return t
