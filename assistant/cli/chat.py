"""The ``chat`` command: the Textual app (see `assistant.tui.app.make_app`); and ``similar``, the papers like
one paper (the chat's abstract viewer lists the same with S).

Textual and the store are imported inside the command, so ``assistant --help`` stays instant.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from assistant.cli.common import (AuthorOpt, JsonOpt, LlmOpt, ModelOpt, TopKOpt, UserError, VenueOpt, YearOpt,
                                  check_backend, echo_json, find_paper, get_settings, make_filters, open_store,
                                  readable, require_text, user_errors)


def _has_terminal() -> bool:
    """Whether standard input and output are both a terminal, as the chat app needs."""
    return sys.stdin.isatty() and sys.stdout.isatty()


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
        if llm is not None:  # a known backend is set up in the app, where a failure is shown
            check_backend(llm)
        filters = make_filters(venue, year, author)
        settings = get_settings(ctx)
        from assistant.chats import ChatStore

        chats = ChatStore(settings.paths.conversations_db)
        chat_id = _chat_to_open(chats, open_id)
        if not _has_terminal():  # Textual would wait for a terminal forever
            raise UserError("assistant chat needs a terminal (its input or output is a pipe or file); "
                            "for scripts use `assistant ask` or `assistant batch`")
        from assistant.tui.app import make_app

        make_app(settings, backend=llm, model=model, filters=filters, top_k=k, chat_store=chats,
                 export_dir=export_dir, chat_id=chat_id).run()


def similar(
    ctx: typer.Context,
    paper_id: Annotated[str, typer.Argument(
        metavar="ID_OR_TITLE", help="Paper id, a unique prefix of it, or the paper's title (case-insensitive).")],
    k: Annotated[int, typer.Option("-k", "--top-k", min=1, help="How many papers to list.")] = 8,
    as_json: JsonOpt = False,
) -> None:
    """Papers like this one: its nearest neighbours by the stored abstract vectors (cosine similarity).

    --json prints {"id", "title", "results": [{"id", "title", "venue", "year", ..., "similarity"}]}.
    In the chat, S in the abstract viewer lists the same.
    """
    with user_errors({"id": paper_id} if as_json else None):
        from assistant.similar import similar_papers

        require_text(paper_id, "the paper id or title", "give an id (see `assistant papers`), a prefix of it, or the title")
        store = open_store(get_settings(ctx))
        paper = find_paper(store, paper_id)
        neighbours = similar_papers(store, paper.id, k)
        if as_json:
            echo_json({"id": paper.id, "title": paper.title,
                       "results": [{**p.to_json(), "similarity": round(sim, 6)} for p, sim in neighbours]})
            return
        typer.echo(f"Papers like {readable(paper.display_name)} ({paper.id}):")
        if not neighbours:
            typer.echo("  no other paper in the collection")
        for i, (p, sim) in enumerate(neighbours, start=1):
            where = p.venue_year or "venue/year unknown"
            typer.echo(f"{i:>3}. {sim:.3f}  {readable(p.display_name)}  ({where}; id {p.id})")


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
