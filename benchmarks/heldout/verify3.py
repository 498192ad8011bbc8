#!/usr/bin/env python3
"""Check the held-out question files in this folder against the data (standard library only).

Checks
  icml2026_fresh3.jsonl / icml2026_chats_fresh3.jsonl (every question and every chat turn):
    - fields and types as in ../shared/eval/README.md; ids unique
    - every gold string occurs (raw, case-sensitive) in exactly one abstract
    - single: 1 gold; multi: >= 2 distinct gold papers; not_in_abstract: >= 1 gold, no facts;
      out_of_corpus: no gold, no facts
    - every fact occurs, after normalisation, in at least one gold abstract
    - every out_of_corpus question has key terms in ooc_terms3.json, none of which occurs in any abstract
  airas_fresh3.jsonl:
    - known items: (venue, year, gold_ids[0]) exists, its title equals gold[0], the title occurs for
      exactly one paper of that venue/year, every fact occurs in its normalised abstract
    - out_of_corpus: empty gold/gold_ids/facts, venue/year null, key terms absent from every
      title and abstract of all eleven files
Normalisation: LaTeX rendered or removed ($, braces, \\% -> %, \\times -> x-sign, ^ and _ in math,
\\alpha -> alpha-sign, \\ell -> l-sign), markdown * removed, dashes and quotes unified, whitespace
collapsed, case folded.
Run: python3 benchmarks/heldout/verify3.py [--data ../shared/data]
"""
import argparse
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

MATH_CMDS = {r"\times": "×", r"\alpha": "α", r"\beta": "β", r"\ell": "ℓ", r"\%": "%",
             r"\cdot": "·", r"\to": "→", r"\infty": "∞", r"\leq": "≤", r"\geq": "≥"}


def _render_math(m):
    s = m.group(1)
    for k, v in MATH_CMDS.items():
        s = s.replace(k, v)
    s = re.sub(r"\\[a-zA-Z]+", "", s)
    return re.sub(r"[\^_{}]", "", s)


def norm(text):
    s = text
    s = re.sub(r"\$([^$]*)\$", _render_math, s)
    for k, v in MATH_CMDS.items():
        s = s.replace(k, v)
    s = s.replace("$", "").replace("{", "").replace("}", "").replace("*", "")
    s = re.sub(r"[\u2010-\u2015\u2212]", "-", s)
    s = re.sub(r"-{2,}", "-", s)
    s = re.sub(r"[\u2018\u2019`´]", "'", s)
    s = re.sub(r"[\u201c\u201d]|''", '"', s)
    s = re.sub(r"\s+", " ", s)
    return s.casefold().strip()


def load_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{n}: bad JSON: {e}")
    return out


class Report:
    def __init__(self):
        self.errors = []
        self.checked = 0

    def err(self, where, msg):
        self.errors.append(f"{where}: {msg}")


TYPES = {"single", "multi", "out_of_corpus", "not_in_abstract"}


def check_icml_item(rep, where, item, abstracts, nabs, terms):
    rep.checked += 1
    typ, gold, facts = item.get("type"), item.get("gold"), item.get("facts")
    if typ not in TYPES:
        rep.err(where, f"bad type {typ!r}")
        return
    if not isinstance(item.get("q"), str) or not item["q"].strip():
        rep.err(where, "missing q")
    if not isinstance(gold, list) or not isinstance(facts, list):
        rep.err(where, "gold/facts must be lists")
        return
    papers = []
    for g in gold:
        hits = [i for i, a in enumerate(abstracts) if g in a]
        if len(hits) != 1:
            rep.err(where, f"gold {g!r} matches {len(hits)} abstracts")
        else:
            papers.append(hits[0])
    if typ == "single" and len(gold) != 1:
        rep.err(where, "single needs exactly one gold")
    if typ == "multi" and len(set(papers)) < 2:
        rep.err(where, "multi needs >= 2 distinct gold papers")
    if typ == "not_in_abstract" and (not gold or facts):
        rep.err(where, "not_in_abstract needs gold and no facts")
    if typ == "out_of_corpus":
        if gold or facts:
            rep.err(where, "out_of_corpus must have empty gold and facts")
        if not terms:
            rep.err(where, "out_of_corpus without key terms in ooc_terms3.json")
        for t in terms or []:
            hits = [i for i, a in enumerate(nabs) if norm(t) in a]
            if hits:
                rep.err(where, f"OOC term {t!r} occurs in abstract(s) {hits}")
    for fct in facts:
        if not any(norm(fct) in nabs[p] for p in papers):
            rep.err(where, f"fact {fct!r} not in any gold abstract")


def check_icml(rep, data, ooc):
    path = os.path.join(data, "icml2026", "icml2026_abstracts.txt")
    with open(path, encoding="utf-8") as f:
        body = f.read().split("\n", 1)[1]
    abstracts = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    nabs = [norm(a) for a in abstracts]
    print(f"icml2026: {len(abstracts)} abstracts")

    name = "icml2026_fresh3.jsonl"
    items = load_jsonl(os.path.join(HERE, name))
    ids = [d.get("id") for d in items]
    if len(ids) != len(set(ids)):
        rep.err(name, "duplicate ids")
    for d in items:
        if set(d) != {"id", "type", "q", "gold", "facts"}:
            rep.err(f"{name}:{d.get('id')}", f"fields {sorted(d)}")
        check_icml_item(rep, f"{name}:{d.get('id')}", d, abstracts, nabs,
                        ooc.get(name, {}).get(d.get("id")))
    unused = set(ooc.get(name, {})) - {d["id"] for d in items if d.get("type") == "out_of_corpus"}
    if unused:
        rep.err(name, f"ooc_terms for non-OOC ids {sorted(unused)}")

    name = "icml2026_chats_fresh3.jsonl"
    chats = load_jsonl(os.path.join(HERE, name))
    ids = [d.get("id") for d in chats]
    if len(ids) != len(set(ids)):
        rep.err(name, "duplicate ids")
    for c in chats:
        if set(c) != {"id", "type", "turns"} or c.get("type") != "chat":
            rep.err(f"{name}:{c.get('id')}", "bad conversation fields")
        turns = c.get("turns") or []
        if not 2 <= len(turns) <= 4:
            rep.err(f"{name}:{c.get('id')}", f"{len(turns)} turns")
        for n, t in enumerate(turns, 1):
            key = f"{c.get('id')}#{n}"
            if set(t) != {"q", "type", "gold", "facts"}:
                rep.err(f"{name}:{key}", f"fields {sorted(t)}")
            check_icml_item(rep, f"{name}:{key}", t, abstracts, nabs, ooc.get(name, {}).get(key))


def check_airas(rep, data, ooc):
    root = os.path.join(data, "airas-papers-db", "data")
    recs = {}
    for f in sorted(glob.glob(os.path.join(root, "*", "*.json"))):
        for r in json.load(open(f, encoding="utf-8")):
            recs.setdefault((r["conference"], r["year"], r["id"]), r)
    print(f"airas: {len(recs)} unique (venue, year, id) records")
    texts = [norm((r.get("title") or "") + " \n " + (r.get("abstract") or "")) for r in recs.values()]
    name = "airas_fresh3.jsonl"
    items = load_jsonl(os.path.join(HERE, name))
    ids = [d.get("id") for d in items]
    if len(ids) != len(set(ids)):
        rep.err(name, "duplicate ids")
    fields = {"id", "type", "q", "gold_ids", "gold", "facts", "venue", "year"}
    seen = set()
    for d in items:
        rep.checked += 1
        where = f"{name}:{d.get('id')}"
        if set(d) != fields:
            rep.err(where, f"fields {sorted(d)}")
        if d.get("type") == "single":
            if not (d["id"].startswith("ak") and len(d["gold_ids"]) == 1 and len(d["gold"]) == 1):
                rep.err(where, "known item needs ak id, one gold id and one title")
                continue
            key = (d["venue"], d["year"], d["gold_ids"][0])
            if key in seen:
                rep.err(where, "same paper asked twice")
            seen.add(key)
            r = recs.get(key)
            if r is None:
                rep.err(where, f"no record {key}")
                continue
            if r["title"] != d["gold"][0]:
                rep.err(where, f"title mismatch: {r['title']!r}")
            same = [k for k, x in recs.items() if k[:2] == key[:2] and x["title"] == d["gold"][0]]
            if len(same) != 1:
                rep.err(where, f"title occurs for {len(same)} papers in {key[:2]}")
            na = norm(r.get("abstract") or "")
            for fct in d["facts"]:
                if norm(fct) not in na:
                    rep.err(where, f"fact {fct!r} not in abstract")
        elif d.get("type") == "out_of_corpus":
            if d["gold"] or d["gold_ids"] or d["facts"] or d["venue"] is not None or d["year"] is not None:
                rep.err(where, "OOC must have empty gold/gold_ids/facts and null venue/year")
            terms = ooc.get(name, {}).get(d["id"])
            if not terms:
                rep.err(where, "no key terms in ooc_terms3.json")
            for t in terms or []:
                n = sum(1 for x in texts if norm(t) in x)
                if n:
                    rep.err(where, f"OOC term {t!r} occurs in {n} papers")
        else:
            rep.err(where, f"bad type {d.get('type')!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "..", "shared", "data"))
    args = ap.parse_args()
    ooc = json.load(open(os.path.join(HERE, "ooc_terms3.json"), encoding="utf-8"))
    rep = Report()
    check_icml(rep, args.data, ooc)
    check_airas(rep, args.data, ooc)
    for e in rep.errors:
        print("FAIL", e)
    print(f"{rep.checked} questions/turns checked, {len(rep.errors)} problems")
    print("PASS" if not rep.errors else "FAILED")
    sys.exit(1 if rep.errors else 0)


if __name__ == "__main__":
    main()
