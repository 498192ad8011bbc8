"""Settings for this conversation: LLM backend and model, retrieval filters (venue, year, author)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from assistant.enums import BackendName
from assistant.retrieval import Filters, parse_year

BACKENDS = tuple(BackendName)


@dataclass(frozen=True)
class ChatOptions:
    """What the settings screen edits. `model` None means the backend's default."""

    backend: str
    model: str | None
    filters: Filters


def year_text(filters: Filters) -> str:
    lo, hi = filters.year_min, filters.year_max
    if lo is None and hi is None:
        return ""
    if lo == hi:
        return str(lo)
    return f"{lo or ''}-{hi or ''}"


class SettingsScreen(ModalScreen[ChatOptions | None]):
    """Dismisses with the new `ChatOptions`, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "apply", "Apply", priority=True)]

    def __init__(self, options: ChatOptions):
        super().__init__()
        self.options = options

    def compose(self) -> ComposeResult:
        f = self.options.filters
        with Vertical(id="settings-box") as box:
            box.border_title = "Settings for this conversation"
            box.border_subtitle = "Ctrl+S applies · Esc cancels"
            yield Label("LLM backend")
            yield Select([(b, b) for b in BACKENDS], value=self.options.backend if self.options.backend in BACKENDS
                         else "auto", allow_blank=False, compact=True, id="backend")
            yield Label("Model (empty: the backend's default)")
            yield Input(self.options.model or "", placeholder="e.g. gpt-4o-mini", compact=True, id="model")
            yield Label("Venue (several: ICML,ICLR)")
            yield Input(f.venue or "", placeholder="any venue", compact=True, id="venue")
            yield Label("Year or range (2023, 2021-2023)")
            yield Input(year_text(f), placeholder="any year", compact=True, id="year")
            yield Label("Author (part of a name)")
            yield Input(f.author or "", placeholder="any author", compact=True, id="author")
            yield Static("", id="settings-error", markup=False)
            with Horizontal(id="settings-buttons"):
                yield Button("Apply", variant="primary", compact=True, id="apply")
                yield Button("Clear filters", compact=True, id="clear")
                yield Button("Cancel", compact=True, id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "apply":
            self.action_apply()
        elif event.button.id == "clear":
            for name in ("venue", "year", "author"):
                self.query_one(f"#{name}", Input).value = ""
        else:
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_apply()

    def on_input_changed(self, event: Input.Changed) -> None:
        """An error about the year goes as soon as the year is one (it is not left under a mended field)."""
        error = self.query_one("#settings-error", Static)
        if event.input.id == "year" and str(error.render()):
            try:
                parse_year(event.value.strip())
            except ValueError:
                return
            error.update("")

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_apply(self) -> None:
        value = lambda name: self.query_one(f"#{name}", Input).value.strip()  # noqa: E731
        try:
            lo, hi = parse_year(value("year"))
        except ValueError as exc:
            self.query_one("#settings-error", Static).update(Text(str(exc), style="bold red"))
            self.query_one("#year", Input).focus()
            return
        backend = str(self.query_one("#backend", Select).value)
        filters = Filters(venue=value("venue") or None, year_min=lo, year_max=hi, author=value("author") or None)
        self.dismiss(ChatOptions(backend=backend, model=value("model") or None, filters=filters))
