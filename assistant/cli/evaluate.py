"""The ``eval`` command: retrieval and answer quality against a question file (`assistant.evaluation`).
Heavy libraries are imported inside the command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from assistant.cli.common import (AuthorOpt, JsonOpt, LlmOpt, ModelOpt, TopKOpt, UserError, VenueOpt, YearOpt,
                                  check_backend, echo_json, get_settings, make_backend, make_filters, open_store,
                                  require_papers, user_errors)
from assistant.text import printable

MinOpt = Optional[float]


def _min(metric: str) -> object:
    return typer.Option(f"--min-{metric.replace('_', '-')}", min=0.0, max=1.0,
                        help=f"Exit 3 if the overall {metric} is below this (0..1).")


def _max(metric: str) -> object:
    return typer.Option(f"--max-{metric.replace('_', '-')}", min=0.0, max=1.0,
                        help=f"Exit 3 if the overall {metric} is above this (0..1).")


def _check_report_path(output: Path) -> None:
    """Raise `UserError` when the report cannot be written to `output`: a folder, or under a file."""
    if output.is_dir():
        raise UserError(f"-o {output} is a folder; give a file such as {output / 'report.json'}")
    parent = next((p for p in output.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise UserError(f"-o {output}: {parent} is a file, not a folder; choose another -o path")


def eval_(
    ctx: typer.Context,
    questions_file: Annotated[Path, typer.Argument(
        metavar="QA.jsonl", help="Questions: one JSON object per line (id, type, q, gold, facts), or a "
                                 "conversation {id, turns: [{q, type, gold, facts}, ...]}.")],
    llm: LlmOpt = None,
    model: ModelOpt = None,
    k: TopKOpt = None,
    venue: VenueOpt = None,
    year: YearOpt = None,
    author: AuthorOpt = None,
    retrieval_only: Annotated[bool, typer.Option("--retrieval-only",
                                                 help="Score retrieval only (recall@5, MRR); no answers.")] = False,
    as_json: JsonOpt = False,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Also write the JSON report here.")] = None,
    min_recall_at_5: Annotated[MinOpt, _min("recall_at_5")] = None,
    min_mrr: Annotated[MinOpt, _min("mrr")] = None,
    min_fact_recall: Annotated[MinOpt, _min("fact_recall")] = None,
    min_citation_precision: Annotated[MinOpt, _min("citation_precision")] = None,
    min_refusal_rate: Annotated[MinOpt, _min("refusal_rate")] = None,
    min_gold_cited: Annotated[MinOpt, _min("gold_cited")] = None,
    min_multi_recall: Annotated[MinOpt, _min("multi_recall")] = None,
    min_not_in_abstract_rate: Annotated[MinOpt, _min("not_in_abstract_rate")] = None,
    min_out_of_corpus_rate: Annotated[MinOpt, _min("out_of_corpus_rate")] = None,
    max_false_refusal_rate: Annotated[MinOpt, _max("false_refusal_rate")] = None,
) -> None:
    """Evaluate retrieval and answers on a question file.

    Per question: recall@5 and MRR of the gold papers, fact recall (LaTeX rendered, numbers compared as
    numbers), citation precision, gold cited and false refusal (single/multi), multi recall (share of a
    multi question's gold papers cited), refusal (out_of_corpus: "no paper in the collection" and no
    citation; not_in_abstract: "the abstracts do not state it"). The turns of a conversation are asked
    in order in one conversation (ids c01.1, c01.2, ...). Prints a table per question and a summary by
    type; --json prints {"summary": {"overall": {...}, "<type>": {...}, "chat": {...}}, "questions":
    [...]}. Ctrl+C reports (and writes to -o) the questions evaluated so far, marked "interrupted", exit
    130. Exits 3 when a --min-*/--max-* threshold is missed (for CI); 1 on a bad file or setting, or
    after evaluating the rest when a line of the file was bad and skipped, or a question's gold names no
    paper of the collection (or several: it is not scored); 2 on a bad flag.
    """
    from assistant.evaluation import check_thresholds, load_questions, report
    from assistant.retrieval import Retriever

    with user_errors():
        if llm is not None:
            llm = check_backend(llm)
        filters = make_filters(venue, year, author)  # a bad option (exit 2) before the file is read
        skipped: list[str] = []  # a bad line is reported (file:line) and skipped; the rest is evaluated
        questions = load_questions(questions_file, skipped)  # QuestionFileError: one line naming file:line
        for message in skipped:
            typer.echo(printable(f"error: {message}; the line is skipped"), err=True)
        if output is not None:  # before the questions are asked, not after (a new user's trial, round 23)
            _check_report_path(output)
        overrides = {"llm": llm, "model": model}
        if k is not None:
            overrides["top_k"] = k
        settings = get_settings(ctx, **overrides)
        store = open_store(settings)
        require_papers(store)
        retriever = Retriever(store, settings)
        backend = None
        if not retrieval_only:
            backend = make_backend(settings, llm, model, quiet=as_json)
        results: list = []  # filled as each question is scored: Ctrl+C keeps the ones so far
        interrupted = False
        try:
            _run_with_progress(questions, results, retriever, backend, settings, filters, k, quiet=as_json)
        except KeyboardInterrupt:
            interrupted = True
        meta = {"file": str(questions_file), "backend": getattr(backend, "name", None),
                "model": getattr(backend, "model", None), "top_k": k or settings.top_k,
                "filters": filters.to_json(), "collection": settings.collection, "papers": store.count()}
        if interrupted:
            meta |= {"interrupted": True, "evaluated": len(results), "total": len(questions)}
        data = report(results, **meta)
        unwritten = None
        if output is not None:
            try:
                output.parent.mkdir(parents=True, exist_ok=True)
                output.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
            except OSError as exc:
                unwritten = f"-o {output}: cannot write the report ({exc.strerror or exc}); it is printed above"
        if as_json:
            echo_json(data)
        else:
            _print_report(data, results)
        if unwritten:  # the report is printed first: the evaluation is not lost
            raise UserError(unwritten)
        unscored = [r for r in results if r.problems]
        for r in unscored:
            typer.echo(printable(f"error: {questions_file}:{r.question.line} ({r.question.id}): "
                                 f"{'; '.join(r.problems)}: the question is not scored; fix its gold"), err=True)
        missed = check_thresholds(data["summary"], {
            "recall_at_5": min_recall_at_5, "mrr": min_mrr, "fact_recall": min_fact_recall,
            "citation_precision": min_citation_precision, "refusal_rate": min_refusal_rate,
            "gold_cited": min_gold_cited, "multi_recall": min_multi_recall,
            "not_in_abstract_rate": min_not_in_abstract_rate, "out_of_corpus_rate": min_out_of_corpus_rate},
            {"false_refusal_rate": max_false_refusal_rate})
        if interrupted:
            kept = f"; the report of those is in {output}" if output is not None else ""
            typer.echo(f"interrupted after {len(results)} of {len(questions)} questions: the summary above is "
                       f"of those only{kept}", err=True)
            raise typer.Exit(130)
        for line in missed:
            typer.echo(f"FAILED: {line}", err=True)
        if missed:
            raise typer.Exit(3)
        if skipped or unscored:
            typer.echo(f"error: {len(skipped)} line(s) of {questions_file} skipped and {len(unscored)} question(s) "
                       f"not scored (above); fix them and run eval again", err=True)
            raise typer.Exit(1)


def _run_with_progress(questions, results: list, retriever, backend, settings, filters, k, quiet: bool) -> None:
    """Evaluate `questions`, appending each result to `results` as it is scored (so that a Ctrl+C keeps
    the ones so far), with a progress bar on stderr unless `quiet`."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from assistant.evaluation import iter_eval

    scored = iter_eval(questions, retriever=retriever, llm=backend, settings=settings, filters=filters, top_k=k)
    console = Console(stderr=True)
    if quiet or not console.is_terminal:  # a bar on a file or pipe leaves only a blank line in it
        results.extend(scored)
        return
    with Progress(TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), transient=True, console=console) as bar:
        task = bar.add_task("", total=len(questions))
        for result in scored:
            results.append(result)
            bar.update(task, completed=len(results), description=result.question.id)


NARROW_METRICS = ("recall_at_5", "fact_recall", "citation_precision", "gold_cited")
"""The per-question figures shown at a terminal narrower than 150 columns."""
_SHORT_TYPES = {"out_of_corpus": "out of corp", "not_in_abstract": "not in abs"}


def _fmt(v) -> str:
    return "–" if v is None else f"{v:.2f}"


def _print_report(data: dict, results) -> None:
    from rich.console import Console
    from rich.table import Table

    from assistant.evaluation import METRICS

    console = Console(highlight=False)
    heads = {"recall_at_5": "R@5", "mrr": "MRR", "fact_recall": "facts", "citation_precision": "cite prec",
             "refusal_rate": "refusal", "gold_cited": "gold cited", "multi_recall": "multi rec",
             "false_refusal_rate": "false ref", "not_in_abstract_rate": "not in abs", "out_of_corpus_rate": "out of corp"}
    # at a terminal narrower than every column needs, the per-question table keeps the figures a reader
    # checks first (the rest are in --json) and the summary is transposed: one row per measure
    wide = console.width >= 150
    shown = METRICS if wide else [m for m in METRICS if m in NARROW_METRICS]
    table = Table(title="Questions", title_justify="left")
    for col in ("id", "type", *(heads[m] for m in shown), "cited", "s"):
        table.add_column(col, justify="right" if col not in ("id", "type", "cited") else "left",
                         no_wrap=col in ("id", "type"))
    for r in results:
        row = [printable(r.question.id), printable(r.question.type), *(_fmt(r.metrics.get(m)) for m in shown),
               str(len(r.cited)), f"{r.seconds:.1f}"]
        if r.error:
            row[-2] = "error"
        table.add_row(*row)
    console.print(table)
    title = f"Summary ({data.get('backend') or 'retrieval only'})"
    summary = Table(title=title, title_justify="left")
    blocks = data["summary"]
    if wide:
        for col in ("type", "n", *(heads[m] for m in METRICS), "errors"):
            summary.add_column(col, justify="left" if col == "type" else "right")
        for name, block in blocks.items():
            summary.add_row(name, str(block["n"]), *(_fmt(block[m]) for m in METRICS), str(block["errors"]),
                            style="bold" if name == "overall" else None)
    else:
        summary.add_column("measure", no_wrap=True)
        for name in blocks:
            summary.add_column(_SHORT_TYPES.get(name, name), justify="right",
                               style="bold" if name == "overall" else None)
        summary.add_row("n", *(str(b["n"]) for b in blocks.values()))
        for m in METRICS:
            summary.add_row(heads[m], *(_fmt(b[m]) for b in blocks.values()))
        summary.add_row("errors", *(str(b["errors"]) for b in blocks.values()))
    console.print(summary)
    for r in results:
        if r.error:
            typer.echo(printable(f"error in {r.question.id}: {r.error}"), err=True)
