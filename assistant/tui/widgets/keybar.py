"""The key bar at the bottom: the app's main keys in their order; on a narrow terminal the least essential
are left out first (F1, which lists every key, always shows). Unlike Textual's `Footer`, it is one `Static`
that does not rebuild itself when focus or the screen changes: the Footer's recomposition cost ~150 ms of
CPU per Tab or F1 on this machine, most of a key's latency while an answer streams (benchmarks/tui_latency.py). Clicking a key runs its action."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

KEY_STYLE = Style(bold=True, color="#ffa62b")


def key_label(key: str) -> str:
    """``ctrl+n`` -> ``^n``, ``escape`` -> ``esc``, ``f1`` -> ``f1`` (the first key of ``"a,b"``)."""
    key = key.split(",")[0]
    return key.replace("ctrl+", "^").replace("escape", "esc")


class KeyBar(Static):
    """Shows ``(key, description, action)`` items on one line, in the order given. `essential`: actions in
    the order they keep their place when the width is short (the first always shows); items not named
    come after them, in the order given."""

    DEFAULT_CSS = "KeyBar { height: 1; background: $footer-background; color: $footer-foreground; }"

    def __init__(self, items: Sequence[tuple[str, str, str]], essential: Sequence[str] = (), **kwargs):
        super().__init__("", markup=False, **kwargs)
        self.items = list(items)
        self.essential = list(essential)

    def on_mount(self) -> None:
        self.update(self.render_text(self.size.width or 80))

    def on_resize(self, event) -> None:
        self.update(self.render_text(event.size.width))

    def render_text(self, width: int) -> Text:
        """The items that fit in `width` columns, chosen most essential first, shown in their order."""
        pieces = []
        for key, description, action in self.items:
            piece = Text()
            piece.append(f" {key_label(key)} ", style=KEY_STYLE + Style(meta={"@click": f"app.{action}"}))
            piece.append(f"{description} ", style=Style(meta={"@click": f"app.{action}"}))
            pieces.append(piece)
        rank = {a: k for k, a in enumerate(self.essential)}
        order = sorted(range(len(self.items)), key=lambda i: (rank.get(self.items[i][2], len(rank)), i))
        shown, used = set(), 0
        for i in order:
            if used + pieces[i].cell_len <= width:
                shown.add(i)
                used += pieces[i].cell_len
        t = Text(no_wrap=True, overflow="crop")
        for i in sorted(shown):
            t.append_text(pieces[i])
        return t
