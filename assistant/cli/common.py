"""What the commands share, in one place: the options, the settings, the filters, the backend names, the
store opening, the one error handler, and the printing helpers.

Command modules import this module and never `assistant.cli` itself, so every module of the package
imports on its own (``python -c "import assistant.cli.answer"``). Heavy libraries are imported inside
the functions that need them.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from assistant.enums import BackendName, ErrorKind
from assistant.errors import AssistantError
from assistant.text import printable, render_latex

if TYPE_CHECKING:
    from assistant.llm import Backend
    from assistant.retrieval import Filters
    from assistant.settings import Settings
    from assistant.store.collection import PaperStore


class UserError(AssistantError):
    """A mistake the user can fix; printed as one line, exit code 1 (``error_kind`` "usage")."""

    kind = ErrorKind.USAGE
    exit_code = 1


class UsageError(UserError):
    """A bad argument or option value (an empty question, an unknown ``--llm``, a ``--year`` that is no
    year, options that contradict each other): one line, exit code 2, as Click gives for an unknown
    option or a value out of range, so every usage mistake exits alike."""

    exit_code = 2


class EmptyCollectionError(UserError):
    """The collection holds no abstracts, so there is nothing to answer from (``error_kind`` "empty")."""

    kind = ErrorKind.EMPTY


# --- options ----------------------------------------------------------------------------------------

BACKEND_NAMES = BackendName.choices_text()
"""``"openai, local, extractive or auto"``: the ``--llm`` choices as the help and the errors name them."""

VenueOpt = Annotated[Optional[str], typer.Option("--venue", help="Only this venue (e.g. ICML; several: ICML,ICLR).")]
YearOpt = Annotated[Optional[str], typer.Option("--year", help="Only this year or range (2023, 2021-2023).")]
AuthorOpt = Annotated[Optional[str], typer.Option(
    "--author", help="Only papers with an author whose name has these whole name parts (Chen, \"Yann LeCun\"; case-insensitive).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
LlmOpt = Annotated[Optional[str], typer.Option(
    "--llm", help=f"LLM backend: {BACKEND_NAMES} \\[env ASSISTANT_LLM].")]
ModelOpt = Annotated[Optional[str], typer.Option(
    "--model", help="Model name (openai) or GGUF file (local) \\[env ASSISTANT_MODEL].")]
TopKOpt = Annotated[Optional[int], typer.Option("-k", "--top-k", min=1, help="Papers given to the model \\[env ASSISTANT_TOP_K].")]


def get_settings(ctx: typer.Context, **overrides) -> Settings:
    """The settings: environment and config file, then the global options (``ctx.obj``), then `overrides`."""
    from assistant.settings import load_settings

    return load_settings(**{**(ctx.obj or {}), **overrides})


def make_filters(venue: str | None, year: str | None, author: str | None) -> Filters:
    """`assistant.api.make_filters` from the ``--venue``/``--year``/``--author`` values; raises
    `UsageError` naming ``--year`` for a year that is not a year or range."""
    from assistant.api import make_filters as filters_from

    try:
        return filters_from(venue, year, author)
    except ValueError as exc:
        raise UsageError(f"--year: {exc}") from None


def check_backend(name: str) -> BackendName:
    """The `BackendName` a ``--llm`` value names (case and spaces ignored); raises `UsageError`, with the
    message of `assistant.llm.make_llm`, for one that names none (before any setting or model is loaded)."""
    name = name.strip().lower()
    if name not in {b.value for b in BackendName}:
        raise UsageError(f"--llm: unknown LLM backend '{name}': choose {BACKEND_NAMES}")
    return BackendName(name)


def make_backend(settings: Settings, name: str | None, model: str | None, quiet: bool = False) -> Backend:
    """`assistant.llm.make_llm`: an LLM, or the extractive answer synthesizer. A backend that cannot be
    set up (no API key, no llama-cpp-python, an unknown name) is a `UserError` (``error_kind`` "usage").
    Its `notice` (e.g. that no LLM is configured) goes to stderr unless `quiet`."""
    from assistant.llm import LLMError, make_llm

    if name is not None:
        check_backend(name)  # `--llm ''` is a mistake, not "use the default"
    try:
        backend = make_llm(settings, name, model)
    except LLMError as exc:
        raise UserError(str(exc)) from None
    if backend.notice and not quiet:
        typer.echo(backend.notice, err=True)
    return backend


# --- the store --------------------------------------------------------------------------------------

def open_store(settings: Settings, load_default: bool = True, load_model: bool = False) -> PaperStore:
    """The configured store; an empty default collection gets the bundled abstracts first.

    `load_model` starts loading the embedding model in a thread before Chroma is opened (for commands
    that embed a query: the model then loads while chromadb is imported and the collection opened)."""
    from assistant.store.collection import PaperStore
    from assistant.store.ingest import bundled_loaded_message, ensure_default_collection, new_data_folder

    new_folder = new_data_folder(settings)
    store = PaperStore(settings)
    if load_model:
        getattr(store.embedder, "load_in_background", lambda: None)()
    if load_default and settings.collection == "papers":
        report = ensure_default_collection(store)
        if report is not None:
            typer.echo(bundled_loaded_message(report, new_folder), err=True)
    return store



def require_papers(store: PaperStore) -> None:
    """Raise `EmptyCollectionError` naming the collection and how to fill it when it holds no abstract."""
    if store.count() == 0:
        hint = ("" if store.name == "papers" else
                " (or drop --collection / ASSISTANT_COLLECTION to use the bundled ICML 2026 abstracts)")
        raise EmptyCollectionError(f"the collection '{store.name}' is empty: add abstracts with "
                                   f"`assistant ingest FILE_OR_FOLDER`{hint}")


def require_text(value: str, what: str, fix: str) -> str:
    """`value` with its spaces collapsed; raises `UsageError` ("`what` is empty; `fix`") when nothing is left,
    and when it holds bytes that are not UTF-8 (Python passes undecodable bytes of the command line and of
    standard input on as lone surrogates, PEP 383, which the tokenizer and Chroma reject), before any store or
    model is opened."""
    from assistant.store.readers import UNDECODABLE

    bad = UNDECODABLE.search(value)
    if bad:
        raise UsageError(f"{what} is not UTF-8 text (byte 0x{ord(bad.group()) - 0xDC00:02x}); give it in UTF-8 "
                         f"(e.g. convert it with `iconv -t UTF-8`)")
    value = " ".join(value.split())
    if not value:
        raise UsageError(f"{what} is empty; {fix}")
    return value


def require_query(value: str, what: str, fix: str) -> str:
    """`require_text`, and `UsageError` for a question or query longer than
    `assistant.retrieval.MAX_QUERY_CHARS` or without any word ("???"; before any store or model is opened).
    The library's search and ask take such a query (nothing matches it lexically); a command refuses it."""
    from assistant.retrieval import QueryError, checked_query, has_words

    value = require_text(value, what, fix)
    try:
        checked_query(value, what)
    except QueryError as exc:
        raise UsageError(str(exc)) from None
    if not has_words(value):  # "???", "🙂🙂": nothing to search for in any script
        raise UsageError(f"{what} has no words ({value.strip()[:20]!r}); ask with words")
    return value


def find_paper(store: PaperStore, text: str, listed: int = 3):
    """The one paper named by `text`: its id, its title or display name (case-insensitive), or a unique id prefix.

    Raises `UsageError` when `text` is empty, `UserError` when nothing matches, or when several do: the error lists the first `listed`
    (id and title) and says how to narrow it.
    """
    text = require_text(text, "the paper id or title", "give an id (see `assistant papers`), a prefix of it, or the title")
    found = store.get([text])
    if not found:
        from assistant.text import fold

        key = fold(text).casefold()  # A2RBench, A²RBench and A$^2$RBench name one title
        papers = store.papers()
        found = ([p for p in papers if fold(p.title.strip()).casefold() == key]
                 or [p for p in papers if p.id.startswith(text)])
    if not found:
        raise UserError(f"no paper with id '{text}' or that title; list them with `assistant papers`")
    if len(found) > 1:
        named = "; ".join(f"{p.id} {printable(p.title)}" for p in found[:listed])
        more = f"; and {len(found) - listed} more" if len(found) > listed else ""
        what = "id prefix" if found[0].id.startswith(text) else "title"
        raise UserError(f"{what} '{text}' matches {len(found)} papers ({named}{more}); "
                        "give the full id or more of its characters")
    return found[0]


# --- errors -----------------------------------------------------------------------------------------

@contextmanager
def user_errors(json_fields: dict | None = None):
    """Turn the product's errors (any `AssistantError`) into ``error: ...`` on stderr and exit code 1
    (2 for a `UsageError`: a bad argument or option, as Click's own usage errors); Ctrl+C into
    ``interrupted`` and exit code 130.

    With `json_fields` (a command run with ``--json``) stdout also gets one JSON object: the fields
    plus ``"error"`` and ``"error_kind"`` (the error's `kind`: usage, empty, settings, store, embedding,
    input, ...), so a script that parses stdout sees the failure too.
    """
    try:
        yield
    except AssistantError as exc:
        typer.echo(f"error: {printable(str(exc))}", err=True)
        if json_fields is not None:
            echo_json({**json_fields, "error": str(exc), "error_kind": str(exc.kind)})
        raise typer.Exit(getattr(exc, "exit_code", 1)) from None
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(130) from None


# --- printing ---------------------------------------------------------------------------------------

def readable(text: str) -> str:
    """Text for a person: LaTeX rendered as Unicode (`assistant.text.render_latex`), control sequences
    removed (`assistant.text.printable`). ``--json`` output keeps the source text."""
    return printable(render_latex(text))


def echo_json(obj) -> None:
    """`obj` as indented JSON on stdout (non-ASCII kept)."""
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def stdout_console():
    """A `rich.console.Console` on stdout that adds no colours of its own and does not wrap."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)
