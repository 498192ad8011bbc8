"""Hybrid retrieval: dense kNN (Chroma, cosine) ∪ BM25 (bm25s), fused into one ranking.

Each retriever gives its top ``settings.candidates`` documents; the fusion (``settings.fusion``) is

- ``"tmm"`` (default): a convex combination of theoretical-min-max normalised scores (TM2C2 in Bruch,
  Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023):
  ``score(d) = w_dense * (cos(d) + 1) / (cos_max + 1) + w_bm25 * bm25(d) / bm25_max``, where the
  maxima are over each retriever's candidates and the minima are the scores' theoretical lower bounds
  (-1 for cosine, 0 for BM25). BM25 scores are exact for every document; a document outside the dense
  candidates gets the lowest dense candidate's similarity (an upper bound on its own).
- ``"rrf"``: reciprocal rank fusion, ``score(d) = w_dense / (k + rank_dense(d)) + w_bm25 / (k + rank_bm25(d))``
  with ranks from 1 and a term left out when d is not among that retriever's candidates (Cormack,
  Clarke & Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning
  Methods", SIGIR 2009).

The defaults (tmm, weights 0.8 dense / 0.2 BM25, 100 candidates; BM25 k1=0.9, b=0.4) were chosen
on the BEIR SciFact train split (`benchmarks/tune_scifact.py`); test figures are in docs/benchmarks.md.
Metadata filters (venue, year range, author name parts) apply to both retrievers before fusion.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from assistant.enums import ErrorKind
from assistant.errors import AssistantError
from assistant.store.paper import Paper

if TYPE_CHECKING:
    from assistant.settings import Settings
    from assistant.store.collection import PaperStore

Mode = Literal["hybrid", "dense", "bm25"]
# Largest unfiltered kNN asked of Chroma in place of a filtered one (2,000 neighbours ~30 ms at 16k on a
# loaded 2-core machine, against 100-240 ms for the filtered kNN; benchmarks/search_latency.py)
OVERSAMPLE_LIMIT = 2500


@dataclass(frozen=True)
class Filters:
    """Metadata filters. `venue` matches case-insensitively (several venues: comma-separated);
    `year_min`/`year_max` are inclusive; `author` matches whole name parts of any author, case-insensitively
    (``Chen`` matches "Xinyun Chen", ``Yann LeCun`` "Yann LeCun"; ``Long`` does not match "Yonglong"). Values
    and stored metadata are compared in one Unicode form (`assistant.text.fold_key`: NFKC, case-folded)."""

    venue: str | None = None
    year_min: int | None = None
    year_max: int | None = None
    author: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.venue or self.year_min or self.year_max or self.author)

    @property
    def venues(self) -> set[str]:
        """The venue names in the form of the stored ``venue_key`` (`assistant.text.fold_key`)."""
        from assistant.text import fold_key

        return {fold_key(v) for v in (self.venue or "").split(",") if v.strip()}

    @property
    def author_pattern(self) -> re.Pattern | None:
        """`author` as a regular expression over folded author names: its name parts as whole words."""
        from assistant.text import fold_key

        if not self.author:
            return None
        return re.compile(rf"(?<!\w){re.escape(fold_key(self.author).strip())}(?!\w)")

    def matches(self, paper: Paper) -> bool:
        from assistant.text import fold_key

        if self.venues and fold_key(paper.venue) not in self.venues:
            return False
        if self.year_min is not None and (paper.year is None or paper.year < self.year_min):
            return False
        if self.year_max is not None and (paper.year is None or paper.year > self.year_max):
            return False
        if self.author:
            pattern = self.author_pattern
            if not any(pattern.search(fold_key(a)) for a in paper.authors):
                return False
        return True

    def chroma_where(self) -> dict | None:
        """The venue/year part as a Chroma ``where`` clause (author is applied by id)."""
        clauses: list[dict] = []
        venues = sorted(self.venues)
        if len(venues) == 1:
            clauses.append({"venue_key": venues[0]})
        elif venues:
            clauses.append({"venue_key": {"$in": venues}})
        if self.year_min is not None:
            clauses.append({"year": {"$gte": self.year_min}})
        if self.year_max is not None:
            clauses.append({"year": {"$lte": self.year_max}})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def describe(self) -> str:
        parts = []
        if self.venue:
            parts.append(f"venue={self.venue}")
        if self.year_min is not None or self.year_max is not None:
            lo, hi = self.year_min, self.year_max
            parts.append(f"year={lo}" if lo == hi else f"year={lo or ''}-{hi or ''}")
        if self.author:
            parts.append(f"author~{self.author}")
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {"venue": self.venue, "year_min": self.year_min, "year_max": self.year_max, "author": self.author}


class QueryError(AssistantError, ValueError):
    """A search argument that cannot be used (a year that is no year, a `top_k` below 1): one line
    naming the value and what to write instead. A `ValueError` too, for callers that catch that."""

    kind = ErrorKind.USAGE


def _count(top_k) -> int:
    """`top_k` as an int ≥ 1 (numpy integers too), else `QueryError`: a negative one sliced the
    ranking from the end, 0 silently meant the default."""
    import operator

    try:
        if not isinstance(top_k, bool) and operator.index(top_k) >= 1:
            return operator.index(top_k)
    except TypeError:
        pass
    raise QueryError(f"top_k must be a whole number of papers, at least 1 (got {top_k!r})")


MAX_QUERY_CHARS = 20_000
"""The longest query (question) searched, in characters after whitespace is collapsed: about 3,000 words,
ten times a long pasted abstract. MiniLM reads only a query's first 256 word pieces, so a longer text changes
nothing but BM25's cost and the gate's; a megabyte pasted by mistake was searched for seconds."""


def checked_query(query: str, what: str = "the question") -> str:
    """`query` with whitespace collapsed and NFKC-normalised (fullwidth and NFD forms as stored), or
    `QueryError` ("`what` is … characters long") when it is longer than `MAX_QUERY_CHARS`."""
    import unicodedata

    query = " ".join(unicodedata.normalize("NFKC", query or "").split())
    if len(query) > MAX_QUERY_CHARS:
        raise QueryError(f"{what} is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are "
                         f"searched; shorten it to what you are looking for")
    return query


def has_words(query: str) -> bool:
    """`query` holds a letter or digit in some script: "???" or emoji alone have nothing to search for. The library's
    search takes such a query (nothing matches it lexically); the commands refuse it (`cli.common.require_query`,
    `batch.read_questions`)."""
    return re.search(r"[^\W_]", query or "") is not None


def parse_year(text: str | int | None) -> tuple[int | None, int | None]:
    """``"2023"`` → (2023, 2023); ``"2021-2023"`` / ``"2021..2023"`` → (2021, 2023); ``"2021-"`` →
    (2021, None). Raises `QueryError` (a `ValueError`) with a one-line message otherwise."""
    if text is None or text == "":
        return None, None
    text = str(text).strip()
    m = re.fullmatch(r"(\d{4})?\s*(?:-|\.\.|–|:)\s*(\d{4})?|(\d{4})", text)
    if not m or not (m.group(1) or m.group(2) or m.group(3)):
        raise QueryError(f"year '{text}' is not a year or range; use 2023 or 2021-2023")
    if m.group(3):
        return int(m.group(3)), int(m.group(3))
    lo = int(m.group(1)) if m.group(1) else None
    hi = int(m.group(2)) if m.group(2) else None
    if lo and hi and lo > hi:
        raise QueryError(f"year range '{text}' is empty; put the earlier year first")
    return lo, hi


@dataclass(frozen=True)
class SearchResult:
    """One retrieved paper. `score` is the fused score, higher is better (``settings.fusion``: the tmm
    convex combination by default, or RRF; with `mode` "dense" or "bm25" the same fusion over one retriever);
    `dense_similarity` is the cosine similarity to the question (None if not a dense candidate);
    `bm25_score` the raw BM25 score (0 if no term matched)."""

    paper: Paper
    score: float
    rank: int
    dense_similarity: float | None = None
    dense_rank: int | None = None
    bm25_score: float = 0.0
    bm25_rank: int | None = None

    def to_json(self, snippet_chars: int | None = None) -> dict:
        out = self.paper.to_json()
        out["score"] = round(self.score, 6)
        out["rank"] = self.rank
        out["dense_similarity"] = None if self.dense_similarity is None else round(self.dense_similarity, 4)
        out["bm25_score"] = round(self.bm25_score, 4)
        return out


class PaperTable:
    """Per-snapshot lookups the search needs on every query, built once per list of papers: the row
    of each id, and the venue / year / author columns that filters are evaluated on as arrays
    (a Python loop over 16k papers per query costs ~30 ms; the arrays ~1 ms)."""

    _SEP = "\x00"  # joins a paper's folded authors; cannot occur in a name

    def __init__(self, papers: Sequence[Paper]):
        self.papers = papers
        # a store's `PaperList` names its papers without reading them (a cold search reads its top k)
        self.ids: list[str] = getattr(papers, "ids", None) or [p.id for p in papers]
        self.by_id = {paper_id: i for i, paper_id in enumerate(self.ids)}

    # The filter columns are built on the first filtered search (~0.15 s at 16k papers, which a cold
    # search without filters does not need to pay); the same Unicode form as `Filters.matches`
    # (`fold_key`: NFKC, case-folded).
    @cached_property
    def venues(self):
        """``(len(papers),) object``: each paper's folded venue."""
        import numpy as np

        from assistant.text import fold_key

        return np.array([fold_key(p.venue) for p in self.papers], dtype=object)

    @cached_property
    def years(self):
        """``(len(papers),) int64``: each paper's year, -1 when it has none."""
        import numpy as np

        return np.array([p.year if p.year is not None else -1 for p in self.papers], dtype=np.int64)

    @cached_property
    def authors(self) -> list[str]:
        """Each paper's folded author names joined with `_SEP`."""
        from assistant.text import fold_key

        return [self._SEP.join(fold_key(a) for a in p.authors) for p in self.papers]

    @classmethod
    def of(cls, store: PaperStore, papers: Sequence[Paper]) -> PaperTable:
        """The table of `papers`, kept on `store` until the store's list of papers changes."""
        table = getattr(store, "_paper_table", None)
        if table is None or table.papers is not papers:
            table = cls(papers)
            store._paper_table = table
        return table

    def mask(self, filters: Filters):
        """``(len(papers),) bool``: which papers `filters` lets through (same as `Filters.matches`)."""
        import numpy as np

        allowed = np.ones(len(self.papers), dtype=bool)
        if filters.venues:
            allowed &= np.isin(self.venues, sorted(filters.venues))
        if filters.year_min is not None:
            allowed &= (self.years >= filters.year_min) & (self.years != -1)
        if filters.year_max is not None:
            allowed &= (self.years <= filters.year_max) & (self.years != -1)
        if filters.author:
            pattern = filters.author_pattern  # whole name parts; the separator is not a word character
            rows = np.flatnonzero(allowed)
            hits = np.fromiter((pattern.search(self.authors[i]) is not None for i in rows), dtype=bool,
                               count=len(rows))
            allowed[rows[~hits]] = False
        return allowed


class Retriever:
    """Hybrid retriever over a `PaperStore`. Cheap to create; the BM25 index is shared through the
    store and refreshed when the collection changes."""

    def __init__(self, store: PaperStore, settings: Settings | None = None):
        self.store = store
        self.settings = settings or store.settings
        # the ONNX model loads while the first search opens Chroma and reads the BM25 index
        getattr(getattr(store, "embedder", None), "load_in_background", lambda: None)()

    def search(self, query: str, top_k: int | None = None, filters: Filters | None = None,
               mode: Mode = "hybrid") -> list[SearchResult]:
        """The `top_k` best papers for `query`, best first (fewer if fewer match the filters;
        empty for an empty collection or a blank query). A query in another language is searched with
        the English words it is read with (`relevance.english_query`).

        Raises `StoreError` / `EmbeddingError` when the store or model is unusable, `QueryError` for a
        `top_k` below 1 or a query longer than `MAX_QUERY_CHARS`.
        """
        import numpy as np

        from assistant.relevance import english_query

        s = self.settings
        top_k = s.top_k if top_k is None else _count(top_k)
        filters = filters or Filters()
        query = checked_query(query, "the query")
        papers, bm25 = self.store.bm25()
        if not papers or not query:
            return []
        table = PaperTable.of(self.store, papers)
        allowed = None if filters.empty else table.mask(filters)
        n_allowed = len(papers) if allowed is None else int(allowed.sum())
        if n_allowed == 0:
            return []
        n_cand = min(max(s.candidates, top_k), n_allowed)

        bm25_ranked: list[tuple[int, float]] = []
        bm25_all = np.zeros(len(papers), dtype=np.float32)
        # a question in another language: with the English words of its cognates and Chinese words
        query = english_query(query, bm25)
        if mode in ("hybrid", "bm25"):
            scores = bm25.scores(query)
            scores = bm25_all = scores if allowed is None else np.where(allowed, scores, 0.0)
            positive = int((scores > 0).sum())
            if positive:
                take = min(n_cand, positive)
                top = np.argpartition(-scores, take - 1)[:take]
                top = top[np.argsort(-scores[top], kind="stable")]
                bm25_ranked = [(int(i), float(scores[i])) for i in top]

        dense_ranked: list[tuple[int, float]] = []
        if mode in ("hybrid", "dense"):
            vector = self.store.embedder.embed([query])[0]
            dense_ranked = self._dense(vector, n_cand, filters, allowed, n_allowed, table)

        fused: dict[int, dict] = {}
        for rank, (i, sim) in enumerate(dense_ranked, start=1):
            fused.setdefault(i, {})["dense"] = (rank, sim)
        for rank, (i, score) in enumerate(bm25_ranked, start=1):
            fused.setdefault(i, {})["bm25"] = (rank, score)

        if s.fusion == "tmm":
            sims = [sim for _, sim in dense_ranked]
            cos_max, cos_floor = (max(sims), min(sims)) if sims else (0.0, -1.0)
            bm25_max = max((score for _, score in bm25_ranked), default=0.0)

            def fused_score(parts: dict, i: int) -> float:
                cos = parts["dense"][1] if "dense" in parts else cos_floor
                total = s.dense_weight * (cos + 1.0) / (cos_max + 1.0) if sims else 0.0
                if bm25_max > 0:
                    total += s.bm25_weight * float(bm25_all[i]) / bm25_max
                return total
        else:
            def fused_score(parts: dict, i: int) -> float:
                total = 0.0
                if "dense" in parts:
                    total += s.dense_weight / (s.rrf_k + parts["dense"][0])
                if "bm25" in parts:
                    total += s.bm25_weight / (s.rrf_k + parts["bm25"][0])
                return total

        scored = {i: fused_score(parts, i) for i, parts in fused.items()}
        order = sorted(fused.items(), key=lambda kv: (-scored[kv[0]], table.ids[kv[0]]))[:top_k]
        results = []
        for rank, (i, parts) in enumerate(order, start=1):
            dense = parts.get("dense")
            lex = parts.get("bm25")
            results.append(SearchResult(
                paper=papers[i], score=scored[i], rank=rank,
                dense_similarity=dense[1] if dense else None, dense_rank=dense[0] if dense else None,
                bm25_score=lex[1] if lex else float(bm25_all[i]), bm25_rank=lex[0] if lex else None))
        return results

    def _dense(self, vector, n_cand: int, filters: Filters, allowed, n_allowed: int,
               table: PaperTable) -> list[tuple[int, float]]:
        """The `n_cand` nearest allowed papers: ``[(row, cosine similarity)]``, best first.

        With a filter, Chroma's filtered kNN (``where`` / ``ids``) scans the metadata of the whole
        collection (~100 ms at 16k); when the filter lets through a fair share of the papers, an
        unfiltered kNN for ``n_cand × (all / allowed) × 1.25`` neighbours (a few ms) holds the
        `n_cand` nearest allowed ones, which are then the same papers. Otherwise, or when the
        oversampled answer has too few allowed papers, Chroma's filtered kNN is used.
        """
        import math

        import numpy as np

        by_id = table.by_id
        if allowed is None:
            hits = self.store.dense_query(vector, n_cand)
            return [(by_id[i], sim) for i, sim in hits if i in by_id]
        total = len(table.papers)
        n_query = min(total, math.ceil(n_cand * total / n_allowed * 1.25))
        if n_query <= OVERSAMPLE_LIMIT:
            hits = self.store.dense_query(vector, n_query)
            rows = [(by_id[i], sim) for i, sim in hits if i in by_id and allowed[by_id[i]]]
            if len(rows) >= n_cand or len(hits) >= total:
                return rows[:n_cand]
        ids = [table.ids[i] for i in np.flatnonzero(allowed)] if filters.author else None
        hits = self.store.dense_query(vector, n_cand, where=filters.chroma_where(), ids=ids)
        return [(by_id[i], sim) for i, sim in hits if i in by_id]
