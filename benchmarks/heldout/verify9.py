#!/usr/bin/env python3
"""Check the held-out set 9 (stdlib only)."""
import glob, json, os, re, sys
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("ASSISTANT_SHARED_DIR") or os.path.join(HERE, "..", "..", "..", "shared")
ICML = os.path.join(SHARED, "data", "icml2026", "icml2026_abstracts.txt")
AIRAS = os.path.join(SHARED, "data", "airas-papers-db", "data")
errors = []
def err(m): errors.append(m)

def render(s):
    s = s.replace("\\%", "%").replace("\\times", "×").replace("\\alpha", "α").replace("\\ell", "ℓ")
    s = re.sub(r"\\(mathbb|mathcal|textit|emph|text|mathrm)\b", "", s)
    s = s.replace("$", "").replace("{", "").replace("}", "").replace("^", "").replace("_", "")
    s = s.replace("**", "").replace("*", "")
    s = s.replace("``", '"').replace("''", '"')
    for a, b in [("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'), ("`", "'")]:
        s = s.replace(a, b)
    s = re.sub(r"[\u2010-\u2015]", "-", s)
    s = re.sub(r"-{2,}", "-", s)
    s = re.sub(r"\s+", " ", s)
    return s.casefold()

NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")
def nums(s):
    return {float(m.replace(",", "")) for m in NUM.findall(s)}
def fact_in(fact, text):
    f = render(fact).strip()
    if re.fullmatch(r"\d[\d,]*(?:\.\d+)?", f):
        return float(f.replace(",", "")) in nums(text)
    return f in text

with open(ICML, encoding="utf-8") as fh:
    paras = [p.strip() for p in re.split(r"\n\s*\n", fh.read()) if p.strip()]
abstracts = paras[1:]
rendered = [render(a) for a in abstracts]
print(f"icml abstracts: {len(abstracts)}")

ooc = json.load(open(os.path.join(HERE, "ooc_terms9.json"), encoding="utf-8"))
used_ooc = set()

def check_icml_item(qid, it):
    t = it["type"]
    for k in ("q", "type", "gold", "facts"):
        if k not in it: err(f"{qid}: missing field {k}")
    if t not in ("single", "multi", "out_of_corpus", "not_in_abstract"):
        err(f"{qid}: bad type {t}"); return
    gidx = []
    for g in it["gold"]:
        hits = [i for i, a in enumerate(abstracts) if g in a]
        if len(hits) != 1: err(f"{qid}: gold {g!r} matches {len(hits)} abstracts")
        else: gidx.append(hits[0])
    if len(set(gidx)) != len(gidx): err(f"{qid}: duplicate gold papers")
    if t in ("out_of_corpus", "not_in_abstract") and it["facts"]:
        err(f"{qid}: {t} must have empty facts")
    if t == "out_of_corpus":
        if it["gold"]: err(f"{qid}: out_of_corpus with gold")
        terms = ooc.get(qid)
        if not terms: err(f"{qid}: no ooc terms"); return
        used_ooc.add(qid)
        for term in terms:
            bad = [i for i, r in enumerate(rendered) if render(term) in r]
            if bad: err(f"{qid}: ooc term {term!r} found in abstract(s) {bad}")
    else:
        if not it["gold"]: err(f"{qid}: {t} without gold")
        if t == "single" and len(it["gold"]) != 1: err(f"{qid}: single with {len(it['gold'])} gold")
        if t == "multi" and len(it["gold"]) < 2: err(f"{qid}: multi with <2 gold")
    for f in it["facts"]:
        if "%" in f or "$" in f or "\\" in f: err(f"{qid}: fact {f!r} has LaTeX or %")
        if not any(fact_in(f, rendered[i]) for i in gidx):
            err(f"{qid}: fact {f!r} not in gold abstract(s)")

ids = set(); counts = {}
for line in open(os.path.join(HERE, "icml2026_fresh9.jsonl"), encoding="utf-8"):
    it = json.loads(line); qid = it["id"]
    if qid in ids: err(f"dup id {qid}")
    ids.add(qid)
    pre = re.match(r"g9[a-z]", qid).group(0)
    counts[pre] = counts.get(pre, 0) + 1
    check_icml_item(qid, it)
print("icml2026_fresh9 counts:", counts, "total", len(ids))

nturns = 0; cids = set()
for line in open(os.path.join(HERE, "icml2026_chats_fresh9.jsonl"), encoding="utf-8"):
    c = json.loads(line)
    if c["id"] in cids: err(f"dup chat id {c['id']}")
    cids.add(c["id"])
    if c.get("type") != "chat": err(f"{c['id']}: type not chat")
    if not 2 <= len(c["turns"]) <= 4: err(f"{c['id']}: {len(c['turns'])} turns")
    for k, t in enumerate(c["turns"], 1):
        nturns += 1
        check_icml_item(f"{c['id']}#{k}", t)
print(f"chats: {len(cids)} conversations, {nturns} turns")

# airas
recs = {}
title_idx = {}
for f in sorted(glob.glob(os.path.join(AIRAS, "*", "*.json"))):
    for r in json.load(open(f, encoding="utf-8")):
        key = (r["conference"], r["year"], r["id"])
        recs.setdefault(key, r)
for (v, y, i), r in recs.items():
    title_idx.setdefault((v, y, r["title"]), set()).add(i)
airas_text = [render(r["title"] + " " + (r["abstract"] or "")) for r in recs.values()]
print(f"airas unique records: {len(recs)}")
acounts = {}; aids = set()
for line in open(os.path.join(HERE, "airas_fresh9.jsonl"), encoding="utf-8"):
    it = json.loads(line); qid = it["id"]
    if qid in aids: err(f"dup id {qid}")
    aids.add(qid)
    acounts[it["type"]] = acounts.get(it["type"], 0) + 1
    if it["type"] == "single":
        key = (it["venue"], it["year"], it["gold_ids"][0])
        r = recs.get(key)
        if r is None: err(f"{qid}: id not found {key}"); continue
        if r["title"] != it["gold"][0]: err(f"{qid}: title mismatch {r['title']!r}")
        if len(title_idx[(it["venue"], it["year"], it["gold"][0])]) != 1: err(f"{qid}: title not unique in venue/year")
        if it["gold"][0].casefold() in it["q"].casefold(): err(f"{qid}: question contains the title")
        ra = render(r["abstract"] or "")
        for f in it["facts"]:
            if "%" in f: err(f"{qid}: fact has %")
            if not fact_in(f, ra): err(f"{qid}: fact {f!r} not in abstract")
    elif it["type"] == "out_of_corpus":
        if it["gold"] or it["gold_ids"] or it["facts"] or it["venue"] is not None or it["year"] is not None:
            err(f"{qid}: ooc fields not empty")
        terms = ooc.get(qid)
        if not terms: err(f"{qid}: no ooc terms"); continue
        used_ooc.add(qid)
        for term in terms:
            n = sum(render(term) in x for x in airas_text)
            if n: err(f"{qid}: ooc term {term!r} found in {n} airas records")
    else:
        err(f"{qid}: bad type")
print("airas_fresh9 counts:", acounts)
venues = {(json.loads(l)["venue"], json.loads(l)["year"]) for l in open(os.path.join(HERE, "airas_fresh9.jsonl")) if json.loads(l)["venue"]}
print("airas venue/year files covered:", len(venues))
for k in ooc:
    if k not in used_ooc: err(f"ooc_terms9.json key {k} not used by an out_of_corpus question")

if errors:
    print(f"FAIL: {len(errors)} error(s)")
    for e in errors: print("  -", e)
    sys.exit(1)
print("OK: all checks passed")
