"""Commands: ``ask`` (one question, streamed) and ``batch`` (a file of questions to JSONL).

Both are thin: `assistant.answering.answer` does the work and these print its events.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from assistant.cli.common import (AuthorOpt, JsonOpt, LlmOpt, ModelOpt, TopKOpt, UsageError, UserError, VenueOpt,
                                  YearOpt, check_backend, echo_json, get_settings, make_backend, make_filters,
                                  open_store, require_papers, require_query, user_errors)
from assistant.enums import BackendName, ErrorKind
from assistant.text import printable


def _source_line(console, source, cited: bool) -> None:
    from rich.text import Text

    from assistant.text import printable, render_latex

    p = source.paper
    line = Text(f"[{source.n}] ", style="bold" if cited else "dim")
    line.append(printable(render_latex(p.display_name)), style="bold cyan" if cited else "cyan")
    if p.venue_year:
        line.append(f"  ({printable(p.venue_year)})", style="dim")
    if p.url:
        line.append(f"  {printable(p.url)}", style="underline")
    line.append(f"  {p.id}", style="dim")
    console.print(line)
    console.print(Text(f"    {relevance_text(source)}", style="dim"))


def relevance_text(source) -> str:
    """What a reader can make of a source's scores: ``"similarity 0.48 (cosine, MiniLM), key words
    matched (BM25), relevance 0.91"``; the fused retrieval score is relative (1.0 at the top) and not
    shown."""
    parts = []
    if source.similarity is not None:
        parts.append(f"similarity {source.similarity:.2f} (cosine, MiniLM)")
    parts.append("key words matched (BM25)" if source.bm25_matched else "no key word matched (BM25)")
    if source.relevance is not None:
        parts.append(f"relevance {source.relevance:.2f}")
    return ", ".join(parts)


def print_answer(events, question: str, backend) -> bool:
    """Stream `events` to the terminal: the text as it comes, then the cited papers under "Sources:"
    and the other papers given to the backend under "Also retrieved (not cited):", each with its
    relevance figures, then one line naming the backend. After a refusal nothing follows the answer
    but the backend line (the reason goes to stderr), unless it cites the paper asked about ("The abstracts do not
    say. The paper asked about is STAR-KV [1]: ..."): then that paper under "Sources:". Returns False when the answer
    failed.

    The text is shown delta by delta; everything after it comes from the folded `assistant.events.Answer`."""
    from rich.console import Console
    from rich.text import Text

    from assistant.events import Answer, Done, Error, Sources, TextDelta
    from assistant.answering import rewrote

    out = sys.stdout
    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    result = Answer(question=question, backend=backend.name, model=backend.model)
    wrote = False
    for ev in events:
        result.add(ev)
        if isinstance(ev, Sources):
            if ev.question and rewrote(question, ev.question):
                err.print(Text(f"(searched for: {printable(ev.question)})", style="dim"))
        elif isinstance(ev, TextDelta):
            out.write(printable(ev.text))  # a model's escape sequences never reach the terminal
            out.flush()
            wrote = True
        elif isinstance(ev, (Done, Error)):
            break
    if result.error:
        if wrote:
            out.write("\n")
            out.flush()
        # the backend and model say which LLM failed; a collection or embedding-model error is not the backend's
        local = result.error_kind in (ErrorKind.EMBEDDING, ErrorKind.STORE, ErrorKind.INPUT, ErrorKind.SETTINGS)
        which = "" if local else f" (backend {backend.name}, model {printable(backend.model)})"
        typer.echo(f"error: {printable(result.error)}{which}", err=True)
        return False
    if not result.done:
        return False
    out.write("\n")
    out.flush()
    finished = Text(f"answered by {result.backend} ({result.model}) in {result.seconds:.1f} s", style="dim")
    cited = {c.n for c in result.citations}
    if not result.sources or (result.refused and not cited):
        for x in result.notes:
            err.print(Text(f"note: {printable(x)}", style="dim"))
        err.print(finished)
        return True
    used = [s for s in result.sources if s.n in cited]
    # "The abstracts do not say. The paper asked about is STAR-KV [1]: ...": the paper it cites, not the others
    others = [] if result.refused else [s for s in result.sources if s.n not in cited]
    if used:
        console.print()
        console.print(Text("Sources:", style="bold"))
        for s in used:
            _source_line(console, s, True)
    if others:
        console.print()
        console.print(Text("Also retrieved (not cited):", style="dim"))
        for s in others:
            _source_line(console, s, False)
    for x in result.notes:
        console.print(Text(f"note: {printable(x)}", style="dim"))
    if result.dropped_citations:
        console.print(Text("removed citation(s) naming no given source: "
                           + ", ".join(f"[{n}]" for n in result.dropped_citations), style="yellow"))
    console.print(finished)
    return True


def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question; '-' reads it from stdin.")],
    llm: LlmOpt = None,
    model: ModelOpt = None,
    k: TopKOpt = None,
    venue: VenueOpt = None,
    year: YearOpt = None,
    author: AuthorOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer a question from the abstracts, citing them as \\[n].

    Streams the answer, then lists the numbered papers it was given (display name, venue/year, link)
    and names the backend. When no paper is about the question, or the abstracts do not say, it says
    so. --json prints {"question", "standalone_question", "answer", "sources": [{"n", "id", "title",
    "score", "relevance", ...}], "citations": [{"n", "id", "title"}], "dropped_citations", "backend",
    "model", "usage", "seconds", "refused", "relevance": [{"id", "title", "score", "relevant", "note",
    ...}]} (plus "note"; "error" and "error_kind" when it failed, exit code 1; 2 for an empty question or
    a bad option). The README lists every field.
    """
    from assistant.answering import answer, answer_to_json
    from assistant.retrieval import Retriever

    with user_errors({"question": question} if as_json else None):
        if question == "-":
            question = sys.stdin.read()
        question = require_query(question, "the question", "give it as an argument or on stdin with '-'")
        if llm is not None:
            check_backend(llm)
        filters = make_filters(venue, year, author)
        settings = get_settings(ctx)
        backend = make_backend(settings, llm, model)
        store = open_store(settings, load_model=True)
        require_papers(store)
        retriever = Retriever(store)
        events = answer(question, retriever=retriever, llm=backend, settings=settings, filters=filters, top_k=k)
        if as_json:
            obj = answer_to_json(question, events, backend=backend.name, model=backend.model)
            echo_json(obj)
            if obj.get("error"):
                raise typer.Exit(1)
            return
        if not print_answer(events, question, backend):
            raise typer.Exit(1)


def batch(
    ctx: typer.Context,
    questions: Annotated[Path, typer.Argument(help="Questions: .txt (one per line), .csv (a q column) or .jsonl "
                                                   "({id, q|question, venue?, year?, author?}, or a conversation "
                                                   "{id, turns: [{q}, ...]}).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Answers file (JSONL, one line per question).")],
    llm: LlmOpt = None,
    model: ModelOpt = None,
    k: TopKOpt = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-c", min=1, max=64,
                                             help="Questions answered at once (openai backend only).")] = 1,
    resume: Annotated[bool, typer.Option("--resume", help="Skip questions already answered in the output file "
                                                          "(and repair a torn last line).")] = False,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Start the output file afresh.")] = False,
    venue: VenueOpt = None,
    year: YearOpt = None,
    author: AuthorOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Answer every question of a file; write one JSON line per answer as each finishes.

    Each line has the fields of `ask --json` plus "question_id" (the JSONL id, else the line number),
    and "error"/"error_kind" when that question failed (the batch goes on, but stops after 3 in a row
    fail alike on what all need: the store, the model, the LLM server). The turns of a conversation
    are asked in order in one conversation, one line each ("question_id" c01.1, c01.2, ...; a follow-up's
    "standalone_question" says how it was read). --resume continues a stopped
    or killed run: answered ids are skipped (even when another backend answered them: a note
    says how many, and --overwrite re-answers them), failed ones asked again. Ends with a summary; exit code 1
    if any question failed or any input line was not a question.
    """
    from assistant.batch import check_answers_file, check_same_questions, read_questions, run_batch, same_file
    from assistant.retrieval import Retriever

    with user_errors():
        if resume and overwrite:
            raise UsageError("--resume and --overwrite contradict each other; choose one")
        if llm is not None:
            check_backend(llm)
        filters = make_filters(venue, year, author)
        if same_file(questions, output):
            raise UserError(f"-o {output} is the questions file itself; give the answers another file")
        items, problems = read_questions(questions)  # BatchError: one line, exit code 1
        for p in problems:
            skipped = "" if "skipped" in p else "; the line is skipped"
            typer.echo(printable(f"error: {p}{skipped}, the other questions are answered"), err=True)
        if not items:
            raise UserError(f"{questions}: no questions found; write one question per line (.txt) or one JSON "
                            f"object with 'q' per line (.jsonl)")
        if output.is_dir():
            raise UserError(f"{output} is a folder; give -o a file such as {output / 'answers.jsonl'}")
        folder = output.parent
        if not folder.is_dir():  # a mistyped path is not created
            why = "is not a folder" if folder.exists() else "does not exist"
            raise UserError(f"cannot write the answers file {output}: {folder} {why}; create the folder or choose "
                            f"another -o path")
        try:  # fail now, not after the model has loaded
            output.open("ab").close()
        except OSError as exc:
            raise UserError(f"cannot write the answers file {output}: {exc.strerror or exc}; "
                            f"choose another -o path") from None
        if output.exists() and output.stat().st_size > 0 and not (resume or overwrite):
            check_answers_file(output)  # a file of something else: say so rather than suggest --resume
            raise UsageError(f"{output} already exists: add --resume to continue it or --overwrite to start again")
        if (resume or overwrite) and output.exists():
            check_answers_file(output)  # never resume into or overwrite a file that holds something else
        if resume:
            check_same_questions(output, items)  # an id answered for another question would be skipped
        if overwrite and output.exists():
            output.unlink()
        settings = get_settings(ctx)
        backend = make_backend(settings, llm, model)
        if concurrency > 1 and backend.name != BackendName.OPENAI:
            typer.echo(f"note: the {backend.name} backend answers one question at a time; --concurrency "
                       f"applies to the {BackendName.OPENAI} backend", err=True)
            concurrency = 1
        if resume:
            _note_other_backends(output, {q.id for q in items}, backend.name)
        store = open_store(settings, load_model=True)
        require_papers(store)
        retriever = Retriever(store)
        try:
            summary = _run_with_progress(run_batch, items, output, retriever=retriever, llm=backend,
                                         settings=settings, concurrency=concurrency, resume=resume,
                                         filters=filters, top_k=k, quiet=as_json)
        except KeyboardInterrupt:
            typer.echo(f"interrupted: the answers written so far are kept in {output}; run the same command "
                       f"with --resume to answer the rest", err=True)
            raise typer.Exit(130) from None
        summary.bad_input = problems
        if summary.stopped:
            typer.echo(printable(f"error: stopped: {summary.stopped}; the answers written so far are kept in "
                                 f"{output}: fix that and run the same command with --resume"), err=True)
        if as_json:
            echo_json(summary.to_json() | {"backend": backend.name, "model": backend.model})
        else:
            _print_summary(summary, backend)
        if summary.failed or problems:
            raise typer.Exit(1)


def _note_other_backends(output: Path, ids: set[str], backend: str) -> None:
    """On ``--resume``: one stderr line when answers kept from `output` (for questions in `ids`) came from
    a backend other than `backend`, naming it and how to answer them again. Unreadable lines are ignored."""
    from collections import Counter

    try:
        lines = output.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    other: Counter[str] = Counter()
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and not rec.get("error") and str(rec.get("question_id")) in ids:
            name = str(rec.get("backend") or "unknown")
            if name != backend:
                other[name] += 1
    if other:
        n = sum(other.values())
        names = ", ".join(f"{name} ({count})" if len(other) > 1 else name for name, count in other.most_common())
        typer.echo(f"note: {n} answer{'s' if n != 1 else ''} kept in {output} came from another backend "
                   f"({printable(names)}), not {backend}; add --overwrite (or give a new -o file) to answer "
                   f"them again with {backend}", err=True)


def _run_with_progress(run_batch, items, output, quiet: bool, **kwargs):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    if quiet:
        return run_batch(items, output, **kwargs)
    console = Console(stderr=True)
    with Progress(TextColumn("answering"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]} failed"),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False) as bar:
        task = bar.add_task("answer", total=len(items), failed=0)
        failed = 0

        def on_record(record: dict) -> None:
            nonlocal failed
            if record.get("error"):
                failed += 1
                bar.console.print(printable(f"question {record['question_id']}: error: {record['error']}"),
                                  highlight=False, markup=False, soft_wrap=True)  # one line, as in a log
            bar.update(task, advance=1, failed=failed)

        def on_start(todo: int, already: int) -> None:
            bar.update(task, completed=already)

        return run_batch(items, output, on_record=on_record, on_start=on_start, **kwargs)


def _print_summary(summary, backend) -> None:
    # the refusals are this run's answers' ("refused 0 of 4" after a resume that kept a refusal read as none at all:
    # a new user's trial, round 28)
    lines = [f"answered {summary.answered} ({summary.refused} refused), failed {summary.failed}, already answered "
             f"{summary.skipped}, of {summary.total} questions in {summary.seconds:.1f} s "
             f"({summary.per_minute:.1f}/min) with {backend.name} ({backend.model}) -> {summary.output}"]
    if summary.repaired:
        lines.append(f"repaired the output file: {summary.repaired}")
    if summary.retried_errors:
        lines.append(f"asked {summary.retried_errors} previously failed question(s) again")
    if summary.bad_input:
        lines.append(f"{len(summary.bad_input)} input line(s) were not questions (listed above)")
    for line in lines:
        typer.echo(line, err=True)
