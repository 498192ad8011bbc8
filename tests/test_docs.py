"""The README documents every setting, and its two commands are the ones CI runs."""

from pathlib import Path

from assistant.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def test_readme_lists_every_setting():
    readme = (ROOT / "README.md").read_text()
    missing = [name for name in Settings.model_fields if f"`ASSISTANT_{name.upper()}`" not in readme]
    assert not missing, f"README does not document: {missing}"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme and "make run" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()
