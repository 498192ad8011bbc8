"""The `assistant` command line: thin commands over the library; docstrings are the help text.

Heavy libraries (chromadb, onnxruntime, llama-index, textual) are imported inside the commands that
need them, so ``assistant --help`` is instant. Every command that prints results has ``--json``.
User mistakes end with one line on stderr (``error: ...``) and exit code 1, never a traceback.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

if TYPE_CHECKING:
    from assistant.retrieval import Filters
    from assistant.settings import Settings
    from store.collection import PaperStore

def _flag_shows_no_type(option, ctx):
    """typer >= 0.2x shows every option's type in --help, so flags read ``--json <bool>``; a flag takes no value."""
    if option.is_flag and option.metavar is None:
        return None
    return _typer_display_type(option, ctx)


_typer_display_type = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_shows_no_type

app = typer.Typer(
    help="Question answering over research-paper abstracts, with checked citations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class UserError(Exception):
    """A mistake the user can fix; printed as one line, exit code 1."""


class EmptyCollectionError(UserError):
    """The collection holds no abstracts, so there is nothing to answer from (``error_kind`` "empty")."""


# --- shared options ---------------------------------------------------------------------------------

@app.callback()
def _global(
    ctx: typer.Context,
    data_dir: Annotated[Optional[Path], typer.Option(help="Data folder \\[env ASSISTANT_DATA_DIR].")] = None,
    collection: Annotated[Optional[str], typer.Option(help="Collection name \\[env ASSISTANT_COLLECTION].")] = None,
    chroma_url: Annotated[Optional[str], typer.Option(help="Chroma server URL \\[env ASSISTANT_CHROMA_URL].")] = None,
    embedding_model_dir: Annotated[Optional[Path], typer.Option(
        help="Folder of the ONNX embedding model \\[env ASSISTANT_EMBEDDING_MODEL_DIR].")] = None,
) -> None:
    ctx.obj = {"data_dir": data_dir, "collection": collection, "chroma_url": chroma_url,
               "embedding_model_dir": embedding_model_dir}


def get_settings(ctx: typer.Context, **overrides) -> Settings:
    from assistant.settings import load_settings

    return load_settings(**{**(ctx.obj or {}), **overrides})


VenueOpt = Annotated[Optional[str], typer.Option("--venue", help="Only this venue (e.g. ICML; several: ICML,ICLR).")]
YearOpt = Annotated[Optional[str], typer.Option("--year", help="Only this year or range (2023, 2021-2023).")]
AuthorOpt = Annotated[Optional[str], typer.Option(
    "--author", help="Only papers with an author whose name has these whole name parts (Chen, \"Yann LeCun\"; case-insensitive).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
# The answering options live here too, not in cli_answer: cli_eval uses them, and a command module
# that imported another one made `import assistant.cli_answer` circular.
LlmOpt = Annotated[Optional[str], typer.Option(
    "--llm", help="LLM backend: openai, local, extractive or auto \\[env ASSISTANT_LLM].")]
ModelOpt = Annotated[Optional[str], typer.Option(
    "--model", help="Model name (openai) or GGUF file (local) \\[env ASSISTANT_MODEL].")]
TopKOpt = Annotated[Optional[int], typer.Option("-k", "--top-k", min=1, help="Papers given to the model \\[env ASSISTANT_TOP_K].")]


def make_filters(venue: str | None, year: str | None, author: str | None) -> Filters:
    from assistant.retrieval import Filters, parse_year

    try:
        lo, hi = parse_year(year)
    except ValueError as exc:
        raise UserError(f"--year: {exc}") from None
    return Filters(venue=venue, year_min=lo, year_max=hi, author=author)


@contextmanager
def user_errors(json_fields: dict | None = None):
    """Turn the product's one-line errors into ``error: ...`` on stderr and exit code 1.

    With `json_fields` (a command run with ``--json``) stdout also gets one JSON object: the fields
    plus ``"error"`` and ``"error_kind"`` (usage, settings, store, embedding, input), so a script that
    parses stdout sees the failure too.
    """
    from assistant.settings import SettingsError
    from store.chroma import StoreError
    from store.embeddings import EmbeddingError
    from store.readers import InputError

    kinds = {EmptyCollectionError: "empty", UserError: "usage", SettingsError: "settings", StoreError: "store", EmbeddingError: "embedding",
             InputError: "input"}
    try:
        yield
    except tuple(kinds) as exc:
        typer.echo(f"error: {printable(str(exc))}", err=True)
        if json_fields is not None:
            kind = next(k for cls, k in kinds.items() if isinstance(exc, cls))
            echo_json({**json_fields, "error": str(exc), "error_kind": kind})
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        raise typer.Exit(130) from None


def open_store(settings: Settings, load_default: bool = True, load_model: bool = False) -> PaperStore:
    """The configured store; an empty default collection gets the bundled abstracts first.

    `load_model` starts loading the embedding model in a thread before Chroma is opened (for commands
    that embed a query: the model then loads while chromadb is imported and the collection opened)."""
    from store.collection import PaperStore
    from store.ingest import ensure_default_collection

    store = PaperStore(settings)
    if load_model:
        getattr(store.embedder, "load_in_background", lambda: None)()
    if load_default and settings.collection == "papers":
        report = ensure_default_collection(store)
        if report is not None:
            typer.echo(f"Loaded the bundled ICML 2026 collection ({report.added} abstracts).", err=True)
    return store


def printable(text: str) -> str:
    """`assistant.text.printable`: text from files, papers or a model, safe to write to a terminal."""
    from assistant.text import printable as strip_controls

    return strip_controls(text)


def require_papers(store: PaperStore) -> None:
    """Raise `EmptyCollectionError` naming the collection and how to fill it when it holds no abstract."""
    if store.count() == 0:
        hint = ("" if store.name == "papers" else
                " (or unset ASSISTANT_COLLECTION to use the bundled ICML 2026 abstracts)")
        raise EmptyCollectionError(f"the collection '{store.name}' is empty: add abstracts with "
                                   f"`assistant ingest FILE_OR_FOLDER`{hint}")


def echo_json(obj) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def _console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


# --- commands ----------------------------------------------------------------------------------------

@app.command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Files or folders: .txt list, .json, .jsonl, .csv.")],
    venue: Annotated[Optional[str], typer.Option(help="Venue for records that name none (e.g. ICML).")] = None,
    year: Annotated[Optional[int], typer.Option(help="Year for records that name none.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Add abstracts to the collection (re-ingesting unchanged files changes nothing).

    Prints added / updated / unchanged / skipped, with file and line for each skipped record.
    Exits 1 if any record or file had an error; the rest is ingested all the same.
    """
    with user_errors({"paths": [str(p) for p in paths]} if as_json else None):
        from store.readers import InputError

        missing = [p for p in paths if not p.exists()]
        if missing:  # a mistyped path: say so before any embedding work, with nothing half-done
            raise InputError(", ".join(map(str, missing)), "no such file or directory; check the path")
        settings = get_settings(ctx)
        store = open_store(settings, load_default=False)
        try:
            report = _run_ingest(paths, store, quiet=as_json, venue=venue or "", year=year)
        except KeyboardInterrupt as exc:
            if getattr(exc, "report", None) is None:
                raise
            _interrupted_ingest(settings, exc.report, as_json)  # type: ignore[attr-defined]
        log = _write_ingest_log(settings, report)
        if as_json:
            echo_json(report.to_json() | {"log": str(log)})
        else:
            _print_ingest_report(report, log)
        if not report.ok:
            raise typer.Exit(1)


def _interrupted_ingest(settings, report, as_json: bool) -> None:
    """Ctrl+C while embedding: say what was kept (the summary so far and the log), exit code 130."""
    log = _write_ingest_log(settings, report)
    if as_json:
        echo_json(report.to_json() | {"log": str(log) if log else None, "interrupted": True})
    typer.echo(f"interrupted: kept added {report.added}, updated {report.updated}, unchanged {report.unchanged}; "
               f"{report.not_written} new or changed abstracts were not stored (run the same ingest again to add "
               f"them)" + (f"; log: {log}" if log else ""), err=True)
    raise typer.Exit(130)


def _run_ingest(paths, store, quiet: bool, venue: str = "", year: int | None = None):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from store.ingest import ingest as do_ingest

    from rich.console import Console

    if quiet:
        return do_ingest(paths, store, venue=venue, year=year)
    with Progress(TextColumn("embedding"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("embed", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return do_ingest(paths, store, progress=progress, venue=venue, year=year)


def _write_ingest_log(settings, report) -> Path | None:
    import time

    try:
        log_dir = settings.paths.log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        path = log_dir / f"ingest-{time.strftime('%Y%m%d-%H%M%S')}.json"
        path.write_text(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
        return path
    except OSError:
        return None


def _print_ingest_report(report, log: Path | None, shown: int = 20) -> None:
    out = typer.echo
    out(f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}, "
        f"skipped {len(report.skipped)} ({len(report.errors)} errors, {len(report.duplicates)} duplicates) "
        f"in {report.seconds:.1f} s")
    for title, items in (("errors", report.errors), ("duplicates", report.duplicates)):
        for s in items[:shown]:
            typer.echo(f"  skipped {printable(str(s))}", err=title == "errors")
        if len(items) > shown:
            typer.echo(f"  ... and {len(items) - shown} more {title}" + (f" (all listed in {log})" if log else ""),
                       err=title == "errors")
    for w in report.warnings[:shown]:
        typer.echo(f"  warning: {printable(str(w))} (the abstract was kept)", err=True)
    if len(report.warnings) > shown:
        typer.echo(f"  ... and {len(report.warnings) - shown} more warnings" + (f" (all listed in {log})" if log else ""),
                   err=True)
    if report.truncated:
        one = report.truncated == 1
        out(f"note: {report.truncated} {'abstract is' if one else 'abstracts are'} longer than the embedding model's "
            f"256 word pieces; {'its vector uses' if one else 'their vectors use'} the beginning, the full text is "
            f"stored and searched by BM25.")


@app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[Optional[int], typer.Option("-k", "--top-k", min=1,
                                             help="How many papers \\[env ASSISTANT_TOP_K].")] = None,
    venue: VenueOpt = None,
    year: YearOpt = None,
    author: AuthorOpt = None,
    mode: Annotated[str, typer.Option(help="hybrid, dense or bm25.")] = "hybrid",
    as_json: JsonOpt = False,
) -> None:
    """Find the papers that best match a query (hybrid BM25 + dense retrieval).

    --json prints {"query", "filters", "results": [{"id", "title", "abstract", "venue", "year",
    "score", ...}]}.
    """
    from assistant.retrieval import Retriever

    with user_errors({"query": query} if as_json else None):
        if mode not in ("hybrid", "dense", "bm25"):
            raise UserError(f"--mode must be hybrid, dense or bm25, not '{mode}'")
        filters = make_filters(venue, year, author)
        settings = get_settings(ctx)
        store = open_store(settings, load_model=mode != "bm25")
        results = Retriever(store).search(query, top_k=k or settings.top_k, filters=filters, mode=mode)  # type: ignore[arg-type]
        if as_json:
            echo_json({"query": query, "filters": filters.to_json(), "results": [r.to_json() for r in results]})
            return
        if store.count() == 0:
            typer.echo("No abstracts loaded: add some with `assistant ingest FILE`.")
            return
        if not results:
            typer.echo("No paper matches" + (f" the filters ({printable(filters.describe())})." if not filters.empty else "."))
            return
        console = _console()
        for r in results:
            _print_paper_line(console, r.rank, r.paper, r)


def readable(text: str) -> str:
    """Text for a person: LaTeX rendered as Unicode (`assistant.text.render_latex`), control sequences
    removed (`printable`). ``--json`` output keeps the source text."""
    from assistant.text import render_latex

    return printable(render_latex(text))


def _print_paper_line(console, n, paper, result=None, snippet_chars: int = 200) -> None:
    """One paper as a numbered line and a snippet; with a search `result`, the figures a reader can use:
    the dense cosine similarity to the query and whether BM25 matched a query word (the fused score is
    relative, 1.0 for the top paper, so only `--json` shows it)."""
    from rich.text import Text

    head = Text(f"{n:>2}. ", style="bold")
    head.append(readable(paper.title), style="bold cyan")
    if paper.venue_year:
        head.append(f"  ({printable(paper.venue_year)})", style="dim")
    if result is not None:
        parts = [] if result.dense_similarity is None else [f"similarity {result.dense_similarity:.2f}"]
        parts.append("key words matched" if result.bm25_score > 0 else "no key word matched")
        head.append("  " + ", ".join(parts), style="dim")
    head.append(f"  {paper.id}", style="dim")
    console.print(head)
    text = readable(paper.abstract)
    snippet = text if len(text) <= snippet_chars else text[:snippet_chars].rsplit(" ", 1)[0] + "…"
    console.print(Text("    " + snippet))


@app.command()
def papers(
    ctx: typer.Context,
    venue: VenueOpt = None,
    year: YearOpt = None,
    author: AuthorOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the papers in the collection (--json: a list of {"id", "title", "abstract", "venue", "year", ...})."""
    with user_errors({} if as_json else None):
        filters = make_filters(venue, year, author)
        store = open_store(get_settings(ctx))
        items = [p for p in store.papers() if filters.matches(p)]
        items.sort(key=lambda p: (p.venue, p.year or 0, p.title.casefold()))
        if as_json:
            echo_json([p.to_json() for p in items])
            return
        if not items:
            typer.echo("No abstracts loaded: add some with `assistant ingest FILE`." if store.count() == 0
                       else f"No paper matches the filters ({printable(filters.describe())}).")
            return
        from rich.text import Text

        console = _console()
        for p in items:
            line = Text(f"{p.id}  ", style="dim")
            line.append(readable(p.title), style="bold")
            if p.venue_year:
                line.append(f"  ({printable(p.venue_year)})", style="dim")
            console.print(line)
        typer.echo(f"{len(items)} papers")


def find_paper(store: PaperStore, text: str, listed: int = 3):
    """The one paper named by `text`: its id, its title or display name (case-insensitive), or a unique id prefix.

    Raises `UserError` when nothing matches, or when several do: the error lists the first `listed`
    (id and title) and says how to narrow it.
    """
    text = text.strip()
    found = store.get([text]) if text else []
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


@app.command()
def show(
    ctx: typer.Context,
    paper_id: Annotated[str, typer.Argument(
        metavar="ID_OR_TITLE", help="Paper id, a unique prefix of it, or the paper's title (case-insensitive).")],
    as_json: JsonOpt = False,
) -> None:
    """Show one paper in full: title, authors, venue, year, link and abstract."""
    with user_errors({"id": paper_id} if as_json else None):
        store = open_store(get_settings(ctx))
        p = find_paper(store, paper_id)
        if as_json:
            echo_json(p.to_json())
            return
        from rich.text import Text

        console = _console()
        console.print(Text(readable(p.title) + ("  (name derived from the abstract)" if p.title_is_derived else ""),
                           style="bold"))
        for label, value in (("id", p.id), ("authors", ", ".join(p.authors)), ("venue", p.venue_year),
                             ("link", p.url), ("topic", p.topic)):
            if value:
                console.print(Text(f"{label}: ", style="dim") + Text(printable(value)))
        console.print()
        console.print(Text(readable(p.abstract)))


# Commands kept in their own modules register themselves on `app` when imported (each module
# imports its heavy libraries inside the command functions).
from assistant import cli_answer, cli_chat, cli_eval  # noqa: E402,F401


def main(args: list[str] | None = None) -> None:
    """Run the CLI. A usage mistake (unknown command or option, a missing or bad value) is one line on
    stderr starting with ``error:`` and naming the command's help, exit code 2, like every other error."""
    try:  # typer >= 0.20 vendors click
        from typer._click import exceptions as click_exc
    except ImportError:  # pragma: no cover
        from click import exceptions as click_exc

    try:
        code = app(args=args, standalone_mode=False)
    except click_exc.UsageError as exc:
        if type(exc).__name__ != "NoArgsIsHelpError":  # a bare `assistant`: typer has printed the help
            where = exc.ctx.command_path if exc.ctx is not None else "assistant"
            typer.echo(f"error: {' '.join(exc.format_message().split())} (see `{where} --help`)", err=True)
        code = exc.exit_code
    except click_exc.ClickException as exc:
        typer.echo(f"error: {' '.join(exc.format_message().split())}", err=True)
        code = exc.exit_code
    except typer.Abort:
        typer.echo("aborted", err=True)
        code = 1
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
