#!/usr/bin/env python3
"""Check the held-out set 4: gold uniqueness, facts in gold abstracts, OOC terms absent. Standard library only."""
import json, os, re, sys
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "data", "icml2026", "icml2026_abstracts.txt")
TYPES = {"single", "multi", "out_of_corpus", "not_in_abstract"}

def load_abstracts():
    lines = open(DATA, encoding="utf-8").read().split("\n")[1:]
    paras, cur = [], []
    for l in lines:
        if l.strip(): cur.append(l.strip())
        elif cur: paras.append(" ".join(cur)); cur = []
    if cur: paras.append(" ".join(cur))
    return paras

def norm(s):
    s = s.replace("\\%", "%").replace("$\\times$", "×").replace("\\times", "×").replace("\\alpha", "α").replace("\\ell", "ℓ")
    s = s.replace("$", "").replace("{", "").replace("}", "").replace("*", "").replace("^", "")
    s = s.replace("--", "–").replace("—", "–").replace("’", "'").replace("‘", "'").replace("``", '"').replace("''", '"')
    return re.sub(r"\s+", " ", s).casefold()

def main():
    abs_ = load_abstracts(); nabs = [norm(a) for a in abs_]
    errs = []
    assert len(abs_) == 19, len(abs_)
    ooc = json.load(open(os.path.join(HERE, "ooc_terms4.json"), encoding="utf-8"))
    def check(fname, qid, d, ids):
        if qid in ids: errs.append(f"{fname}:{qid} duplicate id")
        ids.add(qid)
        t = d.get("type")
        if t not in TYPES: errs.append(f"{fname}:{qid} bad type {t}")
        if not d.get("q", "").strip(): errs.append(f"{fname}:{qid} empty q")
        gold, facts = d.get("gold"), d.get("facts")
        if not isinstance(gold, list) or not isinstance(facts, list): errs.append(f"{fname}:{qid} gold/facts not lists"); return
        idx = []
        for g in gold:
            hits = [i for i, a in enumerate(abs_) if g in a]
            if len(hits) != 1: errs.append(f"{fname}:{qid} gold {g!r} matches {len(hits)} abstracts")
            else: idx.append(hits[0])
        if len(set(idx)) != len(idx): errs.append(f"{fname}:{qid} gold strings hit the same abstract twice")
        if t == "out_of_corpus":
            if gold or facts: errs.append(f"{fname}:{qid} ooc must have empty gold and facts")
            terms = ooc.get(fname, {}).get(qid)
            if not terms: errs.append(f"{fname}:{qid} no ooc terms")
            for term in terms or []:
                hit = [i + 1 for i, a in enumerate(nabs) if norm(term) in a]
                if hit: errs.append(f"{fname}:{qid} ooc term {term!r} occurs in abstract(s) {hit}")
        else:
            if not gold: errs.append(f"{fname}:{qid} {t} needs gold")
            if t == "single" and len(gold) != 1: errs.append(f"{fname}:{qid} single needs one gold")
            if t == "multi" and len(gold) < 2: errs.append(f"{fname}:{qid} multi needs >=2 gold")
            if t == "not_in_abstract" and facts: errs.append(f"{fname}:{qid} not_in_abstract must have no facts")
            for f in facts:
                if "%" in f or "$" in f or "\\" in f: errs.append(f"{fname}:{qid} fact {f!r} not plain text")
                if not any(norm(f) in nabs[i] for i in idx): errs.append(f"{fname}:{qid} fact {f!r} not in gold abstract")
    counts = {}
    fn = "icml2026_fresh4.jsonl"; ids = set()
    for l in open(os.path.join(HERE, fn), encoding="utf-8"):
        d = json.loads(l); check(fn, d["id"], d, ids); counts[d["type"]] = counts.get(d["type"], 0) + 1
    print(fn, sum(counts.values()), counts)
    fn = "icml2026_chats_fresh4.jsonl"; ids = set(); nconv = 0; tc = {}
    for l in open(os.path.join(HERE, fn), encoding="utf-8"):
        d = json.loads(l); nconv += 1
        if d.get("type") != "chat" or not d.get("turns"): errs.append(f"{fn}:{d.get('id')} bad chat")
        if d["id"] in ids: errs.append(f"{fn}:{d['id']} duplicate id")
        ids.add(d["id"]); tids = set()
        for k, t in enumerate(d["turns"], 1):
            check(fn, f"{d['id']}#{k}", t, tids); tc[t["type"]] = tc.get(t["type"], 0) + 1
    print(fn, nconv, "conversations", tc)
    for fname, m in ooc.items():
        if fname.startswith("_"): continue
        for qid in m:
            if not os.path.exists(os.path.join(HERE, fname)): errs.append(f"ooc_terms: unknown file {fname}")
    for e in errs: print("FAIL", e)
    print("PASS" if not errs else f"{len(errs)} problem(s)")
    return 1 if errs else 0

if __name__ == "__main__":
    sys.exit(main())
