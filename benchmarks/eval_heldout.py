"""Issue 8's measures on any question files (the held-out sets of ``benchmarks/heldout/``), one line per file.

``python -m benchmarks.eval_heldout FILE [FILE ...] [--llm extractive]``

Each file is run as ``assistant eval FILE --llm NAME --json`` in a new process (`benchmarks.eval_dev.run_eval`):
an ``airas*`` file over the 16k airas-papers-db store (`benchmarks.eval_dev.airas_store`), any other over the
19 bundled ICML 2026 abstracts in a new data folder. Prints, per file, the summary the issue's goals are stated
in (conversation files: the ``chat`` block, every turn): gold cited, facts, citation precision, multi recall,
false refusals, not in abstract, out of collection refused (definitions in `assistant/evaluation.py`). This is
how round 10's held-out figures in docs/benchmarks.md were made; it prints summaries only, so a held-out set
stays unread.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from benchmarks._scifact import ROOT
from benchmarks.eval_dev import _env, _exe, _f, airas_store, run_eval

MEASURES = ("gold_cited", "fact_recall", "citation_precision", "multi_recall", "false_refusal_rate",
            "not_in_abstract_rate", "out_of_corpus_rate")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--llm", default="extractive")
    args = ap.parse_args()
    print("file".ljust(32) + " n    " + " ".join(m[:10].rjust(10) for m in MEASURES))
    for qa in args.files:
        with tempfile.TemporaryDirectory() as tmp:
            if qa.name.startswith("airas"):
                data_dir = airas_store()
            else:
                data_dir = Path(tmp) / "data"  # the bundled collection, ingested outside the eval's timing
                subprocess.run([_exe(), "papers", "--json"], cwd=ROOT, env=_env(data_dir),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            data, _ = run_eval(qa.resolve(), data_dir, args.llm, qa.stem)
        summary = data["summary"]
        block = summary["chat"] if summary.get("chat", {}).get("n") else summary["overall"]
        print(qa.stem[:32].ljust(32) + f" {block['n']:<4} " + " ".join(_f(block.get(m)).rjust(10) for m in MEASURES),
              flush=True)


if __name__ == "__main__":
    main()
