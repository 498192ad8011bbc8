"""Commands over the collection: ``ingest``, ``remove``, ``search``, ``papers``, ``show`` and ``stats``.

Each is thin: the store (`store`), retrieval (`assistant.retrieval`) and `assistant.stats` do
the work; these print it as text or ``--json``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from assistant.cli.common import (AuthorOpt, JsonOpt, UsageError, UserError, VenueOpt, YearOpt, echo_json, find_paper,
                                  get_settings, make_filters, open_store, readable, require_papers, require_query,
                                  require_text, stdout_console, user_errors)
from assistant.text import printable


def _one_year(value: str | None) -> int | None:
    """`ingest --year`: one four-digit year, or a usage error naming the value and the fix (typer's own parsing said
    "Input should be a valid integer, unable to parse string as an integer": a new user's trial, round 23)."""
    if value is None:
        return None
    if not re.fullmatch(r"\s*\d{4}\s*", value):
        raise typer.BadParameter(f"{value!r} is not a year; give one four-digit year such as 2024")
    return int(value)


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Files or folders: .txt list, .json, .jsonl, .csv.")],
    venue: Annotated[Optional[str], typer.Option(help="Venue for records that name none (e.g. ICML).")] = None,
    year: Annotated[Optional[str], typer.Option(help="Year for records that name none (e.g. 2024).",
                                                callback=_one_year)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Add abstracts to the collection (re-ingesting unchanged files changes nothing).

    Prints added / updated / unchanged / skipped, with file and line for each skipped record.
    Exits 1 if any record or file had an error; the rest is ingested all the same.
    """
    with user_errors({"paths": [str(p) for p in paths]} if as_json else None):
        from assistant.store.readers import InputError

        missing = [p for p in paths if not p.exists()]
        if missing and len(missing) == len(paths):  # nothing to ingest: say so before any embedding work
            raise InputError(", ".join(map(str, missing)), "no such file or directory; check the path")
        # some paths missing: each is an error line of the report; the others are ingested (exit 1)
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


def remove(
    ctx: typer.Context,
    papers: Annotated[Optional[list[str]], typer.Argument(
        metavar="ID_OR_TITLE", help="Papers to remove: an id, a unique prefix of it, or the title.",
        show_default=False)] = None,
    source: Annotated[Optional[list[str]], typer.Option(
        "--source", "-s", metavar="FILE", show_default=False,
        help="Remove every paper read from this file (its name is enough; a folder: each abstract file in it). "
             "Repeatable.")] = None,
    all_papers: Annotated[bool, typer.Option("--all", help="Remove every paper of the collection (asks first).")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before --all.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Remove papers from the collection: by id or title, by the file they were ingested from, or --all.

    The vectors, abstracts and metadata go from Chroma, and search (BM25 included) sees the change at
    once. Nothing is removed unless every id, title and file names papers of the collection. Re-ingest
    the file to undo. --all asks first (--yes does not); an emptied collection stays empty.
    --json prints {"removed", "ids", "collection", "remaining"}.
    """
    from assistant.store.ingest import remove as do_remove
    from assistant.store.ingest import source_names

    papers, source = papers or [], source or []
    with user_errors({"removed": 0} if as_json else None):
        if all_papers and (papers or source):
            raise UsageError("--all removes every paper: give it alone, without ids, titles or --source")
        if not (papers or source or all_papers):
            raise UsageError("say which papers to remove: ids or titles (see `assistant papers`), "
                             "--source FILE for those ingested from a file, or --all")
        for text in papers:
            require_text(text, "a paper id or title", "give an id (see `assistant papers`), a prefix of it, or the title")
        for text in source:
            require_text(text, "--source", "give the file the papers were ingested from (its name is enough)")
        settings = get_settings(ctx)
        store = open_store(settings, load_default=False)
        ids: dict[str, None] = {}
        if all_papers:
            ids.update(dict.fromkeys(p.id for p in store.papers()))
        for text in papers:  # each must name one paper, before anything is removed
            ids[find_paper(store, text).id] = None
        for name in source_names(source):
            found = store.ids_from_source(name)
            if not found:
                known = sorted({p.source for p in store.papers() if p.source})
                listed = ", ".join(known[:5]) + (f" and {len(known) - 5} more" if len(known) > 5 else "")
                raise UserError(f"--source {name}: no paper of the collection '{store.name}' was ingested from a "
                                f"file of that name (" + (f"files: {listed}" if known else "it is empty")
                                + "); nothing was removed")
            ids.update(dict.fromkeys(found))
        if all_papers and ids and not yes:
            if not sys.stdin.isatty():
                raise UsageError(f"--all would remove all {len(ids)} papers of the collection '{store.name}': "
                                 f"add --yes to confirm (there is no terminal to ask)")
            if not typer.confirm(f"Remove all {len(ids)} papers of the collection '{store.name}'?", err=True):
                raise UserError("nothing was removed")
        removed = do_remove(store, list(ids))
        remaining = store.count()
        if as_json:
            echo_json({"removed": removed, "ids": list(ids), "collection": store.name, "remaining": remaining})
            return
        if not removed:
            typer.echo(f"The collection '{printable(store.name)}' is empty: nothing to remove.")
            return
        typer.echo(f"removed {removed} paper{'s' if removed != 1 else ''} from '{printable(store.name)}'; "
                   f"{remaining} left" + ("; re-ingest the file to undo" if source else ""))


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

    from assistant.store.ingest import ingest as do_ingest

    from rich.console import Console

    console = Console(stderr=True)
    if quiet or not console.is_terminal:  # a bar on a file or pipe leaves only a blank line in it
        return do_ingest(paths, store, venue=venue, year=year)
    with Progress(TextColumn("embedding"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=console) as bar:
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


def _count(n: int, noun: str) -> str:
    """"1 error", "2 errors"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _print_ingest_report(report, log: Path | None, shown: int = 20) -> None:
    out = typer.echo
    out(f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}, "
        f"skipped {len(report.skipped)} ({_count(len(report.errors), 'error')}, "
        f"{_count(len(report.duplicates), 'duplicate')}) "
        f"in {report.seconds:.1f} s")
    # "the others are kept" only when there are others (a lone unreadable .pdf has none: a new user's trial)
    others = report.added + report.updated + report.unchanged + len(report.skipped) > 1
    for title, items in (("errors", report.errors), ("duplicates", report.duplicates)):
        for s in items[:shown]:
            if title == "errors":
                what = "file" if s.whole_file or not s.line else "record"
                kept = ", the others are kept" if others else ""
                typer.echo(f"error: {printable(str(s))}; the {what} is skipped{kept}", err=True)
            else:
                typer.echo(f"  skipped {printable(str(s))}")
        if len(items) > shown:
            typer.echo(f"  ... and {len(items) - shown} more {title}" + (f" (all listed in {log})" if log else ""),
                       err=title == "errors")
    for w in report.warnings[:shown]:
        kept = " (the abstract was kept)" if w.line else ""  # a record's field; else a folder's left-out files
        typer.echo(f"  warning: {printable(str(w))}{kept}", err=True)
    if len(report.warnings) > shown:
        typer.echo(f"  ... and {len(report.warnings) - shown} more warnings" + (f" (all listed in {log})" if log else ""),
                   err=True)
    if report.truncated:
        one = report.truncated == 1
        out(f"note: {report.truncated} {'abstract is' if one else 'abstracts are'} longer than the embedding model's "
            f"256 word pieces; {'its vector uses' if one else 'their vectors use'} the beginning, the full text is "
            f"stored and searched by BM25.")


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
        query = require_query(query, "the search query", "give the words to look for, e.g. "
                             "`assistant search \"KV cache compression\"`")
        if mode not in ("hybrid", "dense", "bm25"):
            raise UsageError(f"--mode must be hybrid, dense or bm25, not '{mode}'")
        filters = make_filters(venue, year, author)
        settings = get_settings(ctx)
        store = open_store(settings, load_model=mode != "bm25")
        require_papers(store)  # as `ask` does: exit 1 and one error line saying how to fill it
        results = Retriever(store).search(query, top_k=k or settings.top_k, filters=filters, mode=mode)  # type: ignore[arg-type]
        if as_json:
            echo_json({"query": query, "filters": filters.to_json(), "results": [r.to_json() for r in results]})
            return
        if not results:
            typer.echo("No paper matches" + (f" the filters ({printable(filters.describe())})." if not filters.empty else "."))
            return
        console = stdout_console()
        for r in results:
            _print_paper_line(console, r.rank, r.paper, r)


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

        console = stdout_console()
        for p in items:
            line = Text(f"{p.id}  ", style="dim")
            line.append(readable(p.title), style="bold")
            if p.venue_year:
                line.append(f"  ({printable(p.venue_year)})", style="dim")
            console.print(line)
        typer.echo(_count(len(items), "paper"))


def show(
    ctx: typer.Context,
    paper_id: Annotated[str, typer.Argument(
        metavar="ID_OR_TITLE", help="Paper id, a unique prefix of it, or the paper's title (case-insensitive).")],
    as_json: JsonOpt = False,
) -> None:
    """Show one paper in full: title, authors, venue, year, link and abstract."""
    with user_errors({"id": paper_id} if as_json else None):
        require_text(paper_id, "the paper id or title", "give an id (see `assistant papers`), a prefix of it, or the title")
        store = open_store(get_settings(ctx))
        p = find_paper(store, paper_id)
        if as_json:
            echo_json(p.to_json())
            return
        from rich.text import Text

        console = stdout_console()
        console.print(Text(readable(p.title) + ("  (name derived from the abstract)" if p.title_is_derived else ""),
                           style="bold"))
        for label, value in (("id", p.id), ("authors", ", ".join(p.authors)), ("venue", p.venue),
                             ("year", str(p.year or "")), ("link", p.url), ("topic", p.topic), ("file", p.source)):
            if value:
                console.print(Text(f"{label}: ", style="dim") + Text(printable(value)))
        console.print()
        console.print(Text(readable(p.abstract)))


def stats(
    ctx: typer.Context,
    venue: VenueOpt = None,
    year: YearOpt = None,
    author: AuthorOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the collection by venue and year, as counts with a bar chart.

    --json prints {"total", "venues": [{"venue", "count", "years": [{"year", "count"}]}],
    "years": [{"year", "count"}], "collection", "filters": {"venue", "year_min", "year_max", "author"}}.
    """
    from assistant.stats import collection_stats

    with user_errors({} if as_json else None):
        filters = make_filters(venue, year, author)
        store = open_store(get_settings(ctx))
        papers = [p for p in store.papers() if filters.matches(p)]
        data = collection_stats(papers)
        if as_json:
            echo_json(data | {"collection": store.name, "filters": filters.to_json()})
            return
        if not papers:
            typer.echo("No abstracts loaded: add some with `assistant ingest FILE`." if store.count() == 0
                       else f"No paper matches the filters ({filters.describe()}).")
            return
        _print_stats(data, store.name, "" if filters.empty else printable(filters.describe()), store.count())


def _print_stats(data: dict, name: str, filtered_by: str = "", of: int = 0) -> None:
    """Print `data` (from `collection_stats`); `filtered_by` names the filters that chose the papers, out of `of`."""
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False)
    head = f"{printable(name)}: {data['total']:,} abstracts"
    if filtered_by:
        head += f" matching the filters ({filtered_by}), of {of:,}"
    console.print(Text(head, style="bold"))
    rows = []
    for v in data["venues"]:
        for y in v["years"]:
            rows.append((printable(v["venue"] or "(no venue)"), "" if y["year"] is None else str(y["year"]), y["count"]))
    wv = max(len(r[0]) for r in rows)
    _print_bars(console, "by venue and year", [(f"{v:<{wv}} {y:>4}", n) for v, y, n in rows], "cyan")
    if len(data["venues"]) > 1:
        _print_bars(console, "by venue", [(printable(v["venue"] or "(no venue)"), v["count"]) for v in data["venues"]],
                    "green")
    if len(data["years"]) > 1:
        _print_bars(console, "by year", [("(no year)" if y["year"] is None else str(y["year"]), y["count"])
                                         for y in data["years"]], "magenta")


def _print_bars(console, title: str, items: list[tuple[str, int]], style: str) -> None:
    """One titled block of ``label  bar  count`` lines, bars scaled to the largest count."""
    from rich.text import Text

    from assistant.stats import bar

    largest = max(n for _, n in items)
    width = max(len(label) for label, _ in items)
    console.print()
    console.print(Text(title, style="dim"))
    for label, n in items:
        line = Text(f"  {label:<{width}}  ")
        line.append(f"{bar(n, largest):<31}", style=style)
        line.append(f"{n:>7,}")
        console.print(line)
