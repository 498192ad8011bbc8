"""Fit the extractive answerer's sentence scorer: which sentence of a gold abstract answers the question.

``python -m benchmarks.fit_sentences [FILE.jsonl ...] [--l2 L2] [--softmax] [--drop F1,F2] [--show N]``

Labelled set: every question with facts (and every chat turn with facts) of the development files
(default: ``../shared/eval/icml2026_dev.jsonl``, ``icml2026_chats_dev.jsonl`` and
``benchmarks/heldout/*fresh*.jsonl``), paired with each sentence of each of its gold abstracts (the
bundled ICML 2026 collection) that contains at least one of its facts; a pair is positive when the
sentence states one of the question's facts (`assistant.evaluation.fact_found`: LaTeX rendered, case
folded, numbers compared as numbers). Features: `assistant.extractive.sentence_features` (cosine
similarity with MiniLM, IDF-weighted and distinctive overlap of content stems, bigram overlap, the
paper's name, a spelled-out acronym, contribution/result/background flags, number × number asked,
position).

The model is a logistic regression (L2-regularised log-loss, gradient descent, numpy; scikit-learn is
not installed) on standardised features; ``--softmax`` fits a conditional logit over each unit's
sentences instead (a ranking objective: no better, 0.663 top-1), ``--drop`` leaves features out.
Cross-validation is grouped by file: fit on all files but one, score the held-out file.
Printed per held-out file and in all, over the (question, gold paper) units: the fact recall of the
top-1 and top-2 sentences (share of the unit's facts that the chosen sentences state) of the learned
scorer and of the hand-weighted one (`hand_score` on `ExtractiveSynthesizer._scored` rows), and
the fact recall and sentence count of `ExtractiveSynthesizer._summary`'s quoting rule (those within a
margin of the best, at most three) per margin, and last the weights fit on all files, in the raw
feature scale, as pasted into `assistant.extractive.SENTENCE_WEIGHTS` and `SENTENCE_BIAS`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

from benchmarks._scifact import MODEL_DIR, SHARED
from benchmarks.fit_relevance import fit

HERE = Path(__file__).resolve().parent


UNSEEN = ("fresh11", "fresh36")
"""Held-out sets whose answers nobody has read (benchmarks/heldout/README.md): never fit on by default."""


def default_files() -> list[Path]:
    """The development files: ../shared/eval's dev sets and the held-out sets already read (not `UNSEEN`)."""
    return [SHARED / "eval" / "icml2026_dev.jsonl", SHARED / "eval" / "icml2026_chats_dev.jsonl",
            *sorted(p for p in (HERE / "heldout").glob("icml2026_*fresh*.jsonl")
                    if not any(p.stem.endswith(u) for u in UNSEEN))]


def hand_score(x, paper, quantity: bool) -> float:
    """The hand-weighted scorer `ExtractiveSynthesizer._summary` used before the learned one, kept here
    as the baseline the fit is measured against: how well sentence `x` (an ``ExtractiveSynthesizer._scored``
    row) answers a question about one paper: its match (similarity, the question's distinctive words),
    plus the paper's contribution ("we propose ...", its name) and main result (a number with
    "outperforms", ...), minus motivation/background that carries none of what is asked."""
    from assistant.extractive import _BACKGROUND, _CONTRIBUTION, _RESULT, has_number

    score, _, sent, _, overlap, _ = x
    score += 0.04 * min(overlap, 3)
    own = bool(_CONTRIBUTION.search(sent))
    named = paper.display_name[:40].casefold() in sent.casefold()
    if own:
        score += 0.08
    elif named:
        score += 0.04
    number = has_number(sent)
    if _RESULT.search(sent):
        score += 0.06 if number else 0.03
    if quantity and number:
        score += 0.1
    if not own and not named and _BACKGROUND.search(sent):
        score -= 0.12
    return score


def questions_of(path: Path) -> list[dict]:
    """The questions (chat turns flattened, id ``c01.2``) of `path` that carry facts and gold papers."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        turns = obj.get("turns")
        items = [(f"{obj['id']}.{i}", t) for i, t in enumerate(turns, 1)] if turns else [(obj["id"], obj)]
        for qid, q in items:
            if q.get("facts") and q.get("gold") and q.get("type") in ("single", "multi"):
                out.append({"id": qid, "q": q["q"], "gold": q["gold"], "facts": q["facts"]})
    return out


def units(files: list[Path], papers, embedder, synth) -> list[dict]:
    """One unit per (question, gold paper) whose abstract states at least one of the question's facts:
    its features (n, k), labels (n,), the hand-weighted scores (n,), and per sentence which facts it states."""
    from assistant import evaluation as ev
    from assistant.events import Source
    from assistant.extractive import _NUMBER_Q, focus_stems, sentence_features
    from assistant.relevance import matched_names, sentence_vectors
    from assistant.text import fold, name_tokens

    out = []
    for path in files:
        for q in questions_of(path):
            gold = ev.resolve_gold(q["gold"], papers)[0]
            for pid in gold:
                paper = next(p for p in papers if p.id == pid)
                sentences, vectors = sentence_vectors(paper, embedder)
                if not sentences:
                    continue
                facts = [f for f in q["facts"] if ev.fact_found(f, paper.abstract)]
                if not facts:
                    continue
                question = q["q"]
                source = Source(n=1, paper=paper, score=1.0)
                names = name_tokens(fold(question))
                pointers = [nm for nm in names if nm in matched_names(nm, paper.document)
                            and nm in matched_names(nm, paper.title)]
                focus = focus_stems(question, pointers)
                rows = synth._scored(question, embedder, [source], pointers, focus)
                quantity = bool(_NUMBER_Q.search(question) or re.search(r"\bcompare|\bgain|\bspeed", question, re.I))
                hand = [hand_score(x, paper, quantity) for x in rows]
                sims = [x[3] for x in rows]
                x = np.array(sentence_features(question, sentences, sims, pointers, quantity))
                states = [[ev.fact_found(f, s) for f in facts] for s in sentences]
                out.append({"file": path.stem, "id": q["id"], "paper": paper.display_name, "q": question,
                            "x": x, "y": np.array([float(any(s)) for s in states]), "hand": np.array(hand),
                            "states": np.array(states, dtype=bool), "sentences": sentences})
    return out


def fit_softmax(x: np.ndarray, y: np.ndarray, group: np.ndarray, l2: float, steps: int = 4000,
                lr: float = 0.5) -> np.ndarray:
    """Conditional logit (softmax over the sentences of one unit, the positives' share of probability
    maximised): ranking weights (k,) on `x` (m, k), 0/1 `y` (m,), unit ids `group` (m,); no intercept."""
    w = np.zeros(x.shape[1])
    ids = np.unique(group, return_inverse=True)[1]
    g = ids.max() + 1
    for _ in range(steps):
        z = x @ w
        e = np.exp(z - z.max())
        p = e / np.bincount(ids, e, g)[ids]
        py = p * y
        q = py / np.maximum(np.bincount(ids, py, g)[ids], 1e-12)  # posterior over positives
        grad = x.T @ (p - q) / g
        w -= lr * (grad + l2 * w)
    return w


def fit_raw(x: np.ndarray, y: np.ndarray, l2: float, group: np.ndarray | None = None) -> np.ndarray:
    """`fit` on standardised columns, returned in the raw feature scale (weights, then the intercept)."""
    mu, sd = x.mean(0), x.std(0)
    sd[sd == 0] = 1.0
    w = fit((x - mu) / sd, y, l2, steps=4000) if group is None else np.r_[fit_softmax((x - mu) / sd, y, group, l2), 0.0]
    raw = w[:-1] / sd
    return np.r_[raw, w[-1] - (mu * raw).sum()]


def recall_at(unit: dict, scores: np.ndarray, k: int) -> float:
    """Share of the unit's facts stated by its `k` best-scored sentences."""
    top = np.argsort(-scores, kind="stable")[:k]
    return float(unit["states"][top].any(0).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--l2", type=float, default=1e-2)
    parser.add_argument("--softmax", action="store_true", help="conditional logit (ranking) instead of logistic")
    parser.add_argument("--drop", default="", help="comma-separated features to leave out (ablation)")
    parser.add_argument("--show", type=int, default=0, help="print N held-out units the learned top-1 misses")
    args = parser.parse_args(argv)

    from assistant.extractive import SENTENCE_FEATURES, ExtractiveSynthesizer
    from assistant.settings import load_settings
    from assistant.store.collection import PaperStore
    from assistant.store.embeddings import make_embedder
    from assistant.store.ingest import ensure_default_collection

    settings = load_settings(embedding_model_dir=MODEL_DIR)
    store = PaperStore(settings)
    ensure_default_collection(store)
    papers = store.papers()
    embedder = make_embedder(settings)
    synth = ExtractiveSynthesizer(settings)
    data = units(args.files or default_files(), papers, embedder, synth)
    keep = [i for i, f in enumerate(SENTENCE_FEATURES) if f not in set(args.drop.split(","))]
    names = [SENTENCE_FEATURES[i] for i in keep]
    for u in data:
        u["x"] = u["x"][:, keep]
    files = sorted({u["file"] for u in data})
    print(f"{len(data)} (question, gold paper) units, {sum(len(u['y']) for u in data)} sentences, "
          f"{int(sum(u['y'].sum() for u in data))} state a fact; files: {len(files)}")

    learned: dict[int, np.ndarray] = {}
    for held in files:
        train = [u for u in data if u["file"] != held]
        group = np.concatenate([np.full(len(u["y"]), i) for i, u in enumerate(train)]) if args.softmax else None
        w = fit_raw(np.vstack([u["x"] for u in train]), np.concatenate([u["y"] for u in train]), args.l2, group)
        for i, u in enumerate(data):
            if u["file"] == held:
                learned[i] = u["x"] @ w[:-1] + w[-1]

    def row(name: str, idx: list[int]) -> str:
        us = [data[i] for i in idx]
        cells = [np.mean([recall_at(u, s, k) for u, s in zip(us, ss)])
                 for ss in ([u["hand"] for u in us], [learned[i] for i in idx]) for k in (1, 2, 3)]
        return f"{name:<28} {len(us):>5} " + " ".join(f"{c:>8.3f}" for c in cells)

    heads = " ".join(f"{h:>8}" for h in ("hand@1", "hand@2", "hand@3", "learn@1", "learn@2", "learn@3"))
    print(f"\n{'held-out file':<28} {'units':>5} {heads}")
    for held in files:
        print(row(held, [i for i, u in enumerate(data) if u["file"] == held]))
    print(row("all (file-grouped CV)", list(range(len(data)))))

    print("\nthe quoting rule of `ExtractiveSynthesizer._summary` (the best sentence and those within a margin"
          " of log-odds of it and above a floor, at most 3), held-out scores:")
    for floor in (None, -2.5, -2.0):
        for margin in (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0):
            got, count = [], []
            for i, u in enumerate(data):
                sc = learned[i]
                top = np.argsort(-sc, kind="stable")
                near = sc >= sc[top[0]] - margin
                if floor is not None:
                    near &= sc >= floor
                k = max(1, min(3, int(near.sum())))
                got.append(recall_at(u, sc, k))
                count.append(k)
            print(f"  margin {margin:>4.1f}, floor {floor}: fact recall {np.mean(got):.3f}, "
                  f"sentences quoted {np.mean(count):.2f}")

    group = np.concatenate([np.full(len(u["y"]), i) for i, u in enumerate(data)]) if args.softmax else None
    w = fit_raw(np.vstack([u["x"] for u in data]), np.concatenate([u["y"] for u in data]), args.l2, group)
    print("\nweights fit on all files (raw feature scale):")
    for name, v in zip([*names, "intercept"], w):
        print(f"  {name:<17} {v:+.3f}")
    if args.show:
        shown = 0
        for i, u in enumerate(data):
            top = int(np.argmax(learned[i]))
            if not u["states"][top].any() and shown < args.show:
                shown += 1
                print(f"\n[{u['file']} {u['id']}] {u['q']}\n  picked: {u['sentences'][top][:160]}")
                good = [s for s, st in zip(u["sentences"], u["states"]) if st.any()]
                print(f"  answer: {good[0][:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
