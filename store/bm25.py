"""The BM25 index (`bm25s`), derived from the collection's own documents.

Built from what Chroma holds (so a store opened fresh from disk or from a server has it too), cached
on disk under ``<data_dir>/cache/bm25/`` keyed by the collection id and a hash of the stored documents
(and the BM25 parameters), and rebuilt when the collection changes. BM25 with Lucene's scoring variant (bm25s; Lù,
"BM25S", arXiv:2407.03618), k1=0.9, b=0.4 (Anserini's defaults, used for BEIR's BM25 baselines; also
the best pair on the BEIR SciFact train split, `benchmarks/tune_scifact.py`), English stopwords,
Snowball stemming (PyStemmer) with the field's clipped words, British spellings and acronym plurals (`FieldStemmer`),
after Unicode NFKC and with accents folded (`_normalize`).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# Tokens: a CJK character on its own (scripts without spaces still match character by character),
# decimal numbers kept whole ("21.74"), otherwise word characters (bm25s' default keeps 2+ chars).
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
TOKEN_PATTERN = rf"[{_CJK}]|\d+(?:[.,]\d+)+|[^\W{_CJK}]+"
K1, B = 0.9, 0.4
# part of the cache key: a change rebuilds cached indexes
PARAMS = f"lucene k1={K1} b={B} tokens=6-nfkc-fold-field-us-stab"


_COMBINING_ACCENTS = re.compile("[\u0300-\u036f]")


def _normalize(texts: list[str]) -> list[str]:
    """Unicode NFKC, then accents folded (NFKD without the combining diacritical marks, U+0300-U+036F, as
    Lucene's ASCIIFoldingFilter folds them), before lower-casing and stemming, for documents and queries alike:
    fullwidth letters and digits become ASCII, and "Karman" matches "Kármán" (airas fresh51: "Karman vortex streets"
    was refused as a word no paper uses). Other scripts' marks (the kana voicing mark, U+3099) are kept."""
    import unicodedata

    return [unicodedata.normalize("NFC", _COMBINING_ACCENTS.sub("", unicodedata.normalize(
        "NFKD", unicodedata.normalize("NFKC", t)))) for t in texts]


CLIPPED = {"math": "mathematics", "maths": "mathematics", "param": "parameter", "params": "parameters",
           "eval": "evaluation", "evals": "evaluations", "config": "configuration", "configs": "configurations",
           "repo": "repository", "repos": "repositories", "nets": "networks"}
"""Clipped words of the field's writing and their full forms, which Snowball stems apart ("math" against "mathemat"
of "mathematical"): a question on "math reasoning" is about abstracts writing "mathematical reasoning". "nets" are
networks ("spiking nets"); not "net", which is also the net of a gain."""
STABILITY = {w: "stability" for w in ("unstable", "unstably", "instability", "instabilities", "stabilities")}
"""The forms of "stability" Snowball stems apart ("stability" -> "stabil", "unstable" -> "unstabl", "instability" ->
"instabl"): one topic in the field's writing, so "Which papers fix unstable training?" finds the abstracts that write
"training instability" and "training stability" (fresh27 found neither). Not "stable" ("stabl"), which abstracts also
use of other things than training ("a stable, in-distribution proxy")."""
_ACRONYM_PLURAL = re.compile(r"[b-df-hj-np-tv-z]{2,}s")
"""A lower-cased acronym's plural ("llms", "gnns", "mdps": consonants and an "s"), whose "s" Snowball keeps (no vowel
before it), so that "LLMs" and "LLM" stemmed apart."""


_BRITISH_IZE = re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations|er|ers|able)$")
_BRITISH_YZE = re.compile(r"(?<=[a-z]{3})ys(e|ed|ing|er|ers)$")
_BRITISH_OUR = re.compile(r"(?<=[a-z]{3})our(s|ed|ing|ite|ites|able|)$")
"""British spellings written in American: "-ise"/"-isation" as "-ize"/"-ization" ("quantisation", "optimiser",
"normalise"), "-yse" as "-yze" ("analyse"), "-our" as "-or" ("behaviour", "neighbours"). Applied to documents and
queries alike, so a word that only looks British ("precise" as "precize") still matches itself."""


def american_spelling(word: str) -> str:
    """`word` (lower-cased) in American spelling by the three regular British/American differences (`_BRITISH_IZE`,
    `_BRITISH_YZE`, `_BRITISH_OUR`); other words unchanged."""
    return _BRITISH_OUR.sub(r"or\1", _BRITISH_YZE.sub(r"yz\1", _BRITISH_IZE.sub(r"iz\1", word)))


class FieldStemmer:
    """PyStemmer's English (Porter 2, Snowball) stemmer with four corrections for the field's writing, applied to
    lower-cased words before stemming: a clipped word stems as its full form (`CLIPPED`), a form of "stability" as
    "stability" (`STABILITY`), a British spelling as the American one (`american_spelling`: Snowball stems
    "quantisation" and "quantization" apart), an acronym's plural as its singular (`_ACRONYM_PLURAL`).
    ``stemWord(str) -> str`` and ``stemWords(list[str]) -> list[str]``, as PyStemmer's (bm25s calls either)."""

    def __init__(self, snowball):
        self._snowball = snowball

    def stemWord(self, word: str) -> str:  # noqa: N802 (PyStemmer's name)
        word = american_spelling(CLIPPED.get(word) or STABILITY.get(word, word))
        if _ACRONYM_PLURAL.fullmatch(word):
            word = word[:-1]
        return self._snowball.stemWord(word)

    def stemWords(self, words: list[str]) -> list[str]:  # noqa: N802
        return [self.stemWord(w) for w in words]


def english_stemmer():
    """The stemmer BM25 and `assistant.text` share (`FieldStemmer` over PyStemmer's English); None without
    PyStemmer."""
    try:
        import Stemmer

        return FieldStemmer(Stemmer.Stemmer("english"))
    except ImportError:  # pragma: no cover - PyStemmer is a dependency
        return None


def tokenize(texts: list[str], stemmer=None):
    """Lower-cased, stopword-free, stemmed tokens of `texts` (`_normalize` first) as bm25s ``Tokenized`` ids."""
    import bm25s

    return bm25s.tokenize(_normalize(texts), lower=True, stopwords="en", stemmer=stemmer,
                          token_pattern=TOKEN_PATTERN, show_progress=False, return_ids=True)


def _query_tokens(query: str, stemmer) -> list[str]:
    import bm25s

    tokens = bm25s.tokenize(_normalize([query]), lower=True, stopwords="en", stemmer=stemmer,
                            token_pattern=TOKEN_PATTERN, show_progress=False, return_ids=False)
    return [t for t in tokens[0] if t]


class BM25Index:
    """BM25 over a fixed list of documents; `ids[i]` names document i."""

    def __init__(self, ids: list[str], retriever, stemmer):
        self.ids = ids
        self._retriever = retriever
        self._stemmer = stemmer

    @classmethod
    def build(cls, ids: list[str], documents: list[str], stemmer=None) -> BM25Index:
        """The index of `documents` (`ids[i]` names document i), tokenized and stemmed by `stemmer` (a PyStemmer-like
        object with ``stemWord``/``stemWords``; default `english_stemmer`), which its queries are stemmed by too."""
        import bm25s

        stemmer = stemmer or english_stemmer()
        retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
        if documents:
            retriever.index(tokenize(documents, stemmer), show_progress=False)
        return cls(list(ids), retriever, stemmer)

    @property
    def vocabulary(self) -> frozenset[str]:
        """The index's tokens: lower-cased, stemmed (Snowball English) words of the collection, numbers and
        CJK characters (empty for an empty index); read once, then kept."""
        vocab = getattr(self, "_vocabulary", None)
        if vocab is None:
            vocab = self._vocabulary = frozenset(getattr(self._retriever, "vocab_dict", None) or {})
        return vocab

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for `query`: ``(len(ids),) float32``; all zero when the query
        has no indexable token (stopwords only, punctuation) or the index is empty."""
        import numpy as np

        tokens = _query_tokens(query, self._stemmer)
        vocab = getattr(self._retriever, "vocab_dict", None) or {}
        tokens = [t for t in tokens if t in vocab]
        if not self.ids or not tokens:
            return np.zeros(len(self.ids), dtype=np.float32)
        return np.asarray(self._retriever.get_scores(tokens), dtype=np.float32)

    # --- on-disk cache -----------------------------------------------------------------------------
    def save(self, folder: Path, key: str) -> None:
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        self._retriever.save(str(tmp))
        (tmp / "ids.json").write_text(json.dumps({"key": key, "params": PARAMS, "ids": self.ids}))
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)

    @classmethod
    def load(cls, folder: Path, key: str) -> BM25Index | None:
        """The cached index in `folder` if it was saved under `key`, else None."""
        import bm25s

        try:
            meta = json.loads((folder / "ids.json").read_text())
            if meta.get("key") != key or meta.get("params") != PARAMS:
                return None
            # memory-mapped: a cold process reads only the postings of its query terms
            retriever = bm25s.BM25.load(str(folder), mmap=True)
        except Exception:
            return None
        return cls(meta["ids"], retriever, english_stemmer())


def cache_folder(cache_dir: Path, collection_id: str) -> Path:
    return cache_dir / "bm25" / re.sub(r"[^A-Za-z0-9_.-]", "_", collection_id)
