"""The sources panel: the numbered papers of the current answer, cited ones marked."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from assistant.events import Source
from assistant.tui.textutil import one_line

NAME_CHARS = 32  # the panel is 42 columns wide; longer names are clipped (the viewer shows them whole)


def source_label(source: Source, cited: bool) -> Text:
    """``● [2] NorMuon`` / ``ICML 2026 · score 0.0328`` as plain `Text` (paper text never parsed as markup)."""
    t = Text()
    t.append("● " if cited else "  ", style="bold green" if cited else "")
    t.append(f"[{source.n}] ", style="bold")
    t.append(one_line(source.paper.display_name, NAME_CHARS - len(str(source.n))), style="bold" if cited else "")
    t.append("\n    ")
    meta = source.paper.venue_year or "venue/year unknown"
    t.append(f"{meta} · score {source.score:.4f}" + (" · cited" if cited else ""), style="dim")
    return t


class SourcesPanel(OptionList):
    """An `OptionList` of `Source`s; selecting one (Enter or click) posts `OptionList.OptionSelected`
    with the option id ``"source-<n>"``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.sources: tuple[Source, ...] = ()
        self.cited: set[int] = set()
        self.turn: int | None = None

    def show_sources(self, sources: Sequence[Source], cited: Iterable[int] = (), turn: int | None = None,
                     note: str = "") -> None:
        """Replace the list. `turn` is the conversation position the sources belong to."""
        self.sources = tuple(sources)
        self.cited = set(cited)
        self.turn = turn
        highlighted = self.highlighted
        self.clear_options()
        if not self.sources:
            self.add_option(Option(Text(note or "No sources.", style="dim italic"), disabled=True))
            return
        self.add_options([Option(source_label(s, s.n in self.cited), id=f"source-{s.n}") for s in self.sources])
        self.highlighted = highlighted if highlighted is not None and highlighted < len(self.sources) else 0

    async def _on_key(self, event) -> None:
        # typing while the list has focus goes to the question input instead of being lost
        if event.is_printable and event.character and event.character != " ":
            target = self.app.query_one("#question")
            if not getattr(target, "read_only", False):
                event.stop()
                event.prevent_default()
                target.focus()
                target.insert(event.character)
                return
        await super()._on_key(event)

    def mark_cited(self, cited: Iterable[int]) -> None:
        self.show_sources(self.sources, cited, self.turn)
