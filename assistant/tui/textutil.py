"""Pure text helpers for the chat app (no Textual import): which abstract sentences an answer relied
on, citation markers turned into links, and safe one-line labels.

Nothing here interprets user or paper text as markup: results are plain strings, spans, or
`rich.text.Text` built with ``Text(...)`` (never ``Text.from_markup``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"”')\]]*\s+(?=[A-Z0-9(\"“\[$\\]|[^\x00-\x7f])|(?<=[。！？])\s*(?=\S)")
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*", re.UNICODE)
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_STOP = frozenset("""a an the and or of in on for to with by from as at is are was were be been being this that
these those it its we our they their which who whom whose than then also such can may might will would
into over under about between across while not no nor but both each more most less least very via using
use used based show shows shown than per""".split())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of `text` (split after . ! ? before a capital,
    digit, bracket or non-ASCII character; paragraph breaks also split)."""
    spans: list[tuple[int, int]] = []
    for para in re.finditer(r"[^\n]+", text):
        start = para.start()
        for m in _SENTENCE_END.finditer(para.group(0)):
            end = para.start() + m.start()
            if end > start:
                spans.append((start, end))
            start = para.start() + m.end()
        if para.end() > start:
            spans.append((start, para.end()))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def content_words(text: str) -> set[str]:
    """Case-folded words of `text` without citation markers and stop words (CJK runs count as words)."""
    text = _MARKER.sub(" ", text)
    return {w.casefold() for w in _WORD.findall(text) if w.casefold() not in _STOP and (len(w) > 2 or w.isdigit()
                                                                                        or not w.isascii())}


def relied_spans(abstract: str, answer_sentences: Iterable[str], *, best_min: float = 0.3,
                 any_min: float = 0.5) -> list[tuple[int, int]]:
    """Spans of the abstract's sentences that the answer sentences rest on.

    For each answer sentence, the abstract sentence with the highest set cosine of content words
    (|S∩A| / sqrt(|S|·|A|)) is taken if it reaches `best_min`; any sentence reaching `any_min` is
    taken too. An answer that quotes a sentence (the extractive backend) scores 1.0 on it.
    Returns sorted, distinct spans (see `sentence_spans`).
    """
    spans = sentence_spans(abstract)
    words = [content_words(abstract[s:e]) for s, e in spans]
    chosen: set[int] = set()
    for sentence in answer_sentences:
        a = content_words(sentence)
        if not a:
            continue
        scores = [len(a & w) / math.sqrt(len(a) * len(w)) if w else 0.0 for w in words]
        if not scores:
            continue
        best = max(range(len(scores)), key=scores.__getitem__)
        if scores[best] >= best_min and len(a & words[best]) >= 2:
            chosen.add(best)
        chosen.update(i for i, sc in enumerate(scores) if sc >= any_min and len(a & words[i]) >= 2)
    return [spans[i] for i in sorted(chosen)]


def link_citations(answer: str, cited: Sequence[int], turn: int) -> str:
    """Markdown with each checked marker ``[n]`` (also ``[1, 3]``) made a link ``cite:<turn>:<n>``
    that the app opens as source n of that turn. Markers not in `cited` are left as they are."""
    cited_set = set(cited)

    def sub(m: re.Match) -> str:
        nums = [int(x) for x in re.findall(r"\d+", m.group(1))]
        if not nums or not all(n in cited_set for n in nums):
            return m.group(0)
        return "".join(f"[\\[{n}\\]](cite:{turn}:{n})" for n in nums)

    return _MARKER.sub(sub, answer)


def markers_in(text: str) -> list[int]:
    """The distinct citation numbers in `text`, in order of first appearance."""
    seen: dict[int, None] = {}
    for m in _MARKER.finditer(text):
        for x in re.findall(r"\d+", m.group(1)):
            seen.setdefault(int(x), None)
    return list(seen)


def one_line(text: str, max_chars: int) -> str:
    """`text` on one line, clipped to `max_chars` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= max_chars else line[: max_chars - 1] + "…"


_MATH_OR_CODE = re.compile(r"(`+)(?:.+?)\1|\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
_ESCAPED_PUNCT = re.compile(r"\\(?=[!-/:-@\[-`{-~])")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_MATH_SPECIAL = re.compile(r"([*_\[\]<`~])")


def verbatim_markdown(text: str) -> str:
    """Markdown that renders the model's text as it is while keeping its Markdown (lists, bold, code).

    LaTeX survives: a backslash before punctuation (``75\\%``, ``\\{``) is doubled so Markdown does not
    eat it, and inside ``$...$`` / ``$$...$$`` the characters Markdown would read as emphasis or links
    (``* _ [ ] < ` ~``) are escaped. Outside math, ``<tag`` is escaped so it is not taken as HTML.
    Code spans are left alone.
    """
    out: list[str] = []
    last = 0
    for m in _MATH_OR_CODE.finditer(text):
        out.append(_TAG_START.sub(r"\\<", _ESCAPED_PUNCT.sub(r"\\\\", text[last:m.start()])))
        chunk = m.group(0)
        if not chunk.startswith("`"):
            chunk = _MATH_SPECIAL.sub(r"\\\1", _ESCAPED_PUNCT.sub(r"\\\\", chunk))
        out.append(chunk)
        last = m.end()
    out.append(_TAG_START.sub(r"\\<", _ESCAPED_PUNCT.sub(r"\\\\", text[last:])))
    return "".join(out)
