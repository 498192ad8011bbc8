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
from assistant.text import relied_spans
from assistant.tui.textutil import one_line
from assistant.tui.widgets.conversation import readable

HIGHLIGHT = "bold black on #e0c060"


_EMPHASIS = {"strong_open": "bold", "em_open": "italic"}


def styled_inline(text: str) -> Text:
    """`text` with its Markdown emphasis (``**bold**``, ``*italic*``, as some abstracts write it) as
    `Text` styles instead of asterisks: markdown-it-py's inline parser ("zero" preset plus emphasis), the
    parser Textual's Markdown widget uses for the answers."""
    from markdown_it import MarkdownIt

    out, styles = Text(), []
    for token in MarkdownIt("zero").enable(["emphasis"]).parseInline(text)[0].children or ():
        if token.type in _EMPHASIS:
            styles.append(_EMPHASIS[token.type])
        elif token.type in ("strong_close", "em_close") and styles:
            styles.pop()
        elif token.type in ("softbreak", "hardbreak"):
            out.append(" ")
        else:
            out.append(token.content, style=" ".join(styles))
    return out


def abstract_text(abstract: str, answer_sentences: Sequence[str]) -> tuple[Text, int]:
    """The abstract as readable `Text` (LaTeX rendered, Markdown emphasis as styles: `styled_inline`,
    control characters removed) with relied-on sentences highlighted; returns (text, highlighted count)."""
    text = styled_inline(readable(abstract))
    abstract = text.plain
    spans = relied_spans(abstract, [styled_inline(readable(s)).plain for s in answer_sentences])
    for start, end in spans:
        text.stylize(HIGHLIGHT, start, end)
    return text, len(spans)


class SourceScreen(ModalScreen[None]):
    """Source [n]: the paper and, if the answer cited it, the answer sentences that cite it."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close"), Binding("o", "open_link", "Open link"),
                Binding("s", "similar", "Papers like this")]

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
        if not self.source.n:
            why = Text("")
        elif self.cited:
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
            box.border_title = f"Source [{self.source.n}]" if self.source.n else "Paper"
            box.border_subtitle = "Esc closes · S papers like this" + (" · O opens the link" if p.url else "")
            yield Static(title, classes="source-title", markup=False)
            yield Static(meta, classes="source-meta", markup=False)
            yield Static(body, classes="source-abstract", markup=False)
            yield Static(why, classes="source-why", markup=False)

    def action_similar(self) -> None:
        """List the papers nearest to this one by their stored vectors (see `SimilarScreen`)."""
        self.app.show_similar(self.source.paper)

    def action_open_link(self) -> None:
        if self.source.paper.url:
            self.app.open_url(self.source.paper.url)


class SimilarScreen(ModalScreen[None]):
    """Papers like one paper: its nearest neighbours in the collection by the stored abstract vectors
    (cosine similarity). Enter opens one in the abstract viewer."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, paper, neighbours: Sequence[tuple[object, float]]):
        super().__init__()
        self.paper = paper
        self.neighbours = list(neighbours)

    def compose(self) -> ComposeResult:
        from textual.widgets import OptionList
        from textual.widgets.option_list import Option

        options = []
        for i, (paper, similarity) in enumerate(self.neighbours):
            label = Text(readable(paper.display_name), style="bold")
            label.append(f"\n  {readable(paper.venue_year) or 'venue/year unknown'} · similarity {similarity:.3f}",
                         style="dim")
            options.append(Option(label, id=f"similar-{i}"))
        if not options:
            options.append(Option(Text("No other paper in the collection.", style="dim italic"), disabled=True))
        with VerticalScroll(id="source-box") as box:
            box.border_title = f"Papers like {one_line(readable(self.paper.display_name), 50)}"
            box.border_subtitle = "Enter opens · Esc closes"
            yield OptionList(*options, id="similar-list")

    def on_mount(self) -> None:
        self.query_one("#similar-list").focus()

    def on_option_list_option_selected(self, event) -> None:
        event.stop()
        paper, similarity = self.neighbours[int(event.option.id.removeprefix("similar-"))]
        self.app.push_screen(SourceScreen(Source(n=0, paper=paper, score=similarity)))
