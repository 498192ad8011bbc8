"""Fresh clone → first answer: `git clone`, then the README's `make run` (a new .venv, the install, the
bundled collection ingested, one extractive answer), timed end to end.

``python -m benchmarks.first_answer [--before COMMIT]``

The clone goes to ``<repo>/../fresh-speed`` (beside ``../shared``, which the Makefile reads the
embedding model from) and is removed first. The data folder is a new temporary one. `--before COMMIT`
times the same for COMMIT's Makefile in the same run (before the change, `make run` installed the
`local` and `dev` extras too). Peak memory from ``/usr/bin/time -v`` (the largest single process:
pip, or the answering process). pip's own cache is left as it is: downloads and wheels built by
earlier installs on this machine are reused (on a machine that never built llama-cpp-python, the
`local` extra costs minutes more than shown for 'before').
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time

from benchmarks._report import markdown_table, write_section
from benchmarks._scifact import ROOT


def first_answer(commit: str) -> dict:
    dest = ROOT.parent / "fresh-speed"
    shutil.rmtree(dest, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(dest)], check=True)
    subprocess.run(["git", "checkout", "--quiet", commit], cwd=dest, check=True)
    with tempfile.TemporaryDirectory() as data:
        proc = subprocess.run(["/usr/bin/time", "-v", "make", "run"], cwd=dest, capture_output=True, text=True,
                              env={**{k: v for k, v in os.environ.items() if not k.startswith("ASSISTANT_")},
                                   "ASSISTANT_DATA_DIR": data})
    seconds = time.perf_counter() - t0
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) / 1024
    answered = proc.returncode == 0 and "[1]" in proc.stdout
    extras = re.findall(r"pip install --quiet -e (\S+)", proc.stdout)
    return {"seconds": seconds, "peak_mib": peak, "answered": answered, "installed": " then ".join(extras) or "?",
            "tail": proc.stdout[-300:] + proc.stderr[-300:]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="")
    args = ap.parse_args()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    load_before = open("/proc/loadavg").read().split()[0]
    runs = [("this change", head)] + ([("before", args.before)] if args.before else [])
    rows = []
    for name, commit in runs:
        r = first_answer(commit)
        print(f"{name} ({commit}): {r['seconds']:.1f} s, answered {r['answered']}, installed {r['installed']}",
              flush=True)
        if not r["answered"]:
            print(r["tail"])
        rows.append([f"{name} ({commit})", r["installed"], f"{r['seconds']:.0f}", f"{r['peak_mib']:.0f}",
                     "yes" if r["answered"] else "no"])
    load_after = open("/proc/loadavg").read().split()[0]
    body = markdown_table(["`make run` of", "installs", "clone → first answer s", "peak MiB", "cited answer"], rows)
    body += (f"\n\n`git clone` of this repository into a folder beside `../shared`, then `make run` (new .venv, "
             f"install, the 19 bundled abstracts ingested, one extractive answer) in a new data folder. pip's cache "
             f"was warm (packages downloaded and wheels built by earlier installs on this machine, llama-cpp-python's "
             f"too: compiling it, as a machine that never built it does for 'before', took minutes more, 4 min 20 s "
             f"in issue 12). 1-minute load "
             f"average {load_before} before and {load_after} after, on 2 cores shared with other work.")
    write_section("first_answer", "Fresh clone to first answer", body,
                  "python -m benchmarks.first_answer" + (f" --before {args.before}" if args.before else ""))


if __name__ == "__main__":
    main()
