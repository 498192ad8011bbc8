#!/usr/bin/env python3
"""Check the fresh7 held-out files against /work/shared/eval/README.md formats."""
import json, glob, os, re, sys, collections
H = os.path.dirname(os.path.abspath(__file__))
SH = os.environ.get("ASSISTANT_SHARED_DIR") or os.path.join(H, "..", "..", "..", "shared")
errs=[]; info=[]
def err(m): errs.append(m)

def render(t):
    t=t.replace('\\%','%').replace('\\times','×').replace('\\alpha','α').replace('\\ell','ℓ')
    t=re.sub(r'\\[a-zA-Z]+','',t)
    for ch in '$^_{}*': t=t.replace(ch,'')
    t=re.sub('[\u2010-\u2015\u2212]','-',t); t=re.sub('[\u2018\u2019`]',"'",t); t=re.sub('[\u201c\u201d]','"',t)
    t=t.replace("''",'"')
    return re.sub(r'\s+',' ',t).casefold()

# ICML 2026 collection: paragraphs after the heading line
lines=open(f'{SH}/data/icml2026/icml2026_abstracts.txt',encoding='utf-8').read().split('\n')
ABS=[p.strip() for p in '\n'.join(lines[1:]).split('\n\n') if p.strip()]
info.append(f'icml2026 abstracts: {len(ABS)}')

def check_item(where,x,is_turn=False):
    need={'q','type','gold','facts'} | (set() if is_turn else {'id'})
    if set(x)!=need: err(f'{where}: fields {sorted(x)} != {sorted(need)}')
    if x.get('type') not in ('single','multi','out_of_corpus','not_in_abstract'): err(f'{where}: bad type {x.get("type")}')
    if not isinstance(x.get('q'),str) or not x['q'].strip(): err(f'{where}: empty q')
    g=x.get('gold',[]); f=x.get('facts',[])
    if not all(isinstance(s,str) for s in g+f): err(f'{where}: non-string gold/facts')
    t=x.get('type')
    if t=='out_of_corpus' and (g or f): err(f'{where}: ooc must have empty gold and facts')
    if t=='not_in_abstract' and (len(g)!=1 or f): err(f'{where}: not_in_abstract needs 1 gold, no facts')
    if t=='single' and len(g)!=1: err(f'{where}: single needs exactly 1 gold')
    if t=='multi' and len(g)<2: err(f'{where}: multi needs >=2 gold')
    idx=[]
    for s in g:
        m=[i for i,a in enumerate(ABS) if s in a]
        if len(m)!=1: err(f'{where}: gold {s!r} matches {len(m)} abstracts')
        else: idx.append(m[0])
    if len(set(idx))!=len(idx): err(f'{where}: duplicate gold papers')
    for fa in f:
        if '%' in fa or '$' in fa or '\\' in fa: err(f'{where}: fact {fa!r} has LaTeX/%')
        if not any(render(fa) in render(ABS[i]) for i in idx): err(f'{where}: fact {fa!r} not in gold abstract')

qs=[json.loads(l) for l in open(f'{H}/icml2026_fresh7.jsonl',encoding='utf-8')]
ids=[x['id'] for x in qs]
if len(set(ids))!=len(ids): err('icml: duplicate ids')
for x in qs: check_item(f'icml {x.get("id")}',x)
kind={'s':None,'m':'multi','o':'out_of_corpus','n':'not_in_abstract','l':None,'x':None}
for x in qs:
    k=x['id'][1]; 
    if kind.get(k) and kind[k]!=x['type']: err(f'icml {x["id"]}: prefix/type mismatch')
    if k in 'slx' and x['type'] not in ('single','multi'): err(f'icml {x["id"]}: prefix/type mismatch')
info.append(f'icml2026_fresh7: {len(qs)} questions; types {dict(collections.Counter(x["type"] for x in qs))}; prefixes {dict(collections.Counter(x["id"][:2] for x in qs))}')

chats=[json.loads(l) for l in open(f'{H}/icml2026_chats_fresh7.jsonl',encoding='utf-8')]
if len(set(c['id'] for c in chats))!=len(chats): err('chats: duplicate ids')
nt=collections.Counter()
for c in chats:
    if set(c)!={'id','type','turns'} or c['type']!='chat': err(f'chat {c.get("id")}: bad fields')
    if not 2<=len(c['turns'])<=4: err(f'chat {c["id"]}: {len(c["turns"])} turns')
    for j,t in enumerate(c['turns'],1):
        check_item(f'chat {c["id"]}#{j}',t,True); nt[t['type']]+=1
info.append(f'icml2026_chats_fresh7: {len(chats)} chats, {sum(nt.values())} turns; {dict(nt)}')

# airas
DB={}
for fn in sorted(glob.glob(f'{SH}/data/airas-papers-db/data/*/*.json')):
    for r in json.load(open(fn,encoding='utf-8')): DB.setdefault((r['conference'],r['year']),[]).append(r)
ALLTXT=[((r['title'] or '')+' '+(r['abstract'] or '')).casefold() for v in DB.values() for r in v]
aq=[json.loads(l) for l in open(f'{H}/airas_fresh7.jsonl',encoding='utf-8')]
if len(set(x['id'] for x in aq))!=len(aq): err('airas: duplicate ids')
AF={'id','type','q','gold_ids','gold','facts','venue','year'}
for x in aq:
    w=f'airas {x.get("id")}'
    if set(x)!=AF: err(f'{w}: fields {sorted(x)}')
    if x['type']=='single':
        if not x['id'].startswith('ak'): err(f'{w}: id prefix')
        if len(x['gold'])!=1 or len(x['gold_ids'])!=1: err(f'{w}: need 1 gold and 1 gold_id'); continue
        recs=DB.get((x['venue'],x['year']),[])
        if not isinstance(x['year'],int) or not recs: err(f'{w}: bad venue/year'); continue
        byt=[r for r in recs if r['title']==x['gold'][0]]
        if len({r['id'] for r in byt})!=1: err(f'{w}: title occurs for {len({r["id"] for r in byt})} ids in venue/year')
        byid=[r for r in recs if r['id']==x['gold_ids'][0]]
        if not byid: err(f'{w}: gold_id not in {x["venue"]} {x["year"]}'); continue
        if byid[0]['title']!=x['gold'][0]: err(f'{w}: gold_id/title mismatch')
        for fa in x['facts']:
            if '%' in fa or '$' in fa: err(f'{w}: fact has LaTeX/%')
            if render(fa) not in render(byid[0]['abstract']): err(f'{w}: fact {fa!r} not in abstract')
    elif x['type']=='out_of_corpus':
        if not x['id'].startswith('ao'): err(f'{w}: id prefix')
        if x['gold'] or x['gold_ids'] or x['facts'] or x['venue'] is not None or x['year'] is not None: err(f'{w}: ooc must be empty/null')
    else: err(f'{w}: bad type')
vy=collections.Counter((x['venue'],x['year']) for x in aq if x['type']=='single')
info.append(f'airas_fresh7: {len(aq)} questions; types {dict(collections.Counter(x["type"] for x in aq))}; facts on {sum(1 for x in aq if x["facts"])}; venue/year files covered {len(vy)}/{len(DB)}')

# ooc terms
T=json.load(open(f'{H}/ooc_terms7.json',encoding='utf-8'))
icml_low=[render(a) for a in ABS]
need_a={x['id'] for x in aq if x['type']=='out_of_corpus'}
need_i={x['id'] for x in qs if x['type']=='out_of_corpus'}
need_c={f'{c["id"]}#{j}' for c in chats for j,t in enumerate(c['turns'],1) if t['type']=='out_of_corpus'}
for fn,need in (('airas_fresh7.jsonl',need_a),('icml2026_fresh7.jsonl',need_i),('icml2026_chats_fresh7.jsonl',need_c)):
    got=T.get(fn,{})
    if set(got)!=need: err(f'ooc_terms {fn}: keys {sorted(got)} != {sorted(need)}')
    for k,terms in got.items():
        if not terms: err(f'ooc_terms {fn} {k}: no terms')
        for t in terms:
            if fn.startswith('airas'):
                n=sum(t.casefold() in s for s in ALLTXT)
            else:
                n=sum(render(t) in a for a in icml_low)
            if n: err(f'ooc_terms {fn} {k}: term {t!r} occurs in {n} abstracts')
info.append(f'ooc_terms: airas {len(T.get("airas_fresh7.jsonl",{}))}, icml {len(T.get("icml2026_fresh7.jsonl",{}))}, chats {len(T.get("icml2026_chats_fresh7.jsonl",{}))} ids checked')

for i in info: print(i)
for e in errs: print('ERROR', e)
print('FAILED' if errs else 'ALL CHECKS PASSED', f'({len(errs)} errors)')
sys.exit(1 if errs else 0)
