"""The help screen: what each key does and how to read sources."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = [
    ("Enter", "send the question (while an answer streams: queue it, asked when the answer ends)"),
    ("Ctrl+J / Shift+Enter", "new line in the question"),
    ("Up / Down", "earlier / later questions (on the first / last line)"),
    ("Esc", "stop the answer (what came is kept, marked stopped); queued questions go back to the input"),
    ("Tab / F2", "go to the sources panel; Enter or click opens the abstract"),
    ("F3", "show or hide the sources panel (hidden by itself below 70 columns)"),
    ("Ctrl+Up / Ctrl+Down", "previous / next answer: the panel shows that answer's sources (or click it)"),
    ("click [n] in an answer", "open the abstract of that answer's source n"),
    ("S (in the abstract viewer)", "papers like this one: nearest neighbours by the stored vectors"),
    ("F4", "edit the last question; Enter asks it again in place of the last answer"),
    ("F5", "ask the last question again (e.g. after switching backend)"),
    ("Ctrl+N", "new conversation (with the command line's filters, none by default)"),
    ("Ctrl+O", "saved conversations: open (Enter) or delete (d, then y to confirm)"),
    ("Ctrl+S", "settings of this conversation: backend, model, filters (venue, year, author)"),
    ("Ctrl+R", "export the conversation to Markdown (with references and the cited sentences)"),
    ("Ctrl+T", "copy the selected answer with its references"),
    ("F1", "this help"),
    ("Ctrl+Q", "quit (conversations are saved as they go)"),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for key, what in KEYS:
            table.add_row(Text(key), Text(what))
        intro = Text.assemble(
            ("Ask about the papers in the collection. ", "bold"),
            "Answers cite their sources as [n]; the sources panel lists the papers given to the model, "
            "● marks the ones the answer cites. Opening a source shows its full abstract with the "
            "sentences the answer relied on highlighted.\n")
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Help"
            box.border_subtitle = "Esc closes"
            yield Static(intro, markup=False)
            yield Static(table)
