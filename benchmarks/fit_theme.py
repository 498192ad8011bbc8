"""Fit the theme-membership model of `assistant.relevance` on evidence dumps (`benchmarks.answers_dev --dump`).

``python -m benchmarks.fit_theme FEATURES.jsonl [MORE.jsonl ...] [--min-member 0.15]``

A theme question ("Which papers use reinforcement learning for reasoning?", `extractive.asks_several` or
`extractive.asks_existence`) is answered with every paper the relevance gate keeps. Papers that share the theme's
words in passing are kept too: in the development files a third of the papers named for a theme were not among its
gold papers. The membership model is a logistic regression over three inputs of each kept paper but the best one
(`relevance.member_features`): its log-odds of relevance, its dense similarity above the median of the other retrieved
papers (``dense_gap``), and the log of its rank among the kept papers plus one (the more papers named before it, the
stronger the evidence a further one needs). It is fit on the kept papers of the dumps' ``multi`` questions, labelled
by whether each is gold, by gradient descent on the L2-regularised log-loss (numpy; `benchmarks.fit_relevance.fit`).

Prints, for each held-out file in turn (leave-one-file-out: fit on the others), how many gold papers and how many
other papers a probability threshold would drop, summed over the files, for a grid of thresholds; then the weights
fit on every file, for `relevance.MEMBER_WEIGHTS` and `relevance.MEMBER_BIAS`. ``--min-member`` marks the row of the
threshold in use (`relevance.MIN_MEMBER`).
"""

from __future__ import annotations

import argparse
import collections
import json

import numpy as np

from benchmarks.fit_relevance import fit

GRID = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4)


def member_rows(lines: list[dict]) -> list[dict]:
    """One row per paper the gate kept beside the best of each ``multi`` question of `lines` (dump lines; a paper
    the membership model left out counts as kept, by its note's `relevance.WEAKER_MEMBER`): ``file``, ``x``
    (`relevance.member_features`), ``gold``."""
    from assistant.relevance import WEAKER_MEMBER, logit, member_features

    questions: dict[tuple, list[dict]] = collections.defaultdict(list)
    for line in lines:
        # kept by the gate, whether or not the membership model in use then left it out
        note = line.get("note") or ""
        if line.get("type") == "multi" and (line.get("relevant") or note.startswith(WEAKER_MEMBER)):
            questions[(line["file"], line["qid"])].append(line)
    rows = []
    for (file, _), kept in questions.items():
        kept.sort(key=lambda e: -e["score"])
        for rank, e in enumerate(kept[1:], start=1):
            rows.append({"file": file, "gold": bool(e["gold"]),
                         "x": member_features(logit(e["score"]), e["dense_gap"] or 0.0, rank)})
    return rows


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Weights and bias in the inputs' own units (`fit` on standardised inputs; its last weight is the intercept)."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    w = fit((x - mu) / sd, y)
    weights = w[:-1] / sd
    return weights, float(w[-1] - weights @ mu)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--min-member", type=float, default=None)
    args = ap.parse_args(argv)
    from assistant.relevance import MIN_MEMBER

    chosen = MIN_MEMBER if args.min_member is None else args.min_member
    lines = [json.loads(line) for path in args.dumps for line in open(path, encoding="utf-8") if line.strip()]
    rows = member_rows(lines)
    if not rows:
        print("no multi question kept more than one paper")
        return 1
    x = np.array([r["x"] for r in rows])
    y = np.array([float(r["gold"]) for r in rows])
    files = sorted({r["file"] for r in rows})
    held_out = np.zeros(len(rows))
    for f in files:
        test = np.array([r["file"] == f for r in rows])
        weights, bias = _fit(x[~test], y[~test])
        held_out[test] = 1 / (1 + np.exp(-(x[test] @ weights + bias)))
    print(f"{len(files)} files, {len(rows)} papers kept beside a theme's best ({int(y.sum())} gold)")
    print("threshold  gold dropped  others dropped  share gold of the kept papers beside the best")
    for t in sorted({*GRID, chosen}):
        drop = held_out < t
        mark = "  <- MIN_MEMBER" if t == chosen else ""
        print(f"{t:9.2f}  {int(y[drop].sum()):12d}  {int((1 - y)[drop].sum()):14d}  {y[~drop].mean():.3f}{mark}")
    weights, bias = _fit(x, y)
    print(f"MEMBER_WEIGHTS = ({', '.join(f'{w:.3f}' for w in weights)})\nMEMBER_BIAS = {bias:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
