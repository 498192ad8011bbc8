"""One-line header: collection name and size, LLM backend and model, active filters."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class ChatHeader(Static):
    """Shows ``collection · N abstracts │ backend · model │ filters``. All values are shown verbatim."""

    DEFAULT_CSS = """
    ChatHeader { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    def __init__(self, **kwargs):
        super().__init__("", markup=False, **kwargs)
        self.collection = ""
        self.count: int | None = None
        self.backend = ""
        self.model = ""
        self.filters = ""
        self.problem = ""

    def set_state(self, **values) -> None:
        """Update any of collection, count, backend, model, filters, problem and redraw."""
        for key, value in values.items():
            setattr(self, key, value)
        self.update(self.render_text())

    def render_text(self) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append("Paper assistant  ", style="bold")
        t.append(self.collection or "…", style="bold cyan")
        if self.count is None:
            t.append(" · loading…" if not self.problem else "", style="dim")
        else:
            t.append(f" · {self.count} abstract{'s' if self.count != 1 else ''}")
        if self.problem:
            t.append(f" · {self.problem}", style="bold red")
        t.append("  │  ", style="dim")
        if self.backend:
            t.append(self.backend, style="bold green")
            if self.model:
                t.append(f" · {self.model}")
        else:
            t.append("backend …", style="dim")
        t.append("  │  ", style="dim")
        if self.filters:
            t.append(f"filters: {self.filters}", style="yellow")
        else:
            t.append("no filters", style="dim")
        return t
