"""The relevance gate's trade-off at one collection size, from evidence dumps, at the current weights.

``python -m benchmarks.gate_sweep DUMP.jsonl [MORE.jsonl ...] [--thresholds 0.36,0.40,...] [--lead 0.38:0.18]``

Each dump is `benchmarks.answers_dev --dump` of known-item question files (``single`` and ``out_of_corpus``
questions, e.g. the airas files at 16k papers): one line per (question, retrieved paper) with the paper's relevance
as the gate scored it (``score``, `relevance.log_odds` as a probability), whether it is gold, and the gate's note.
For each threshold (the relevance the best paper needs, as `relevance.SCALE_SLOPE` sets it at that size) it prints
the share of known items whose gold paper is the first retrieved paper at or above the threshold (the paper the
answer quotes) and the share of out-of-collection questions with no paper at or above it. A question refused for a
word no abstract uses (`relevance.unknown_words`, a note "no paper in the collection mentions ...") stays refused at
every threshold, and a paper kept for a name it mentions stays kept, as in the dump. ``--lead FLOOR:MARGIN`` also
accepts, below the threshold in use (``--at``), a best paper at least FLOOR whose relevance exceeds the next paper's
by MARGIN (a query-performance signal: a known item's paper stands out from its neighbours).

This is the gate's side only: the answer may still say "the abstracts do not say" for a paper the gate kept, so
`assistant eval` at the chosen threshold (``ASSISTANT_MIN_RELEVANCE``) checks the result (round 26: the simulation
and real runs at 0.48 and 0.44 agreed on the gains).
"""

from __future__ import annotations

import argparse
import json
from collections import OrderedDict

UNKNOWN_WORD = "no paper in the collection mentions"


def questions(lines: list[dict]) -> OrderedDict:
    """``{(file, question id): [rows in retrieval order]}`` of the dump's ``single`` and ``out_of_corpus`` questions."""
    out: OrderedDict = OrderedDict()
    for r in lines:
        if r.get("type") in ("single", "out_of_corpus"):
            out.setdefault((r["file"], r["qid"]), []).append(r)
    return out


def quoted(rows: list[dict], threshold: float, lead: tuple[float, float] | None = None) -> dict | None:
    """The paper the answer would quote at `threshold`: the first retrieved paper at or above it (or kept for a name it
    mentions); with `lead`, else the best paper when it reaches ``lead[0]`` and leads the next by ``lead[1]``; None
    when the question is refused."""
    if any(r.get("note", "").startswith(UNKNOWN_WORD) for r in rows):
        return None
    kept = [r for r in rows if r["score"] >= threshold or (r.get("names") and r.get("relevant"))]
    if kept:
        return kept[0]
    if lead is None:
        return None
    ranked = sorted(rows, key=lambda r: -r["score"])
    second = ranked[1]["score"] if len(ranked) > 1 else 0.0
    return ranked[0] if ranked[0]["score"] >= lead[0] and ranked[0]["score"] - second >= lead[1] else None


def rates(qs: OrderedDict, threshold: float, lead: tuple[float, float] | None = None) -> tuple[float, float, int, int]:
    """(known item quoted from its gold paper, out-of-collection refused, known items, out-of-collection questions)."""
    known = [bool((p := quoted(rows, threshold, lead)) and p["gold"]) for rows in qs.values()
             if rows[0]["type"] == "single"]
    ooc = [quoted(rows, threshold, lead) is None for rows in qs.values() if rows[0]["type"] == "out_of_corpus"]
    return sum(known) / max(len(known), 1), sum(ooc) / max(len(ooc), 1), len(known), len(ooc)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--thresholds", default="0.36,0.40,0.44,0.46,0.48,0.55")
    ap.add_argument("--at", type=float, default=0.48, help="the threshold in use (for --lead)")
    ap.add_argument("--lead", default=None, help="FLOOR:MARGIN, e.g. 0.38:0.18")
    args = ap.parse_args(argv)
    lines = [json.loads(line) for path in args.dumps for line in open(path, encoding="utf-8") if line.strip()]
    qs = questions(lines)
    if not qs:
        print("no single or out_of_corpus questions in the dumps")
        return 1
    print("| relevance bar | known item quoted from its paper | out-of-collection refused |")
    print("|---|---|---|")
    for t in (float(x) for x in args.thresholds.split(",")):
        known, ooc, n_known, n_ooc = rates(qs, t)
        print(f"| {t:.2f} | {known:.3f} | {ooc:.3f} |")
    print(f"({n_known} known items, {n_ooc} out of collection)")
    if args.lead:
        floor, margin = (float(x) for x in args.lead.split(":"))
        known, ooc, _, _ = rates(qs, args.at, (floor, margin))
        print(f"at {args.at:.2f} with a lead of {margin:.2f} from {floor:.2f}: known {known:.3f}, "
              f"out of collection refused {ooc:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
