#!/usr/bin/env python3
"""Verify the held-out question files in /work/heldout.

Checks (ICML 2026 files): format, id prefixes/uniqueness, type rules, every gold occurs in exactly
one abstract (raw text, case-sensitive), golds of a question are distinct papers, facts are plain
text (no LaTeX, no %) and occur in a gold abstract after rendering, out_of_corpus keywords occur in
no abstract, not_in_abstract keywords are absent from the gold abstract, and keyword-defined multi
topics list exactly the abstracts that match.
Checks (airas): gold title/id exist in the stated venue/year, the title is unique there (after
de-duplicating on id), facts occur in the rendered abstract, out-of-collection keywords are absent
from every title and abstract, and the name-collision question really collides with a title.
"""
import collections
import glob
import json
import re
import sys

import os
HERE = os.path.dirname(os.path.abspath(__file__)) + '/'
SHARED = os.path.join(HERE, '..', '..', '..', 'shared')
ICML = os.path.join(SHARED, 'data/icml2026/icml2026_abstracts.txt')
AIRAS = os.path.join(SHARED, 'data/airas-papers-db/data') + '/'

errors = []


def err(msg):
    errors.append(msg)


MATH_MAP = [('\\times', '×'), ('\\alpha', 'α'), ('\\ell', 'ℓ'), ('\\%', '%'), ('\\epsilon', 'ε'),
            ('\\sim', '~'), ('\\approx', '≈'), ('\\le', '≤'), ('\\ge', '≥')]


def render(s):
    """Plain-text rendering as described in /work/shared/eval/README.md, then casefold."""
    def math(m):
        t = m.group(1)
        for a, b in MATH_MAP:
            t = t.replace(a, b)
        t = re.sub(r'\\[A-Za-z]+\s*', '', t)
        return re.sub(r'[\^_{}]', '', t)
    s = re.sub(r'\$([^$]*)\$', math, s)
    s = s.replace('\\%', '%').replace('\\times', '×')
    s = s.replace('**', '').replace('*', '')
    s = s.replace('---', '-').replace('--', '-')
    for c in '—–‑‒−':
        s = s.replace(c, '-')
    s = s.replace('``', '"').replace("''", '"')
    for c in '’‘':
        s = s.replace(c, "'")
    for c in '“”':
        s = s.replace(c, '"')
    return s.casefold()


def plain_fact(f):
    return not any(c in f for c in '%$\\{}^_')


# ---------------------------------------------------------------- ICML 2026
paras = [p.strip() for p in open(ICML, encoding='utf-8').read().split('\n\n') if p.strip()]
abstracts = paras[1:]  # first paragraph is the heading line
assert len(abstracts) == 19, len(abstracts)
rendered = [render(a) for a in abstracts]

# keywords (regex, case-insensitive unless (?-i) style is used) that must appear in NO abstract
OOC_ABSENT = {
    'fo01': [r'speculative', r'\bdraft'],
    'fo02': [r'mixture', r'\bMoE\b', r'routing', r'router'],
    'fo03': [r'prun', r'sparsity', r'2:4'],
    'fo04': [r'(?-i:\bLoRA\b)', r'adapter', r'parameter-efficient', r'PEFT'],
    'fo05': [r'text-to-image', r'\bimage'],
    'fo06': [r'retriev', r'(?-i:\bRAG\b)'],
    'fo07': [r'watermark'],
    'fo08': [r'(?-i:\bRoPE\b)', r'rotary', r'context window', r'long-context'],
    'fo09': [r'privacy', r'differential privacy'],
    'fo10': [r'reward hacking', r'\bhack', r'over-?optimi[sz]ation'],
    'fc02#3': [r'speculative', r'\bdraft'],
    'fc05#3': [r'mixture', r'\bMoE\b', r'router', r'routing'],
    'fc08#3': [r'retriev', r'(?-i:\bRAG\b)'],
}
# keywords that must be absent from the gold abstract of a not_in_abstract question/turn
NIA_ABSENT = {
    'fn01': [r'et al', r'author', r'universit'],
    'fn02': [r'A100', r'H100', r'RTX', r'V100', r'L40'],
    'fn03': [r'learning rate', r'\blr\b'],
    'fn04': [r'licen[cs]e', r'\bMIT\b', r'Apache', r'CC[- ]BY'],
    'fn05': [r'llama', r'qwen', r'\bOPT\b', r'mistral', r'\bGPT', r'pythia', r'gemma'],
    'fn06': [r'HH-RLHF', r'UltraFeedback', r'AlpacaEval', r'MT-Bench', r'Anthropic'],
    'fn07': [r'llama', r'qwen', r'mistral', r'gemma', r'deepseek'],
    'fn08': [r'\d+\s+simulations', r'simulations per'],
    'fn09': [r'GPT-4', r'claude', r'deepseek', r'qwen', r'gemini', r'\bo1\b'],
    'fc01#3': [r'et al', r'author'],
    'fc04#3': [r'A100', r'H100', r'RTX', r'V100'],
    'fc06#4': [r'llama', r'qwen', r'mistral', r'gemma'],
    'fc07#2': [r'\d+(\.\d+)?\s*[BM]\b', r'billion', r'parameters'],
    'fc09#4': [r'llama', r'qwen', r'mistral', r'deepseek', r'gemma'],
    'fc10#3': [r'https?://', r'github'],
}
# multi questions whose topic is keyword-definable: gold must equal exactly the matching abstracts
MULTI_KEYWORD = {
    'fm02': r'(?-i:DPO)',
    'fm05': r'entropy',
    'fm08': r'attention[- ]head',
    'fm09': r'quantiz',
}


def find_gold(g):
    return [i for i, a in enumerate(abstracts) if g in a]


def check_item(label, item, allow_types):
    t = item.get('type')
    if t not in allow_types:
        err(f'{label}: bad type {t}')
        return
    for k in ('q', 'type', 'gold', 'facts'):
        if k not in item:
            err(f'{label}: missing field {k}')
            return
    if not item['q'].strip():
        err(f'{label}: empty q')
    gold, facts = item['gold'], item['facts']
    if t == 'out_of_corpus':
        if gold or facts:
            err(f'{label}: out_of_corpus must have empty gold and facts')
    elif t == 'not_in_abstract':
        if facts:
            err(f'{label}: not_in_abstract must have empty facts')
        if not gold:
            err(f'{label}: not_in_abstract needs the existing paper as gold')
    elif t == 'single' and len(gold) != 1:
        err(f'{label}: single needs exactly one gold')
    elif t == 'multi' and len(gold) < 2:
        err(f'{label}: multi needs >= 2 golds')
    idx = []
    for g in gold:
        hits = find_gold(g)
        if len(hits) != 1:
            err(f'{label}: gold {g!r} occurs in {len(hits)} abstracts')
        else:
            idx.append(hits[0])
    if len(set(idx)) != len(idx):
        err(f'{label}: two golds point to the same abstract')
    for f in facts:
        if not plain_fact(f):
            err(f'{label}: fact {f!r} is not plain text')
        rf = render(f)
        if not any(rf in rendered[i] for i in idx):
            err(f'{label}: fact {f!r} not in any gold abstract')
    if t == 'out_of_corpus':
        for kw in OOC_ABSENT.get(label, []):
            hits = [i + 1 for i, a in enumerate(abstracts) if re.search(kw, a, re.I)]
            if hits:
                err(f'{label}: ooc keyword {kw!r} found in abstracts {hits}')
    if t == 'not_in_abstract':
        for kw in NIA_ABSENT.get(label, []):
            for i in idx:
                if re.search(kw, abstracts[i], re.I):
                    err(f'{label}: nia keyword {kw!r} present in gold abstract {i + 1}')
    if label in MULTI_KEYWORD:
        want = {i for i, a in enumerate(abstracts) if re.search(MULTI_KEYWORD[label], a, re.I)}
        if want != set(idx):
            err(f'{label}: keyword topic matches abstracts {sorted(x + 1 for x in want)}, '
                f'gold is {sorted(x + 1 for x in idx)}')
    return t


KINDS = {'fs': 'single', 'fm': 'multi', 'fo': 'out_of_corpus', 'fn': 'not_in_abstract',
         'fl': 'lang', 'fx': 'latex'}
counts = collections.Counter()
types = collections.Counter()
ids = set()
qs = [json.loads(l) for l in open(HERE + 'icml2026_fresh.jsonl', encoding='utf-8') if l.strip()]
for q in qs:
    if set(q) != {'id', 'type', 'q', 'gold', 'facts'}:
        err(f"{q.get('id')}: fields {sorted(q)}")
    if q['id'] in ids:
        err(f"duplicate id {q['id']}")
    ids.add(q['id'])
    pre = q['id'][:2]
    if pre not in KINDS:
        err(f"{q['id']}: unknown prefix")
        continue
    counts[KINDS[pre]] += 1
    expected = {'fs': {'single'}, 'fm': {'multi'}, 'fo': {'out_of_corpus'},
                'fn': {'not_in_abstract'}, 'fl': {'single', 'multi'}, 'fx': {'single', 'multi'}}[pre]
    types[check_item(q['id'], q, expected)] += 1
for f in OOC_ABSENT:
    if '#' not in f and f not in ids:
        err(f'OOC_ABSENT names unknown id {f}')

chat_turns = collections.Counter()
chats = [json.loads(l) for l in open(HERE + 'icml2026_chats_fresh.jsonl', encoding='utf-8') if l.strip()]
cids = set()
for c in chats:
    if c.get('type') != 'chat' or not c['id'].startswith('fc') or c['id'] in cids:
        err(f"{c.get('id')}: bad chat header")
    cids.add(c['id'])
    if not 2 <= len(c['turns']) <= 4:
        err(f"{c['id']}: {len(c['turns'])} turns")
    for k, t in enumerate(c['turns'], 1):
        if set(t) != {'q', 'type', 'gold', 'facts'}:
            err(f"{c['id']}#{k}: fields {sorted(t)}")
        chat_turns[check_item(f"{c['id']}#{k}", t,
                              {'single', 'multi', 'out_of_corpus', 'not_in_abstract'})] += 1

# ---------------------------------------------------------------- airas
files = sorted(glob.glob(AIRAS + '*/*.json'))
by_vy = {}
for fn in files:
    recs = json.load(open(fn, encoding='utf-8'))
    uniq = {}
    for r in recs:
        uniq.setdefault(r['id'], r)
    v, y = fn.split('/')[-2], int(fn.split('/')[-1][:4])
    by_vy[(v, y)] = list(uniq.values())
alltext = [(r['title'] or '') + '\n' + (r['abstract'] or '') for rs in by_vy.values() for r in rs]
alltitles = [r['title'] or '' for rs in by_vy.values() for r in rs]

AO_ABSENT = {
    'ao01': [r'RefinedWeb', r'Technology Innovation Institute', r'\bTII\b'],
    'ao02': [r'(?-i:GRPO)', r'group relative', r'deepseek', r'verifiable reward', r'R1-Zero'],
    'ao03': [r'model context protocol', r'(?-i:\bMCP\b) server'],
    'ao04': [r'kolmogorov.arnold', r'(?-i:\bKANs?\b)', r'learnable activation'],
    'ao05': [r'earthquake', r'aftershock'],
    'ao06': [r'wildfire', r'forest fire', r'fire spread', r'burned area'],
    'ao07': [r'honeybee', r'\bbees?\b', r'\bhives?\b', r'colony collapse', r'apicultur', r'pollinator'],
    'ao08': [r'latent attention', r'deepseek', r'\bMLA\b'],
}
AO_COLLIDE = {'ao01': r'^Falcon\b'}  # the name exists in the collection as an unrelated title

ak_vy = collections.Counter()
aids = set()
aq = [json.loads(l) for l in open(HERE + 'airas_fresh.jsonl', encoding='utf-8') if l.strip()]
acount = collections.Counter()
for q in aq:
    lab = q['id']
    if set(q) != {'id', 'type', 'q', 'gold', 'gold_ids', 'venue', 'year', 'facts'}:
        err(f'{lab}: fields {sorted(q)}')
    if lab in aids:
        err(f'duplicate id {lab}')
    aids.add(lab)
    acount[q['type']] += 1
    if lab.startswith('ak'):
        if q['type'] != 'single' or len(q['gold']) != 1 or len(q['gold_ids']) != 1:
            err(f'{lab}: bad single shape')
            continue
        recs = by_vy.get((q['venue'], q['year']))
        if recs is None:
            err(f'{lab}: no file for {q["venue"]} {q["year"]}')
            continue
        ak_vy[(q['venue'], q['year'])] += 1
        match = [r for r in recs if r['id'] == q['gold_ids'][0]]
        if len(match) != 1 or match[0]['title'] != q['gold'][0]:
            err(f'{lab}: id/title mismatch')
            continue
        r = match[0]
        if r['conference'] != q['venue'] or r['year'] != q['year']:
            err(f'{lab}: venue/year differ from record')
        same = [x for x in recs if x['title'] == q['gold'][0]]
        if len(same) != 1:
            err(f'{lab}: title occurs {len(same)} times in {q["venue"]} {q["year"]}')
        tl = set(re.findall(r'[a-z]{5,}', r['title'].lower()))
        ql = set(re.findall(r'[a-z]{5,}', q['q'].lower()))
        if tl and len(tl & ql) / len(tl) > 0.6:
            err(f'{lab}: question copies too many title words {sorted(tl & ql)}')
        for f in q['facts']:
            if not plain_fact(f) or render(f) not in render(r['abstract']):
                err(f'{lab}: fact {f!r} not in abstract / not plain')
    elif lab.startswith('ao'):
        if q['type'] != 'out_of_corpus' or q['gold'] or q['gold_ids'] or q['facts'] \
                or q['venue'] is not None or q['year'] is not None:
            err(f'{lab}: bad out_of_corpus shape')
        if lab not in AO_ABSENT:
            err(f'{lab}: no absence keywords')
        for kw in AO_ABSENT.get(lab, []):
            n = sum(1 for t in alltext if re.search(kw, t, re.I))
            if n:
                err(f'{lab}: keyword {kw!r} found in {n} records')
        if lab in AO_COLLIDE and not any(re.search(AO_COLLIDE[lab], t) for t in alltitles):
            err(f'{lab}: expected name collision not found')
    else:
        err(f'{lab}: unknown prefix')
missing = set(by_vy) - set(ak_vy)
if missing:
    err(f'airas venue/year files without a known-item question: {sorted(missing)}')

# ---------------------------------------------------------------- report
print('icml2026_fresh.jsonl:', len(qs), 'questions;', dict(counts), '| types', dict(types))
print('icml2026_chats_fresh.jsonl:', len(chats), 'chats,', sum(chat_turns.values()), 'turns;',
      dict(chat_turns))
print('airas_fresh.jsonl:', len(aq), 'questions;', dict(acount), '| files covered',
      len(ak_vy), '/', len(by_vy))
if errors:
    print(f'FAIL: {len(errors)} problem(s)')
    for e in errors:
        print('  -', e)
    sys.exit(1)
print('ALL CHECKS PASSED')
