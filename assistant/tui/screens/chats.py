"""The list of saved conversations: Enter opens one, d deletes it (after y confirms), Esc goes back.

The highlighted row is the only cursor; the conversation on screen is marked "(open)" in words."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from assistant.chats import ChatStore, ChatStoreError, ChatSummary
from assistant.text import printable


def chat_label(chat: ChatSummary, current: bool) -> Text:
    t = Text()
    t.append(printable(chat.title), style="bold")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(chat.updated))
    t.append(f"\n  {when} · {chat.turns} question{'s' if chat.turns != 1 else ''}", style="dim")
    if current:
        t.append(" · (open)", style="green")
    return t


class ChatDeleted(Message):
    """The conversation on screen was deleted from the list."""

    def __init__(self, chat_id: str):
        super().__init__()
        self.chat_id = chat_id


class ChatsScreen(ModalScreen[str | None]):
    """Dismisses with the id of the conversation to open, or None."""

    BINDINGS = [Binding("escape", "dismiss_none", "Back"), Binding("d,delete", "delete", "Delete"),
                Binding("y", "confirm", "Yes", show=False), Binding("n", "cancel_delete", "No", show=False)]
    SUBTITLE = "Enter opens · d deletes (asks first) · Esc back"

    def __init__(self, chats: ChatStore, current: str | None = None):
        super().__init__()
        self.chats = chats
        self.current = current
        self.pending: tuple[str, str] | None = None  # (id, title) waiting for y to be deleted

    def compose(self) -> ComposeResult:
        with Vertical(id="chats-box") as box:
            box.border_title = "Conversations"
            box.border_subtitle = self.SUBTITLE
            yield OptionList(id="chat-list")
            yield Static("", id="chats-message", markup=False)

    def on_mount(self) -> None:
        self.refresh_list()
        self.query_one(OptionList).focus()

    def refresh_list(self) -> None:
        options = self.query_one(OptionList)
        self._items: list[ChatSummary] = []
        options.clear_options()
        try:
            items = self.chats.list()
        except ChatStoreError as exc:
            self.query_one("#chats-message", Static).update(Text(str(exc), style="red"))
            return
        if not items:
            options.add_option(Option(Text("No saved conversations yet.", style="dim italic"), disabled=True))
            return
        self._items = items
        options.add_options([Option(chat_label(c, c.id == self.current), id=c.id) for c in items])
        options.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.pending is not None and event.option.id != self.pending[0]:
            self.action_cancel_delete()  # the cursor moved away: the question no longer applies

    def _message(self, text: Text) -> None:
        self.query_one("#chats-message", Static).update(text)

    def action_dismiss_none(self) -> None:
        if self.pending is not None:  # Esc first cancels a pending delete
            self.action_cancel_delete()
            return
        self.dismiss(None)

    def action_delete(self) -> None:
        """Ask to delete the highlighted conversation; y deletes it, n or Esc keeps it."""
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        if option.id is None:
            return
        summary = next((c for c in self._items if c.id == option.id), None)
        title = summary.title if summary else option.id
        self.pending = (option.id, title)
        t = Text("Delete ", style="bold")
        t.append(f"“{printable(title)}”", style="bold")
        t.append(" and its answers? ", style="bold")
        t.append("y", style="bold reverse")
        t.append(" deletes · ")
        t.append("n", style="bold reverse")
        t.append(" or Esc keeps it")
        self._message(t)
        self.query_one("#chats-box").border_subtitle = "y deletes · n / Esc keeps"

    def action_cancel_delete(self) -> None:
        if self.pending is not None:
            self.pending = None
            self._message(Text("Kept.", style="dim"))
            self.query_one("#chats-box").border_subtitle = self.SUBTITLE

    def action_confirm(self) -> None:
        if self.pending is None:
            return
        chat_id, title = self.pending
        self.pending = None
        self.query_one("#chats-box").border_subtitle = self.SUBTITLE
        try:
            self.chats.delete(chat_id)
        except ChatStoreError as exc:
            self._message(Text(str(exc), style="red"))
            return
        self._message(Text(f"Deleted “{printable(title)}”.", style="dim"))
        if chat_id == self.current:
            self.app.post_message(ChatDeleted(chat_id))
        self.refresh_list()
