"""Shared by the benchmark scripts: describe the machine and write a section of docs/benchmarks.md.

Each script prints its figures and replaces its own section (between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->``) in docs/benchmarks.md, so the table in the docs is exactly what was printed.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import time
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def machine() -> str:
    """One line: CPU model, cores, memory, OS, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem_kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        mem = f"{mem_kb / 1024 / 1024:.0f} GiB"
    except (OSError, AttributeError):
        mem = "?"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=DOC.parent).stdout.strip()
    except OSError:
        rev = "?"
    return (f"{cpu}, {os.cpu_count()} cores, {mem} RAM, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, commit {rev or '?'}, {time.strftime('%Y-%m-%d')}")


def markdown_table(header: list[str], rows: list[list[object]]) -> str:
    def cell(v: object) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_section(name: str, title: str, body: str, command: str) -> None:
    """Replace (or append) the section `name` of docs/benchmarks.md and print it."""
    section = (f"<!-- {name}:start -->\n## {title}\n\n`{command}`  \nMachine: {machine()}\n\n{body.strip()}\n"
               f"<!-- {name}:end -->")
    print(section)
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n\nEvery table below is written by the script named above it.\n"
    pattern = re.compile(rf"<!-- {re.escape(name)}:start -->.*?<!-- {re.escape(name)}:end -->", re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip() + "\n\n" + section + "\n"
    DOC.write_text(text)
