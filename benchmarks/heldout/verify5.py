#!/usr/bin/env python3
"""Standard-library checker for the heldout5 question files."""
import json, glob, os, re, sys, collections
D = os.path.dirname(os.path.abspath(__file__)) + "/"
SHARED = os.environ.get("ASSISTANT_SHARED_DIR") or os.path.join(D, "..", "..", "..", "shared")
ICML = os.path.join(SHARED, "data/icml2026/icml2026_abstracts.txt")
AIRAS = os.path.join(SHARED, "data/airas-papers-db/data/")
errors = []
def err(m): errors.append(m)

def norm(s):
    s = s.replace("\\%", "%").replace("\\times", "×").replace("\\alpha", "α").replace("\\ell", "ℓ")
    s = s.replace("``", '"').replace("''", '"')
    for ch in "${}^*": s = s.replace(ch, "")
    for ch in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212": s = s.replace(ch, "-")
    s = re.sub(r"-{2,}", "-", s)
    for ch in "\u2018\u2019\u201a`": s = s.replace(ch, "'")
    for ch in "\u201c\u201d\u201e": s = s.replace(ch, '"')
    s = re.sub(r"\s+", " ", s)
    return s.casefold()

# ICML collection
paras = open(ICML, encoding="utf-8").read().split("\n\n")
abstracts = [p.strip() for p in paras[1:] if p.strip()]
assert len(abstracts) == 19, len(abstracts)
nabs = [norm(a) for a in abstracts]
ooc = json.load(open(D + "ooc_terms5.json", encoding="utf-8"))
used_ooc = set()

def check_ooc(key, ntexts):
    used_ooc.add(key)
    terms = ooc.get(key)
    if not terms or not (2 <= len(terms) <= 4):
        err(f"{key}: needs 2-4 ooc terms, has {terms}"); return
    for t in terms:
        nt = norm(t)
        hits = sum(nt in x for x in ntexts)
        if hits: err(f"{key}: ooc term {t!r} occurs in {hits} abstract(s)")

def check_fact_str(key, f):
    if not isinstance(f, str) or not f.strip(): err(f"{key}: empty/non-str fact"); return False
    if any(c in f for c in "%$\\"): err(f"{key}: fact {f!r} contains % $ or backslash"); return False
    return True

def check_icml_q(key, q):
    t = q.get("type")
    if t not in ("single", "multi", "out_of_corpus", "not_in_abstract"): err(f"{key}: bad type {t}"); return
    if not isinstance(q.get("q"), str) or not q["q"].strip(): err(f"{key}: empty q")
    gold, facts = q.get("gold"), q.get("facts")
    if not isinstance(gold, list) or not isinstance(facts, list): err(f"{key}: gold/facts not lists"); return
    idx = []
    for g in gold:
        hits = [i for i, a in enumerate(abstracts) if g in a]
        if len(hits) != 1: err(f"{key}: gold {g!r} matches {len(hits)} abstracts")
        else: idx.append(hits[0])
    if len(set(idx)) != len(idx): err(f"{key}: two golds identify the same abstract")
    if t == "out_of_corpus":
        if gold or facts: err(f"{key}: out_of_corpus must have empty gold/facts")
        check_ooc(key, nabs)
        return
    if t == "single" and len(gold) != 1: err(f"{key}: single needs exactly 1 gold")
    if t == "multi" and len(gold) < 2: err(f"{key}: multi needs >=2 gold")
    if t == "not_in_abstract":
        if facts: err(f"{key}: not_in_abstract must have no facts")
        if len(gold) < 1: err(f"{key}: not_in_abstract needs a gold paper")
    for f in facts:
        if check_fact_str(key, f) and not any(norm(f) in nabs[i] for i in idx):
            err(f"{key}: fact {f!r} not in any gold abstract")

counts = collections.Counter()
def load(fn):
    rows = []
    for n, line in enumerate(open(D + fn, encoding="utf-8"), 1):
        if not line.strip(): continue
        try: rows.append(json.loads(line))
        except Exception as e: err(f"{fn}:{n}: parse error {e}")
    ids = [r.get("id") for r in rows]
    for i, c in collections.Counter(ids).items():
        if c > 1: err(f"{fn}: duplicate id {i}")
    return rows

qs = load("icml2026_fresh5.jsonl")
for q in qs:
    if not str(q.get("id", "")).startswith("f5"): err(f"{q.get('id')}: id prefix")
    check_icml_q(q["id"], q); counts["icml:" + q.get("type", "?")] += 1

chats = load("icml2026_chats_fresh5.jsonl")
for c in chats:
    if not re.fullmatch(r"c5\d\d", str(c.get("id"))): err(f"{c.get('id')}: chat id format")
    if c.get("type") != "chat": err(f"{c.get('id')}: type must be chat")
    turns = c.get("turns", [])
    if len(turns) != 3: err(f"{c.get('id')}: expected 3 turns, has {len(turns)}")
    for k, t in enumerate(turns, 1):
        check_icml_q(f"{c['id']}#{k}", t); counts["chat_turn:" + t.get("type", "?")] += 1

# airas
recs = {}
for f in sorted(glob.glob(AIRAS + "*/*.json")):
    for r in json.load(open(f, encoding="utf-8")):
        recs.setdefault((r["conference"], r["year"], r["id"]), r)
titles = collections.Counter((r["conference"], r["year"], r["title"]) for r in recs.values())
atexts = [norm(r["title"] + " " + (r["abstract"] or "")) for r in recs.values()]
aq = load("airas_fresh5.jsonl")
for q in aq:
    key, t = q.get("id"), q.get("type")
    for fld in ("q", "gold", "gold_ids", "venue", "year", "facts"):
        if fld not in q: err(f"{key}: missing {fld}")
    if t == "single":
        if not re.fullmatch(r"a5k\d\d", key): err(f"{key}: id format")
        if len(q["gold"]) != 1 or len(q["gold_ids"]) != 1: err(f"{key}: need 1 gold and 1 gold_id"); continue
        r = recs.get((q["venue"], q["year"], q["gold_ids"][0]))
        if r is None: err(f"{key}: gold_id not found in {q['venue']} {q['year']}"); continue
        if r["title"] != q["gold"][0]: err(f"{key}: title mismatch {r['title']!r}")
        if titles[(q["venue"], q["year"], q["gold"][0])] != 1: err(f"{key}: title not unique in venue/year")
        na = norm(r["abstract"] or "")
        for f in q["facts"]:
            if check_fact_str(key, f) and norm(f) not in na: err(f"{key}: fact {f!r} not in abstract")
    elif t == "out_of_corpus":
        if not re.fullmatch(r"a5o\d\d", key): err(f"{key}: id format")
        if q["gold"] or q["gold_ids"] or q["facts"] or q["venue"] is not None or q["year"] is not None:
            err(f"{key}: out_of_corpus must have empty gold/gold_ids/facts, null venue/year")
        check_ooc(key, atexts)
    else: err(f"{key}: bad type {t}")
    counts["airas:" + str(t)] += 1

for k in ooc:
    if k not in used_ooc: err(f"ooc_terms5.json: key {k} is not an out_of_corpus question")

if errors:
    print("\n".join(errors)); print(f"FAILED: {len(errors)} error(s)"); sys.exit(1)
print("OK", f"icml={len(qs)} chats={len(chats)} turns={sum(len(c['turns']) for c in chats)} airas={len(aq)} ooc_terms={len(ooc)}")
print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
