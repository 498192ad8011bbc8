#!/usr/bin/env python3
"""Checks the heldout6 question files (standard library only)."""
import json, re, glob, os, sys
D = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("ASSISTANT_SHARED_DIR") or os.path.join(D, "..", "..", "..", "shared")
ICML = os.path.join(SHARED, "data/icml2026/icml2026_abstracts.txt")
AIRAS = os.path.join(SHARED, "data/airas-papers-db/data")
errors = []
def err(m): errors.append(m)

def render(s):
    s = s.replace("\\%", "%").replace("\\times", "×").replace("\\alpha", "α").replace("\\ell", "ℓ")
    s = s.replace("$", "").replace("{", "").replace("}", "").replace("^", "").replace("_", "")
    s = s.replace("**", "").replace("*", "")
    for a in "\u2010\u2011\u2012\u2013\u2014\u2212": s = s.replace(a, "-")
    s = s.replace("---", "-").replace("--", "-")
    for a in "\u2018\u2019`": s = s.replace(a, "'")
    for a in "\u201c\u201d": s = s.replace(a, '"')
    s = s.replace("''", '"')
    return re.sub(r"\s+", " ", s).casefold()

NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")
def nums(s): return {float(x.replace(",", "")) for x in NUM.findall(s)}
def fact_in(fact, text):
    f = render(fact)
    if f in text: return True
    if re.fullmatch(r"[\d.,]+", fact.strip()):
        return float(fact.replace(",", "")) in nums(text)
    return False

raw = open(ICML, encoding="utf-8").read().split("\n", 1)[1]
abstracts = [p.strip() for p in re.split(r"\n\s*\n", raw) if p.strip()]
if len(abstracts) != 19: err(f"expected 19 abstracts, got {len(abstracts)}")
rendered = [render(a) for a in abstracts]

QF = {"id", "type", "q", "gold", "facts"}
TYPES = {"single", "multi", "out_of_corpus", "not_in_abstract"}
def check_q(tag, o):
    miss = QF - set(o)
    if miss: err(f"{tag}: missing {miss}"); return
    if o["type"] not in TYPES: err(f"{tag}: bad type {o['type']}")
    if not isinstance(o["q"], str) or not o["q"].strip(): err(f"{tag}: empty q")
    idx = []
    for g in o["gold"]:
        hits = [i for i, a in enumerate(abstracts) if g in a]
        if len(hits) != 1: err(f"{tag}: gold {g!r} matches {len(hits)} abstracts")
        else: idx.append(hits[0])
    if len(set(idx)) != len(idx): err(f"{tag}: duplicate gold papers")
    t = o["type"]
    if t == "out_of_corpus" and (o["gold"] or o["facts"]): err(f"{tag}: ooc with gold/facts")
    if t == "not_in_abstract" and (len(o["gold"]) < 1 or o["facts"]): err(f"{tag}: nia needs gold, no facts")
    if t == "single" and len(o["gold"]) != 1: err(f"{tag}: single needs 1 gold")
    if t == "multi" and len(o["gold"]) < 2: err(f"{tag}: multi needs >=2 gold")
    for f in o["facts"]:
        if "%" in f or "$" in f or "\\" in f: err(f"{tag}: fact not plain {f!r}")
        if not any(fact_in(f, rendered[i]) for i in idx): err(f"{tag}: fact {f!r} not in gold abstracts")

def load(name):
    out = []
    with open(os.path.join(D, name), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            try: out.append(json.loads(line))
            except Exception as e: err(f"{name}:{n}: parse error {e}")
    ids = [o.get("id") for o in out]
    if len(set(ids)) != len(ids): err(f"{name}: duplicate ids")
    return out

ooc = json.load(open(os.path.join(D, "ooc_terms6.json"), encoding="utf-8"))
def check_ooc_terms(tag, terms, texts):
    if not terms: err(f"{tag}: no ooc terms")
    for t in terms:
        n = sum(t.casefold() in x for x in texts)
        if n: err(f"{tag}: ooc term {t!r} found in {n} texts")

from collections import Counter
summary = {}
# 1. ICML questions
qs = load("icml2026_fresh6.jsonl")
for o in qs: check_q(o.get("id"), o)
summary["icml2026_fresh6"] = Counter(o["id"][0] + ":" + o["type"] for o in qs)
icml_lower = [a.casefold() for a in abstracts] + rendered
for o in qs:
    if o["type"] == "out_of_corpus":
        check_ooc_terms(o["id"], ooc["icml2026_fresh6.jsonl"].get(o["id"]), icml_lower)
# 2. chats
chats = load("icml2026_chats_fresh6.jsonl")
nt = Counter()
for c in chats:
    if set(c) != {"id", "type", "turns"} or c["type"] != "chat": err(f"{c.get('id')}: bad chat fields")
    if not 2 <= len(c["turns"]) <= 4: err(f"{c['id']}: {len(c['turns'])} turns")
    for k, t in enumerate(c["turns"], 1):
        tag = f"{c['id']}/{k}"
        check_q(tag, dict(t, id=tag)); nt[t["type"]] += 1
        if set(t) != {"q", "type", "gold", "facts"}: err(f"{tag}: turn fields {set(t)}")
        if t["type"] == "out_of_corpus":
            check_ooc_terms(tag, ooc["icml2026_chats_fresh6.jsonl"].get(tag), icml_lower)
summary["chats"] = Counter({"conversations": len(chats), "turns": sum(nt.values()), **nt})
# 3. airas
recs = {}
alltexts = []
for fn in sorted(glob.glob(os.path.join(AIRAS, "*", "*.json"))):
    for r in json.load(open(fn, encoding="utf-8")):
        recs.setdefault((r["conference"], r["year"]), []).append(r)
        alltexts.append((r["title"] + " " + (r["abstract"] or "")).casefold())
AF = {"id", "type", "q", "gold", "gold_ids", "venue", "year", "facts"}
aq = load("airas_fresh6.jsonl")
for o in aq:
    tag = o.get("id")
    if set(o) != AF: err(f"{tag}: fields {set(o) ^ AF}"); continue
    if o["type"] == "single":
        if not tag.startswith("ak"): err(f"{tag}: bad prefix")
        rs = recs.get((o["venue"], o["year"]), [])
        byid = {r["id"]: r for r in rs if r["id"] == o["gold_ids"][0]}
        titles = {r["id"] for r in rs if r["title"] == o["gold"][0]}
        if len(o["gold"]) != 1 or len(o["gold_ids"]) != 1: err(f"{tag}: need one gold")
        elif not byid: err(f"{tag}: id not in {o['venue']} {o['year']}")
        elif titles != {o["gold_ids"][0]}: err(f"{tag}: title does not match exactly one id ({titles})")
        else:
            r = byid[o["gold_ids"][0]]
            t = render(r["abstract"] or "")
            for f in o["facts"]:
                if not fact_in(f, t): err(f"{tag}: fact {f!r} not in abstract")
            words = set(re.findall(r"[a-z]{5,}", o["q"].casefold())) & set(re.findall(r"[a-z]{5,}", r["title"].casefold()))
            if o["gold"][0].casefold() in o["q"].casefold(): err(f"{tag}: question contains title")
    elif o["type"] == "out_of_corpus":
        if not tag.startswith("ao"): err(f"{tag}: bad prefix")
        if o["gold"] or o["gold_ids"] or o["venue"] is not None or o["year"] is not None or o["facts"]:
            err(f"{tag}: ooc fields not empty")
        check_ooc_terms(tag, ooc["airas_fresh6.jsonl"].get(tag), alltexts)
    else: err(f"{tag}: bad type")
summary["airas_fresh6"] = Counter(o["type"] for o in aq)
summary["airas venues"] = Counter(f"{o['venue']}{o['year']}" for o in aq if o["venue"])
summary["airas facts"] = Counter(has_fact=sum(bool(o["facts"]) for o in aq))
for k, v in summary.items(): print(k, dict(sorted(v.items())))
if errors:
    print("\n".join("ERROR " + e for e in errors)); print(f"FAILED: {len(errors)} errors"); sys.exit(1)
print("all OK")
