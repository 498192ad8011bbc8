"""The issue-8 answer figures on dev question files, in process, per file and for all of them.

``python -m benchmarks.answers_dev FILE [FILE ...] [--llm extractive] [--data-dir DIR] [--dump FEATURES.jsonl]
[--show] [--only ID,...]``

Runs `assistant.answering.answer` on every question of each FILE (format: ``../shared/eval/README.md``;
the ICML 2026 sets over the bundled collection, the airas sets over a pre-ingested airas store given
with ``--data-dir``) and prints per file and for all:

- ``gold_cited``: answerable (single/multi) questions whose answer cites at least one gold paper;
- ``facts``: mean share of the expected facts the answer states (`evaluation.fact_found`);
- ``citation_precision``: cited papers that are gold, answerable questions (nothing cited: 0);
- ``multi_named``: gold papers cited, per multi question;
- ``ooc_refused``: out-of-collection questions answered "no paper ..." with nothing cited;
- ``nia``: not-in-abstract questions answered "the abstracts do not say";
- ``false_refusals``: answerable questions answered "no paper in the collection ..." (the gate's refusal).

A conversation (``{"id", "turns"}``) is asked turn by turn in one `Conversation`, as ``eval`` does, and
each turn is scored alone (ids ``c01.1``, ``c01.2``, ...).

``--dump`` writes one line per (question or turn, retrieved paper) with the relevance evidence, the
file, the question as judged (a turn's standalone question) and whether the paper is gold: the data
`benchmarks.fit_relevance` fits the gate on, with the embedding precision of the collection (``precision``:
``fp32`` or ``int8``, ``ASSISTANT_EMBEDDING_PRECISION`` with a new ``--data-dir``), so that dumps of both
precisions can be pooled.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchmarks._scifact import MODEL_DIR


def gold_ids_for(obj: dict, papers) -> list[str]:
    """The ids of a question's gold papers: airas by (venue, year, title), ICML by substring."""
    from assistant.evaluation import resolve_gold

    if obj.get("type") == "out_of_corpus":
        return []
    if obj.get("venue"):
        titles = set(obj["gold"])
        return [p.id for p in papers if p.title in titles and p.venue.casefold() == obj["venue"].casefold()
                and p.year == obj["year"]]
    return resolve_gold(obj["gold"], papers)[0]


def measure(rows: list[dict]) -> dict:
    def mean(xs):
        xs = [x for x in xs if x is not None]
        return round(sum(xs) / len(xs), 3) if xs else None

    ans = [r for r in rows if r["type"] in ("single", "multi")]
    return {
        "n": len(rows),
        "gold_cited": mean([float(bool(set(r["cited"]) & set(r["gold"]))) for r in ans]),
        "facts": mean([r["fact_recall"] for r in rows]),
        "citation_precision": mean([r["precision"] for r in ans]),
        "multi_named": mean([len(set(r["cited"]) & set(r["gold"])) / len(r["gold"]) for r in rows
                             if r["type"] == "multi" and r["gold"]]),
        "ooc_refused": mean([r["refusal"] for r in rows if r["type"] == "out_of_corpus"]),
        "nia": mean([r["refusal"] for r in rows if r["type"] == "not_in_abstract"]),
        "false_refusals": mean([float(r["refused"]) for r in ans]),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--llm", default="extractive")
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/answers-dev-data"))
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--show", action="store_true", help="print every answer")
    ap.add_argument("--only", default="", help="comma-separated ids")
    args = ap.parse_args(argv)
    os.environ.setdefault("ASSISTANT_EMBEDDING_MODEL_DIR", str(MODEL_DIR))

    from assistant import evaluation as ev
    from assistant.answering import answer
    from assistant.conversation import Conversation, Turn
    from assistant.events import Answer
    from assistant.llm import make_llm
    from assistant.retrieval import Retriever
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore
    from assistant.store.ingest import ensure_default_collection

    settings = load_settings(data_dir=args.data_dir, embedding_model_dir=MODEL_DIR)
    store = PaperStore(settings)
    ensure_default_collection(store)
    papers = store.papers()
    title = {p.id: p.title for p in papers}
    retriever = Retriever(store)
    precision = getattr(store.embedder, "precision", None)
    llm = make_llm(settings, args.llm)
    only = set(filter(None, args.only.split(",")))
    rows = []
    dump = args.dump.open("w") if args.dump else None
    for path in args.files:
        name = path.stem
        conversations: dict[str, Conversation] = {}
        for q in ev.load_questions(path):
            conv = conversations.setdefault(q.conversation, Conversation()) if q.conversation else None
            if only and q.id not in only and q.conversation not in only:
                continue
            gold = ev.question_gold(q, papers)[0]
            folded = Answer(question=q.q)
            for event in answer(q.q, retriever=retriever, llm=llm, settings=settings, conversation=conv):
                folded.add(event)
            if conv is not None:
                conv.add(Turn.from_answer(folded))
            cited = list(dict.fromkeys(c.paper.id for c in folded.citations))
            text = folded.text or ("ERROR " + (folded.error or ""))
            row = {"file": name, "id": q.id, "type": q.type, "gold": gold, "cited": cited,
                   "fact_recall": ev.fact_recall(text, q.facts),
                   "precision": ev.citation_precision(cited, gold) if q.type in ev.ANSWERABLE else None,
                   "refusal": ev.refusal(q.type, text, cited),
                   "refused": ev.says_no_paper(text)}
            rows.append(row)
            standalone = folded.standalone_question or q.q
            if dump:
                for s in folded.relevance:
                    dump.write(json.dumps({**s, "qid": q.id, "file": name, "type": q.type, "q": standalone,
                                           "gold": s["id"] in gold, "precision": precision}) + "\n")
            if args.show:
                facts_missed = row["fact_recall"] is not None and row["fact_recall"] < 1
                bad = (q.type in ev.ANSWERABLE
                       and (not set(cited) & set(gold) or row["precision"] < 1 or facts_missed))
                bad = bad or row["refusal"] == 0.0
                print(f"{'XX' if bad else 'ok'} {name}#{q.id} {q.type} | {q.q}"
                      + (f"\n   standalone: {standalone}" if standalone != q.q else "")
                      + f"\n   -> {text[:600]}\n   note: {folded.note or ''}"
                      f"\n   cited={[title[i][:30] for i in cited]} gold={[title[i][:30] for i in gold]}"
                      f" facts={list(q.facts)}", file=sys.stderr)
    if dump:
        dump.close()
    report = {name: measure([r for r in rows if r["file"] == name]) for name in dict.fromkeys(r["file"] for r in rows)}
    report["all"] = measure(rows)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
