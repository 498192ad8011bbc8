"""Fit the relevance gate's logistic regression on evidence dumps (`benchmarks.answers_dev --dump`).

``python -m benchmarks.fit_relevance FEATURES.jsonl[@PAPERS] [MORE.jsonl[@PAPERS] ...] [--all] [--folds K]
[--by-file [--max-fr 0.05] [--min-ooc 0.9]] [--features dense,sentence,...]``

Each line is one (question, retrieved paper) pair with its evidence (`relevance.Evidence.to_json`:
dense and best-sentence similarity, key-word coverages, names matched, ...) and whether the paper is
gold; `relevance.features` turns it into the model's inputs (``--features``: a subset of
`relevance.FEATURES`, all by default). The model is fit on the questions with odd ids only (unless
``--all``), by gradient descent on the L2-regularised log-loss (numpy; a handful of features, so no
library is needed), and prints the weights for `assistant.relevance` and, per question, the best
paper's log-odds and the gold papers' log-odds, so a threshold can be read from the distributions of
answerable and out-of-collection questions.

Dumps of both embedding precisions (each line records ``precision``; e.g. one dump made with
``ASSISTANT_EMBEDDING_PRECISION=fp32`` and one with ``=int8``, each in a new data folder) are pooled
by passing both: a question dumped at each precision counts as two questions (its key carries the
precision), and it stays in its file, so ``--by-file`` holds both out together. The gate is then fit
on the similarities of both models, whichever a collection was built with.

``--by-file`` (how the current weights and thresholds were chosen): every dump line names its
question file; the model is fit on all files but one and decides the held-out file's questions as
`relevance.judge` would (`simulate`: threshold, several-paper threshold, a third for another
language; refusals for a term no paper mentions kept as dumped). It prints, for the 19-paper files,
the fewest false refusals at each out-of-collection refusal rate, the thresholds chosen for
``--max-fr`` / ``--min-ooc`` with the per-file figures and the questions decided wrongly, and for
dumps of larger collections (``@16000``) the trade-off per threshold; then the weights fit on all.

``--compare`` (two dumps of the same files, e.g. one per embedding precision): prints each question whose
kept papers differ between the two, with the papers that moved and the evidence that moved their log-odds
(weights of `assistant.relevance`), then the mean absolute change in log-odds each evidence makes per
(question, paper) pair: which evidence the other precision disturbs most.

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
import math
import re

import numpy as np


def odd(qid: str) -> bool:
    m = re.search(r"(\d+)$", qid)
    return bool(m) and int(m.group(1)) % 2 == 1


USE: tuple[int, ...] = ()
"""Indices into `relevance.FEATURES` the model is fit on (``--features``; all when empty)."""


def features(r: dict) -> list[float]:
    """`relevance.features` of a dumped evidence row (`Evidence.to_json`), restricted to `USE`."""
    from assistant.relevance import Evidence
    from assistant.relevance import features as of

    e = Evidence(r["id"], r.get("title", ""), r["dense_similarity"], r["sentence_similarity"], r["lexical"],
                 r.get("bm25_matched", False), r.get("names") or [], r.get("focus", r["lexical"]),
                 r.get("sentence_lexical", 0.0), r.get("dense_gap", 0.0),
                 r.get("uncovered", 0.0))
    x = of(e)
    return [x[i] for i in USE] if USE else x


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 5000, lr: float = 0.5) -> np.ndarray:
    """Logistic regression weights (k + 1,), the last the intercept, on `x` (m, k) and 0/1 `y` (m,): gradient
    descent on the L2-regularised mean log-loss (the intercept not regularised)."""
    x = np.c_[x, np.ones(len(x))]
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        w -= lr * (x.T @ (p - y) / len(y) + l2 * np.r_[w[:-1], 0])
    return w


def question_key(path: str, qid: str, precision: str | None = None) -> str:
    """``FILE#ID``, or ``FILE#ID@PRECISION`` for a line that records its embedding precision other than
    fp32 (so fp32 dumps made before precisions were recorded keep their keys)."""
    return f"{path}#{qid}" + (f"@{precision}" if precision and precision != "fp32" else "")


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


_FIXED = re.compile(r"^(no paper in the collection mentions|does not mention .* which the question (asks a paper to "
                    r"introduce|names))")


def simulate(rows: list[dict], logits: np.ndarray, threshold: float, plural: float,
             shift: float = 0.0) -> dict[str, bool]:
    """Per question key: whether `relevance.judge` refuses it (no paper relevant) with these
    log-odds and thresholds (its rules: several-paper questions need `plural`, a question in another
    language a third; `shift` is added to each threshold). A question refused or answered for a
    reason the weights do not touch (a term no paper mentions, a name in a retrieved title) keeps the
    decision it had in the dump."""
    from assistant import relevance as rel
    from assistant.extractive import asks_several

    by = collections.defaultdict(list)
    for r, z in zip(rows, logits):
        by[r["key"]].append((r, 1 / (1 + math.exp(-z))))
    out = {}
    for key, rs in by.items():
        notes = [r.get("note", "") for r, _ in rs]
        if any(_FIXED.match(n) for n in notes):
            out[key] = not any(r["relevant"] for r, _ in rs)
            continue
        q = rs[0][0].get("q", "")
        t = threshold + shift
        several = asks_several(q)
        if several:
            t = min(t, plural + shift)
        if rel.is_foreign(q):
            t /= 3
        ps = [p for _, p in rs]
        out[key] = max(ps) < t
    return out


def file_cv(rows: list[dict]) -> np.ndarray:
    """Out-of-file log-odds of every row: the model is fit on the other files' questions."""
    files = sorted({r["key"].split("#")[0] for r in rows})
    x = np.array([features(r) + [1.0] for r in rows])
    y = np.array([float(r["gold"]) for r in rows])
    f = np.array([files.index(r["key"].split("#")[0]) for r in rows])
    out = np.zeros(len(rows))
    for i in range(len(files)):
        if (f != i).any():
            w = fit(x[f != i, :-1], y[f != i])
            out[f == i] = x[f == i] @ w
    return out


def rates(rows: list[dict], refused: dict[str, bool], papers: int | None = None) -> tuple[float, float, int, int]:
    """(false refusal rate of answerable questions, refusal rate of out-of-collection ones, n, n)."""
    kind = {r["key"]: r["type"] for r in rows if papers is None or r["papers"] == papers}
    ans = [refused[k] for k, t in kind.items() if t in ("single", "multi")]
    ooc = [refused[k] for k, t in kind.items() if t == "out_of_corpus"]
    return (sum(ans) / len(ans) if ans else float("nan"), sum(ooc) / len(ooc) if ooc else float("nan"),
            len(ans), len(ooc))


def report_file_cv(rows: list[dict], max_fr: float, min_ooc: float) -> int:
    """Leave-one-file-out: fit on the other files, decide with `simulate` on each grid point, and print
    the trade-off of the 19-paper questions and the thresholds with the fewest false refusals
    keeping out-of-collection refusal >= `min_ooc` (ties: the highest thresholds), per file, and the
    questions it refuses or answers wrongly."""
    from assistant import relevance as rel

    every = file_cv(rows)  # larger collections' files (``@PAPERS``) are fit on too, never decided on here
    small = [r for r in rows if r["papers"] <= rel.REFERENCE_SIZE]
    logits = np.array([z for r, z in zip(rows, every) if r["papers"] <= rel.REFERENCE_SIZE])
    grid = [round(t, 2) for t in np.arange(0.06, 0.61, 0.02)]
    table = []
    for t in grid:
        for pl in [g for g in grid if g <= t]:
            fr, ooc, n_ans, n_ooc = rates(small, simulate(small, logits, t, pl))
            table.append((fr, ooc, t, pl))
    dumped = simulate(small, np.array([r["score_logit"] for r in small]), rel.THRESHOLD, rel.PLURAL_THRESHOLD)
    print(f"{len({r['key'] for r in small})} questions of {len({r['key'].split('#')[0] for r in small})} files "
          f"(19 papers), leave-one-file-out; false refusals with the dumped relevance at the current "
          f"thresholds: {rates(small, dumped)[0]:.3f}")
    print("OOC refused >= : fewest false refusals (threshold, plural)")
    for target in (0.8, 0.85, 0.9, 0.95, 1.0):
        ok = [row for row in table if row[1] >= target - 1e-9]
        if ok:
            fr, ooc, t, pl = min(ok, key=lambda row: (row[0], -row[2], -row[3]))
            print(f"  {target:.2f}: FR {fr:.3f} OOC {ooc:.3f} at {t:.2f} / {pl:.2f}")
    ok = [row for row in table if row[1] >= min_ooc - 1e-9 and row[0] <= max_fr + 1e-9]
    if ok:
        fr, ooc, t, pl = min(ok, key=lambda row: (row[0], -row[1], -row[2], -row[3]))
        print(f"chosen (FR <= {max_fr}, OOC >= {min_ooc}): FR {fr:.3f} OOC {ooc:.3f} at {t:.2f} / {pl:.2f}")
        refused = simulate(small, logits, t, pl)
        for name in sorted({r["key"].split("#")[0] for r in small}):
            part = [r for r in small if r["key"].startswith(name + "#")]
            fr_f, ooc_f, n_a, n_o = rates(part, refused)
            print(f"  {name:26} FR {fr_f:.3f} ({n_a})  OOC refused {ooc_f:.3f} ({n_o})")
        for key, v in sorted(refused.items()):
            kind = next(r for r in small if r["key"] == key)
            if (v and kind["type"] in ("single", "multi")) or (not v and kind["type"] == "out_of_corpus"):
                print(f"    {'refused' if v else 'answered'} {kind['type']:13} {key}: {kind.get('q', '')[:110]}")
    for n in sorted({r["papers"] for r in rows} - {r["papers"] for r in small}):
        big = [r for r in rows if r["papers"] == n]
        z = np.array([v for r, v in zip(rows, every) if r["papers"] == n])
        print(f"collection of {n} papers, leave-one-file-out: threshold, false refusals, out-of-collection refused")
        for t in np.arange(0.30, 0.61, 0.02):
            fr, ooc, n_ans, n_ooc = rates(big, simulate(big, z, t, t))
            print(f"  {t:.2f}  {fr:.3f} ({n_ans})  {ooc:.3f} ({n_ooc})")
    w = fit(np.array([features(r) for r in rows]), np.array([float(r["gold"]) for r in rows]))
    print("fit on all:", ", ".join(f"{n}={v:.2f}" for n, v in zip(_names() + ["BIAS"], w)))
    return 0


EVIDENCE = {"dense": "dense_similarity", "sentence": "sentence_similarity", "focus": "focus",
            "sentence_lexical": "sentence_lexical", "dense_gap": "dense_gap", "uncovered": "uncovered"}
"""The continuous evidence `compare` reports: feature name -> `Evidence.to_json` field."""


def compare(a_path: str, b_path: str) -> tuple[list[dict], dict[str, float]]:
    """Per question present in both dumps, the papers kept (``relevant``) in each; returns ``(differing,
    mean_change)``: the questions whose kept papers differ (``{"key", "type", "q", "only_a", "only_b"}``,
    paper titles), and per evidence of `EVIDENCE` the mean absolute change in log-odds (its weight in
    `assistant.relevance` times the change of its value) over the (question, paper) pairs of both dumps."""
    from assistant import relevance as rel

    weight = dict(zip(rel.FEATURES, rel.WEIGHTS))

    def load(path):
        by = collections.defaultdict(dict)
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                by[(r.get("file", path), r["qid"])][r["id"]] = r
        return by

    a, b = load(a_path), load(b_path)
    differing, total, pairs = [], collections.Counter(), 0
    for key in a.keys() & b.keys():
        kept_a = {i for i, r in a[key].items() if r["relevant"]}
        kept_b = {i for i, r in b[key].items() if r["relevant"]}
        if kept_a != kept_b:
            first = next(iter(a[key].values()))
            title = {i: r.get("title", i) for i, r in {**b[key], **a[key]}.items()}
            differing.append({"key": f"{key[0]}#{key[1]}", "type": first["type"], "q": first.get("q", ""),
                              "only_a": sorted(title[i] for i in kept_a - kept_b),
                              "only_b": sorted(title[i] for i in kept_b - kept_a)})
        for i in a[key].keys() & b[key].keys():
            pairs += 1
            for name, fld in EVIDENCE.items():
                total[name] += abs(weight[name] * ((b[key][i].get(fld) or 0.0) - (a[key][i].get(fld) or 0.0)))
    return sorted(differing, key=lambda d: d["key"]), {n: total[n] / max(pairs, 1) for n in EVIDENCE}


def _names() -> list[str]:
    from assistant.relevance import FEATURES

    return [FEATURES[i] for i in USE] if USE else list(FEATURES)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dumps", nargs="+")
    ap.add_argument("--all", action="store_true", help="fit on every question, not only odd ids")
    ap.add_argument("--folds", type=int, default=0, help="k-fold cross-validation by question (with --all)")
    ap.add_argument("--seeds", type=int, default=5, help="repetitions of the k-fold split (--folds)")
    ap.add_argument("--by-file", action="store_true", help="leave-one-file-out cross-validation of the decision")
    ap.add_argument("--features", default="", help="comma-separated names of relevance.FEATURES to fit on")
    ap.add_argument("--compare", action="store_true", help="two dumps: the questions whose kept papers differ")
    ap.add_argument("--max-fr", type=float, default=0.05)
    ap.add_argument("--min-ooc", type=float, default=0.9)
    args = ap.parse_args(argv)
    global USE
    from assistant.relevance import FEATURES

    USE = tuple(FEATURES.index(n) for n in args.features.split(",") if n)
    if args.compare:
        if len(args.dumps) != 2:
            ap.error("--compare takes two dumps")
        differing, change = compare(*args.dumps)
        for d in differing:
            print(f"{d['key']} {d['type']}: only in the first {d['only_a']}, only in the second {d['only_b']}"
                  f" | {d['q'][:90]}")
        n = len({(json.loads(x).get('file'), json.loads(x)['qid']) for x in open(args.dumps[0]) if x.strip()})
        print(f"{len(differing)} of {n} questions keep other papers")
        print("mean |change in log-odds| per (question, paper):",
              ", ".join(f"{k} {v:.4f}" for k, v in sorted(change.items(), key=lambda kv: -kv[1])))
        return 0
    rows = []
    for spec in args.dumps:
        path, _, size = spec.partition("@")
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                score = min(max(r["score"], 1e-6), 1 - 1e-6)
                key = question_key(r.get("file", path), r["qid"], r.get("precision"))
                rows.append({**r, "key": key, "papers": int(size or 19),
                             "score_logit": math.log(score / (1 - score))})
    if args.by_file:
        return report_file_cv(rows, args.max_fr, args.min_ooc)
    if args.folds:
        return report_cv(rows, args.folds, args.seeds)
    train = [r for r in rows if args.all or odd(r["qid"])]
    w = fit(np.array([features(r) for r in train]), np.array([float(r["gold"]) for r in train]))
    print(", ".join(f"{n}={v:.2f}" for n, v in zip(_names() + ["BIAS"], w)))
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
    print(", ".join(f"{n}={v:.2f}" for n, v in zip(_names() + ["BIAS"], w)), "(fit on all)")
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

    now = np.array([rel.WEIGHTS[i] for i in (USE or range(len(rel.WEIGHTS)))] + [rel.BIAS])
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
