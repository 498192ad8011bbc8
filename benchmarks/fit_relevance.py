import json, collections, sys
import numpy as np
rows=[json.loads(l) for l in open(sys.argv[1])]
def odd(q): return int(q[2:])%2==1
def feats(r):
    d = r['dense_similarity'] if r['dense_similarity'] is not None else -0.1
    s = r['sentence_similarity'] if r['sentence_similarity'] is not None else d
    return [d, s, r['lexical'], float(bool(r['names']))]
def fit(X,y,l2=1e-3,it=5000,lr=0.5):
    X=np.c_[X,np.ones(len(X))]; w=np.zeros(X.shape[1])
    for _ in range(it):
        p=1/(1+np.exp(-X@w)); g=X.T@(p-y)/len(y)+l2*np.r_[w[:-1],0]; w-=lr*g
    return w
tr=[r for r in rows if odd(r['qid'])]
X=np.array([feats(r) for r in tr]); y=np.array([float(r['gold']) for r in tr])
w=fit(X,y); print('w',np.round(w,2))
def sc(r): return float(np.dot(feats(r)+[1],w))
by=collections.defaultdict(list)
for r in rows: by[r['qid']].append(r)
for half in (True,False):
  print('odd' if half else 'even')
  for q,rs in sorted(by.items()):
    if odd(q)!=half: continue
    b=max(rs,key=sc); g=[round(sc(r),1) for r in rs if r['gold']]
    ng=sorted([round(sc(r),1) for r in rs if not r['gold']])[-3:]
    print(' ',q, rs[0]['type'][:5], 'best %.1f'%sc(b), 'G' if b['gold'] else '-', g, 'top nongold', ng)
