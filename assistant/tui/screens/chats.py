"""The list of saved conversations: Enter opens one, D deletes it, Esc goes back."""

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


def chat_label(chat: ChatSummary, current: bool) -> Text:
    t = Text()
    t.append("▸ " if current else "  ", style="bold green")
    t.append(chat.title, style="bold")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(chat.updated))
    t.append(f"\n    {when} · {chat.turns} question{'s' if chat.turns != 1 else ''}", style="dim")
    return t


class ChatDeleted(Message):
    """The conversation on screen was deleted from the list."""

    def __init__(self, chat_id: str):
        super().__init__()
        self.chat_id = chat_id


class ChatsScreen(ModalScreen[str | None]):
    """Dismisses with the id of the conversation to open, or None."""

    BINDINGS = [Binding("escape", "dismiss_none", "Back"), Binding("d,delete", "delete", "Delete")]

    def __init__(self, chats: ChatStore, current: str | None = None):
        super().__init__()
        self.chats = chats
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="chats-box") as box:
            box.border_title = "Conversations"
            box.border_subtitle = "Enter opens · D deletes · Esc back"
            yield OptionList(id="chat-list")
            yield Static("", id="chats-message", markup=False)

    def on_mount(self) -> None:
        self.refresh_list()
        self.query_one(OptionList).focus()

    def refresh_list(self) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        try:
            items = self.chats.list()
        except ChatStoreError as exc:
            self.query_one("#chats-message", Static).update(Text(str(exc), style="red"))
            return
        if not items:
            options.add_option(Option(Text("No saved conversations yet.", style="dim italic"), disabled=True))
            return
        options.add_options([Option(chat_label(c, c.id == self.current), id=c.id) for c in items])
        options.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def action_delete(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        if option.id is None:
            return
        try:
            self.chats.delete(option.id)
        except ChatStoreError as exc:
            self.query_one("#chats-message", Static).update(Text(str(exc), style="red"))
            return
        self.query_one("#chats-message", Static).update(Text("Deleted.", style="dim"))
        if option.id == self.current:
            self.app.post_message(ChatDeleted(option.id))
        self.refresh_list()

