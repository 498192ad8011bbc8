"""The abstract viewer: one paper in full (title, authors, venue, year, link, abstract), with the
sentences the answer relied on highlighted."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from assistant.events import Source
from assistant.text import printable
from assistant.tui.textutil import relied_spans
from assistant.tui.widgets.conversation import readable

HIGHLIGHT = "bold black on #e0c060"


def abstract_text(abstract: str, answer_sentences: Sequence[str]) -> tuple[Text, int]:
    """The abstract as readable `Text` (LaTeX rendered, control characters removed) with relied-on
    sentences highlighted; returns (text, highlighted count)."""
    abstract = readable(abstract)
    text = Text(abstract)
    spans = relied_spans(abstract, [readable(s) for s in answer_sentences])
    for start, end in spans:
        text.stylize(HIGHLIGHT, start, end)
    return text, len(spans)


class SourceScreen(ModalScreen[None]):
    """Source [n]: the paper and, if the answer cited it, the answer sentences that cite it."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close"), Binding("o", "open_link", "Open link")]

    def __init__(self, source: Source, answer_sentences: Sequence[str] = (), cited: bool = False):
        super().__init__()
        self.source = source
        self.answer_sentences = tuple(answer_sentences)
        self.cited = cited

    def compose(self) -> ComposeResult:
        p = self.source.paper
        title = Text(readable(p.title), style="bold")
        if p.title_is_derived:
            title.append("  (name derived from the abstract)", style="dim italic")
        meta = Text()
        for label, value in (("authors", ", ".join(p.authors)), ("venue", p.venue), ("year", str(p.year or "")),
                             ("link", p.url), ("id", p.id)):
            if value:
                meta.append(f"{label}: ", style="dim")
                meta.append(readable(value) if label in ("authors", "venue") else printable(value),
                            style="underline" if label == "link" else "")
                meta.append("\n")
        meta.append(f"score: {self.source.score:.4f}", style="dim")
        body, n = abstract_text(p.abstract, self.answer_sentences)
        if self.cited:
            why = Text(f"The answer cites [{self.source.n}] for:\n", style="bold")
            for s in self.answer_sentences:
                why.append("• ")
                why.append(readable(s))
                why.append("\n")
            why.append(f"{n} sentence{'s' if n != 1 else ''} of the abstract highlighted" if n
                       else "no abstract sentence matched closely enough to highlight", style="dim italic")
        else:
            why = Text("The answer does not cite this source.", style="dim italic")
        with VerticalScroll(id="source-box") as box:
            box.border_title = f"Source [{self.source.n}]"
            box.border_subtitle = "Esc closes" + (" · O opens the link" if p.url else "")
            yield Static(title, classes="source-title", markup=False)
            yield Static(meta, classes="source-meta", markup=False)
            yield Static(body, classes="source-abstract", markup=False)
            yield Static(why, classes="source-why", markup=False)

    def action_open_link(self) -> None:
        if self.source.paper.url:
            self.app.open_url(self.source.paper.url)
