"""CLI rough edges from issue 10, checked as the user sees them (CliRunner on the bundled collection)."""

import json

import pytest
from typer.testing import CliRunner

from assistant.cli import _print_ingest_report, app
from store.ingest import IngestReport

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_ingest_of_a_missing_file_is_one_error_line_naming_it(tmp_path):
    result = run("ingest", str(tmp_path / "my_list.txt"))
    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path / 'my_list.txt'}: no such file or directory; check the path\n"
    assert result.stdout == ""


@pytest.mark.parametrize("n, says", [(1, "note: 1 abstract is longer"), (2, "note: 2 abstracts are longer")])
def test_the_truncation_note_agrees_in_number(n, says, capsys):
    _print_ingest_report(IngestReport(added=3, truncated=n), log=None)
    assert says in capsys.readouterr().out


def test_help_shows_no_type_after_a_flag():
    result = runner.invoke(app, ["stats", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    assert "<str>" in result.stdout  # options that take a value still show it
