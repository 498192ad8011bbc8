"""Every module imports on its own (no import cycles), and `import assistant` stays light."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("assistant", "store", "prompts")
HEAVY = ("chromadb", "onnxruntime", "llama_index.core", "textual", "openai", "numpy", "bm25s")


def modules() -> list[str]:
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_every_module_imports_alone_in_a_fresh_interpreter():
    names = modules()
    assert "assistant.cli.answer" in names and "store.ingest" in names and "assistant.tui.app" in names
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
