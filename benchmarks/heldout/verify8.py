#!/usr/bin/env python3
"""Check the fresh8 held-out sets (stdlib only)."""
import json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.environ.get("ASSISTANT_SHARED_DIR") or os.path.join(HERE, "..", "..", "..", "shared"), "data")
errors = []
def err(msg): errors.append(msg)

def render(t):
    t = t.replace("\\%", "%").replace("\\times", "×").replace("\\alpha", "α").replace("\\ell", "ℓ")
    t = t.replace("$", "")
    t = re.sub(r"\\([a-zA-Z]+)", r"\1", t)
    t = t.replace("^", "").replace("_", "").replace("{", "").replace("}", "")
    t = t.replace("**", "").replace("*", "")
    t = t.replace("``", '"').replace("''", '"')
    for q in "“”„": t = t.replace(q, '"')
    for q in "‘’`": t = t.replace(q, "'")
    t = re.sub(r"---|--|[—–‐‑]", "-", t)
    return t.casefold()

NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")
def nums(t):
    out = set()
    for m in NUM.finditer(t):
        s = m.group().rstrip(",").replace(",", "")
        try: out.add(float(s))
        except ValueError: pass
    return out

def fact_in(fact, text):
    r = render(text)
    f = render(fact)
    if re.fullmatch(r"\d[\d,]*(?:\.\d+)?", fact):
        return float(fact.replace(",", "")) in nums(r)
    return f in r

# ---------- ICML 2026 ----------
lines = open(os.path.join(DATA, "icml2026", "icml2026_abstracts.txt"), encoding="utf-8").read().split("\n")
abstracts = [p.strip() for p in "\n".join(lines[1:]).split("\n\n") if p.strip()]
print(f"icml abstracts: {len(abstracts)}")
ooc = json.load(open(os.path.join(HERE, "ooc_terms8.json"), encoding="utf-8"))
used_ooc = set()

def check_icml_item(qid, it):
    typ = it.get("type")
    for k in ("q", "type", "gold", "facts"):
        if k not in it: err(f"{qid}: missing {k}")
    if typ not in ("single", "multi", "out_of_corpus", "not_in_abstract"):
        err(f"{qid}: bad type {typ}"); return
    gold, facts = it["gold"], it["facts"]
    if typ == "out_of_corpus":
        if gold or facts: err(f"{qid}: ooc must have empty gold/facts")
        terms = ooc.get(qid)
        if not terms: err(f"{qid}: no ooc terms"); return
        used_ooc.add(qid)
        for t in terms:
            for i, a in enumerate(abstracts):
                if t.casefold() in a.casefold() or t.casefold() in render(a):
                    err(f"{qid}: ooc term {t!r} found in abstract {i+1}")
        return
    if not gold: err(f"{qid}: empty gold")
    if typ == "not_in_abstract" and facts: err(f"{qid}: not_in_abstract must have empty facts")
    if typ == "single" and len(gold) != 1: err(f"{qid}: single needs 1 gold")
    if typ == "multi" and len(gold) < 2: err(f"{qid}: multi needs >=2 gold")
    idx = []
    for g in gold:
        hits = [i for i, a in enumerate(abstracts) if g in a]
        if len(hits) != 1: err(f"{qid}: gold {g!r} matches {len(hits)} abstracts")
        else: idx.append(hits[0])
    if len(set(idx)) != len(idx): err(f"{qid}: two golds point to the same abstract")
    for f in facts:
        if "$" in f or "\\" in f or "%" in f: err(f"{qid}: fact {f!r} not plain text")
        if not any(fact_in(f, abstracts[i]) for i in idx): err(f"{qid}: fact {f!r} not in gold abstracts")

qs = [json.loads(l) for l in open(os.path.join(HERE, "icml2026_fresh8.jsonl"), encoding="utf-8") if l.strip()]
ids = [q["id"] for q in qs]
if len(set(ids)) != len(ids): err("icml: duplicate ids")
for q in qs: check_icml_item(q["id"], q)
prefix_kind = Counter(re.match(r"e8[a-z]", q["id"]).group() for q in qs)
print("icml questions:", len(qs), dict(prefix_kind), dict(Counter(q["type"] for q in qs)))
exp = {"e8s": 24, "e8m": 9, "e8o": 9, "e8n": 8, "e8l": 5, "e8x": 5}
if dict(prefix_kind) != exp: err(f"icml: counts {dict(prefix_kind)} != {exp}")
for q in qs:
    p = q["id"][:3]
    want = {"e8s": {"single"}, "e8m": {"multi"}, "e8o": {"out_of_corpus"}, "e8n": {"not_in_abstract"},
            "e8l": {"single", "multi"}, "e8x": {"single", "multi"}}[p]
    if q["type"] not in want: err(f"{q['id']}: type {q['type']} not allowed for prefix {p}")

chats = [json.loads(l) for l in open(os.path.join(HERE, "icml2026_chats_fresh8.jsonl"), encoding="utf-8") if l.strip()]
nturns = 0; chat_ooc = 0
for c in chats:
    if c.get("type") != "chat": err(f"{c['id']}: type must be chat")
    if not 2 <= len(c["turns"]) <= 4: err(f"{c['id']}: {len(c['turns'])} turns")
    for k, t in enumerate(c["turns"], 1):
        nturns += 1
        if t["type"] == "out_of_corpus": chat_ooc += 1
        check_icml_item(f"{c['id']}#{k}", t)
print(f"chats: {len(chats)} conversations, {nturns} turns, {chat_ooc} out_of_corpus turns")
if chat_ooc < 2: err("chats: need >= 2 ooc turns")

# ---------- airas ----------
recs = {}
texts = []
base = os.path.join(DATA, "airas-papers-db", "data")
for conf in sorted(os.listdir(base)):
    for fn in sorted(os.listdir(os.path.join(base, conf))):
        if not fn.endswith(".json"): continue
        year = int(fn[:-5])
        seen = {}
        for r in json.load(open(os.path.join(base, conf, fn), encoding="utf-8")):
            seen.setdefault(r["id"], r)
        recs[(conf, year)] = list(seen.values())
        texts += [((r["title"] or "") + " " + (r["abstract"] or "")).casefold() for r in seen.values()]
print(f"airas records (dedup per file): {len(texts)}")
aq = [json.loads(l) for l in open(os.path.join(HERE, "airas_fresh8.jsonl"), encoding="utf-8") if l.strip()]
if len(set(a["id"] for a in aq)) != len(aq): err("airas: duplicate ids")
vy = Counter()
for a in aq:
    qid = a["id"]
    if a["type"] == "out_of_corpus":
        if a["gold"] or a["gold_ids"] or a["facts"] or a["venue"] is not None or a["year"] is not None:
            err(f"{qid}: ooc fields must be empty/null")
        terms = ooc.get(qid)
        if not terms: err(f"{qid}: no ooc terms"); continue
        used_ooc.add(qid)
        for t in terms:
            n = sum(t.casefold() in x for x in texts)
            if n: err(f"{qid}: ooc term {t!r} found in {n} airas records")
        continue
    if a["type"] != "single": err(f"{qid}: bad type")
    key = (a["venue"], a["year"])
    if key not in recs: err(f"{qid}: unknown venue/year {key}"); continue
    vy[key] += 1
    title, gid = a["gold"][0], a["gold_ids"][0]
    by_title = [r for r in recs[key] if r["title"] == title]
    if len(by_title) != 1: err(f"{qid}: title found {len(by_title)}x in {key}"); continue
    r = by_title[0]
    if r["id"] != gid: err(f"{qid}: id mismatch {r['id']} != {gid}")
    if r["conference"] != a["venue"] or r["year"] != a["year"]: err(f"{qid}: record venue/year mismatch")
    if title.casefold() in a["q"].casefold(): err(f"{qid}: question contains the title")
    for f in a["facts"]:
        if "$" in f or "%" in f: err(f"{qid}: fact not plain")
        if not fact_in(f, r["abstract"]): err(f"{qid}: fact {f!r} not in abstract")
print("airas:", dict(Counter(a["type"] for a in aq)), f"{len(vy)} venue/year files, facts on",
      sum(1 for a in aq if a["facts"]))
unused = set(ooc) - used_ooc
if unused: err(f"ooc_terms8.json has unused ids {sorted(unused)}")

for e in errors: print("ERROR:", e)
print("OK: no errors" if not errors else f"FAILED: {len(errors)} errors")
sys.exit(1 if errors else 0)
