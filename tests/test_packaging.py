"""The built wheel holds the whole product under `assistant` and claims no generic top-level names.

pyproject.toml lists the packages by hand (setuptools' `package-dir` maps the repository's `store/` and
`prompts/` folders to `assistant.store` and `assistant.prompts`), so a new sub-package left out of that list
would be missing from an installed product while every test run from the repository still passes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"assistant": "assistant", "store": "assistant/store", "prompts": "assistant/prompts"}


@pytest.mark.integration
def test_wheel_installs_store_and_prompts_under_assistant(tmp_path):
    # build from a copy of the tracked files: setuptools reuses a build/ folder, which would hide a missing package
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    source = tmp_path / "source"
    for name in filter(None, tracked.split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path), str(source)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    (wheel,) = tmp_path.glob("paper_assistant-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"assistant"}
    expected = {f"{FOLDERS[path.relative_to(ROOT).parts[0]]}/{'/'.join(path.relative_to(ROOT).parts[1:])}"
                for folder in FOLDERS for path in (ROOT / folder).rglob("*")
                if path.suffix in (".py", ".txt", ".tcss") and "__pycache__" not in path.parts}
    assert expected - names == set()  # every module, prompt, bundled collection and stylesheet is shipped
    assert "assistant/store/data/icml2026_abstracts.txt" in names and "assistant/prompts/answer.txt" in names
