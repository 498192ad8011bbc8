"""Every module imports on its own (no import cycles), and `import assistant` stays light."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# store/ and prompts/ are installed as assistant.store and assistant.prompts (pyproject.toml's package-dir)
PACKAGES = ("assistant", "assistant.store", "assistant.prompts")
HEAVY = ("chromadb", "onnxruntime", "llama_index.core", "textual", "openai", "numpy", "bm25s")


def modules() -> list[str]:
    """Every module and package of the product, as `pkgutil.walk_packages` finds them (it imports the
    packages, not the modules, to look inside them)."""
    out = []
    for name in PACKAGES:
        package = importlib.import_module(name)
        out.append(name)
        out += [m.name for m in pkgutil.walk_packages(package.__path__, prefix=f"{name}.")]
    return sorted(out)


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_every_module_imports_alone_in_a_fresh_interpreter():
    names = modules()
    assert {"assistant.cli", "assistant.cli.answer", "assistant.cli.common", "assistant.errors", "assistant.store.ingest",
            "assistant.tui.app", "assistant.tui.widgets.conversation"} <= set(names)
    assert len(names) == len({p for p in ROOT.joinpath("assistant").rglob("*.py")} |
                             {p for pkg in ("store", "prompts") for p in ROOT.joinpath(pkg).rglob("*.py")})
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(names, pool.map(lambda m: _python(f"import {m}"), names)))
    failed = {m: r.stderr.strip().splitlines()[-1] for m, r in results.items() if r.returncode != 0}
    assert failed == {}


def test_import_assistant_loads_nothing_heavy_and_exports_resolve():
    code = ("import sys, assistant; heavy = [m for m in %r if m in sys.modules]; print(heavy); "
            "print([n for n in assistant.__all__ if n not in dir(assistant)]); "
            "assistant.PaperCollection; assistant.Answer; print([m for m in %r if m in sys.modules])") % (HEAVY, HEAVY)
    result = _python(code)
    assert result.returncode == 0, result.stderr
    heavy, missing, after = result.stdout.splitlines()
    assert heavy == "[]" and missing == "[]"
    assert "chromadb" not in after and "llama_index.core" not in after  # opening is lazy too


def test_every_exported_name_resolves():
    import assistant

    for name in assistant.__all__:
        assert getattr(assistant, name) is not None, name
