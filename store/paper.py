"""The `Paper` record: one abstract with its bibliographic fields, as stored in the collection.

A `Paper` is what every reader produces and what retrieval, answering and the UIs show. Chroma only
accepts flat scalar metadata, so `Paper.to_metadata` / `Paper.from_chroma` map lists and missing
fields to a consistent flat form and back (authors are joined with ``"; "``; empty fields are dropped).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field, replace

AUTHOR_SEPARATOR = "; "

# Control characters other than tab/newline, and lone UTF-16 surrogates, which JSON can carry
# (``"\ud800"``) but UTF-8 cannot encode.
_BAD_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")


def clean_text(text: str) -> str:
    """Return `text` in NFC form with control characters and lone surrogates removed.

    Paragraph breaks are kept; runs of spaces and tabs collapse to one space. Never raises.
    """
    text = _BAD_CHARS.sub(" ", text)
    text = unicodedata.normalize("NFC", text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    return "\n".join(lines).strip()


def normalise_for_key(text: str) -> str:
    """Case-folded, whitespace-collapsed text used for ids and content hashes."""
    return " ".join(clean_text(text).casefold().split())


def venue_key(venue: str) -> str:
    """The venue as filters compare it: NFKC, case-folded, NFKC again, spaces collapsed (the same as
    `assistant.text.fold_key`)."""
    return " ".join(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", venue).casefold()).split())


def sha256_hex(*parts: str) -> str:
    """SHA-256 hex digest of the parts joined with a unit separator (``\\x1f``)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Paper:
    """One paper: its abstract and whatever bibliographic fields the source file had.

    `title` is always set: when the source has no title it is a short display name derived from
    the abstract (`derive_display_name`) and `title_is_derived` is True.
    `id` is the stable collection id (see `assistant.store.ingest.paper_id`), empty until assigned.
    """

    abstract: str
    title: str = ""
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    url: str = ""
    source_id: str = ""
    topic: str = ""
    title_is_derived: bool = False
    id: str = ""
    source: str = ""
    position: int | None = None
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def display_name(self) -> str:
        return self.title

    @property
    def venue_year(self) -> str:
        """``"ICML 2026"``, ``"ICML"``, ``"2021"`` or ``""``."""
        return " ".join(x for x in (self.venue, str(self.year or "")) if x)

    @property
    def document(self) -> str:
        """The text that is embedded and BM25-indexed: the real title (if any) and the abstract."""
        if self.title and not self.title_is_derived:
            return f"{self.title}\n\n{self.abstract}"
        return self.abstract

    def content_hash(self) -> str:
        """Hash of every field shown to a user: a changed hash means the record was edited."""
        return sha256_hex(
            self.abstract,
            self.title,
            AUTHOR_SEPARATOR.join(self.authors),
            self.venue,
            str(self.year or ""),
            self.url,
            self.topic,
        )[:32]

    def with_id(self, paper_id: str) -> Paper:
        return replace(self, id=paper_id)

    def to_metadata(self) -> dict[str, str | int | bool]:
        """Flat Chroma metadata: scalars only, no None, no empty strings."""
        meta: dict[str, str | int | bool] = {
            "title": self.title,
            "authors": AUTHOR_SEPARATOR.join(self.authors),
            "venue": self.venue,
            "venue_key": venue_key(self.venue),
            "url": self.url,
            "source_id": self.source_id,
            "topic": self.topic,
            "source": self.source,
            "content_hash": self.content_hash(),
        }
        meta = {k: v for k, v in meta.items() if v}
        if self.year is not None:
            meta["year"] = int(self.year)
        if self.position is not None:
            meta["position"] = int(self.position)
        if self.title_is_derived:
            meta["title_is_derived"] = True
        return meta

    @classmethod
    def from_chroma(cls, paper_id: str, document: str, metadata: dict | None) -> Paper:
        """Inverse of `to_metadata` (the document is the abstract, see `document`)."""
        meta = dict(metadata or {})
        title = str(meta.get("title", ""))
        derived = bool(meta.get("title_is_derived", False))
        abstract = document or ""
        if title and not derived and abstract.startswith(title + "\n\n"):
            abstract = abstract[len(title) + 2 :]
        authors = tuple(a for a in str(meta.get("authors", "")).split(AUTHOR_SEPARATOR) if a)
        year = meta.get("year")
        year = int(year) if isinstance(year, (int, float)) or (isinstance(year, str) and year.isdigit()) else None
        position = meta.get("position")
        return cls(
            abstract=abstract,
            title=title,
            authors=authors,
            venue=str(meta.get("venue", "")),
            year=year,
            url=str(meta.get("url", "")),
            source_id=str(meta.get("source_id", "")),
            topic=str(meta.get("topic", "")),
            title_is_derived=derived,
            id=paper_id,
            source=str(meta.get("source", "")),
            position=int(position) if position is not None else None,
        )

    def to_json(self) -> dict:
        """The stable JSON form used by ``papers --json`` and ``search --json``."""
        return {
            "id": self.id,
            "title": self.title,
            "title_is_derived": self.title_is_derived,
            "authors": list(self.authors),
            "venue": self.venue or None,
            "year": self.year,
            "url": self.url or None,
            "abstract": self.abstract,
        }


# --- display names for records without a title ---------------------------------------------------

_CUE = re.compile(
    r"\b(?:we\s+(?:first\s+)?(?:introduce|propose|present|develop|design|instantiate[^,.;]*?\bwith)|"
    r"proposing|introducing|introduces|presents|proposes|named|called|dubbed)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9$^{}\\][A-Za-z0-9$^{}\\\-]*[A-Za-z0-9$}]|[A-Z]")
_PAREN_ACRONYM = re.compile(r"\(([^()\s,;]{2,24})\)")
_GENERIC = {
    "LLM", "LLMs", "LM", "LMs", "RL", "AI", "ML", "NLP", "GPU", "GPUs", "CPU", "SFT", "MDMs", "KV",
    "MoE", "QAT", "DPO", "RLHF", "CoT", "SOTA", "API", "APIs", "IID", "non-IID", "MLLMs", "MLLM",
    "VLM", "VLMs", "GRPO", "PPO", "ANN", "SNN", "MCTS", "HC", "LLM-based", "Transformer", "Transformers",
}


def is_name_like(token: str) -> bool:
    """True for tokens that look like a method or benchmark name: ``NorMuon``, ``STAR-KV``,
    ``A$^2$RBench``, ``mHC``, ``WinQ``; False for ordinary and Title-Case words."""
    if token in _GENERIC or len(token) < 2:
        return False
    if "$" in token and any(c.isalpha() for c in token):
        return True
    for part in token.split("-"):
        letters = [c for c in part if c.isalpha()]
        if len(letters) >= 2 and sum(c.isupper() for c in letters[1:]) >= 1 and not part.isdigit():
            return True
    return False


def derive_display_name(abstract: str, max_chars: int = 60) -> str:
    """A short name for an untitled abstract: the method or benchmark it introduces, else a clipped
    first clause.

    Looks in the first sentence with an introduction cue ("we propose", "we introduce", "named",
    ...) for the first name-like token (`is_name_like`); a parenthesised acronym right after a
    spelled-out name wins over the words of the spelled-out name ("Entropy-informed DEcodiNg
    (EDEN)" gives "EDEN"). Without a cue, the most frequent name-like token that occurs at least
    twice and is not generic (``LLMs``, ``RL``). Returns at most `max_chars` characters.
    """
    text = " ".join(clean_text(abstract).split())
    if not text:
        return "(empty abstract)"
    from assistant.text import split_sentences  # here: assistant.text imports this module

    for sentence in split_sentences(text):
        cue = _CUE.search(sentence)
        if not cue:
            continue
        tail = sentence[cue.end() :]
        window = " ".join(tail.split()[:14])
        acronym = _PAREN_ACRONYM.search(window)
        for i, tok in enumerate(_TOKEN.finditer(window)):
            if acronym and tok.start() >= acronym.start():
                break
            word = tok.group(0)
            if is_name_like(word):
                rest = window[tok.end() :].lstrip()
                spelled_out = i > 0 and window[: tok.start()].split()[-1:] != ["named"]
                if acronym and (spelled_out or not rest.startswith("(")):
                    inner = acronym.group(1)
                    if is_name_like(inner) or inner.isupper():
                        return inner[:max_chars]
                return word[:max_chars]
        if acronym and (is_name_like(acronym.group(1)) or acronym.group(1).isupper()):
            return acronym.group(1)[:max_chars]
        before = sentence[: cue.start()].split()
        if before and is_name_like(before[-1].strip(",;:")):
            return before[-1].strip(",;:")[:max_chars]
    counts: dict[str, int] = {}
    for tok in _TOKEN.finditer(text):
        word = tok.group(0)
        if is_name_like(word):
            counts[word] = counts.get(word, 0) + 1
    frequent = [w for w, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n >= 2]
    if frequent:
        return frequent[0][:max_chars]
    clause = re.split(r"[,;:.]\s", text, maxsplit=1)[0]
    if len(clause) > max_chars:
        clause = clause[: max_chars - 1].rsplit(" ", 1)[0] + "…"
    return clause
