"""Verify the fresh2 eval files: format, counts, gold uniqueness, facts in rendered gold abstracts,
out-of-corpus keyword absence."""
import json, re, glob, sys, unicodedata
from collections import Counter
import os
D = os.path.dirname(os.path.abspath(__file__)) + "/"
SHARED = os.path.join(D, "..", "..", "..", "shared")
ICML = os.path.join(SHARED, "data/icml2026/icml2026_abstracts.txt")
AIRAS = os.path.join(SHARED, "data/airas-papers-db/data") + "/"
errors = []
def err(m): errors.append(m)

def render(s):
    s = s.replace("\\%", "%").replace("\\times", "×").replace("\\alpha", "α").replace("\\ell", "ℓ")
    s = re.sub(r"\\(mathsf|mathbb|mathrm|text|mathbf|mathcal)\b", "", s)
    s = s.replace("$", "").replace("^", "").replace("_", "").replace("{", "").replace("}", "")
    s = s.replace("**", "").replace("*", "")
    s = s.replace("``", '"').replace("''", '"')
    for d in ["---", "--", "—", "–", "‐", "‑"]: s = s.replace(d, "-")
    for q in ["“", "”"]: s = s.replace(q, '"')
    for q in ["‘", "’", "`"]: s = s.replace(q, "'")
    s = unicodedata.normalize("NFKC", s)
    return re.sub(r"\s+", " ", s).casefold()

def fact_ok(fact, text):
    return render(fact) in render(text)

def check_fact_form(fid, f):
    if "$" in f or "\\" in f or "%" in f: err(f"{fid}: fact has LaTeX or %: {f!r}")
    if re.fullmatch(r"\d", f.strip()): err(f"{fid}: tiny-number fact {f!r}")

# ---------- ICML
paras = [p.strip() for p in open(ICML, encoding="utf-8").read().split("\n\n") if p.strip()][1:]
assert len(paras) == 19, len(paras)
def gold_idx(g):
    hits = [i for i, p in enumerate(paras) if g in p]
    return hits

ICML_OOC_ABSENT = {  # keyword regexes (case-insensitive) that must match no ICML abstract
 "go01": [r"speculative", r"draft model"], "go02": [r"mixture[- ]of[- ]experts", r"\bMoE\b", r"routing"],
 "go03": [r"\bLoRA\b", r"adapter", r"parameter[- ]efficient"], "go04": [r"prun", r"sparsif", r"sparsity"],
 "go05": [r"\bimages?\b", r"text-to-image"], "go06": [r"retriev", r"\bRAG\b"],
 "go07": [r"privacy"], "go08": [r"watermark"],
 "gc03/3": [r"tokeniz", r"vocabular"], "gc07/3": [r"jailbreak", r"\battack"],
}
def check_item(qid, x, kinds):
    for fld in ("q", "type", "gold", "facts"):
        if fld not in x: err(f"{qid}: missing {fld}")
    t = x["type"]
    if t not in kinds: err(f"{qid}: bad type {t}")
    golds = x["gold"]; facts = x["facts"]
    idx = []
    for g in golds:
        h = gold_idx(g)
        if len(h) != 1: err(f"{qid}: gold {g!r} matches {len(h)} abstracts")
        else: idx.append(h[0])
    if len(set(idx)) != len(idx): err(f"{qid}: duplicate gold papers")
    if t == "out_of_corpus":
        if golds or facts: err(f"{qid}: ooc must have empty gold/facts")
        key = qid if qid in ICML_OOC_ABSENT else None
        if key is None: err(f"{qid}: no absence keywords registered")
        else:
            for kw in ICML_OOC_ABSENT[key]:
                h = [i for i, p in enumerate(paras) if re.search(kw, p, re.I)]
                if h: err(f"{qid}: absence keyword {kw!r} found in abstracts {h}")
    elif t == "not_in_abstract":
        if facts: err(f"{qid}: nia must have empty facts")
        if len(golds) != 1: err(f"{qid}: nia needs one gold")
    else:
        if not golds: err(f"{qid}: needs gold")
        if t == "single" and len(golds) != 1: err(f"{qid}: single needs 1 gold")
        if t == "multi" and len(golds) < 2: err(f"{qid}: multi needs >=2 gold")
    for f in facts:
        check_fact_form(qid, f)
        if not any(fact_ok(f, paras[i]) for i in idx): err(f"{qid}: fact {f!r} not in rendered gold abstract(s)")
    return t

qs = [json.loads(l) for l in open(D + "icml2026_fresh2.jsonl", encoding="utf-8")]
ids = [q["id"] for q in qs]
if len(set(ids)) != len(ids): err("icml: duplicate ids")
cnt = Counter()
for q in qs:
    if not q["id"].startswith("g"): err(f"{q['id']}: id must start with g")
    t = check_item(q["id"], q, {"single", "multi", "out_of_corpus", "not_in_abstract"})
    cnt[q["id"][:2] + ":" + t] += 1
print("icml2026_fresh2.jsonl:", len(qs), dict(sorted(cnt.items())))
# non-English check for gl
for q in qs:
    if q["id"].startswith("gl") and all(ord(c) < 128 for c in q["q"].replace("?", "")) and not re.search(r"\b(welche|quel|qué|existe|und)\b", q["q"], re.I):
        err(f"{q['id']}: does not look non-English")

chats = [json.loads(l) for l in open(D + "icml2026_chats_fresh2.jsonl", encoding="utf-8")]
ccnt = Counter()
for c in chats:
    if c.get("type") != "chat" or not c["id"].startswith("g"): err(f"{c['id']}: bad chat header")
    if not 2 <= len(c["turns"]) <= 4: err(f"{c['id']}: {len(c['turns'])} turns")
    for j, t in enumerate(c["turns"], 1):
        ccnt[check_item(f"{c['id']}/{j}", t, {"single", "multi", "out_of_corpus", "not_in_abstract"})] += 1
print("icml2026_chats_fresh2.jsonl:", len(chats), "chats,", sum(ccnt.values()), "turns", dict(ccnt))

# ---------- airas
recs = {}
alltext = []
for f in sorted(glob.glob(AIRAS + "*/*.json")):
    for r in json.load(open(f, encoding="utf-8")):
        recs.setdefault((r["conference"], r["year"]), []).append(r)
        alltext.append(r["title"] + " \n " + (r["abstract"] or ""))
AIRAS_OOC_ABSENT = {  # each entry: list of groups; a group is a list of regexes that must not all co-occur in one paper
 "gao01": [[r"\beagle\b", r"speculative"], [r"\beagle\b", r"draft"], [r"second-to-top"]],
 "gao02": [[r"group relative"], [r"\bGRPO\b"], [r"verifiable reward"]],
 "gao03": [[r"kolmogorov-arnold"], [r"\bKANs?\b"], [r"learnable activation"]],
 "gao04": [[r"model context protocol"], [r"tool server"], [r"\bMCP\b", r"agent"]],
 "gao05": [[r"graphrag"], [r"community summar"], [r"knowledge graph", r"retrieval-augmented", r"communit"]],  # REVEAL (CVPR 2023, KG triplets in a VL memory) is a near miss, not GraphRAG
 "gao06": [[r"earthquake"], [r"aftershock"]],
 "gao07": [[r"honeybee"], [r"\bbees?\b"], [r"\bhives?\b"]],
 "gao08": [[r"espresso"], [r"brewing"], [r"coffee", r"recipe"]],
}
COLLIDE = {"gao01": r"\bEAGLE\b"}  # name collision: must occur in an unrelated title
A = [json.loads(l) for l in open(D + "airas_fresh2.jsonl", encoding="utf-8")]
acnt = Counter(); vy = Counter()
if len(set(a["id"] for a in A)) != len(A): err("airas: duplicate ids")
for a in A:
    for fld in ("id", "type", "q", "gold", "gold_ids", "venue", "year", "facts"):
        if fld not in a: err(f"{a['id']}: missing {fld}")
    acnt[a["type"]] += 1
    if a["type"] == "single":
        if not a["id"].startswith("gak"): err(f"{a['id']}: prefix")
        pool = recs.get((a["venue"], a["year"]), [])
        title = a["gold"][0]
        byid = {r["id"]: r for r in pool if r["title"] == title}
        if len(byid) != 1: err(f"{a['id']}: title occurs with {len(byid)} ids in {a['venue']} {a['year']}")
        if a["gold_ids"][0] not in byid: err(f"{a['id']}: gold_id mismatch")
        else:
            ab = byid[a["gold_ids"][0]]["abstract"]
            for f in a["facts"]:
                check_fact_form(a["id"], f)
                if not fact_ok(f, ab): err(f"{a['id']}: fact {f!r} not in abstract")
        if render(title) in render(a["q"]): err(f"{a['id']}: question repeats the title")
        vy[(a["venue"], a["year"])] += 1
    elif a["type"] == "out_of_corpus":
        if not a["id"].startswith("gao"): err(f"{a['id']}: prefix")
        if a["gold"] or a["gold_ids"] or a["facts"] or a["venue"] is not None or a["year"] is not None:
            err(f"{a['id']}: ooc fields must be empty/null")
        for grp in AIRAS_OOC_ABSENT.get(a["id"], [None]):
            if grp is None: err(f"{a['id']}: no absence keywords"); continue
            n = sum(1 for t in alltext if all(re.search(k, t, re.I) for k in grp))
            if n: err(f"{a['id']}: keywords {grp} co-occur in {n} papers")
        if a["id"] in COLLIDE:
            n = sum(1 for t in alltext if re.search(COLLIDE[a["id"]], t.split(" \n ")[0]))
            if n < 1: err(f"{a['id']}: expected a colliding title")
            else: print(f"  {a['id']}: name collides with {n} unrelated title(s)")
    else: err(f"{a['id']}: bad type")
if len(vy) != 11: err(f"airas: known items cover {len(vy)} venue/year files, expected 11")
print("airas_fresh2.jsonl:", len(A), dict(acnt), "venue/year files covered:", len(vy),
      "with facts:", sum(1 for a in A if a["facts"]))
if errors:
    print("FAILED:"); [print("  -", e) for e in errors]; sys.exit(1)
print("ALL CHECKS PASSED")
