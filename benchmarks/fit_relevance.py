"""Fit the relevance gate's logistic regression on evidence dumps (`benchmarks.answers_dev --dump`).

``python -m benchmarks.fit_relevance FEATURES.jsonl[@PAPERS] [MORE.jsonl[@PAPERS] ...] [--all] [--folds K]``

Each line is one (question, retrieved paper) pair with its evidence (dense similarity, best-sentence
similarity, IDF-weighted key-word coverage, names matched) and whether the paper is gold. The model
is fit on the questions with odd ids only (unless ``--all``), by gradient descent on the L2-regularised
log-loss (numpy; five features, so no library is needed), and prints the weights for
`assistant.relevance` and, per question, the best paper's log-odds and the gold papers' log-odds, so a
threshold can be read from the distributions of answerable and out-of-collection questions.

``--folds K`` (with ``--all``) instead splits the questions of every dump into K folds (by question,
so a question's papers stay together), fits on K-1 folds and scores the held-out one, and prints the
cross-validated trade-off per collection size (``@PAPERS`` after a dump's name, 19 if omitted): for
each threshold, the share of answerable (single/multi) questions whose best gold paper reaches it
and is the best paper's equal or near it (recall), and of out-of-collection questions whose best
paper stays below it (refused); and, for several-size runs, the threshold shift per tenfold papers
that keeps the larger collection's out-of-collection refusal at the smaller one's threshold.
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


def question_key(path: str, qid: str) -> str:
    return f"{path}#{qid}"


def folds_of(keys: list[str], k: int, seed: int = 0) -> dict[str, int]:
    """Each question's fold (0..k-1), random but fixed by `seed`; stratified by dump file."""
    rng = np.random.default_rng(seed)
    out: dict[str, int] = {}
    by_file = collections.defaultdict(list)
    for key in sorted(set(keys)):
        by_file[key.split("#")[0]].append(key)
    offset = 0
    for _, ks in sorted(by_file.items()):
        for i, key in enumerate(rng.permutation(ks)):
            out[str(key)] = (i + offset) % k
        offset += len(ks)
    return out


def cross_validate(rows: list[dict], k: int, seed: int = 0) -> np.ndarray:
    """Out-of-fold log-odds of every row (a model never fit on its question)."""
    fold = folds_of([r["key"] for r in rows], k, seed)
    x = np.array([features(r) + [1.0] for r in rows])
    y = np.array([float(r["gold"]) for r in rows])
    f = np.array([fold[r["key"]] for r in rows])
    out = np.zeros(len(rows))
    for i in range(k):
        w = fit(x[f != i, :-1], y[f != i])
        out[f == i] = x[f == i] @ w
    return out


def per_question(rows: list[dict], logits: np.ndarray) -> list[dict]:
    """Per question: type, collection size, best paper's probability, best gold paper's probability."""
    by = collections.defaultdict(list)
    for r, z in zip(rows, logits):
        by[r["key"]].append((r, 1 / (1 + np.exp(-z))))
    out = []
    for key, rs in by.items():
        golds = [p for r, p in rs if r["gold"]]
        out.append({"key": key, "type": rs[0][0]["type"], "papers": rs[0][0]["papers"],
                    "best": max(p for _, p in rs), "gold": max(golds) if golds else None})
    return out


def trade_off(qs: list[dict], grid) -> list[tuple[float, float, float, float]]:
    """(threshold, recall of answerable questions' best gold paper, out-of-collection refused,
    not-in-abstract questions' gold paper kept) for every threshold of `grid`."""
    ans = [q for q in qs if q["type"] in ("single", "multi")]
    nia = [q for q in qs if q["type"] == "not_in_abstract" and q["gold"] is not None]
    ooc = [q for q in qs if q["type"] == "out_of_corpus"]
    share = lambda xs, n: round(sum(xs) / n, 3) if n else float("nan")  # noqa: E731
    return [(t, share([q["gold"] is not None and q["gold"] >= t for q in ans], len(ans)),
             share([q["best"] < t for q in ooc], len(ooc)),
             share([q["gold"] >= t for q in nia], len(nia))) for t in grid]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--all", action="store_true", help="fit on every question, not only odd ids")
    ap.add_argument("--folds", type=int, default=0, help="k-fold cross-validation by question (with --all)")
    ap.add_argument("--seeds", type=int, default=5, help="repetitions of the k-fold split (--folds)")
    args = ap.parse_args(argv)
    rows = []
    for spec in args.dumps:
        path, _, size = spec.partition("@")
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                rows.append({**r, "key": question_key(path, r["qid"]), "papers": int(size or 19)})
    if args.folds:
        return report_cv(rows, args.folds, args.seeds)
    train = [r for r in rows if args.all or odd(r["qid"])]
    w = fit(np.array([features(r) for r in train]), np.array([float(r["gold"]) for r in train]))
    print("W_DENSE, W_SENTENCE, W_LEXICAL, W_NAME, BIAS =", ", ".join(f"{v:.2f}" for v in w))
    by = collections.defaultdict(list)
    for r in rows:
        by[r["key"]].append(r)  # one qid may occur in several dumps
    logit = lambda r: float(np.dot(features(r) + [1.0], w))  # noqa: E731
    for half in (True, False):
        print("odd (fit)" if half else "even (held out)")
        for _, rs in sorted(by.items()):
            qid = rs[0]["qid"]
            if odd(qid) != half:
                continue
            best = max(rs, key=logit)
            gold = [round(logit(r), 1) for r in rs if r["gold"]]
            other = sorted(round(logit(r), 1) for r in rs if not r["gold"])[-3:]
            print(f"  {qid} {rs[0]['type'][:6]:6} best {logit(best):5.1f} {'G' if best['gold'] else '-'} "
                  f"gold {gold} top non-gold {other}")
    return 0


def report_cv(rows: list[dict], k: int, seeds: int) -> int:
    """Print the cross-validated trade-off per collection size, averaged over `seeds` k-fold splits,
    and the weights fit on everything."""
    import math

    grid = [round(t, 2) for t in np.arange(0.05, 0.91, 0.01)]
    sizes = sorted({r["papers"] for r in rows})
    curves: dict[int, list] = {n: [] for n in sizes}
    for seed in range(seeds):
        qs = per_question(rows, cross_validate(rows, k, seed))
        for n in sizes:
            curves[n].append(trade_off([q for q in qs if q["papers"] == n], grid))
    w = fit(np.array([features(r) for r in rows]), np.array([float(r["gold"]) for r in rows]))
    print(f"{len({r['key'] for r in rows})} questions, {len(rows)} (question, paper) pairs, {k}-fold x {seeds}")
    print("W_DENSE, W_SENTENCE, W_LEXICAL, W_NAME, BIAS =", ", ".join(f"{v:.2f}" for v in w), "(fit on all)")
    chosen = {}
    for n in sizes:
        mean = np.mean(np.array(curves[n]), axis=0)  # rows: threshold, recall, ooc refused, nia kept
        print(f"collection of {n} papers: threshold  recall(answerable)  ooc refused  nia gold kept")
        for t, rec, ooc, nia in mean[::5]:
            print(f"  {t:.2f}  {rec:.3f}  {ooc:.3f}  {nia:.3f}")
        full = [(rec, -t, t) for t, rec, ooc, _ in mean if ooc >= (1.0 if n <= 19 else 0.8) - 1e-9]
        if full:
            rec, _, t = max(full)
            chosen[n] = t
            print(f"  highest recall with ooc refused >= {1.0 if n <= 19 else 0.8}: {rec:.3f} at threshold {t:.2f}")
    from assistant import relevance as rel

    now = np.array([rel.W_DENSE, rel.W_SENTENCE, rel.W_LEXICAL, rel.W_NAME, rel.BIAS])
    qs = per_question(rows, np.array([features(r) + [1.0] for r in rows]) @ now)
    for n in sizes:
        t = round(rel.THRESHOLD + rel.SCALE_SLOPE * math.log10(max(n, rel.REFERENCE_SIZE) / rel.REFERENCE_SIZE), 3)
        _, rec, ooc, nia = trade_off([q for q in qs if q["papers"] == n], [t])[0]
        print(f"current weights (in-sample on their fit data), {n} papers, threshold {t}: recall {rec:.3f}, "
              f"ooc refused {ooc:.3f}, nia gold kept {nia:.3f}")
    if len(chosen) > 1:
        small, large = min(chosen), max(chosen)
        slope = (chosen[large] - chosen[small]) / math.log10(large / small)
        print(f"threshold shift per tenfold papers ({small} -> {large}): {slope:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
