"""The `assistant` command line: thin commands over the library; docstrings are the help text.

This module makes the typer `app` and registers the commands, which live in `assistant.cli.collection`
(ingest, remove, search, papers, show, stats), `assistant.cli.answer` (ask, batch), `assistant.cli.chat` (chat,
similar) and `assistant.cli.evaluate` (eval); what they share (options, settings,
backend names, store opening, the error handler) is `assistant.cli.common`. Imports go one way:
this module -> command modules -> common -> the library.

Heavy libraries (chromadb, onnxruntime, llama-index, textual) are imported inside the commands that
need them, so ``assistant --help`` is instant. Every command that prints results has ``--json``.
User mistakes end with one line on stderr (``error: ...``), never a traceback: exit code 2 for a usage
mistake (an unknown option, a bad or empty argument or option value), 1 for any other failure.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from assistant.cli import answer, chat, collection, evaluate
from assistant.errors import AssistantError
from assistant.text import printable


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


@app.callback()
def _global(
    ctx: typer.Context,
    data_dir: Annotated[Optional[Path], typer.Option(help="Data folder \\[env ASSISTANT_DATA_DIR].")] = None,
    collection: Annotated[Optional[str], typer.Option(help="Collection name \\[env ASSISTANT_COLLECTION].")] = None,
    chroma_url: Annotated[Optional[str], typer.Option(help="Chroma server URL \\[env ASSISTANT_CHROMA_URL].")] = None,
    embedding_model_dir: Annotated[Optional[Path], typer.Option(
        help="Folder of the ONNX embedding model \\[env ASSISTANT_EMBEDDING_MODEL_DIR].")] = None,
) -> None:
    from assistant.settings import unknown_env_settings

    for message in unknown_env_settings():
        typer.echo(f"warning: {message}", err=True)
    ctx.obj = {"data_dir": data_dir, "collection": collection, "chroma_url": chroma_url,
               "embedding_model_dir": embedding_model_dir}


GLOBAL_OPTIONS = ("data_dir", "collection", "chroma_url", "embedding_model_dir")
"""The options of `assistant` itself (`_global`), written before the command."""

for command in (collection.ingest, collection.remove, collection.search, collection.papers, collection.show, answer.ask, answer.batch,
                chat.chat, chat.similar):
    app.command()(command)
app.command("eval")(evaluate.eval_)
app.command()(collection.stats)


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
            message = f"{' '.join(exc.format_message().split())} (see `{where} --help`)"
            name = getattr(exc, "option_name", None) or ""
            if isinstance(exc, click_exc.NoSuchOption) and name.lstrip("-").replace("-", "_") in GLOBAL_OPTIONS:
                # `assistant ask "..." --chroma-url URL`: the option exists, but before the command
                message = (f"{name} is an option of `assistant` itself: put it before the command "
                           f"(assistant {name} ... {where.split()[-1]} ...), or set "
                           f"ASSISTANT_{name.lstrip('-').replace('-', '_').upper()}")
            typer.echo(f"error: {message}", err=True)
        code = exc.exit_code
    except click_exc.ClickException as exc:
        typer.echo(f"error: {' '.join(exc.format_message().split())}", err=True)
        code = exc.exit_code
    except AssistantError as exc:  # raised outside a command's own `user_errors` (none is expected)
        typer.echo(f"error: {printable(str(exc))}", err=True)
        code = getattr(exc, "exit_code", 1)
    except typer.Abort:
        typer.echo("aborted", err=True)
        code = 1
    sys.exit(code if isinstance(code, int) else 0)
