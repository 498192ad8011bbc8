"""The sources panel: the numbered papers of one answer (the selected one), cited ones marked."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from assistant.events import Source
from assistant.tui.textutil import one_line
from assistant.tui.widgets.conversation import readable, type_into_question


def source_label(source: Source, cited: bool, width: int = 40) -> Text:
    """``● [2] NorMuon`` / ``ICML 2026 · sim 0.48 · rel 0.91`` as plain `Text` (dense cosine similarity and
    the relevance gate's estimated probability, as `ask` prints them; paper text never parsed as markup;
    LaTeX rendered, control characters removed); the name is clipped to fit `width` columns."""
    t = Text()
    t.append("● " if cited else "  ", style="bold green" if cited else "")
    t.append(f"[{source.n}] ", style="bold")
    name_chars = max(8, width - 6 - len(str(source.n)))
    t.append(one_line(readable(source.paper.display_name), name_chars), style="bold" if cited else "")
    meta = readable(source.paper.venue_year) or "venue/year unknown"
    # figures with a meaning (as `ask` prints them), not the fused retrieval score (1.0 at the top)
    sim = f"sim {source.similarity:.2f}" if source.similarity is not None else ""
    rel = f"rel {source.relevance:.2f}" if source.relevance is not None else ""
    figures = " · ".join(x for x in (sim, rel) if x) or ("key words matched" if source.bm25_matched else "")
    figures = f" · {figures}" if figures else ""
    forms = [f"    {meta}{figures}" + (" · cited" if cited else ""),
             f"    {meta}{figures}",  # ● already says cited
             f"  {meta}" + (f" · {rel or sim}" if rel or sim else "")]
    line = next((f for f in forms if len(f) <= width), forms[-1])
    t.append("\n")
    t.append(line if len(line) <= width else line[: width - 1] + "…", style="dim")
    return t


class SourcesPanel(OptionList):
    """An `OptionList` of `Source`s; selecting one (Enter or click) posts `OptionList.OptionSelected`
    with the option id ``"source-<n>"``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.sources: tuple[Source, ...] = ()
        self.cited: set[int] = set()
        self.turn: int | None = None
        self.note = ""
        self._width = 40

    def show_sources(self, sources: Sequence[Source], cited: Iterable[int] = (), turn: int | None = None,
                     note: str = "") -> None:
        """Replace the list. `turn` is the conversation position the sources belong to; `note` is shown
        when there are none."""
        same_turn = turn == self.turn
        self.sources = tuple(sources)
        self.cited = set(cited)
        self.turn = turn
        self.note = note
        highlighted = self.highlighted if same_turn else None
        self.clear_options()
        if not self.sources:
            note = readable(note) or "No sources."
            self.add_option(Option(Text(note[0].upper() + note[1:], style="dim italic"), disabled=True))
            return
        self.add_options([Option(source_label(s, s.n in self.cited, self._width), id=f"source-{s.n}")
                          for s in self.sources])
        self.highlighted = highlighted if highlighted is not None and highlighted < len(self.sources) else 0

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width or self.size.width
        if width and width != self._width:
            self._width = width
            self.show_sources(self.sources, self.cited, self.turn, self.note)

    async def _on_key(self, event) -> None:
        # typing while the list has focus goes to the question input instead of being lost
        if type_into_question(self, event):
            return
        await super()._on_key(event)

    def mark_cited(self, cited: Iterable[int]) -> None:
        self.show_sources(self.sources, cited, self.turn, self.note)
