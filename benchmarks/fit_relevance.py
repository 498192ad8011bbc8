"""Fit the relevance gate's logistic regression on evidence dumps (`benchmarks.answers_dev --dump`).

``python -m benchmarks.fit_relevance FEATURES.jsonl [MORE.jsonl ...] [--all]``

Each line is one (question, retrieved paper) pair with its evidence (dense similarity, best-sentence
similarity, IDF-weighted key-word coverage, names matched) and whether the paper is gold. The model
is fit on the questions with odd ids only (unless ``--all``), by gradient descent on the L2-regularised
log-loss (numpy; five features, so no library is needed), and prints the weights for
`assistant.relevance` and, per question, the best paper's log-odds and the gold papers' log-odds, so a
threshold can be read from the distributions of answerable and out-of-collection questions.
"""

from __future__ import annotations

import argparse
import collections
import json
import re

import numpy as np


def odd(qid: str) -> bool:
    m = re.search(r"(\d+)$", qid)
    return bool(m) and int(m.group(1)) % 2 == 1


def features(r: dict) -> list[float]:
    d = r["dense_similarity"] if r["dense_similarity"] is not None else -0.1
    s = r["sentence_similarity"] if r["sentence_similarity"] is not None else d
    return [d, s, r["lexical"], float(bool(r["names"]))]


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 5000, lr: float = 0.5) -> np.ndarray:
    x = np.c_[x, np.ones(len(x))]
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        w -= lr * (x.T @ (p - y) / len(y) + l2 * np.r_[w[:-1], 0])
    return w


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--all", action="store_true", help="fit on every question, not only odd ids")
    args = ap.parse_args(argv)
    rows = [json.loads(line) for f in args.dumps for line in open(f) if line.strip()]
    train = [r for r in rows if args.all or odd(r["qid"])]
    w = fit(np.array([features(r) for r in train]), np.array([float(r["gold"]) for r in train]))
    print("W_DENSE, W_SENTENCE, W_LEXICAL, W_NAME, BIAS =", ", ".join(f"{v:.2f}" for v in w))
    by = collections.defaultdict(list)
    for r in rows:
        by[r["qid"]].append(r)
    logit = lambda r: float(np.dot(features(r) + [1.0], w))  # noqa: E731
    for half in (True, False):
        print("odd (fit)" if half else "even (held out)")
        for qid, rs in sorted(by.items()):
            if odd(qid) != half:
                continue
            best = max(rs, key=logit)
            gold = [round(logit(r), 1) for r in rs if r["gold"]]
            other = sorted(round(logit(r), 1) for r in rs if not r["gold"])[-3:]
            print(f"  {qid} {rs[0]['type'][:6]:6} best {logit(best):5.1f} {'G' if best['gold'] else '-'} "
                  f"gold {gold} top non-gold {other}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
