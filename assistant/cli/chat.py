"""The ``chat`` command: the Textual app (see `assistant.tui.app.make_app`).

Textual and the store are imported inside the command, so ``assistant --help`` stays instant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from assistant.cli.common import (AuthorOpt, LlmOpt, ModelOpt, TopKOpt, UserError, VenueOpt, YearOpt, check_backend,
                                  get_settings, make_filters, user_errors)


def chat(
    ctx: typer.Context,
    llm: LlmOpt = None,
    model: ModelOpt = None,
    k: TopKOpt = None,
    venue: VenueOpt = None,
    year: YearOpt = None,
    author: AuthorOpt = None,
    open_id: Annotated[Optional[str], typer.Option(
        "--open", metavar="ID",
        help="Reopen a saved conversation (its id or a prefix; 'last' for the latest).")] = None,
    export_dir: Annotated[Optional[Path], typer.Option(
        help="Folder for Markdown exports (Ctrl+R in the app). Default: the current folder.")] = None,
) -> None:
    """Chat with the collection in a terminal app: answers stream in with their sources beside them.

    Enter sends (while an answer streams it queues the question), Esc stops an answer, Tab goes to the
    sources (Enter opens an abstract), Ctrl+Up/Down selects an earlier answer and shows its sources.

    Ctrl+N: new conversation. Ctrl+O: saved ones. Ctrl+S: backend, model, filters of this conversation.
    Ctrl+R: export to Markdown. Ctrl+T: copy the answer with its references. F3: show/hide the sources.

    F1 shows every key. Conversations (with their filters) are saved in the data folder as they go;
    --venue/--year/--author are the filters each new conversation starts with.
    """
    with user_errors():
        filters = make_filters(venue, year, author)
        settings = get_settings(ctx)
        if llm is not None:  # a known backend is set up in the app, where a failure is shown
            check_backend(llm)
        from assistant.chats import ChatStore

        chats = ChatStore(settings.paths.conversations_db)
        chat_id = _chat_to_open(chats, open_id)
        from assistant.tui.app import make_app

        make_app(settings, backend=llm, model=model, filters=filters, top_k=k, chat_store=chats,
                 export_dir=export_dir, chat_id=chat_id).run()


def _chat_to_open(chats, open_id: str | None) -> str | None:
    """The id of the saved conversation named by ``--open`` (id, prefix or 'last'), or None."""
    if not open_id:
        return None
    if open_id == "last":
        items = chats.list()
        if not items:
            raise UserError("there is no saved conversation yet")
        return items[0].id
    chat = chats.load(open_id)
    if chat is None:
        raise UserError(f"no saved conversation with id '{open_id}' (or the prefix matches several)")
    return chat.id
