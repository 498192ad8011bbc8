#!/usr/bin/env python3
"""Check the held-out set in this folder (stdlib only).

- every line of every jsonl file parses and has the fields of its format;
- every ICML gold is a substring (case-sensitive, raw text) of exactly one abstract;
- every airas gold title occurs exactly once in its venue/year (records deduplicated on id)
  and that record's id equals gold_ids[0];
- every fact occurs in a gold abstract after rendering simple LaTeX/markdown (numbers as numbers);
- every out_of_corpus question (and chat turn) has ooc terms, and no term occurs in any
  abstract (or airas title) of the collection it targets.
Prints errors, then a summary; exit code 1 if there were errors.

Usage: ``python3 verify_set.py N`` checks ``icml2026_freshN.jsonl``, ``icml2026_chats_freshN.jsonl``,
``airas_freshN.jsonl`` and ``ooc_termsN.json`` (sets 10 to 56 were written in this format; the older
sets keep their own ``verifyN.py``).
"""
import glob
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("ASSISTANT_SHARED_DIR") or os.path.join(HERE, "..", "..", "..", "shared")
ICML = os.path.join(SHARED, "data", "icml2026", "icml2026_abstracts.txt")
AIRAS = os.path.join(SHARED, "data", "airas-papers-db", "data")
TYPES = {"single", "multi", "out_of_corpus", "not_in_abstract"}
SET = sys.argv[1] if len(sys.argv) > 1 else "13"
errors = []


def err(msg):
    errors.append(msg)
    print("ERROR:", msg)


MACROS = {r"\%": "%", r"\times": "×", r"\alpha": "α", r"\beta": "β", r"\ell": "ℓ",
          r"\kappa": "κ", r"\epsilon": "ε", r"\varepsilon": "ε", r"\delta": "δ",
          r"\sim": "~", r"\approx": "≈", r"\leq": "≤", r"\geq": "≥", r"\neq": "≠",
          r"\cdot": "·", r"\,": " ", r"\&": "&", r"\_": "_"}


def render(s):
    s = s.replace("``", '"').replace("''", '"')
    for k in sorted(MACROS, key=len, reverse=True):
        s = s.replace(k, MACROS[k])
    s = re.sub(r"\\(emph|textbf|textit|mathrm|mathcal|rm|text|tilde|widetilde|mathbf)\b", "", s)
    s = re.sub(r"\\[A-Za-z]+", "", s)          # other macros dropped
    s = s.replace("$", "").replace("{", "").replace("}", "")
    s = s.replace("^", "").replace("**", "").replace("*", "")
    s = re.sub(r"(?<=\w)_(?=\w)", "", s)
    for d in ("—", "–", "‑", "−"):
        s = s.replace(d, "-")
    s = s.replace("--", "-")
    for q in ("“", "”", "„"):
        s = s.replace(q, '"')
    for q in ("’", "‘", "`"):
        s = s.replace(q, "'")
    s = s.replace("ﬁ", "fi").replace("ﬂ", "fl")
    s = re.sub(r"\s+", " ", s)
    return s.casefold()


NUM = re.compile(r"^\d[\d,]*(\.\d+)?$")


def fact_in(fact, text):
    """text already rendered."""
    f = render(fact)
    if NUM.match(f):
        t = re.sub(r"(?<=\d),(?=\d{3})", "", text)
        f = f.replace(",", "")
        return re.search(r"(?<![\d.])" + re.escape(f) + r"(?!\.?\d)", t) is not None
    return f in text


def load_jsonl(name):
    path = os.path.join(HERE, name)
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                err(f"{name}:{n}: empty line")
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                err(f"{name}:{n}: does not parse: {e}")
    ids = Counter(o.get("id") for o in out)
    for i, c in ids.items():
        if c > 1:
            err(f"{name}: duplicate id {i}")
    return out


# ---------- collections ----------
with open(ICML, encoding="utf-8") as fh:
    paras = [p.strip() for p in re.split(r"\n\s*\n", fh.read()) if p.strip()]
icml_abs = paras[1:]  # first paragraph is the heading line
icml_rendered = [render(a) for a in icml_abs]
assert len(icml_abs) == 19, len(icml_abs)

airas = {}  # (venue, year) -> {id: record}
for f in sorted(glob.glob(os.path.join(AIRAS, "*", "*.json"))):
    with open(f, encoding="utf-8") as fh:
        for r in json.load(fh):
            airas.setdefault((r["conference"], r["year"]), {}).setdefault(r["id"], r)
airas_text = [((r.get("title") or "") + " \n " + (r.get("abstract") or "")) for d in airas.values() for r in d.values()]
airas_raw_lower = [t.lower() for t in airas_text]
airas_rendered = [render(t) for t in airas_text]


def icml_gold_index(g, where):
    hits = [i for i, a in enumerate(icml_abs) if g in a]
    if len(hits) != 1:
        err(f"{where}: gold {g!r} matches {len(hits)} abstracts (needs exactly 1)")
        return None
    return hits[0]


def check_icml_item(q, where):
    for fld in ("q", "type", "gold", "facts"):
        if fld not in q:
            err(f"{where}: missing field {fld}")
            return
    t = q["type"]
    if t not in TYPES:
        err(f"{where}: bad type {t}")
        return
    if not isinstance(q["q"], str) or not q["q"].strip():
        err(f"{where}: empty question")
    golds = [icml_gold_index(g, where) for g in q["gold"]]
    if None in golds:
        return
    if len(set(golds)) != len(golds):
        err(f"{where}: two golds name the same abstract")
    n = len(golds)
    if t == "single" and n != 1:
        err(f"{where}: single needs 1 gold, has {n}")
    if t == "multi" and n < 2:
        err(f"{where}: multi needs >=2 golds, has {n}")
    if t == "not_in_abstract" and n < 1:
        err(f"{where}: not_in_abstract needs a gold")
    if t == "out_of_corpus" and n:
        err(f"{where}: out_of_corpus must have empty gold")
    if t in ("out_of_corpus", "not_in_abstract") and q["facts"]:
        err(f"{where}: {t} must have empty facts")
    for f in q["facts"]:
        if "%" in f or "$" in f or "\\" in f:
            err(f"{where}: fact {f!r} is not plain text")
        if not any(fact_in(f, icml_rendered[i]) for i in golds):
            err(f"{where}: fact {f!r} not in its gold abstract(s)")


# ---------- files ----------
with open(os.path.join(HERE, f"ooc_terms{SET}.json"), encoding="utf-8") as fh:
    ooc_terms = json.load(fh)
counts = {}

# icml questions
name = f"icml2026_fresh{SET}.jsonl"
qs = load_jsonl(name)
counts[name] = Counter(q.get("type") for q in qs)
ooc_needed = {name: [], f"icml2026_chats_fresh{SET}.jsonl": [], f"airas_fresh{SET}.jsonl": []}
for q in qs:
    check_icml_item(q, f"{name}:{q.get('id')}")
    if q.get("type") == "out_of_corpus":
        ooc_needed[name].append(q["id"])

# chats
name = f"icml2026_chats_fresh{SET}.jsonl"
chats = load_jsonl(name)
counts[name] = Counter()
for c in chats:
    if c.get("type") != "chat" or not isinstance(c.get("turns"), list) or not c["turns"]:
        err(f"{name}:{c.get('id')}: needs type chat and a list of turns")
        continue
    for k, t in enumerate(c["turns"], 1):
        key = f"{c['id']}#{k}"
        check_icml_item(t, f"{name}:{key}")
        counts[name][t.get("type")] += 1
        if t.get("type") == "out_of_corpus":
            ooc_needed[name].append(key)

# airas
name = f"airas_fresh{SET}.jsonl"
aq = load_jsonl(name)
counts[name] = Counter(q.get("type") for q in aq)
for q in aq:
    where = f"{name}:{q.get('id')}"
    for fld in ("q", "type", "gold", "gold_ids", "facts", "venue", "year"):
        if fld not in q:
            err(f"{where}: missing field {fld}")
            break
    else:
        if q["type"] == "out_of_corpus":
            ooc_needed[name].append(q["id"])
            if q["gold"] or q["gold_ids"] or q["facts"] or q["venue"] is not None or q["year"] is not None:
                err(f"{where}: out_of_corpus must have empty gold/gold_ids/facts and null venue/year")
            continue
        if q["type"] != "single":
            err(f"{where}: airas type must be single or out_of_corpus")
            continue
        if len(q["gold"]) != 1 or len(q["gold_ids"]) != 1:
            err(f"{where}: needs exactly one gold and one gold_id")
            continue
        recs = airas.get((q["venue"], q["year"]))
        if recs is None:
            err(f"{where}: no file for {q['venue']}/{q['year']}")
            continue
        same = [r for r in recs.values() if r["title"] == q["gold"][0]]
        if len(same) != 1:
            err(f"{where}: title occurs {len(same)} times in {q['venue']}/{q['year']}")
            continue
        r = same[0]
        if r["id"] != q["gold_ids"][0]:
            err(f"{where}: gold_ids {q['gold_ids'][0]} != record id {r['id']}")
        ab = render(r["abstract"] or "")
        for f in q["facts"]:
            if "%" in f or "$" in f or "\\" in f:
                err(f"{where}: fact {f!r} is not plain text")
            if not fact_in(f, ab):
                err(f"{where}: fact {f!r} not in abstract")

# ooc terms
targets = {f"icml2026_fresh{SET}.jsonl": (icml_rendered, [a.lower() for a in icml_abs]),
           f"icml2026_chats_fresh{SET}.jsonl": (icml_rendered, [a.lower() for a in icml_abs]),
           f"airas_fresh{SET}.jsonl": (airas_rendered, airas_raw_lower)}
for fname, ids in ooc_needed.items():
    given = ooc_terms.get(fname, {})
    for i in ids:
        if not given.get(i):
            err(f"ooc_terms{SET}.json: no terms for {fname}:{i}")
    for i in given:
        if i not in ids:
            err(f"ooc_terms{SET}.json: {fname}:{i} is not an out_of_corpus item")
    rend, raw = targets[fname]
    for i, terms in given.items():
        if not 1 <= len(terms) <= 3:
            err(f"ooc_terms{SET}.json: {fname}:{i} needs 1-3 terms")
        for term in terms:
            if term != term.lower():
                err(f"ooc_terms{SET}.json: {fname}:{i}: term {term!r} not lowercase")
            rt = render(term)
            n = sum(1 for a, b in zip(rend, raw) if rt in a or term in b)
            if n:
                err(f"ooc_terms{SET}.json: {fname}:{i}: term {term!r} occurs in {n} abstract(s)")

for fname, c in counts.items():
    print(f"{fname}: {sum(c.values())} items: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items())))
print(f"icml2026_chats_fresh{SET}.jsonl: {len(chats)} conversations")
print("errors:", len(errors))
sys.exit(1 if errors else 0)
