"""CLI rough edges from issue 10, checked as the user sees them (CliRunner on the bundled collection)."""

import pytest
from typer.testing import CliRunner

from assistant.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_ingest_of_a_missing_file_is_one_error_line_naming_it(tmp_path):
    result = run("ingest", str(tmp_path / "my_list.txt"))
    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path / 'my_list.txt'}: no such file or directory; check the path\n"
    assert result.stdout == ""


