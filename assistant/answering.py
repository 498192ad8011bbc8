"""Answering: question (+ conversation) -> retrieval -> prompt -> LLM stream -> checked citations.

`answer()` yields the events of `assistant.events`: ``Sources, TextDelta*, Citations, Done`` or, on a
failure or a cancel, ``Sources?, TextDelta*, Error``. It contains no UI code; the CLI, the batch runner
and the chat app consume the same stream.

Steps:
1. A follow-up (a conversation with turns) is rewritten into a standalone question: by the LLM with the
   ``rewrite`` prompt, or, for the extractive backend, by naming the previous question's subject. The
   answer prompt then holds the standalone question only (the history is spent on the rewrite).
2. Retrieval (`Retriever.search`), then a relevance gate (`assistant.relevance.judge`): when no paper is about the
   question the answer is `assistant.prompts.NO_RELEVANT_PAPER`, with no sources and no citations.
3. The papers are numbered [1]..[k] and packed into the context window minus the answer's
   ``max_tokens`` minus the prompt itself (`pack_sources`): the lowest-ranked are dropped first.
4. Text is streamed through `CitationChecker`, which removes markers naming no given source
   (``[7]`` with three sources; ``[2, 7]`` becomes ``[2]``) before the text is shown.
5. `Citations` maps each remaining marker to its paper; ``Done.refused`` is True when the answer says
   `assistant.prompts.CANNOT_ANSWER`.
"""

from __future__ import annotations

import functools
import re
import statistics
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING

from assistant.enums import BackendName, ErrorKind
from assistant.errors import AssistantError
from assistant.events import Answer, AnswerEvent, Citation, Citations, Done, Error, Source, Sources, TextDelta
from assistant.text import join_names

if TYPE_CHECKING:
    from assistant.conversation import Conversation
    from assistant.llm import LLM, AnswerSynthesizer
    from assistant.relevance import Judgement
    from assistant.retrieval import Filters, Retriever, SearchResult
    from assistant.settings import Settings

MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds per message (role markers); OpenAI's cookbook counts 3-4, templates of
open models up to ~8."""
SAFETY_MARGIN = 32
"""Tokens kept free in the context window in case the token count is an estimate."""


class ContextError(AssistantError):
    """Even without sources the prompt does not fit the context window."""

    kind = ErrorKind.CONTEXT_LENGTH


# --- citations ------------------------------------------------------------------------------------

_OPENERS = "[【［〔"
_BRACKET = re.compile(r"[\[【［〔]([^\[\]【】［］〔〕\n]{0,60})[\]】］〕]")
_PARTIAL = re.compile(r"[\[【［〔][\w\s,;:&^†#.\-–—、，；：]{0,60}")
_CUE_WORD = r"(?:sources?|src|refs?|references?|papers?|abstracts?|docs?|documents?|citations?|cit|cite)"
_PIECE = re.compile(rf"(?P<cue>\^|†|#|{_CUE_WORD}\.?\s*(?:no\.?\s*)?[:#]?\s*)?(?P<a>\d{{1,3}})"
                    rf"(?:\s*[-–—]\s*(?:\^|{_CUE_WORD}\.?\s*)?(?P<b>\d{{1,3}}))?", re.I)
_FILE_CITATION = re.compile(rf"(?:{_CUE_WORD}\s*)?(\d{{1,3}})(?::\d+)?\s*†.*", re.I)  # 【4:0†source】
_SEPARATORS = re.compile(r"\s*(?:,\s*and\b|,|;|、|&|\band\b)\s*", re.I)
# Bracketed numbers after these are references to the text or math, not sources. Words a quoted sentence
# may end with take no plural: "... and baseline MARL algorithms [1]." cites, "Algorithm [1]" does not;
# nor does a factor: "2-3× [1]" cites, "d × [1]" does not.
_NOT_CITING = re.compile(
    r"(?:\b(?:eqs?|equations?|figs?|figures?|tables?|tab|sections?|secs?|appendix|app|algorithm|alg|"
    r"theorems?|thm|lemmas?|props?|propositions?|corollary|definitions?|def|line|step|chapters?|ch|"
    r"interval|range|between|within|dimension|shape|size)\.?|[=∈≤≥<>∼≈∝§]|(?<![\d.%])×|\\in)\s*$", re.I)
_TRAIL = re.compile(r"(?:\s+(?:a|an|and|o|or|&)|\s*[,;，、])?\s*$")  # held back: may go with a removed marker
_CONNECTIVE = re.compile(r"(?<!\w)(?:and|or|&)(?!\w)|[,;，、]")


def citation_numbers(inner: str, n_sources: int, before: str = "", opener: str = "[") -> list[int] | None:
    """The source numbers a bracketed text cites, or None when it is not a citation.

    `inner` is the text between the brackets (``"1, 2, and 7"``), `opener` the opening bracket, `before`
    the text shown just before it. Citations, after Unicode NFKC (fullwidth ``［１，７］`` is ``[1,7]``):
    numbers separated by ``,`` ``;`` ``、`` ``&`` or ``and``, ranges ``1-3``, each optionally named
    (``^7``, ``Source 7``, ``Ref. 7``, ``Paper 7``), and OpenAI's file citations ``【4:0†source】`` (4).
    Not citations: ``[00]`` (a leading zero), ``[0, 1]`` (a list with 0, never a source number),
    ``[0.5, 2]`` (decimals), ``[16, 32, 64]`` (a list with a number above ``max(2 * n_sources, 20)``),
    numbers after ``Eq.``, ``Fig.``, ``Table``, ``Section``, ``=``, ``∈``, ``range`` and the like, and
    anything else in brackets. A plain single number (``[9]``, ``[0]``) is always a citation.
    """
    import unicodedata

    text = unicodedata.normalize("NFKC", inner).strip()
    named = opener != "["  # 【1】 and ［1］ are citation brackets
    m = _FILE_CITATION.fullmatch(text)
    if m:
        return [int(m.group(1))]
    if not text or not text[0].isalnum() and text[0] not in "^†#":
        return None
    numbers: list[int] = []
    plain: list[str] = []
    for piece in _SEPARATORS.split(text):
        m = _PIECE.fullmatch(piece)
        if not m:
            return None
        named = named or bool(m.group("cue"))
        a, b = m.group("a"), m.group("b")
        plain.extend(x for x in (a, b) if x)
        if b is None:
            numbers.append(int(a))
        else:
            lo, hi = int(a), int(b)
            numbers.extend(range(lo, hi + 1) if 0 < hi - lo <= 20 else (lo, hi))
    if named:
        return numbers
    if any(len(x) > 1 and x.startswith("0") for x in plain) or _NOT_CITING.search(unicodedata.normalize("NFKC", before)):
        return None
    if len(plain) > 1 and (0 in numbers or max(numbers) > max(2 * n_sources, 20)):
        return None
    return numbers


class CitationChecker:
    """Checks citation markers in streamed text against `n_sources` given sources.

    `feed(text)` returns the text that can be shown now. Every citation form models write (`citation_numbers`:
    ``[1, 2]``, ``【1】``, ``[1，7]``, ``[^7]``, ``[Source 7]``, ``【4:0†source】``) is rewritten to ``[n]`` /
    ``[n, m]`` naming only given sources (``[2, 7]`` -> ``[2]``), or removed with the space before it
    (``[7]``) and with a connective that joined it (``"[2] and [9]."`` -> ``"[2]."``, ``"… and [9]."`` ->
    ``"…."``). Bracketed text that is not a citation (``[0, 1]``, ``Eq. [3]``, ``[a]``) is left as written.
    Text that may be the start of a marker (``"[2,"``, ``"【"``) is held back until it is complete.
    `flush()` returns the rest. `cited` lists the kept source numbers in order of first use; `dropped`
    the removed numbers.
    """

    def __init__(self, n_sources: int):
        self.n_sources = n_sources
        self.cited: list[int] = []
        self.dropped: list[int] = []
        self._buf = ""
        self._held = ""  # trailing whitespace (and a connective) held back: it goes if a dropped marker follows
        self._last = "text"  # what was shown last: "text", "kept" (a marker) or "dropped" (a removed marker)
        self._recent = ""  # the last characters shown, for the context of the next bracket
        self._started = False  # text shown yet (leading whitespace after a dropped first marker goes)

    def _show(self, out: list[str], text: str, kind: str) -> None:
        out.append(text)
        self._recent = (self._recent + text)[-40:]
        self._started = True
        self._last = kind

    def _text(self, out: list[str], text: str) -> None:
        if not self._started:
            text = text.lstrip()
            if not text:
                return
        combined = self._held + text
        cut = _TRAIL.search(combined).start()
        if cut > 0:
            self._show(out, combined[:cut], "text")
        self._held = combined[cut:]

    def _marker(self, out: list[str], numbers: list[int], following: str) -> None:
        keep: list[int] = []
        for x in numbers:
            if 1 <= x <= self.n_sources:
                if x not in keep:
                    keep.append(x)
            elif x not in self.dropped:
                self.dropped.append(x)
        for x in keep:
            if x not in self.cited:
                self.cited.append(x)
        joined = _CONNECTIVE.search(self._held)
        if keep:
            if self._last == "dropped" and joined:  # "[9], [1]" -> "[1]"
                self._held = " " if self._started else ""
            self._show(out, self._held + "[" + ", ".join(map(str, keep)) + "]", "kept")
            self._held = ""
            return
        if following[:1].isalnum():
            pass  # "word [7]next": keep the space
        elif joined and (self._last in ("kept", "dropped") or not following.strip()[:1].isalnum()):
            self._held = ""  # "[2] and [9]." -> "[2]."; "a and [9]." -> "a."
        elif joined:
            self._held = self._held.rstrip()  # "a and [9] b" -> "a and b"
        else:
            self._held = self._held.rstrip()  # "word [7]." -> "word."; "word [7] next" -> "word next"
        self._last = "dropped"

    def _run(self, final: bool) -> str:
        out: list[str] = []
        while self._buf:
            i = min((j for j in (self._buf.find(c) for c in _OPENERS) if j >= 0), default=-1)
            if i < 0:
                self._text(out, self._buf)
                self._buf = ""
                break
            if i:
                self._text(out, self._buf[:i])
                self._buf = self._buf[i:]
            m = _BRACKET.match(self._buf)
            if m:
                if m.end() == len(self._buf) and not final:
                    break  # what follows decides about the space before a removed marker
                numbers = citation_numbers(m.group(1), self.n_sources, self._recent + self._held, self._buf[0])
                if numbers is None:
                    self._text(out, m.group(0))
                else:
                    self._marker(out, numbers, self._buf[m.end():])
                self._buf = self._buf[m.end():]
                continue
            p = _PARTIAL.match(self._buf)
            if not final and p and p.end() == len(self._buf):
                break  # may still become a marker: wait for more text
            self._text(out, self._buf[0])
            self._buf = self._buf[1:]
        return "".join(out)

    def feed(self, text: str) -> str:
        self._buf += text
        return self._run(final=False)

    def flush(self) -> str:
        out = self._run(final=True)
        rest, self._held = self._held.rstrip(), ""
        return out + rest


def check_citations(text: str, n_sources: int) -> tuple[str, list[int], list[int]]:
    """`text` with markers naming no given source removed: ``(clean text, cited, dropped)``."""
    checker = CitationChecker(n_sources)
    clean = checker.feed(text) + checker.flush()
    return clean, checker.cited, checker.dropped


# --- degenerate repetition ----------------------------------------------------------------------------

REPEAT_MIN = 4
"""Times a phrase of 3+ words must repeat back to back (8 for one or two words) to count as a loop."""
REPEAT_SENTENCE = 3
"""Times one sentence may occur in an answer before it counts as a loop."""


def repetition_loop(text: str) -> str | None:
    """The phrase a degenerate generation loop repeats at the end of `text`, or None.

    A loop is the same n-gram (n = 1..20 words) repeated back to back at the end of the text at least
    `REPEAT_MIN` times (8 times for n <= 2, so "very very" is fine), or one sentence of 4+ words that
    occurs `REPEAT_SENTENCE` times. Small models at temperature 0 fall into such loops and would
    otherwise stream one phrase until ``max_tokens``."""
    words = text.split()
    tail = words[-400:]
    for n in range(1, 21):
        need = 8 if n <= 2 else REPEAT_MIN
        if len(tail) < n * need:
            break
        unit = tail[-n:]
        reps = 1
        while reps * n + n <= len(tail) and tail[-(reps + 1) * n: -reps * n] == unit:
            reps += 1
        if reps >= need:
            return " ".join(unit)
    from assistant.text import sentence_spans

    seen: dict[str, int] = {}
    for sentence in (text[s:e] for s, e in sentence_spans(text)):
        key = " ".join(sentence.casefold().split())
        if len(key.split()) >= 4:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] >= REPEAT_SENTENCE:
                return sentence.strip()
    return None


# --- relevance gate ---------------------------------------------------------------------------------

def _threshold(settings: Settings, strict: bool) -> float:
    return settings.min_relevance if strict else settings.min_relevance_llm


# --- prompt -----------------------------------------------------------------------------------------

def render_source(n: int, paper, abstract: str | None = None) -> str:
    from assistant import prompts

    vy = paper.venue_year
    return prompts.get("source").render(n=n, title=paper.title, venue_year=f" ({vy})" if vy else "",
                                        abstract=paper.abstract if abstract is None else abstract)


def build_messages(question: str, blocks: Sequence[str]) -> list[dict]:
    """System + user messages for `question` over the rendered source `blocks`."""
    from assistant import prompts

    system = prompts.get("system").render(cannot_answer=prompts.CANNOT_ANSWER)
    user = prompts.get("answer").render(sources="\n\n".join(blocks) if blocks else "(none)",
                                        question=question, cannot_answer=prompts.CANNOT_ANSWER)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def prompt_tokens(messages: Sequence[dict], count) -> int:
    """Tokens of `messages` by `count` plus `MESSAGE_OVERHEAD` per message and 3 for the reply primer."""
    return sum(count(m["content"]) + MESSAGE_OVERHEAD for m in messages) + 3


def _source(n: int, r) -> Source:
    return Source(n, r.paper, r.score, similarity=r.dense_similarity, bm25_matched=r.bm25_score > 0,
                  relevance=getattr(r, "relevance", None))


def pack_sources(results: Sequence[SearchResult], question: str, llm: LLM,
                 max_tokens: int) -> tuple[list[Source], list[dict], str]:
    """Number the papers [1]..[k] best first and keep as many as fit the context window.

    Budget: ``llm.context_window - max_tokens - tokens(prompt without sources) - SAFETY_MARGIN``. Papers
    are added in rank order until the next does not fit (it and all lower-ranked ones are dropped); if
    even the first does not fit, its abstract is cut to fit. Returns ``(sources, messages, note)``; the
    note says how many were dropped. Raises `ContextError` when the prompt alone does not fit.
    """
    window = llm.context_window
    if not window:
        blocks = [render_source(i, r.paper) for i, r in enumerate(results, start=1)]
        sources = [_source(i, r) for i, r in enumerate(results, start=1)]
        return sources, build_messages(question, blocks), ""
    count = llm.count_tokens
    budget = window - max_tokens - prompt_tokens(build_messages(question, []), count) - SAFETY_MARGIN
    if budget <= 0:
        raise ContextError(f"the question and instructions leave no room for sources in the context window "
                           f"({window} tokens, {max_tokens} reserved for the answer); raise "
                           f"ASSISTANT_CONTEXT_WINDOW or lower ASSISTANT_MAX_TOKENS")
    blocks: list[str] = []
    sources: list[Source] = []
    used = 0
    for r in results:
        n = len(blocks) + 1
        block = render_source(n, r.paper)
        cost = count(block) + 2  # + the blank line between blocks
        if used + cost > budget:
            if blocks:
                break
            words = r.paper.abstract.split()
            lo, hi = 0, len(words)
            while lo < hi:  # the longest prefix of the abstract that fits
                mid = (lo + hi + 1) // 2
                if count(render_source(n, r.paper, " ".join(words[:mid]) + " …")) + 2 <= budget:
                    lo = mid
                else:
                    hi = mid - 1
            if lo == 0:
                break
            block = render_source(n, r.paper, " ".join(words[:lo]) + " …")
            cost = count(block) + 2
        blocks.append(block)
        sources.append(_source(n, r))
        used += cost
    if not sources:
        raise ContextError(f"no source fits the context window ({window} tokens, {max_tokens} reserved for the "
                           f"answer); raise ASSISTANT_CONTEXT_WINDOW")
    dropped = len(results) - len(sources)
    note = (f"{dropped} lower-ranked paper(s) left out to fit the context window ({window} tokens)"
            if dropped else "")
    return sources, build_messages(question, blocks), note


class _Judged:
    """A `SearchResult` with the relevance `judge` gave it."""

    def __init__(self, result, relevance: float | None):
        self._result = result
        self.relevance = relevance

    def __getattr__(self, name):
        return getattr(self._result, name)


# --- follow-ups -------------------------------------------------------------------------------------
#
# A follow-up is rewritten only when it needs its history: it refers back (a pronoun with no antecedent
# in the question, "that paper", "the second one", a prepositional fragment such as "and on GSM8K?") or
# names no subject at all ("How large are the gains?"). A question that names its subject, or asks a
# full question about a topic, is left as it is, so an earlier topic is never glued onto a new one.

_GENERIC_NOUNS = ("paper|papers|method|methods|approach|approaches|model|models|work|study|technique|techniques|"
                  "framework|frameworks|algorithm|algorithms|benchmark|benchmarks|dataset|datasets|optimizer|"
                  "optimizers|system|systems|one|ones|idea|ideas|result|results|article|authors?|variant|tool|"
                  "architecture|pipeline|metric|loss|objective|strategy|strategies")
_AFTER_NOUN_RESTRICTOR = r"(?!\s+(?:to|that|which|who|whose|where)\b)"
_ORDINAL_WORDS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "former": 0, "latter": 1,
                  "last": -1}
_FOREIGN_NOUNS = (r"methode|arbeit|ansatz|modell|verfahren|paper|optimierer|studie|variante|méthode|approche|article|"
                  r"modèle|método|enfoque|artículo|trabajo|modelo|metodo|approccio|articolo|lavoro|modello|artigo|"
                  r"abordagem|trabalho")
"""The generic nouns for a paper or its method in German, French, Spanish, Italian and Portuguese."""
_ORDINAL = re.compile(
    # not a heading without "the" ("thanks, last one: any paper on ...?", "second question - ...", "Last one, which paper
    # ...?": chats fresh22 c08.4 glued the paper under discussion on): the question's own
    r"\b(?!(?:first|second|third|fourth|fifth|last)\s+\w+\s*(?::|\s[-–—])|last\s+\w+\s*,\s*(?:(?:which|what)\s+"
    r"(?:paper|work|study|method)|any\s+papers?|(?:is|are)\s+there)\b)"
    r"(?:the\s+)?(?P<ord>first|second|third|fourth|fifth|last|former|latter)\s+"
    rf"(?:(?:{_GENERIC_NOUNS})\b{_AFTER_NOUN_RESTRICTOR}|of\s+(?:them|these|those|the\s+(?:two|three|four)\b[^?.!,]*?))"
    # "the former"; "and the second, what's the compute overhead": an ordinal ending its phrase
    r"|\bthe\s+(?P<ord2>former\b|latter\b|(?:first|second|third|fourth|fifth|last)(?=\s*(?:[,?.!:;)]|$)|\s+[-–—]))"
    # "compare the first and the third": two ordinals sharing one elided noun
    r"|\bthe\s+(?P<ord3>first|second|third|fourth|fifth|last)\s+and\s+(?:the\s+)?"
    r"(?P<ord4>first|second|third|fourth|fifth|last)\b(?:\s+(?:ones?|papers?|methods?|works?)\b)?"
    # "compare the first two", "the first two - what speedups" (fresh43 chats): the list's first (or last) two
    r"|\bthe\s+(?P<ord5>first|last|top)\s+two(?:\s+(?:ones|papers|methods|works|approaches)\b|(?=\s*(?:[?,.!;:]|$)"
    r"|\s+[-–—]))"
    # "die erste Methode", "la première", "el segundo método", "l'ultimo": German, French, Spanish, Italian and
    # Portuguese ordinals after an article, with the generic noun if any (a new user's trial, round 35: "Und welche
    # Bitbreiten testet die erste Methode?" was searched on its own and refused)
    r"|(?:\b(?:die|der|das|den|dem|le|la|les|el|il|lo|os|as)\s+|\bl['’]\s*)"
    r"(?P<ordx>erst|zweit|dritt|letzt|premi(?:er|ère)|deuxième|seconde?|troisième|derni(?:er|ère)|primer[oa]?"
    r"|segund[oa]|tercer[oa]?|últim[oa]|prim[oa]|second[oa]|terz[oa]|ultim[oa]|primeir[oa]|terceir[oa])"
    r"(?:e[nmrs]?)?\b"
    rf"(?:\s+(?:{_FOREIGN_NOUNS})\b)?",
    re.I)
_FOREIGN_ORDINALS = {"erst": 0, "zweit": 1, "dritt": 2, "letzt": -1, "premier": 0, "première": 0, "deuxième": 1,
                     "second": 1, "seconde": 1, "troisième": 2, "dernier": -1, "dernière": -1, "primer": 0,
                     "primero": 0, "primera": 0, "segundo": 1, "segunda": 1, "tercer": 2, "tercero": 2, "tercera": 2,
                     "último": -1, "última": -1, "primo": 0, "prima": 0, "secondo": 1, "seconda": 1, "terzo": 2,
                     "terza": 2, "ultimo": -1, "ultima": -1, "primeiro": 0, "primeira": 0, "terceiro": 2,
                     "terceira": 2}
"""The place in a list each ordinal of `_ORDINAL`'s ``ordx`` group names (German ones by their stem: "erste",
"ersten")."""


def _ordinal_index(m: re.Match) -> int:
    """The list position an `_ORDINAL` match names (0 the first, -1 the last)."""
    if m.group("ordx"):
        return _FOREIGN_ORDINALS[m.group("ordx").casefold()]
    return _ORDINAL_WORDS[(m.group("ord") or m.group("ord2")).lower()]


_NOUN_OR_VERB = frozenset({"work", "works", "study", "studies", "model", "models", "approach", "approaches",
                           "benchmark", "benchmarks", "result", "results", "pipeline", "variant"})
"""Generic nouns that are also verbs ("Does that work ...?", "Does this model ...?"): after an auxiliary the
demonstrative alone is the subject."""
_OTHER = re.compile(rf"\bthe\s+other\s+(?:{_GENERIC_NOUNS})\b{_AFTER_NOUN_RESTRICTOR}", re.I)
"""'the other one': of two papers, the one the last turn was not about."""
_PREVIOUS = re.compile(rf"\bthe\s+(?:previous|earlier|prior)\s+(?:{_GENERIC_NOUNS})\b{_AFTER_NOUN_RESTRICTOR}"
                       rf"|\bthe\s+(?:one|paper)\s+(?:before|from\s+before)\b"
                       # "die vorherige Methode", "la méthode précédente", "el anterior", "il metodo precedente" (a new
                       # user's trial, round 36: "la méthode précédente" was read as the paper just discussed)
                       rf"|\b(?:die|der|das|den|dem)\s+(?:vorherige|vorige|frühere)[nmrs]?"
                       rf"(?:\s+(?:{_FOREIGN_NOUNS}))?\b"
                       rf"|(?:\b(?:le|la|el|il|lo|o|a)\s+|\bl['’]\s*)(?:(?:{_FOREIGN_NOUNS})\s+)?"
                       rf"(?:précédente?|anterior|precedente)\b", re.I)
"""'the previous one', 'the one before': the paper the conversation was about before the one it is about now."""
_CHOICE_OF_THEM = re.compile(rf"\b(?:which|who|whose)(?:\s+one)?\s+of\s+(?P<them>them|these|those|"
                             rf"(?:these|those|the)\s+(?:{_GENERIC_NOUNS}))\b{_AFTER_NOUN_RESTRICTOR}", re.I)
"""'which of them ...', 'which one of these papers ...': a choice among the papers of the latest list."""
_PAIR = re.compile(
    rf"(?<=\bof )(?:the|these|those)\s+two\b(?:\s+(?:{_GENERIC_NOUNS})\b)?"
    rf"|\b(?:the|these|those)\s+two\s+(?:{_GENERIC_NOUNS})\b{_AFTER_NOUN_RESTRICTOR}"
    r"|\b(?:the|these|those)\s+two(?=\s*(?:[?,.!;:]|$))"
    # "how do the two differ?": "the two" as the subject of a verb
    r"|\b(?:the|these|those)\s+two(?=\s+(?:differ|compare|relate|overlap|contrast|agree|disagree|are|were|have|"
    r"share|use|perform|stack|combine|match|each|both|really)\b)"
    rf"|\bboth(?:\s+(?:of\s+them|{_GENERIC_NOUNS})\b)?(?!\s+(?:and|or)\b)(?!(?:\s+[^\s,?.]+){{1,3}}\s+(?:and|&)\s)",
    re.I)
"""'the two', 'both papers', 'these two methods': the two papers under discussion ("Which of the two reports a
bigger percentage?"); not "both X and Y", which names them."""
_DEMONSTRATIVE_NP = re.compile(rf"\b(?:this|these|those|that|said)\s+(?:two\s+|three\s+|both\s+)?(?:{_GENERIC_NOUNS})\b", re.I)
_DEMONSTRATIVE_ANY = re.compile(r"\b(?:this|these|those|that)\s+(?!(?:is|was|are|were|does|did|can|could|will|would|"
                                r"has|have|had|also|only|much|many|far|the|a|an|collection|corpus|library)\b)"
                                r"[a-z][a-z\-]{2,}\b", re.I)
"""A demonstrative before any noun ("that selection", "these gains"): it points back unless an earlier
sentence of the question names what it refers to; "this collection" is the one the user searches."""
_PREPOSITION = re.compile(r"\s*(?:of|for|in|from|with|on|at|by|to)\b", re.I)
_BARE_DEMONSTRATIVE = re.compile(r"\b(?:this|that|these|those)\s*(?:[?!.]|$)|^(?:is|was|does|did)\s+(?:this|that)\b"
                                 r"|\b(?:this|that)\s+(?:is|was|does|did|means|compares?)\b", re.I)
# "that" right after a noun or a quoted term is a relative pronoun ("the 'Data Wall' that one of ...");
# after the start or a function word it points back ("does that method ...", "who proposed that?").
_AUXILIARY_BEFORE = re.compile(r"\b(?:do|does|did|can|could|will|would|should|might|may)\s+$", re.I)
_NO_VERB_AFTER = re.compile(r"\s*(?:[?!.,;:？]|$|(?:for|on|in|with|at|beyond|across|without|under|outside|"
                            r"too|also|as|well|better|there|here)\b)", re.I)
"""What may follow a verb with no object: punctuation, the end, a preposition or an adverb (after
"Does that work" it says "work" is the verb, not a noun "that work" waiting for its verb)."""
_FUNCTION_WORD_BEFORE = re.compile(
    r"(?:^|\b(?:does|did|do|is|was|are|were|can|could|will|would|should|has|have|had|about|on|in|for|of|from|with|by|"
    r"to|than|like|and|how|why|use|uses|used|behind|proposed|propose|introduced)\s+)$", re.I)
_SCENE = r"(?:for|on|in|with|at|under|without|across)\b"
"""The prepositions a fragment opens with after "and" ("And on GSM8K?", "And for code, ...")."""
_FRAGMENT = re.compile(rf"^\s*(?:and|but|or|also|what|how)\s+(?:about\s+)?{_SCENE}"
                       r"|^\s*(?:and|but|so)\s*[?,]|^\s*(?:and|also)\s+(?:then|why|how\s+so)\b"
                       # a question opening with "and"/"but" continues the one before ("And does accuracy suffer?")
                       r"|^\s*(?:and|but)\s+(?!(?:is|are)\s+there\b|what\s+about\b)(?:does|do|did|is|are|was|were|can|could|will|would|how|what|why|which)\b",
                       re.I)
_OWN_CLAUSE = re.compile(rf"^\s*(?:and|but|or|also)\s+{_SCENE}[^,?]{{3,}},\s*"
                         r"(?P<clause>(?:what|which|how|why|when|where|who|does|do|did|is|are|was|were|can|could)\b.*)",
                         re.I)
"""'And in the distributed analysis, what determines how fast decentralized DPO converges?': the phrase after
"and in" sets the scene for a clause of its own, which is not a fragment of the question before when it names
its subject (`_entities`; "And on GSM8K?", "And for code, what is the speedup?" stay fragments)."""
_VERBLESS = re.compile(r"^\s*(?:and\s+)?(?:which|what|how\s+many)\s+(?!(?:is|are|was|were|do|does|did|can|could|has|have|"
                       r"had|will|would|should)\b)(?:[\w\-]+\s+)?[\w\-]+\s*\?*\s*$", re.I)
"""A short question without a verb ("Which specific models?", "What hardware?"): a fragment of the one before."""
_ABOUT_DESCRIBED = re.compile(rf"^\s*(?:and\s+)?(?:what|how)\s+about\s+(?:the|a|an)\s+(?:(?:[\w-]+\s+){{1,5}}?"
                             rf"(?:{_GENERIC_NOUNS})\b|(?:{_GENERIC_NOUNS})\s+(?:on|about|that|which|for|with)\s+"
                             rf"(?!(?:it|them|this|that|those|these)\b)[\w-]+)", re.I)
"""'What about the KV cache paper, ...', 'what about the paper on residual streams, ...': a new subject described by
its topic, not a follow-up."""
_PAPER_PARTS = ("name|acronym|abbreviation|contribution|contributions|limitation|limitations|experiments|evaluation|"
                "idea|training|setup")
"""Nouns for parts of a paper (a class of words): "the name" is the paper's under discussion."""
_AUXILIARY = "do|does|did|is|are|was|were|can|could|will|would|has|have|had"
"""The auxiliary verbs a question opens a clause with (a closed class)."""
_DEFINITE_SUBJECT = re.compile(
    r"^\s*(?:(?:(?:and\s+)?(?:how|why|when|where|what|which)\s+(?:[\w-]+\s+)?)?"
    rf"(?:{_AUXILIARY})"
    # "what's the training objective" (fresh47 chats: answered from another paper's "fine-tuning objective")
    r"|(?:and\s+)?(?:what|how)['’]s)\s+the\s+"
    r"(?:(?:best|main|key|largest|smallest|proposed|new|original)\s+)?"
    rf"(?:{_GENERIC_NOUNS}|{_PAPER_PARTS})\b(?!-)"
    r"(?!\s+(?:of|that|which|who|whose|where|in|on|for|from|with|to|by|behind|than|about|between|among|across|"
    r"under|during|without|(?!need\b)[\w-]{2,}ed)\b)", re.I)
"""The subject of the question is a paper's thing named only by a generic noun with nothing after it
that says which ("How do the models cope with ...?", "Does the method need retraining?"): it is the
one under discussion."""
_DEFINITE_ANY = re.compile(r"^\s*(?:(?:and\s+)?(?:how|why|when|where|what|which)\s+(?:[\w-]+\s+)?)?"
                           rf"(?P<aux>{_AUXILIARY})\s+"
                           r"the\s+(?P<noun>[a-z][\w-]+)\b(?P<rest>[^?!.,;:]*)", re.I)
_DEFINITE_OBJECT = re.compile(r"^\s*(?:(?:and|so|ok(?:ay)?|but)[,\s]+)?(?:which|what)\s+(?:[\w-]+\s+){0,3}?"
                              rf"(?!(?:{_AUXILIARY}|of|in|on|for|from|with|to|by|at|about|the)\b)(?P<aux>[a-z]+)\s+"
                              r"(?:(?:as|on|by|for|with|from|in|to|into|over)\s+)?"
                              r"the\s+(?P<noun>[a-z][\w-]+)\b(?P<rest>[^?!.,;:]*)", re.I)
"""A definite noun as the object of the question's verb ("which RL algorithm trained the rephraser?", "which models
served as the experts?"): "the" marks a thing already given, as `_DEFINITE_ANY`'s subject does (held-out fresh56
chats: both were searched as questions of their own, one refused, one answered with the paper's overview)."""
_OFFERED = re.compile(r"(?:,|:|\(|—|–)\s*(?:either\s+)?[^,:()?]{1,40}(?:,\s*[^,:()?]{1,40})*,?\s+or\s+"
                      r"[^,:()?]{1,40}\)?\s*[?？]?\s*$", re.I)
"""Names offered as the possible answers at the question's end ("..., PPO or GRPO?"): choices for what is asked, not
its subject."""
_COPULA = {"is", "are", "was", "were"}
_COMPARATIVE_OF_GIVEN = re.compile(r"^\s*(?:(?:and|so|ok(?:ay)?|thanks)[,\s]+)?how\s+much\s+"
                                   r"(?:[a-z]+er|more|less|fewer)"
                                   r"(?:\s+[a-z][\w-]+)?\s+(?P<aux>do|does|did|is|are|was|were|can|could|will|would)\s+"
                                   r"(?:the\s+)?(?P<noun>[a-z][\w-]+)\b(?P<rest>[^?!.,;:]*)", re.I)
"""A comparative asked of a thing with no method named ("How much faster does attention get?"): faster with what the
conversation is about, when the last answer gave the thing (`refers_to_last_answer`)."""


def _given_figure(question: str, given: str) -> bool:
    """`question` quotes a figure of `given` (the last answer and its cited abstracts): a number that is not
    a year and has a decimal point or two digits or more ("What model size was the 11.31 percentage-point
    gain measured on?", "Where does the 21.74% come from?"); a one-digit figure ("the 4× speedup") is too
    common to point at one answer."""
    from assistant.extractive import _NUMBER, _YEARLIKE, plain

    def figures(text: str) -> set[str]:
        return {m.group(0).split()[0].rstrip("%×x").replace(",", "") for m in _NUMBER.finditer(plain(text))}

    asked = {f for f in figures(question) if not _YEARLIKE.match(f) and ("." in f or len(f) >= 2)}
    return bool(asked & figures(given))


_WHICH_ONE_OF_LAST = re.compile(r"\s*(?:(?:and|so|ok(?:ay)?|but)[,\s]+)?(which)\s+ones?\b(?!\s+of\b)"
                        r"(?!\s+(?:paper|work|study|method)s?\b)", re.I)
"""A choice asked with "which one" or "which ones" and no noun ("which one needs no training?", "which ones use
experts?")."""


def chooses_among_last(question: str, conversation: Conversation | None) -> bool:
    """True when `question` asks "which one ...?" right after an answer that cited two or more papers: a choice among
    them ("which one needs no training?" after STAR-KV and EDEN were compared was searched as a new question and
    answered from the web-rewriting paper; a new user's trial, round 29; "which ones use experts?" after a list was
    answered "the abstracts do not say" of the list's EAPO, round 32). After an answer citing one paper, or none,
    "which one" asks the collection."""
    return (conversation is not None and bool(conversation.turns) and bool(_WHICH_ONE_OF_LAST.match(question))
            and len(_cited_names(conversation.turns[-1])) >= 2)


def follows_up(question: str, conversation: Conversation | None) -> bool:
    """True when `question` is read from the conversation before it: it needs its history (`needs_history`), has as
    its subject a thing the last answer gave (`refers_to_last_answer`) or chooses among the papers it cited
    (`chooses_among_last`). False without a conversation or turns."""
    return (conversation is not None and bool(conversation.turns)
            and (needs_history(question) or refers_to_last_answer(question, conversation)
                 or chooses_among_last(question, conversation)))


def refers_to_last_answer(question: str, conversation: Conversation | None) -> bool:
    """True when `question`, naming nothing, has as its subject a definite noun the last answer gave:
    its text or the abstract of a paper it cited ("What property does the projection restore?" after an
    answer quoting "... projects the residual connection space ...", "What size is the policy model?"
    after an answer citing a paper whose abstract speaks of "the policy model"): "the" marks something
    already given, and the conversation gave it; or a thing the last answer gave, asked a comparative with no
    method named ("How much faster does attention get?" after STAR-KV, `_COMPARATIVE_OF_GIVEN`: faster with it);
    or a figure the last answer gave (`_given_figure`); or the object of the question's verb ("which RL algorithm
    trained the rephraser, PPO or GRPO?" after RePro, `_DEFINITE_OBJECT`; the names offered as answers,
    `_OFFERED`, are not its subject). A search ("Which paper ...", "Is there ...") is never one."""
    if conversation is None or not conversation.turns:
        return False
    text = " ".join(question.split())
    offered = _OFFERED.search(text)
    if _entities(text[:offered.start()] if offered else text):
        return False
    m = _DEFINITE_ANY.search(text) or _COMPARATIVE_OF_GIVEN.search(text) or _DEFINITE_OBJECT.search(text)
    last = conversation.turns[-1]
    if not last.citations or _COLLECTION_WIDE.search(question) or re.search(
            r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:paper|work|study|method|approach)s?\b", question, re.I):
        return False
    from assistant.text import STOP_WORDS, content_bigrams

    given = " ".join([last.answer or ""] + [c.paper.abstract for c in last.citations])
    if _given_figure(question, given):
        return True
    if not m or not _specific_stems(m.group("noun")) & _specific_stems(given):
        return False
    # the words of the noun phrase to the clause's end: after "is" the phrase runs on ("What size is the
    # policy model?"), after "does" its last word is the verb ("What does the projection restore?")
    rest = m.group("rest").split()
    if m.group("aux").casefold() not in _COPULA and rest:
        rest.pop()
    head = [m.group("noun")]
    for w in rest:
        if w.casefold() in STOP_WORDS:
            break
        head.append(w)
    # the phrase must be given as a phrase ("the policy gradient theorem" is not "the policy model"),
    # and what follows it to say which one ("the gap between the best LLMs and humans") given too
    return (content_bigrams(" ".join(head)) <= content_bigrams(given)
            and _specific_stems(" ".join([m.group("noun"), *rest])) <= _specific_stems(given))


_ABOUT = re.compile(r"^\s*(?:and\s+)?(?:what|how)\s+about\b", re.I)
_EXPLETIVE_IT = re.compile(r"\b(?:does|did|will|would|can)\s+it\s+take\s+to\b|\bit\s+takes?\s+to\b|"
                           # "Got it. And is there anything on ...?": an acknowledgement
                           r"\bgot\s+it\b(?=\s*[.!,;:—–-])|"
                           # "is it possible to ...", "it is true that ...": an "it" holding the place of the clause
                           # after the adjective; "is it better than GRPO?" has no such clause and asks about the paper
                           r"\bit\s+(?:is|was|'s|would\s+be|seems|appears)\s+(?:\w+\s+)?(?:possible|true|known|feasible|"
                           r"necessary|worth|hard|easy|common|clear|better|likely|important)\b"
                           r"(?=\s+(?:to|that|whether|if|for|\w+ing)\b)|"
                           r"\b(?:is|was)\s+it\s+(?:\w+\s+)?(?:possible|true|known|feasible|necessary|worth|hard|easy|"
                           r"common|clear|better|likely|important)\b(?=\s+(?:to|that|whether|if|for|\w+ing)\b)", re.I)
_SINGULAR = re.compile(r"\b(?:it|its|itself)\b", re.I)
_PLURAL = re.compile(r"\b(?:they|them|their|theirs|themselves)\b", re.I)
_PERSON = re.compile(r"\b(?:he|she|him|his|her|hers)\b", re.I)
_PLURAL_ANTECEDENT = re.compile(r"\b(?:papers|abstracts|works|methods|approaches|studies|authors|techniques|"
                                r"researchers|people|teams|groups)\b", re.I)
_AUTHORS_DID = re.compile(r"\b(?:did|do|does|have|had)\s+they$", re.I)
_AUTHORS_ACT = re.compile(r"they\s+(?:(?!need)[a-z]+ed|ran|run|built|build|made|make|got|chose|choose|took|take|found|"
                          r"use|train|test|evaluate|compare|report|propose|try|fine-tune)\b", re.I)
""""they" doing what researchers do ("the biggest model they trained", "the data they used"): its antecedent is the
authors, not a plural noun before it ("how many parameters was the biggest model they trained": fresh42 chats, taken
as self-contained and answered from another paper)."""
_PLURAL_NOUN = re.compile(r"\b(?!(?:does|has|was|is|this|thus|as|its|us|yes|always|perhaps|across|less|unless|whereas|"
                          r"various|previous|famous|whats|thats|hows|heres|theres|wheres|lets)\b)"
                          r"[A-Za-z][a-z\-]{2,}[^su\W]s\b|\b[A-Z]{2,}s\b")
"""A plural noun, also an acronym's ("LLMs")."""
_STUDY_DETAIL_WORDS = """long take takes took train trains training trained hardware gpu gpus tpu tpus chip chips author
authors wrote write licence license licensed code released release open source learning rate batch size hyperparameter
hyperparameters epoch epochs seed seeds hour hours day days time cost compute budget run runs machine machines
implementation implemented library weights checkpoint checkpoints hugging face public publicly available download
downloadable github gitlab link links url urls repo repos repository repositories"""
_COLLECTION_WIDE = re.compile(r"\b(?:papers|abstracts|works|studies|any|anything|there|collection)\b", re.I)
_COLLECTION_NOUN = re.compile(r"\b(?:papers|abstracts|works|studies|collection)\b", re.I)
"""The collection's papers as a whole ("Which papers release code?"): a question about them, not about one study."""
_LATIN_ANAPHORA = re.compile(
    # German, French, Spanish, Portuguese, Italian: a generic noun after a definite article or demonstrative ("das
    # Modell", "la méthode", "l'acronyme", "el método"), or a possessive ("seine", "son", "su", "seu", "suo")
    r"\b(?:das|die|der|dem|den|des|diese[smnr]?)\s+(?:modells?|methode|verfahrens?|ansatz(?:es)?|arbeit|papers?|"
    r"optimierers?|benchmarks?|frameworks?|algorithmus|autoren|pipeline|systems?|architektur|strategie|metrik|"
    r"verlustfunktion|zielfunktion|ergebnisse|studie|idee|variante|datensatz(?:es)?|code|quellcode|lizenz)\b"
    r"|(?:\bl['’]\s*|\b(?:le|la|ce|cette|cet|les|ces)\s+)(?:modèles?|méthodes?|approches?|articles?|optimiseurs?|"
    r"benchmarks?|algorithmes?|acronymes?|auteurs?|travail|pipeline|système|architecture|stratégie|métrique|"
    r"objectif|résultats|étude|idée|variante|cadre|code|licence)\b"
    r"|\b(?:el|la|los|las|este|esta|ese|esa|o|a|os|as|esse|essa|il|lo|questo|questa|quel|quella)\s+"
    r"(?:modelos?|método|métodos|enfoques?|artículos?|optimizador|algoritmos?|acrónimos?|autores|abordagem|"
    r"artigos?|otimizador|modell[oi]|metod[oi]|approcci?o|articol[oi]|ottimizzatore|autori|pipeline|sistema|"
    r"arquitectura|arquitetura|architettura|estrategia|estratégia|strategia|métrica|metrica|objetivo|obiettivo|"
    r"resultados|risultati|estudio|estudo|studio|idea|ideia|variante|marco|código|codice|licencia|licença|licenza)\b"
    r"|\b(?:sein(?:e[nmrs]?)?|ihr(?:e[nmrs]?)?|son|sa|ses|leurs?|su|sus|seus?|suas?|suo|suoi|sue)\s+\w", re.I)
"""A reference back in a question in another language written in Latin letters (`relevance.is_foreign`): "Wie groß
ist das Modell beim Pretraining?", "Quel est le nom de la méthode ?" after a turn about one paper (a new user's
trial: answered from another paper, and refused); a study's code or licence as the English `_asks_study_detail` reads
them ("sous quelle licence le code est-il publié ?" after EDEN: a new user's trial, round 37, answered from ALIVE)."""
_FOREIGN_SEARCH = re.compile(r"\bgibt\s+es\b|\by\s+a[-\s]t[-\s]il\b|\bexisten?\b|\bhay\b|\bh[áa]\s+(?:algum|alguma)\b"
                             r"|\bc['’]è\b|\bci\s+sono\b|\b(?:welche|quels?|quelles?|qu[ée]|cu[áa]les?|quais|quali)"
                             r"\s+(?:arbeiten|papers?|articles?|artículos|artigos|articoli|trabajos|travaux|lavori)\b"
                             r"|有没有|是否有|有哪些|哪些(?:论文|工作|研究|文章)|(?:論文|研究)はありますか",
                             re.I)
"""A question in another language asking whether or which paper there is ("Gibt es eine Arbeit, die ...?", "Y a-t-il
...", "¿Hay algún trabajo ...?", "Welche Arbeiten ...?", "有没有关于 ... 的论文？"): a search, whatever its articles point
at."""
_OTHER_SCRIPT_ANAPHORA = re.compile(r"它们|它|他们|她们|这篇|那篇|这个方法|那个方法|该方法|该论文|第一个|第二个|第三个")
_QUOTED = re.compile(r"(?<![\w])['‘\"“]([^'‘’\"“”]{2,60}?)['’\"”](?![\w])")
_INTERROGATIVE = re.compile(
    r"^\s*(?:what|which|who|whom|whose|how|why|when|where|is|are|was|were|does|do|did|can|could|has|have|had|will|"
    r"would|should|shall|may|might|compare|list|describe|explain|summari[sz]e|tell|name|give|show)\b", re.I)
_PROPER_NOUN = re.compile(r"(?<=[\w,;:)]\s)(?<![.!?]\s)[A-Z][a-z]{2,}(?:-[A-Za-z]+)*\b")
_NOT_PROPER = {"english", "chinese", "german", "french", "spanish", "ok", "okay", "yes", "no"}


def _entities(text: str) -> list[str]:
    """The things a question names, in order: method/benchmark names (`name_tokens`, without two-letter
    field acronyms such as ``RL`` or ``KV``), quoted terms (``'Data Wall'``) and words capitalised
    inside a sentence (``Triton``)."""
    from assistant.text import name_tokens

    found: list[tuple[int, str]] = []
    for m in _QUOTED.finditer(text):
        found.append((m.start(), f"'{m.group(1).strip()}'"))
    quoted = "".join(q for _, q in found)
    # "Triton", "Ghost": capitalised inside a sentence (not in German, which capitalises every noun)
    for m in () if _german(text) else _PROPER_NOUN.finditer(text):
        if m.group(0).casefold() not in _NOT_PROPER and m.group(0) not in quoted:
            found.append((m.start(), m.group(0)))
    for tok in name_tokens(text):
        if (tok.isupper() and sum(c.isalpha() for c in tok) <= 2) or tok in quoted:
            continue
        m = re.search(rf"(?<![\w$\\]){re.escape(tok)}(?!\w)", text)
        found.append((m.start() if m else len(text), tok))
    out: list[str] = []
    for _, name in sorted(found):
        if name not in out:
            out.append(name)
    return out


@functools.lru_cache(maxsize=256)
def _german(text: str) -> bool:
    """Whether `text` is German (`relevance.is_foreign`, then `relevance.question_language`), whose nouns are
    all capitalised: "und wie schneiden Menschen im Vergleich ab?" names nothing. Cached: `_entities` asks it of
    the same question and its prefixes many times per rewrite."""
    from assistant.relevance import is_foreign, question_language

    return is_foreign(text) and question_language(text)[0] == "de"


def _specific_stems(text: str) -> set[str]:
    from assistant.text import content_stems, result_stems

    return content_stems(text) - result_stems() - _pro_form_stems()


@cache
def _pro_form_stems() -> frozenset[str]:
    """Stems of indefinite pro-forms (a closed class: "somewhere", "anything", "someone"): they name no subject, so "is
    the code released somewhere?" asks about the paper under discussion as "Is the code released?" does (fresh52
    chats: searched as a topic of its own and refused)."""
    from assistant.text import content_stems

    return frozenset(content_stems("somewhere anywhere everywhere somehow anyhow something anything everything someone "
                                   "anyone somebody anybody sometime"))


def _points_back(text: str, m: re.Match) -> bool:
    """A matched demonstrative refers back, unless it is a "that" after a noun (a relative pronoun)."""
    found = re.search(r"\bthat\b", m.group(0), re.I)
    if found is None:
        return True
    return bool(_FUNCTION_WORD_BEFORE.search(text[:m.start() + found.start()]))


def _has_antecedent(before: str) -> bool:
    """The text before a reference names something it can point to: a name or quoted term, a topic
    of at least two words ("I want something cheaper than beam search. Is there a method for that?"), or a
    paper it describes ("And the one that rewrites data: where were its recycled tokens sampled from?")."""
    return (bool(_entities(before)) or len(_specific_stems(before)) >= 2 or bool(_DESCRIBED.search(before))
            or any(_specific_stems(m.group("topic") or "") - _DEICTIC for m in _DESCRIBED_ONE.finditer(before)))


_DEICTIC = {*_ORDINAL_WORDS, "previous", "earlier", "above", "aforementioned", "whole", "other", "next"}
"""Words that point at a paper by its place in the conversation ("the previous one", "the latter method"), not by
its topic: "the rephrasing approach" describes a paper, "the previous approach" refers back."""


def _has_other_script_antecedent(before: str) -> bool:
    """An earlier sentence of the question, in Chinese, names or describes what 这个方法 / 它 points to
    ("有没有论文把 GFlowNet 当作采样器...？这个方法叫什么？"): a name, or a sentence of eight or more
    CJK characters before a sentence end."""
    end = max(before.rfind(c) for c in "。？！?!.")
    if end < 0:
        return False
    earlier = before[:end]
    return bool(_entities(earlier)) or len(re.findall(r"[\u4e00-\u9fff]", earlier)) >= 8


def _earlier_sentences(text: str) -> str:
    """`text` up to its last sentence or clause boundary ("I need a cheap decoder. Is that method ...":
    the first sentence; "Which paper merges X into one signal, and what is that signal called?": the
    first clause; "There's also a decoding paper about alignment — how does that one work?": the part before the
    dash; "what about the residual connection paper, does that one ...": the topic before the question); "" when
    `text` is one clause."""
    boundaries = re.finditer(r",\s+(?:and|but|or)\s|\s[—–-]+\s|,\s+(?=(?:does|do|did|is|are|was|were|can|could|will|"
                             r"would|how|what|which|why|where|who)\s)", text)
    cut = max([text.rfind(c) for c in ".!?;:"] + [m.start() for m in boundaries])
    return text[:cut] if cut >= 0 else ""


_DETERMINER_AFTER = re.compile(r"\s+(?:the|a|an|its|their|his|her|our|each|every|some|more|less|fewer)\b", re.I)


def _verb_after_that(text: str, m: re.Match) -> bool:
    """The word after a "that" (`_DEMONSTRATIVE_ANY` match `m`) is a verb, since a determiner follows it: "that" opens
    a relative clause ("any work on choosing which data to pretrain on that takes the optimizer into account?": fresh42
    chats, read as "on that" and glued to the optimizer paper before it), it does not point back."""
    return m.group(0).split()[0].casefold() == "that" and bool(_DETERMINER_AFTER.match(text, m.end()))


def _repeats_noun(text: str, m: re.Match) -> bool:
    """The noun of a demonstrative phrase `m` was said earlier in `text` ("Does a policy trained with
    external experts still need those experts?"): the phrase points at that, not at the conversation."""
    noun = m.group(0).split()[-1]
    return bool(_specific_stems(noun) & _specific_stems(text[:m.start()]))


_CLAUSE_BREAK = re.compile(r"\s[—–-]+\s|[;:.?!]\s")
"""Where a new clause of a question begins: a dash between spaces, a semicolon, colon or sentence end."""
_SUBJECT_IT = re.compile(r"\b(?:does|did|do|is|was|can|could|will|would|has|had|should|might|may)\s+$", re.I)
_WH = re.compile(r"\b(?:how|what|which|why|when|where|who)\b", re.I)


_DETERMINERS = frozenset({"a", "an", "the", "any", "some", "no", "every", "each"})
_PREPOSITIONS = frozenset({"of", "for", "in", "from", "with", "on", "at", "by", "to", "about", "over", "against",
                           "behind", "beyond"})
_OBJECT_OF = re.compile(rf"\b(?:{'|'.join(sorted(_PREPOSITIONS))})\s+$", re.I)


def _governing_phrase_start(before: str) -> int:
    """Where the noun phrase ends `before` begins when a preposition ends it ("Is there any theoretical
    guarantee for " -> the start of "any theoretical guarantee for "; "... a proof of convergence for " ->
    of "a proof of convergence for "): its words back to its determiner, through the prepositions that
    chain it, stopping at any other function word ("What guarantees exist for " -> after "What");
    len(`before`) when no preposition ends it."""
    from assistant.text import STOP_WORDS

    if not _OBJECT_OF.search(before):
        return len(before)
    words = list(re.finditer(r"[^\W_][\w\-']*", before))
    start = len(before)
    for w in reversed(words):
        low = w.group(0).casefold()
        if low in _DETERMINERS:
            return w.start()
        if low in STOP_WORDS and low not in _PREPOSITIONS:
            break
        start = w.start()
    return start


def _before_clause(text: str, at: int) -> str:
    """The text an "it" at `at` may point back to: all before it, or, for "it" as the subject after an
    auxiliary ("How much compute overhead does it add?"), only what comes before the wh-word opening
    its clause: the noun phrase a wh-question asks about is not what "it" names; for "it"/"its" after a
    preposition, what comes before the noun phrase that preposition belongs to ("Is there any
    theoretical guarantee for it?": a guarantee is not for itself, so "it" points past the question)."""
    before = text[:at]
    if _OBJECT_OF.search(before):
        return before[:_governing_phrase_start(before)]
    if not _SUBJECT_IT.search(before):
        return before
    # only a wh-word of its own clause: in "what about the paper on gradient conflicts in GRPO — is its approach
    # Bayesian?" the clause of "its" begins after the dash, and the paper before it is what "its" names
    start = max((b.end() for b in _CLAUSE_BREAK.finditer(before)), default=0)
    wh = [w for w in _WH.finditer(before) if w.start() >= start]
    return before[:wh[-1].start()] if wh else before


_ASKED_SUBJECT = re.compile(rf"^\W*(?:(?:and|so|ok|okay)\W+)?(?:which|what)\s+"
                            rf"(?:(?!(?:{_AUXILIARY})\b)[\w-]+\s+){{1,3}}(?!(?:{_AUXILIARY})\b)[\w-]+\s*$", re.I)
"""A clause before "it" that is the asked thing and its verb, with no auxiliary ("which company made | it", "which kv
cache method beats | it"): the noun phrase after "which" is what the question asks for, not what "it" stands for
(fresh44 chats: "which company made it?" was searched on its own and refused); "what corpus did RePro sample | its
tokens from" has its subject, RePro (fresh45 chats)."""


def _asked_subject(before: str) -> bool:
    """`before` (the clause before an "it") is the asked noun phrase and its verb (`_ASKED_SUBJECT`) and names
    nothing."""
    return bool(_ASKED_SUBJECT.match(before)) and not _entities(before)


def _unresolved_pronoun(question: str) -> bool:
    """A pronoun whose antecedent is not in the question itself: "it" with no name or topic before it,
    "they" with no papers/authors before it, "he"/"she"."""
    if _PERSON.search(question):
        return True
    expletive = {m.start() for m in _EXPLETIVE_IT.finditer(question)} | {
        m.start() + m.group(0).lower().index("it") for m in _EXPLETIVE_IT.finditer(question)}
    for m in _SINGULAR.finditer(question):
        if m.start() in expletive or _bound_possessive(question, m):
            continue
        before = _before_clause(question, m.start())
        if _asked_subject(before) or not _has_antecedent(before):
            return True
    for m in _PLURAL.finditer(question):
        before = question[:m.start()]
        if _PLURAL_ANTECEDENT.search(before) or len(_entities(before)) >= 2 or _bound_possessive(question, m):
            continue
        if _entities(before) and re.search(r"\w\s+and\s+\w", before) and len(_specific_stems(before)) >= 2:
            continue  # "How do alignment-aware decoding and EDEN differ in what they ...": two things joined
        if _AUTHORS_DID.search(question[:m.end()]):
            # "which model did they use?": the authors of a paper named or described before the clause
            # ("For the spiking conversion work, what trick do they use?" names it; "Which GPUs did
            # they use?" does not)
            if not _has_antecedent(_before_clause(question, m.start())):
                return True
            continue
        if _DESCRIBED.search(before) or _DESCRIBED_ONE.search(before):
            continue  # "what about the frontend game evaluation one, how big is the model they trained": its authors
        if _AUTHORS_ACT.match(question, m.start()):
            if not _has_antecedent(_before_clause(question, m.start())):
                return True
            continue
        # "What are the two ingredients of their algorithm?": the things of the phrase a preposition governs are
        # not what "their" names (`_before_clause`)
        if not _PLURAL_NOUN.search(_before_clause(question, m.start())):
            return True
    return False


_OTHERS_RESULTS = re.compile(r"^\s*(?:and\s+|so\s+)?how\s+(?:do|does|did|well\s+do)\s+(?:the\s+)?(?:best|top|strongest|"
                             r"leading|frontier|current|existing|sota|state-of-the-art)\s+(?:[\w-]+\s+)?"
                             r"(?:models?|llms?|methods?|systems?|baselines?)\s+(?:do|perform|fare|compare|score)\b",
                             re.I)
"""How the best models do ("how do top models do vs people": fresh47 chats, searched on its own and refused): the
results of the benchmark or method under discussion."""
_VAGUE_THING = re.compile(r"\bthe\s+(?:[\w-]+\s+){0,2}?(?:thing|stuff|bit)\b(?!\s+(?:that|which|where|of|called|"
                          r"named|in|on|with)\b)", re.I)
""""whats the alpha thing about": a thing the conversation mentioned, named only by a word of it."""


def _bound_possessive(question: str, m: re.Match) -> bool:
    """"its own" / "their own" after a word of content in the question ("a paper that gives each neuron
    its own step size"): the possessive is bound inside the clause."""
    return (m.group(0).lower() in ("its", "their") and re.match(r"\s+own\b", question[m.end():], re.I) is not None
            and bool(_specific_stems(question[:m.start()]) or _entities(question[:m.start()])))


_OPEN_COMPARISON = re.compile(r"\b(?:compare|compares|compared|fare|fares|stack\s+up|stacks\s+up)\s*(?:[?!.]|$)", re.I)
"""A comparison whose second term is left out ("how do humans compare", "how does GRPO fare?"): compared with what the
conversation is about (chats fresh40: "how do humans compare" after a reasoning benchmark was taken as a new
question and answered from another paper)."""


def needs_history(question: str) -> bool:
    """True when `question` cannot be understood without the conversation before it.

    Signals (general, not tied to any question set): an ordinal reference ("the second one", "the
    former"); a demonstrative noun phrase or pronoun ("that paper", "these methods", "who proposed
    that?"); a pronoun with no antecedent in the question ("how much faster is it?", "which model did
    they use?"); a fragment without a verb ("and on GSM8K?", "what about for code?"); or no subject at
    all: no name, no quoted term and no topic word, only words any paper's results share ("How large are
    the gains?") or a study's details ("How long does training take?", `_asks_study_detail`); a comparison with its
    second term left out ("how do humans compare?", `_OPEN_COMPARISON`). A question that names its subject or asks a
    full question about a topic is
    self-contained ("What about WinQ?", "Is there a paper on MinHash deduplication?"). References are
    recognised in English, a few Chinese forms (它, 这篇, 第二个) and, in German, French, Spanish, Portuguese and
    Italian, a generic noun after a definite article or a possessive ("das Modell", "la méthode", "su memoria") in a
    question that names nothing and does not search (`_LATIN_ANAPHORA`, `_FOREIGN_SEARCH`); another follow-up in
    another language is taken as self-contained, so it is never glued to an old topic, but it is not resolved
    either.
    """
    q = " ".join(question.split())
    if not q or _SWITCHES.match(q):
        return False
    if _RETURNS.match(q):
        return True
    own = _OWN_CLAUSE.search(q)
    if (_FRAGMENT.search(q) and not (own and _scene_of_own_question(own.group("clause")))
            or (_VERBLESS.match(q) and not _entities(q))):
        return True
    if any(not _has_other_script_antecedent(q[:m.start()]) for m in _OTHER_SCRIPT_ANAPHORA.finditer(q)):
        return True
    if _LATIN_ANAPHORA.search(q) and not _FOREIGN_SEARCH.search(q) and not _entities(q):
        from assistant.relevance import is_foreign

        if is_foreign(q):
            return True
    if any(len(_entities(q[:m.start()])) < 2 for m in _ORDINAL.finditer(q)) or _OTHER.search(q) or _PREVIOUS.search(q):
        return True
    if any(len(_entities(q[:m.start()])) < 2 for m in _PAIR.finditer(q)):
        return True
    for pattern in (_DEMONSTRATIVE_NP, _BARE_DEMONSTRATIVE):
        if any(_points_back(q, m) and not _has_antecedent(q[:m.start()]) for m in pattern.finditer(q)):
            return True
    for m in _DEMONSTRATIVE_ANY.finditer(q):
        # a pronoun before a preposition stands for a noun said before it in the same clause ("conflict
        # with those for keeping ..."); before a noun, it needs an earlier sentence or clause
        pronoun = _PREPOSITION.match(q, m.start() + len(m.group(0).split()[0]))
        before = q[:m.start()] if pronoun else _earlier_sentences(q[:m.start()])
        if (_points_back(q, m) and not _has_antecedent(before) and not _repeats_noun(q, m)
                and not _verb_after_that(q, m)):
            return True
    # "what about the decoding paper that uses entropy, does it need training?": "it" is the paper described (a new
    # user's trial, round 29: glued to the paper under discussion)
    if _unresolved_pronoun(q) and not _ABOUT_DESCRIBED.search(q):
        return True
    if _OPEN_COMPARISON.search(q):
        return True
    entities = _entities(q)
    if not entities and (_DEFINITE_SUBJECT.search(q) or _VAGUE_THING.search(q) or _OTHERS_RESULTS.search(q)):
        return True
    if _ABOUT.search(q) and not entities and not _ABOUT_DESCRIBED.search(q) and not _about_search(q):
        return True
    if not entities and not _specific_stems(q) and re.search(r"[A-Za-z]", q) and not re.search(r"[^\x00-\x7f]{3}", q):
        return True
    if not entities and _asks_study_detail(q):
        return True
    return False


def _scene_of_own_question(clause: str) -> bool:
    """True when the clause after a scene-setting phrase ("and for the kv cache, <clause>", `_OWN_CLAUSE`) is a
    question of its own: it names its subject (`_entities`), or it searches the collection for a topic it states
    ("and for the kv cache, is there a quantization approach?": chats fresh36, glued to the weight-quantization paper
    of before) and needs nothing before it ("and for code, is there one too?" does)."""
    from assistant.extractive import asks_for_paper, searches_for_paper

    return bool(_entities(clause)) or ((asks_for_paper(clause) or searches_for_paper(clause))
                                       and not re.search(r"\b(?:one|ones|it|its|they|them|their|such)\b", clause, re.I)
                                       and not needs_history(clause))


def _new_topic_after_refusal(question: str, conversation: Conversation) -> bool:
    """"what about reinforcement learning for robot control?" right after a turn that found no paper (an
    out-of-collection question): the user goes on probing topics, so it is a search of its own, not a question about
    a paper cited before the refusal. True when "what/how about" is all that makes `question` a follow-up (without
    it, `needs_history` is False) and the last turn cited nothing. In the development conversations every such turn
    (7 of 7) asked about a new topic; glued to an earlier paper, one was answered from it (a new user's trial)."""
    m = _ABOUT.search(question)
    if m is None or conversation.turns[-1].citations or _FRAGMENT.search(question):  # "what about for code?"
        return False
    rest = question[m.end():].strip(" ,:-—–")
    return bool(rest) and not needs_history(f"Is there a paper on {rest}")


def _about_search(question: str) -> bool:
    """A "What about ..." question that describes its own topic (two or more specific words) and asks the
    collection for it ("What about sparse attention for long documents, any papers on that?", "..., is
    there anything?"): a new search, not a follow-up of the paper under discussion ("What about vision
    transformers?" asks that paper about another domain)."""
    return len(_specific_stems(question)) >= 2 and bool(_COLLECTION_WIDE.search(question))


def _asks_study_detail(question: str) -> bool:
    """A question about a detail of one study (its training time, hardware, authors, licence, code,
    hyper-parameters) that names no study and no topic beyond the detail: "How long does training
    take?", "Is the code released?", "is there a code link" (fresh42 chats: searched as a topic and refused as no
    paper, after a turn about one paper). In a conversation it asks about the paper under discussion; a
    question about the collection's papers ("Which papers release code?", `_COLLECTION_NOUN`) is not one."""
    specific = _specific_stems(question)
    return bool(specific) and specific <= _study_detail_stems() and not _COLLECTION_NOUN.search(question)


@cache
def _study_detail_stems() -> frozenset[str]:
    from assistant.text import content_stems

    return frozenset(content_stems(_STUDY_DETAIL_WORDS))


_DESCRIPTION = "the paper that begins "
"""How a paper without a name is referred to: by the opening words its display title was derived from
(``the paper that begins "Preference-based reinforcement learning (RL) is a key…"``), which read as a
reference and retrieve the paper (a description of its contribution would make the answer quote the
sentence it was taken from)."""


def _described(name: str) -> str:
    """A quoted term of `_entities` ("'Preference-based ... is a key…'") as `_DESCRIPTION` refers to a paper by those
    opening words ('the paper that begins "…"'); "" for a name that is not quoted."""
    return f'{_DESCRIPTION}"{name[1:-1]}"' if name.startswith("'") else ""


def _cited_names(turn) -> list[str]:
    """The papers a turn's answer cited, as the reader saw them named: a one-word title as it is, a
    longer one in quotes; a paper without a name (its title derived from the abstract's first clause)
    as `_DESCRIPTION` and that clause in quotes."""
    out = []
    for c in turn.citations or []:
        name = _paper_name(c.paper)
        if name and name not in out:
            out.append(name)
    return out


def _in_question_order(turn, cited: list[str]) -> list[str]:
    """`cited` (`_cited_names(turn)`) in the order the turn's question described the papers (`question_positions`):
    "I'm interested in two things: aligning a model at decoding time, and DPO when the preference data is split
    across federated clients" answered with the federated DPO paper first and AAD second, "the second one" is the
    federated DPO paper. Unchanged when a paper has no word of its own in the question ("Which papers mention GRPO?":
    the answer's order is the only one the user has seen). Used only for a question naming or describing each of the
    papers it asks about (`extractive.asks_each_paper`, `extractive.asks_comparison`); a several-paper answer lists
    its papers in the question's order already (`in_question_order`)."""
    papers: list = []
    for c in turn.citations or []:
        if _paper_name(c.paper) and all(c.paper.id != p.id for p in papers):
            papers.append(c.paper)
    if len(papers) != len(cited):
        return cited
    where = question_positions(turn.question, [p.abstract for p in papers])
    if where is None:
        return cited
    return [name for _, name in sorted(zip(where, cited), key=lambda x: x[0])]


def question_positions(question: str, abstracts: Sequence[str]) -> list[float] | None:
    """Where `question` describes the paper of each of `abstracts`: the median position (in words) of the question's
    words (content stems) that the abstract has and the others lack, where its description stands, not where a stray
    word of the preamble does ("I'm comparing two ideas for better pretraining data: rewriting web text ..., and
    picking data by its utility ...": "better" is only OPUS's word, yet RePro is described first). A paper the question
    names (a name-like word, `store.paper.is_name_like`: "PCR", "PowerFlow") stands where its name first does: in
    "compare PCR and PowerFlow, they both relate to GRPO right?" a later word of PCR's ("relate") does not put it
    after PowerFlow (fresh51 chats jc13). None when an abstract has no such word."""
    from assistant.text import content_stems
    from assistant.store.paper import is_name_like

    tokens = re.findall(r"[\w-]+", question)
    words = [content_stems(w) for w in tokens]
    stems = [content_stems(a) for a in abstracts]
    where = []
    for i, own in enumerate(stems):
        others = set().union(*(x for j, x in enumerate(stems) if j != i))
        at = [k for k, w in enumerate(words) if w and w <= own and not w <= others]
        if not at:
            return None
        named = [k for k in at if is_name_like(tokens[k])]
        where.append(named[0] if named else statistics.median(at))
    return where


_ASKS_CHOICE = re.compile(r"\bwhich\s+(?:one\s+)?of\s+(?:the\s+two|them|these|those|both)\b|\bwhich\s+one\b"
                          r"|\bwhich\s+(?:one\s+)?of\s+[\w-]+(?:\s+[\w-]+){0,4}?\s+(?:and|or)\s+[\w-]+", re.I)
"""A choice among the papers a question names ("compare EAPO with the GFlowNet one — which of the two needs no external
supervision?", "which of PCR and PowerFlow compares itself to supervised GRPO?", as a chat's rewrite names "the two"):
the better match comes first, as retrieved, and "that one" next is it (fresh49 chats, fresh25 chats)."""


def in_question_order(question: str, results: list) -> list:
    """The relevant papers (`SearchResult`) of a several-paper question in the order the question names or describes
    them (`question_positions`): "papers on kv cache compression, quantization-aware training, or spiking llms?" lists
    STAR-KV, WinQ and the spiking-conversion paper in that order, and "the first two" next are the first two of both
    the question and the answer (chats fresh43 and fresh50 read them in the two orders; the answer had its retrieval
    order); "Compare NorMuon and WinQ" lists NorMuon first (a new user's trial, round 32). Unchanged when a paper has no
    word of its own in the question (a theme: the retrieval order)."""
    where = question_positions(question, [r.paper.abstract for r in results]) if len(results) > 1 else None
    if where is None or not _apart(question, where):
        return results
    return [r for _, r in sorted(zip(where, results), key=lambda x: x[0])]


_PARTS = re.compile(r"[,;:/()]|\b(?:and|or|vs\.?|versus|with|against|as\s+well\s+as)\b", re.I)
"""What separates the things a question lists or sets against each other ("kv cache compression, quantization-aware
training, or spiking llms", "PCR vs PowerFlow", "Contrast PCR with PowerFlow")."""


def _apart(question: str, where: Sequence[float]) -> bool:
    """Each paper's place in `question` (`question_positions`, in words) lies in a part of its own (`_PARTS`): the
    question names or describes the papers one by one. "Which papers analyze DPO convergence in federated settings?"
    describes one theme, so a paper matching its word "analyze" is not put before the paper about DPO (a new user's
    trial, round 33: WinQ first)."""
    tokens = list(re.finditer(r"[\w-]+", question))
    cuts = [m.start() for m in _PARTS.finditer(question)]
    part = [sum(c < tokens[min(int(w), len(tokens) - 1)].start() for c in cuts) for w in where]
    return len(set(part)) == len(part)


def _paper_name(paper) -> str:
    """A paper as `_cited_names` names it ("" without a title)."""
    from assistant.store.paper import is_name_like

    title = paper.title.strip()
    if not title:
        return ""
    if len(title.split()) == 1 and (is_name_like(title) or title[:1].isupper()):
        return title
    return f'{_DESCRIPTION}"{title}"' if paper.title_is_derived else f'"{title}"'


def _turn_entities(turn) -> list[str]:
    """The names of a turn's standalone question, without the papers its rewrite referred to by their opening words
    that its answer (citing others) did not cite; of a follow-up that cited nothing, the names its rewrite added, when
    it added some: "Did they release model weights on Hugging Face? (EAPO)" is about EAPO, not Hugging Face."""
    named = _entities(turn.standalone_question or turn.question)
    if turn.citations and turn.standalone_question and turn.standalone_question != turn.question:
        # the opening words the rewrite quoted for papers without a name ('the paper that begins "…"' of "which of
        # them ...?") are those papers: not the subject when the answer did not cite them (a new user's trial, round
        # 22: "What gain does it report?" after a one-paper answer became a question about three papers)
        cited = _cited_names(turn)
        named = [n for n in named if not ((ref := _described(n)) and ref in turn.standalone_question
                                          and ref not in cited)]
    if not turn.citations and turn.standalone_question and turn.standalone_question != turn.question:
        own = set(_entities(turn.question))
        return [n for n in named if n not in own] or named
    return named


def _subject(conversation: Conversation, question: str = "") -> tuple[list[str], list[str]]:
    """``(named, cited)`` of the latest turn that has either: the names its (standalone) question used,
    and the papers its answer cited. A turn that found no paper (an aside: "What is the capital of
    France?") is passed over when a paper an earlier turn cited has a specific word of `question` in its
    abstract ("How much does it speed up QAT?" after WinQ): the follow-up goes on about that paper. Else
    the aside's names stay the subject ("Does it work for molecules?" after a GFlowNets question no
    paper is about), and the follow-up is refused as the aside was. A question going back ("back to that benchmark:
    ...", `_BACK_TO`) passes over every turn that found no paper."""
    turns = conversation.turns
    for k in range(len(turns) - 1, -1, -1):
        turn = turns[k]
        named, cited = _turn_entities(turn), _cited_names(turn)
        if named and not cited and question and (_BACK_TO.search(question) or _earlier_paper_fits(question, turns[:k])):
            continue
        if named or cited:
            return named, cited
    return [], []


def _earlier_paper_fits(question: str, turns) -> bool:
    """Some paper the latest citing turn of `turns` cited has in its abstract a specific word of
    `question` (`_specific_stems`)."""
    from assistant.text import content_stems

    words = _specific_stems(question)
    for turn in reversed(turns):
        if turn.citations:
            return any(words & content_stems(c.paper.document) for c in turn.citations)
    return False


_DESCRIBED = re.compile(r"\b(the\s+(?:one|paper|work|method|study)\s+(?:that|which|who|on|about|with|for)\s+"
                        r"[^,;:.?!]+?)"
                        r"(?=\s*(?:[,;:.?!]|$)|\s+and\s+the\s+(?:one|paper|work|method|study)\b)", re.I)
"""A paper described instead of named ("the one that recycles web data with a rephraser")."""


_BACK_TO = re.compile(r"\b(?:back\s+to|return(?:ing)?\s+to|revisit(?:ing)?)\b", re.I)
"""A question returning to an earlier topic ("Back to the first optimizer — how does it ...?"): its ordinal
counts through the papers the conversation discussed, not through the latest list."""
_RETURNS = re.compile(r"^\W*(?:(?:ok(?:ay)?|so|and|anyway|now)\W+)*(?:going\s+|coming\s+|getting\s+)?"
                      r"(?:back\s+to|return(?:ing)?\s+to)\s+(?:the|that|this|those|these|our)\b", re.I)
"""A turn that opens by going back to a thing the conversation discussed ("back to the benchmark, where can i get the
code"): it needs that history, whatever else it names (fresh33 qc08.4, round 22: "benchmark" read as its own subject,
and the question was answered on its own: "the abstracts do not say")."""


def _ordered_referents(conversation: Conversation, returning: bool = False) -> list[str]:
    """What "the first/second one" counts through: the latest list of two or more things, newest turn
    first: the names its question gave, in the order the user named them, else the papers it described
    ("the one that recycles web data ..., and the one that converts LLMs ..."), else the papers its answer
    cited, in that order (a later turn about one of them does not replace the list: after "Which two
    papers build on DPO?" and "Does the second one need training?", "the first one" is still the
    first paper listed); with no list, the papers the conversation's answers cited, in the order they were first
    cited (one paper per turn: after "Which paper stabilises GRPO?" and "Which paper reweights
    tokens?", "the first one" is the first paper found). `returning` (`_BACK_TO`: "Back to the first optimizer
    ..."): that last list, whatever the latest turns named (after "Any optimizer that improves on Muon?",
    answered with NorMuon, and "Is there anything on Shampoo or SOAP?", "the first optimizer" is NorMuon)."""
    for turn in reversed(conversation.turns if not returning else []):
        named = _entities(turn.question)  # as the user named them, also when the rewrite kept one
        if len(named) < 2:
            named = _turn_entities(turn)
        if len(named) >= 2:
            return named
        described = _DESCRIBED.findall(turn.standalone_question or turn.question)
        if len(described) >= 2:
            return [" ".join(d.split()) for d in described]
        cited = _cited_names(turn)
        if len(cited) >= 2:
            from assistant.extractive import asks_comparison, asks_each_paper

            return (_in_question_order(turn, cited) if asks_each_paper(turn.question) or asks_comparison(turn.question)
                    else cited)
    seen: list[str] = []
    for turn in conversation.turns:
        for name in _cited_names(turn):
            if name not in seen:
                seen.append(name)
    return seen


def _recent_pair(conversation: Conversation) -> list[str] | None:
    """The two papers the turns after the latest list (an answer citing two or more) were each about alone, in the order
    they came up: after "Are there methods that fine-tune LLMs without external reward?" answered with three papers, two
    turns about PowerFlow and one about EAPO, "the two" are PowerFlow and EAPO, not the list's last two: the latest two
    papers, in the order they first came up since the list. None when fewer than two such papers came up since it."""
    subjects: list[str] = []
    since: list[str] = []  # each turn's paper since the list, oldest first
    for turn in reversed(conversation.turns):
        cited = _cited_names(turn)
        if len(cited) >= 2:
            break
        if cited:
            since.insert(0, cited[0])
            if cited[0] not in subjects and len(subjects) < 2:
                subjects.append(cited[0])
    if len(subjects) < 2:
        return None
    # in the order they first came up: after turns about PowerFlow, PCR, then PowerFlow again, "the two" are PowerFlow
    # and PCR, so that "the second one" next is PCR (fresh48 chats: "PCR and PowerFlow", the second read as PowerFlow)
    return sorted(subjects, key=since.index)


def resolve_own_ordinal(question: str) -> str:
    """`question` with an ordinal that counts through names the question itself gave ("the first one",
    "the latter") replaced by that name; unchanged when there is none.

    When the names were only listed in sentences before the one asking ("I'm interested in WinQ and
    STAR-KV. For the first one, what do they find about the loss surface?"), those sentences are left
    out ("For WinQ, what do they find about the loss surface?"): retrieval and the answer then look at
    the paper asked about, not at both. Names in the asking sentence stay ("Between EAPO and PCR, does
    the first one use experts?" -> "Between EAPO and PCR, does EAPO use experts?")."""
    text = " ".join(question.split())
    for m in _ORDINAL.finditer(text):
        if m.group("ord3") or m.group("ord5"):  # a pair of the question's own names is left as it is
            continue
        names = _entities(text[:m.start()])
        i = _ordinal_index(m)
        if len(names) < 2 or i >= len(names):
            continue
        starts = [b.end() for b in re.finditer(r"[.!?。！？]\s+", text[:m.start()])]
        start = starts[-1] if starts else 0
        preamble = text[:start]
        if not re.search(r"[?？]", preamble) and _entities(preamble) == names:
            return text[start:m.start()] + names[i] + text[m.end():]
        return text[:m.start()] + names[i] + text[m.end():]
    return question


_GERUND_OR_RELATIVE = re.compile(r"^\s*[a-z]+ing\s+[\w-]+|\b[\w-]+\s+(?:that|which)\s+[a-z]+(?:s|ed)?\s+\w", re.I)
"""A "what about" topic described as an approach: a gerund and its object ("selecting data", "making quantization-aware
training converge faster") or a noun and a relative clause ("decoding that spends more compute ...")."""


def about_topic(question: str) -> str:
    """What a "what/how about" question that does not point back at the paper under discussion names: "approach" when
    it describes an approach of its own ("what about selecting data instead of rewriting it": what it is set against,
    `relevance.CONTRASTED`, with one specific word besides; "what about decoding that spends more compute only when the
    model is unsure": a gerund and its object or a relative clause, `_GERUND_OR_RELATIVE`, with two specific words),
    "topic" for another topic of three or more specific words ("what about protein design with diffusion models": a
    task and a method, where "what about vision transformers?" names a domain to ask the paper under discussion about),
    "" otherwise: a fragment ("what about for code?"), a domain ("what about code generation?"), or a pronoun or
    demonstrative outside the contrast ("what about using it for code?", "what about the accuracy?").

    Either may still ask about the paper under discussion. `answer` searches the question on its own and keeps it so
    when an approach finds papers other than those the conversation was about (chats fresh46: "what about selecting
    data instead of rewriting it" after the rewriting paper was glued to it and answered "The abstracts do not say.")
    or when a topic is one the collection lacks (fresh22 chats: "wat about protein design with diffusion models" was
    "The abstracts do not say." of the diffusion paper under discussion, not "No paper ...")."""
    from assistant.relevance import CONTRASTED

    m = _ABOUT.search(question)
    if m is None or _FRAGMENT.search(question):
        return ""
    rest = question[m.end():]
    own = CONTRASTED.sub(" ", rest)
    if (_SINGULAR.search(own) or _PLURAL.search(own) or _PERSON.search(own)
            or re.match(r"\s*(?:the|that|this|these|those)\b", own, re.I)
            or re.search(r"\b(?:this|that|these|those)\s+(?:one|ones|paper|papers|method|work)\b", own, re.I)):
        return ""
    specific = len(_specific_stems(own))
    if (own != rest and specific >= 1) or (_GERUND_OR_RELATIVE.search(own) and specific >= 2):
        return "approach"
    return "topic" if specific >= 3 else ""


_COUNT_OF_LAST = re.compile(r"^\W*(?:(?:and|so|ok(?:ay)?|but)[,\s]+)?how\s+many\s+(?:(?:are|were)\s+there|"
                            r"of\s+(?:them|these|those)(?:\s+(?:are|were)\s+there)?|(?:is|are)\s+(?:that|those|these|"
                            r"they)|in\s+total|altogether)\s*[?？.!]*\s*$", re.I)
"""A count asked of the papers the last answer listed, with no noun of its own ("how many are there?")."""
_WHICH_PAPERS = re.compile(r"^\W*(?:which|what)\s+(?=(?:[\w-]+\s+){0,2}?(?:papers|works|studies|articles|abstracts)\b)",
                           re.I)


def deterministic_rewrite(question: str, conversation: Conversation | None) -> str:
    """The standalone form of a follow-up, without an LLM (`needs_history` decides whether it is one;
    a self-contained question comes back unchanged).

    "the first/second/last one" (and "the former/latter") become the names in the order the user named
    them (else the order the last answer cited the papers); "that paper" becomes the paper the last
    answer cited; the first "it"/"its" (else "their") becomes what the last question was about: a name
    or quoted term the user gave that is the cited paper's name (or a quoted term), else the cited
    paper, else the names given. When nothing can be substituted (a fragment such as "and on GSM8K?",
    or "how large are the gains?"), the subject is added in brackets: ``"… (STAR-KV)"``, all the papers
    the last answer cited for "they"/"them" ("Which of them also reports GPQA?"); with no
    subject at all, the previous question: ``"… (follow-up to: …)"``.
    """
    if not follows_up(question, conversation):
        return question
    from assistant.text import mentions

    text = " ".join(question.split())
    if _COUNT_OF_LAST.match(text) and len(_cited_names(conversation.turns[-1])) >= 2:
        # "how many are there?" after a list of papers: the count of that list, asked again (a new user's trial, round
        # 36: read as a question about the first paper listed, and its pass@1 quoted)
        prev = " ".join(_asked_before(conversation.turns[-1]).split())
        which = _WHICH_PAPERS.match(prev)
        return f"how many {prev[which.end():]}" if which else f"how many papers: {prev}"
    named, cited = _subject(conversation, text)
    referents = _ordered_referents(conversation, returning=bool(_BACK_TO.search(text)))
    # a name the user gave is the subject when it is a cited paper's name, as a whole word: after "Is
    # there an optimizer built on Muon?" answered with NorMuon, "it" is NorMuon, not Muon
    topic = [n for n in named if n.startswith("'") or any(mentions(c, n) and not c.startswith(_DESCRIPTION)
                                                          for c in cited)] \
        or cited[:1] or named
    # the opening words of a paper without a name, which the last rewrite quoted and its answer cited, are that paper
    # ('the paper that begins "…"'), not a quoted term: as a term they were searched for as words (chats fresh37:
    # "how big are the gains, any numbers? ('The reasoning patterns …')" was answered from another paper's gains)
    topic = [ref if (ref := _described(n)) and ref in cited else n for n in topic]
    if len(cited) > 1 and re.search(r"\b(?:they|them|these|those)\b", text, re.I):
        topic = cited  # "Which of them also reports GPQA?": every paper the last answer cited
    holding = list(dict.fromkeys(name for c in conversation.turns[-1].citations or []
                                 if (name := _paper_name(c.paper)) and _given_figure(text, c.paper.abstract)))
    if len(holding) == 1 and len(topic) > 1:
        # "where does the 11.31 percentage-point gain come from?" after NorMuon and WinQ were compared: the paper whose
        # abstract gives the figure (a new user's trial, round 36: asked of both, and WinQ cited)
        topic = holding
    changed = placed = False  # placed: an ordinal put one paper's name in the question

    def ordinal(m: re.Match) -> str:
        nonlocal changed, placed
        if m.group("ord3") or m.group("ord5"):  # "the first and the third", "the first two": as "NorMuon and OPUS"
            pair = ([_ORDINAL_WORDS[m.group(g).lower()] for g in ("ord3", "ord4")] if m.group("ord3")
                    else [0, 1] if m.group("ord5").lower() != "last" else [-2, -1])
            if len(_entities(text[:m.start()])) >= 2 or not referents or max(pair) >= len(referents):
                return m.group(0)
            two = [referents[i] for i in pair]
            if two[0] == two[1]:  # "the first and the last one" of a one-paper list: no pair to name
                return m.group(0)
            changed = True
            return join_names(two)
        i = _ordinal_index(m)
        if len(_entities(text[:m.start()])) >= 2 or not referents or i >= len(referents):
            return m.group(0)
        changed = placed = True
        return referents[i]

    text = _ORDINAL.sub(ordinal, text)
    which_one = _WHICH_ONE_OF_LAST.match(text) if chooses_among_last(text, conversation) else None
    if which_one:
        # "which one needs no training?" after STAR-KV and EDEN were compared: a choice between them
        text = f"{which_one.group(1)} of {join_names(_cited_names(conversation.turns[-1]))}{text[which_one.end():]}"
        changed = True
    choice = _CHOICE_OF_THEM.search(text)
    if choice and len(referents) >= 2 and len(_entities(text[:choice.start()])) < 2:
        # "which of them uses reinforcement learning?" after a list: a choice among the list's papers, named in place
        # (named in brackets after the question, they read as examples and the choice was refused)
        text = text[:choice.start("them")] + join_names(referents) + text[choice.end("them"):]
        changed = True
    pair = next((m for m in _PAIR.finditer(text) if len(_entities(text[:m.start()])) < 2), None)
    recent = _recent_pair(conversation) if pair else None
    if pair and (recent or len(referents) >= 2):
        # "Which of the two reports a bigger percentage?": the two papers the turns since the latest list were about
        # (`_recent_pair`: "What is PowerFlow?", "What is RankTuner?", "how do the two differ?"), else the list's two,
        # or a longer list's last two
        two = recent or (referents if len(referents) == 2 else referents[-2:])
        text = text[:pair.start()] + join_names(two) + text[pair.end():]
        changed = True
    other = _OTHER.search(text)
    if other and len(referents) >= 2:
        last = set(_cited_names(conversation.turns[-1]) or _turn_entities(conversation.turns[-1]))
        rest = [r for r in referents if r not in last]
        if len(rest) == 1 or (rest and len(referents) == 2):
            text = text[:other.start()] + rest[0] + text[other.end():]
            changed = True
    previous = _PREVIOUS.search(text)
    if previous:
        # "compare it with the previous one" after turns about WinQ, then STAR-KV: WinQ
        subjects = [c[0] for c in map(_cited_names, reversed(conversation.turns)) if c]
        before = next((x for x in subjects if x != subjects[0]), None)
        if before:
            text = text[:previous.start()] + before + text[previous.end():]
            changed = True
    paper = cited[0] if cited else (f"the paper on {join_names(named)}" if named else "")
    edits: list[tuple[int, int, str]] = []
    for m in _DEMONSTRATIVE_NP.finditer(text):
        if paper and _points_back(text, m) and not _has_antecedent(text[:m.start()]):
            plural = re.search(r"(?:s|ones)$", m.group(0), re.I) and len(cited) > 1
            if (_AUXILIARY_BEFORE.search(text[:m.start()]) and _NO_VERB_AFTER.match(text[m.end():])
                    and m.group(0).split()[-1].lower() in _NOUN_OR_VERB):
                # "Does that work for image models?": after "does" the demonstrative is the subject and
                # the generic noun its verb (no other verb follows), so only "that" names the paper; "that one"
                # and "that paper" are the paper whole ("does that one also work on code?")
                edits.append((m.start(), m.start() + len(m.group(0).split()[0]), paper))
            else:
                edits.append((m.start(), m.end(), join_names(cited) if plural else paper))
            break
    expletive = {x.start() + x.group(0).lower().index("it") for x in _EXPLETIVE_IT.finditer(text)}
    # "how about the first one, does it beat beam search?": "it" is the paper the ordinal named, in a clause before it
    # (a new user's trial, round 26: rewritten "how about AAD, does EDEN beat beam search?")
    pronoun = next((m for m in re.finditer(r"\b(?:it|its)\b", text, re.I)
                    if m.start() not in expletive and not _has_antecedent(_before_clause(text, m.start()))
                    and not (placed and _has_antecedent(text[:m.start()]))), None)
    if pronoun is None and not (changed or edits):
        pronoun = next((m for m in re.finditer(r"\btheir\b", text, re.I) if not _has_antecedent(text[:m.start()])),
                       None)
    possessive = pronoun is not None and pronoun.group(0).lower() in ("its", "their")
    if possessive and any(t.startswith(_DESCRIPTION) for t in topic):
        pronoun = None  # "the paper on …'s code" reads badly: the description goes in brackets
    if pronoun is not None and topic and not (edits and (join_names(topic) == paper or not cited)):
        edits.append((pronoun.start(), pronoun.end(), join_names(topic) + ("'s" if possessive else "")))
    for a, b, repl in sorted(edits, reverse=True):
        text = text[:a] + repl + text[b:]
        changed = True
    if changed:
        return _asked_again(text, conversation, referents) or text
    if topic:
        back = [m for m in _DEMONSTRATIVE_ANY.finditer(text)
                if (_points_back(text, m) or re.match(r"\s*(?:[?？.!,]|$)", text[m.end():]))
                and not _has_antecedent(_earlier_sentences(text[:m.start()]))]
        named_thing = _named_in_answer(back[0].group(0).split()[-1], conversation.turns[-1].answer) if back else None
        if named_thing:
            # "How is that indicator computed?" after an answer naming "the Relative Rank Indicator": that name
            # (held-out fresh55 chats: the last question's words went along, and their sentences were quoted)
            m = back[0]
            return f"{text[:m.start()]}the {named_thing}{text[m.end():]} ({join_names(topic)})"
        if back:
            # "What do they call that paradigm?": a demonstrative before a word that is not the paper
            # (a relative "that" is followed by a verb, this one by the question mark) points at what
            # the last question described; its words go along with the paper's name
            prev = conversation.turns[-1].standalone_question or conversation.turns[-1].question
            return f"{text} ({join_names(topic)}: {prev.strip().rstrip('?？.!').strip()})"
        return f"{text} ({join_names(topic)})"
    return f"{text} ({_FOLLOW_UP}{_asked_before(conversation.turns[-1])})"


def _named_in_answer(noun: str, answer: str) -> str | None:
    """The one name `answer` gives a thing of kind `noun` (a capitalised phrase of two to five words ending in it:
    "Relative Rank Indicator" for "indicator"), or None when it gives none or several."""
    if noun.casefold() in {"one", "ones", "paper", "papers", "work", "study"}:
        return None
    from assistant.extractive import plain

    pattern = rf"\b(?:(?!(?:The|A|An|This|That|Our|Its|Their)\b)[A-Z][\w-]*\s+){{1,4}}(?i:{re.escape(noun)})s?\b"
    found = {m.group(0) for m in re.finditer(pattern, plain(answer))
             if m.group(0).split()[-1][:1].isupper()}
    return found.pop() if len(found) == 1 else None


_FOLLOW_UP = "follow-up to: "

_ELLIPSIS = re.compile(r"\s*(?:(?:and|so|ok(?:ay)?|also)[,\s]+)?(?:(?:what|how)\s+about\s+)?"
                       r"(?P<name>.+?)\s*[?？.!]*\s*")
"""A follow-up that is only a paper ("and the first?", "what about the third one?" once the ordinal is resolved)."""


def _asked_again(text: str, conversation: Conversation, referents: Sequence[str]) -> str:
    """The question before, asked of another paper, when `text` (a rewritten follow-up) is only that paper ("and
    AAD?" from "and the first?" after "how much does the second one gain?" became "how much does EDEN gain?": "how
    much does AAD gain?"; a new user's trial, round 29: answered with AAD's overview). The question before must name
    exactly one other paper of the conversation (`referents`), which is replaced; "" otherwise."""
    from assistant.text import mentions

    m = _ELLIPSIS.fullmatch(text)
    if m is None or m.group("name") not in referents:
        return ""
    last = conversation.turns[-1]
    before = " ".join((last.standalone_question or last.question).split())
    old = [r for r in referents if r != m.group("name") and mentions(before, r)]
    if len(old) != 1 or mentions(before, m.group("name")):
        return ""
    return re.sub(rf"(?<![\w-]){re.escape(old[0])}(?![\w-])", lambda _: m.group("name"), before)

_ACK = (r"(?:hmm+|h[mu]+|ok(?:ay)?|thanks?|thank\s+you|thx|great|cool|nice|good|got\s+it|i\s+see|right|alright|"
        r"all\s+right|sure|perfect|interesting|wow|yes|yeah|no|danke(?:\s+schön)?|merci|gracias|obrigad[oa]|grazie|"
        r"super|genial|gut|bien|d'accord|vale|va\s+bene|ja|oui|sí)")
_SWITCH = (r"(?:(?:(?:a|one)\s+)?(?:(?:totally|completely|entirely|quite)\s+)?(?:different|unrelated|separate)\s+"
           r"(?:q|question|topic|thing|one)|new\s+topic|(?:(?:totally|completely|entirely|quite)\s+)?unrelated|"
           r"off[\s-]topic|switching(?:\s+topics?)?|changing\s+(?:the\s+)?(?:topic|subject))")
"""Opening words saying the conversation moves to another topic ("totally unrelated, but ...", "different topic:")."""
_HEADING = (rf"(?:{_SWITCH}|(?:(?:a|one)\s+)?(?:another|new|other|last|final|next)\s+(?:q|question|topic|thing|one)|"
            r"one\s+more(?:\s+(?:question|thing))?)")
_STOP = r"(?:\s*[,.!;:…]+|\s+[-–—]+)\s*(?:but\s+)?"
_PREAMBLE = re.compile(rf"^\W*(?:{_ACK}(?:\s+{_ACK})*(?:{_STOP}|\s+(?={_HEADING}{_STOP})))*(?:{_HEADING}{_STOP})?",
                       re.I)
"""A chat turn's opening words that answer the last turn, not ask ("hmm ok. anything on ...?", "thanks. unrelated -
is there ...?", "ok danke. gibt es ...?", "gracias. ¿y hay ...?"): `without_preamble` leaves them out of what is
searched and judged, since MiniLM's similarity to every abstract falls with them."""
_SWITCHES = re.compile(rf"^\W*(?:{_ACK}(?:\s+{_ACK})*(?:{_STOP}|\s+))*{_SWITCH}{_STOP}", re.I)
"""A turn that says it moves to another topic ("totally unrelated, but do any of these abstracts cover ...?"): a new
question, whatever its words point back to (fresh33 qc04.4, round 22: "these abstracts" glued NorMuon on)."""


def without_preamble(question: str) -> str:
    """`question` without a chat turn's opening acknowledgement (`_PREAMBLE`); unchanged when that would leave
    fewer than three words or the question is nothing else."""
    m = _PREAMBLE.match(question)
    if not m or not m.group(0).strip():
        return question
    rest = question[m.end():]
    if len(re.findall(r"\w+", rest)) < 3:
        return question
    return rest[0].upper() + rest[1:] if rest[0].islower() and question[:1].isupper() else rest


def rewrote(question: str, standalone: str) -> bool:
    """Whether `standalone` (the question as searched) says more than `question` as typed, so that it is worth showing
    ("asked as: ..."): not the same words (`text.same_question`), nor those words without a chat turn's opening
    acknowledgement ("ok. which papers propose new decoding methods?" is searched without "ok.": a new user's trial,
    round 34, found that line clumsy)."""
    from assistant.text import same_question

    return bool(standalone.strip()) and not (same_question(standalone, question)
                                             or same_question(standalone, without_preamble(question)))


def _asked_before(turn) -> str:
    """The question `turn` asked, as a later follow-up with no subject refers to it: its standalone
    question, or, when that was itself such a follow-up ("Which tasks? (follow-up to: Is there work on
    X?)"), the question it followed, so that a chain of follow-ups names the first question once
    instead of nesting brackets."""
    asked = (turn.standalone_question or turn.question).strip()
    while asked.endswith(")") and f" ({_FOLLOW_UP}" in asked:
        asked = asked[asked.index(f" ({_FOLLOW_UP}") + len(_FOLLOW_UP) + 2:-1].strip()
    return asked


def _is_question(text: str) -> bool:
    return text.rstrip(" \"'”’)").endswith(("?", "？")) or bool(_INTERROGATIVE.match(text))


def acceptable_rewrite(question: str, rewrite: str) -> bool:
    """Whether an LLM's standalone question can replace `question`: it is a question (when the
    original was one), keeps every name and quoted term of the original (compared after rendering
    LaTeX and Unicode folding, case ignored), keeps at least half of its topic words, and is not
    much longer than the question plus the names it may add."""
    from assistant.text import content_stems, fold

    if not rewrite or len(rewrite) > 3 * len(question) + 200:
        return False
    if _is_question(question) and not _is_question(rewrite):
        return False
    folded = fold(rewrite).casefold()
    for name in _entities(question):
        if fold(name.strip("'\"")).casefold() not in folded:
            return False
    asked = content_stems(question)
    if asked and len(asked & content_stems(rewrite)) < len(asked) / 2:
        return False
    return True


_NOT_MODIFIER = r"(?!(?:of|for|in|on|to|with|from|by|and|or|at)\b)"  # "the choice of optimizer" describes no paper
_DESCRIBED_ONE = re.compile(rf"\b(?<!which )(?<!what )the\s+(?P<topic>(?:{_NOT_MODIFIER}[\w\-]+\s+){{0,2}}?"
                            rf"{_NOT_MODIFIER}[\w\-]+)\s+"
                            r"(?:one|paper|approach|method|work|study|benchmark|dataset|optimizer|framework|algorithm|"
                            r"technique|decoder|variant|version)\b"
                            # "going back to the tree-search one for diffusion LMs: ..." (fresh48 chats: glued to the
                            # paper of the turn before): a setting after the noun, up to the comma, colon or dash that
                            # ends the description
                            r"(?:\s+(?:for|on|in)\s+(?:[\w\-]+\s+){0,2}?[\w\-]+(?=\s*[,;:]|\s+[-–—]))?"
                            r"(?!\s+(?:that|which|who|on|about|with|for|from|in)\b)"
                            # "back to the optimizer - does it scale ...?": the paper of before, by its kind
                            # "back to diffusion lms - is ...": the determiner is often left out in chat
                            r"|(?:(?<=\bback to )|(?<=\breturn to )|(?<=\breturning to ))(?:the\s+)?"
                            r"(?P<back>(?:[\w\-]+\s+){0,2}?[\w\-]+)(?=\s*(?:[,;:.?!]|$)|\s+[-–—])"
                            # "back to the one with external experts - which benchmarks?" (a new user's trial, round
                            # 30: glued to the paper of the turn before)
                            r"|\bthe\s+(?:one|paper|work|method)\s+(?:with|on|about|using|that\s+uses|based\s+on)\s+"
                            r"(?P<after>(?:[\w\-]+\s+){0,2}?[\w\-]+)(?=\s*(?:[,;:.?!]|$)|\s+[-–—])", re.I)


_FOREIGN_DESCRIBED = re.compile(
    r"(?:^|[,;:¿¡]\s*|\b(?:et|und|y|e|o|ou|aber|mais|pero|ma|mas)\s+)(?P<ref>"
    r"(?:(?:celui|celle|ceux|celles)(?:-ci|-là)?\s+(?:qui\s+(?:est|sont)\s+)?(?:bas|fond|centr|ax)[ée]e?s?\s+sur"
    r"|(?:celui|celle)\s+(?:avec|sur|qui\s+utilise)"
    r"|(?:el|la|los|las|aquel|aquella)\s+(?:que\s+est[áa]\s+)?basad[oa]s?\s+en|(?:el|la)\s+(?:de|con|que\s+usa)"
    r"|(?:quell[oa]|quelli|quelle)\s+(?:basat[oaie]\s+su(?:ll['’]|lla\b|l\b|i\b)?|con|che\s+usa)"
    r"|(?:o|a|aquele|aquela)\s+basead[oa]s?\s+(?:em|n[oa]s?)|(?:o|a)\s+(?:de|com|que\s+usa))\s*"
    r"(?:l['’]\s*|la\s+|le\s+|les\s+|el\s+|los\s+|las\s+|lo\s+|sull['’]\s*|sulla\s+|sul\s+|de\s+la\s+|du\s+|"
    r"des\s+|del\s+|da\s+|do\s+)?"
    r"(?P<topic>[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*)?)"
    r"|(?:das|der|die|den|dem)\s+(?:auf|mit)\s+(?:der\s+|dem\s+|den\s+)?(?P<topic_de>[^\W\d_][\w-]*)\s+"
    r"(?:basierende|beruhende)[nrms]?)(?=\s*(?:[,;:.?!]|$))", re.I)
"""A paper of the conversation described by its topic in French, Spanish, Italian, Portuguese or German, as "the one
based on entropy" is in English (`_DESCRIBED_ONE`): "et celui basé sur l'entropie, ...", "y el basado en la
entropía", "quello basato sull'entropia", "und das auf Entropie basierende" (held-out fresh56 chats: the first was
searched as a question of its own and answered from a paper the conversation had not cited). ``ref`` is the phrase
standing for the paper, ``topic`` (``topic_de``) its topic's words."""


def _cognate_stems(sentence: str) -> set[str]:
    """The stems of `sentence`'s English words of `relevance.COGNATE_MIN`+ letters, spelt as
    `relevance.cognate_spelling` spells cognates ("entropy": "entropi"): a word of another language is held by the
    sentence when it begins with one ("entropie", "entropia")."""
    from assistant.relevance import COGNATE_MIN, cognate_spelling
    from assistant.text import _stemmer

    stem = _stemmer()
    spelt = (cognate_spelling(stem(w.casefold())) for w in re.findall(r"[A-Za-z]{5,}", sentence))
    return {s for s in spelt if len(s) >= COGNATE_MIN}


def _resolve_foreign_described(text: str, conversation: Conversation) -> str:
    """`text` with each `_FOREIGN_DESCRIBED` phrase replaced by the name of the one paper the conversation's answers
    cited that holds a cognate of every word of its topic (`_cognate_stems`) in at least twice as many sentences as any
    other cited paper, as `resolve_described_one` decides for English topics."""
    from assistant.relevance import COGNATE_MIN, cognate_spelling
    from assistant.text import split_sentences

    for m in reversed(list(_FOREIGN_DESCRIBED.finditer(text))):
        topic = m.group("topic") or m.group("topic_de")
        keys = [cognate_spelling(w.casefold()) for w in re.findall(r"[^\W\d_]+", topic) if len(w) >= COGNATE_MIN]
        if not keys:
            continue
        held: dict[str, int] = {}
        for turn in conversation.turns:
            for c in turn.citations or ():
                n = sum(all(any(k.startswith(st) for st in stems) for k in keys)
                        for stems in map(_cognate_stems, [c.paper.title, *split_sentences(c.paper.abstract)]))
                if n:
                    held[_paper_name(c.paper)] = max(n, held.get(_paper_name(c.paper), 0))
        ranked = sorted(held.values(), reverse=True)
        if ranked and (len(ranked) == 1 or ranked[0] >= 2 * ranked[1]):
            name = next(k for k, v in held.items() if v == ranked[0])
            text = text[:m.start("ref")] + name + text[m.end("ref"):]
    return text


def resolve_described_one(question: str, conversation: Conversation | None) -> str:
    """`question` with "the <topic> one" / "the <topic> paper" ("Back to the quantization one: does it
    work for vision transformers?") replaced by the name of the one paper the conversation's answers
    cited whose title and sentences hold every content word of the topic, in at least twice as many
    sentences as any other cited paper (the paper the topic is about, not one mentioning it once), or, when no
    sentence holds them all, the one cited paper whose abstract does; going back to a topic in the user's words ("back
    to diffusion lms"), the one discussed paper holding at least half of its words and most of its rarer ones. Each
    such phrase is replaced ("compare the entropy one and the alignment one"); one going back to ask the collection
    for a paper ("going back to plans: which paper ...?") is not. A question in another language is read for its
    own forms first ("et celui basé sur l'entropie", `_resolve_foreign_described`). Unchanged when there is no such
    phrase or paper ("the first one" is `deterministic_rewrite`'s)."""
    from assistant.relevance import is_foreign
    from assistant.text import split_sentences

    if conversation is None or not conversation.turns:
        return question
    text = " ".join(question.split())
    if is_foreign(text):
        foreign = _resolve_foreign_described(text, conversation)
        if foreign != text:
            return foreign
    stems = lambda x: _specific_stems(x.replace("-", " "))  # noqa: E731  ("entropy-informed": "entropi", "inform")
    from assistant.extractive import asks_for_paper, searches_for_paper

    edits: list[tuple[int, int, str]] = []  # (start, end, name) of each described paper resolved
    for m, words, typed in _described_topics(text):
        rest = text[m.end():].strip(" :;,-–—")
        if m.group("back") and (asks_for_paper(rest) or searches_for_paper(rest)):
            continue  # "Going back to plans: which paper finds ...?" asks the collection for the paper (fresh28 chats)
        fits: dict[str, int] = {}  # name: how many of its sentences hold the topic
        abstracts: dict[str, str] = {}
        for turn in conversation.turns:
            for c in turn.citations or ():
                if not _describes(m, typed, f"{c.paper.title} {c.paper.abstract}"):
                    continue  # "the optimizer paper" is not EAPO's "policy optimization" (a new user's trial, round 28)
                held = sum(words <= stems(x) for x in [c.paper.title, *split_sentences(c.paper.abstract)])
                if held:
                    fits[_paper_name(c.paper)] = held
                    abstracts[_paper_name(c.paper)] = c.paper.abstract
        if not fits:
            # "the inference time one" of alignment-aware decoding ("directly at inference", "training-time or
            # prompt-based interventions": fresh42 chats): the words in different sentences of one cited paper only
            whole = {_paper_name(c.paper) for turn in conversation.turns for c in turn.citations or ()
                     if words <= stems(f"{c.paper.title} {c.paper.abstract}")
                     and _describes(m, typed, f"{c.paper.title} {c.paper.abstract}")}
            fits = dict.fromkeys(whole, 1) if len(whole) == 1 else {}
        if not fits and m.group("back"):
            # going back to a topic in the user's own words ("back to diffusion lms" of DiffuSearch's "Masked Diffusion
            # Models": fresh44 chats): the one discussed paper holding most of the topic's words, at least half of them
            # (a rarer word counts for more: "diffusion" names the topic, "language" is in most abstracts; wordfreq)
            from wordfreq import zipf_frequency

            weight = {st: max(0.0, 8 - zipf_frequency(w, "en")) for w in typed for st in stems(w)}
            held = {}
            for turn in conversation.turns:
                for c in turn.citations or ():
                    got = words & stems(f"{c.paper.title} {c.paper.abstract}")
                    if 2 * len(got) >= len(words):
                        held[_paper_name(c.paper)] = sum(weight.get(w, 0.0) for w in got)
            best = sorted(held.values(), reverse=True)
            if best and best[0] > 0 and (len(best) == 1 or best[0] > best[1]):
                fits = {name: 1 for name, n in held.items() if n == best[0]}
        ranked = sorted(fits.items(), key=lambda kv: -kv[1])
        if len(ranked) > 1 and ranked[0][1] < 2 * ranked[1][1]:
            # several papers hold the topic alike ("back to the optimizer: does it work with fsdp?" after NorMuon and
            # OPUS, "optimizer-induced": a new user's trial, round 28): the one holding most of the rest of the
            # question's words, when one does
            rest = [w for w in re.findall(r"[^\W_][\w-]*", text[:m.start()] + " " + text[m.end():])
                    if _specific_stems(w) - words]
            shared = sorted(((sum(_writes_start(abstracts[name], w) for w in rest), name) for name, _ in ranked),
                            reverse=True)
            if shared[0][0] > shared[1][0]:
                ranked = [(shared[0][1], 0)]
        if ranked and ranked[0][0] and (len(ranked) == 1 or ranked[0][1] >= 2 * ranked[1][1]):
            # the paper the topic is about, not one that mentions it once ("mixed precision quantization")
            edits.append((m.start(), m.end(), ranked[0][0]))
    # each paper described ("compare the entropy one and the alignment one": fresh47 chats, the second was left)
    for start, end, name in reversed(edits):
        text = text[:start] + name + text[end:]
    return text if edits else question


def _describes_undiscussed(question: str, conversation: Conversation | None) -> bool:
    """`question` goes back (`_BACK_TO`) to a paper it describes by a topic ("back to the <topic> paper", "back to the
    <topic>", `_DESCRIBED_ONE`) that no paper the conversation's answers cited writes (`_writes_each`): a paper not
    discussed yet, which the question asks the collection for ("back to the optimizer paper: how much did it save over
    adamw?" after RL papers and an aside, none of them an optimizer: a new user's trial, round 28, rewritten "back to
    EAPO")."""
    if conversation is None or not conversation.turns or not _BACK_TO.search(question):
        return False
    cited = [f"{c.paper.title} {c.paper.abstract}" for turn in conversation.turns for c in turn.citations or ()]
    return any(typed and not any(_writes_each(doc, typed) for doc in cited)
               for _, _, typed in _described_topics(" ".join(question.split())))


def _described_topics(text: str) -> Iterator[tuple[re.Match, set[str], list[str]]]:
    """``(match, stems, words)`` of each paper `text` describes by a topic (`_DESCRIBED_ONE`: "the quantization one",
    "back to the optimizer"): the topic's specific stems ("the entropy-based one": "entropi") and its words as typed
    that have them; not an ordinal ("the first one"), "the other ..." (one beside the paper given, `_ANOTHER`) or a
    topic holding a name."""
    from assistant.relevance import MODIFIER_HEADS

    heads = "|".join(sorted(MODIFIER_HEADS))
    for m in _DESCRIBED_ONE.finditer(text):
        topic = m.group("topic") or m.group("back") or m.group("after")
        # "the entropy-based one": the paper about entropy ("entropy-bas" is no stem of its sentences)
        words = _specific_stems(re.sub(rf"-(?:{heads})\b", "", topic, flags=re.I).replace("-", " "))
        if (not words or topic.split()[-1].lower() in _ORDINAL_WORDS or _entities(topic)
                or topic.split()[0].lower() == "other"):
            continue
        yield m, words, [w for w in re.findall(r"[^\W\d_]+", topic) if _specific_stems(w) & words]


def described_elsewhere(question: str, conversation: Conversation | None) -> list[tuple[re.Match, set[str], list[str]]]:
    """The papers `question` describes by a topic (`_described_topics`: "The selection one: what's the extra compute
    cost?") that no paper the conversation's answers cited is about (its title and abstract lack a word of the topic,
    `_writes_each`): a paper the user expects from the conversation's topic though no answer gave it. `answer` looks it
    up in the collection (fresh24 chats: after an answer giving the web-rewriting paper alone for "I'm running short of
    good web text for pretraining", "the selection one" was searched as "what's the extra compute cost" and the
    optimizer paper was quoted). In `question`'s order, over its words as `" ".join(question.split())` spaces them."""
    from assistant.extractive import asks_for_paper, searches_for_paper

    if conversation is None or not conversation.turns:
        return []
    text = " ".join(question.split())
    cited = [f"{c.paper.title} {c.paper.abstract}" for turn in conversation.turns for c in turn.citations or ()]
    return [(m, words, typed) for m, words, typed in _described_topics(text)
            if not (m.group("back") and (asks_for_paper(rest := text[m.end():].strip(" :;,-–—"))
                                         or searches_for_paper(rest)))  # asks the collection (`resolve_described_one`)
            and not any(words <= _specific_stems(doc.replace("-", " ")) and _describes(m, typed, doc) for doc in cited)]


def _describes(m: re.Match, typed: Sequence[str], text: str) -> bool:
    """`text` (a paper's title and abstract) can be the paper `m` (a `_DESCRIBED_ONE` match, `typed` its topic's words)
    describes: it writes each agent noun of the topic (`_writes_each`), and a topic named after the noun ("the one about
    quantization-aware training") as a phrase: that is what the paper is about, not words it has apart (round 30:
    "and the one about quantization-aware training, how much does it speed up QAT?" was taken for the KV-cache paper's
    "low-rank–aware mixed precision quantization")."""
    from assistant.text import phrase_key

    after = m.group("after")
    return _writes_each(text, typed) and (not after or phrase_key(after) in phrase_key(text))


def _writes_each(text: str, words: Sequence[str]) -> bool:
    """`text` writes each agent noun of `words` (a thing that does: "optimizer", "rephraser", "decoder") as typed or in
    its plural, so that the stem it shares with the name of a process ("the optimizer paper" and EAPO's "policy
    optimization", "well-optimized": a new user's trial, round 28) is not enough; other words are held by their stem
    ("the credit assignment one": "assigns uniform credit")."""
    low = text.casefold()
    for w in (w.casefold() for w in words):
        if len(w) < 6 or not re.search(r"(?:er|or)s?$", w):
            continue
        w = w[:-1] if w.endswith("s") else w
        forms = [w, f"{w}s"]
        if not re.search(rf"(?<![^\W\d_])(?:{'|'.join(map(re.escape, forms))})(?![^\W\d_])", low):
            return False
    return True


def _writes_start(text: str, word: str) -> bool:
    """`text` has a word beginning with `word` ("FSDP": "FSDP2")."""
    return re.search(rf"(?<![^\W\d_]){re.escape(word.casefold())}", text.casefold()) is not None


_INCLUDED_ONE = re.compile(r",?\s*\b(?:(?:this|that|the\s+last)\s+(?:one|paper|work|method)\s+"
                           r"(?:included|too|as\s+well)|(?:including|incl\.?|as\s+well\s+as)\s+"
                           r"(?:this|that|the\s+last)\s+(?:one|paper|work|method))\b,?", re.I)
"""The paper under discussion counted in with the papers a question searches for ("..., this one included?")."""


def standalone_question(question: str, conversation: Conversation | None, llm: LLM | None) -> str:
    """`question` as it can be understood without the conversation.

    Unchanged without history or when it does not need it (`needs_history`), but for an ordinal that
    counts through the question's own names (`resolve_own_ordinal`); else rewritten by the LLM
    with the ``rewrite`` prompt, and the deterministic rewrite (`deterministic_rewrite`) is used instead
    for backends that cannot write (no LLM, extractive) or when the model's reply is not acceptable
    (`acceptable_rewrite`: not a question, drops the question's names, too long). Raises `LLMError` when
    the LLM call fails."""
    from assistant import prompts

    resolved = resolve_described_one(question, conversation)
    if resolved == question and _describes_undiscussed(question, conversation):
        return question  # "back to the optimizer paper: ..." when no paper discussed is one: searched as it is
    question = resolved
    included = _INCLUDED_ONE.search(question)
    if included and follows_up(question, conversation):
        from assistant.extractive import asks_several

        rest = " ".join(f"{question[:included.start()]} {question[included.end():]}".split())
        rest = re.sub(r"\s+(?=[?？.!])", "", rest)
        if asks_several(rest) and not follows_up(rest, conversation):
            # "which papers in the collection use token entropy as a signal, this one included?": a search of the
            # whole collection, which finds the paper under discussion with the others (held-out fresh55 chats: asked
            # of RankTuner alone, with the last question's words, and EDEN left out)
            return rest
    if not follows_up(question, conversation):
        return resolve_own_ordinal(question)
    if _new_topic_after_refusal(question, conversation):
        return question
    if not getattr(llm, "can_chat", False):
        return deterministic_rewrite(question, conversation)
    text = prompts.get("rewrite").render(history=conversation.history_text(), question=question)
    reply = llm.complete([{"role": "user", "content": text}], max_tokens=96)
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    line = lines[0] if lines else ""
    line = re.sub(r"^(standalone question|question)\s*:\s*", "", line, flags=re.I).strip().strip('"“”\'')
    if not acceptable_rewrite(question, line) or not _names_a_cited_paper(question, line, conversation):
        return deterministic_rewrite(question, conversation)
    return line


def _names_a_cited_paper(question: str, rewrite: str, conversation: Conversation) -> bool:
    """False when an LLM's `rewrite` adds names to `question` and none of them is a paper the
    conversation's answers cited ("How much faster is it?" after an answer about NorMuon that also
    mentions Muon, rewritten "How much faster is Muon?"): the referent is the paper an answer was about,
    not another name in its text. True when it adds no name or there is no cited paper."""
    from assistant.text import mentions

    titles = [c.paper.title for t in conversation.turns for c in t.citations if c.paper.title]
    added = [n.strip("'") for n in _entities(rewrite) if not mentions(question, n.strip("'"))]
    if not titles or not added:
        return True
    return any(mentions(rewrite, title) or mentions(title, n) for title in titles for n in added)


def discussed_papers(question: str, standalone: str, conversation: Conversation | None) -> list[str]:
    """The titles of the papers a follow-up asks about: those the latest answer with citations cited
    that `standalone` (`question` rewritten from the conversation) names; [] when `question` was not
    rewritten from the conversation or its rewrite names none of them (a new topic)."""
    if conversation is None or not conversation.turns or standalone.strip() == resolve_own_ordinal(question).strip():
        return []
    named = (c.paper.title for c in _last_citations(conversation) if _names_paper(standalone, c.paper))
    return list(dict.fromkeys(named))


def _last_citations(conversation: Conversation) -> tuple[Citation, ...]:
    """The citations of the latest answer that cited any paper (() when none did)."""
    return next((t.citations for t in reversed(conversation.turns) if t.citations), ())


def _names_paper(text: str, paper) -> bool:
    """`text` names `paper` as `_paper_name` names it: a one-word name as a whole word, a title as written."""
    from assistant.text import mentions

    name = _paper_name(paper)
    return bool(name) and (mentions(text, name) if len(name.split()) == 1 else name in text)


_ANOTHER = re.compile(r"\b(?:(?:another|a\s+different|any\s+other|some\s+other|(?<!\bthe\s)other)\s+(?:[\w-]+\s+){0,2}?"
                      r"|the\s+other\s+(?!(?:one|two|three|four)\b)(?:[\w-]+\s+){1,2}?)"
                      r"(?:papers?|works?|stud(?:y|ies)|articles?|methods?|approach(?:es)?)\b", re.I)
"""A search for papers beside those already given ("Is there another paper on pretraining data, one that selects
data instead of rewriting it?", "Any other work on ...?", "whats the other pretraining data paper in here?": chats
fresh40, the paper just discussed was given again); not "the other one" or "the other paper" (of two, `_OTHER`)."""


_LIKE_THAT = re.compile(r"\b(?:like|similar\s+to)\s+(?:that|this|it|those|these|them)(?:\s+(?:one|paper|work))?\b"
                        r"|\bsimilar\s+(?:papers?|works?|methods?|approach(?:es)?|stud(?:y|ies))\b"
                        r"|\b(?:anything|something)\s+similar\b"
                        r"|\b(?:another|other)\s+(?:papers?|works?|stud(?:y|ies))\s+(?:on|about)\s+(?:that|this|it)"
                        r"(?:\s+(?:topic|one))?\s*[?.!]*\s*$", re.I)
"""Papers asked for by their likeness to those under discussion ("Are there any other papers like that?", "similar
work?", "anything similar?", "any other paper on that?": its topic, not its name; a new user's trial, round 28, searched
"STAR-KV" as the words "star" and "kv")."""


@functools.cache
def _asking_words() -> frozenset[str]:
    """The stems of words a question for papers like those under discussion uses besides its topic."""
    return frozenset(_specific_stems("similar anything something collection here maybe"))


def _asks_like_those(question: str) -> bool:
    """`question` asks for papers like those under discussion (`_LIKE_THAT`) and has no subject of its own: no
    name, no topic word ("... tree search like that for theorem proving?", "models that show a plan first, anything
    like that?": a topic that "that" compares with or describes)."""
    return bool(_LIKE_THAT.search(question)) and not _entities(question) and not (
        _specific_stems(question) - _asking_words())


def similar_papers_question(question: str, conversation: Conversation | None) -> str:
    """The search "Are there any other papers like that?" stands for: "Which other papers are about this: <the first
    sentence of each paper the latest answer cited>?" (an abstract's first sentence states its field and problem: "The
    choice of optimizer significantly impacts the training efficiency ... of large language models"), or "" when
    `question` does not ask for papers like those under discussion (`_asks_like_those`), or no earlier answer cited a
    paper. The papers themselves are set aside (`set_aside_papers`). The rewrite named only the paper ("... like
    that? (NorMuon)"), which no other abstract mentions: the answer was "The abstracts do not say." (a new user's
    trial, round 17)."""
    from assistant.text import render_latex, split_sentences

    if conversation is None or not _asks_like_those(question):
        return ""
    firsts = [render_latex(split_sentences(c.paper.abstract)[0]).rstrip(".") for c in _last_citations(conversation)
              if c.paper.abstract.strip()]
    return f"Which other papers are about this: {'; '.join(dict.fromkeys(firsts))}?" if firsts else ""


def set_aside_papers(question: str, conversation: Conversation | None) -> set[str]:
    """The ids of the papers `question` asks to look beyond (`_ANOTHER`, `_asks_like_those`): those the latest
    answer with citations cited, but a paper the question names (by its title's name). Left out of the retrieved
    papers, so the search finds the other paper asked for rather than the one just given again (fresh13 chats: RePro
    quoted again for "another paper ..., one that selects data"). When the turn since named one of those papers, it is
    the one looked beyond ("ok and the other pretraining data paper?" after "how much compute overhead does the first
    one add?" of a list of four: a new user's trial, round 30, was given the first one again, the list's other papers
    set aside with it). Empty outside a conversation."""
    if conversation is None or not (_ANOTHER.search(question) or _asks_like_those(question)):
        return set()
    cited = _last_citations(conversation)
    last = conversation.turns[-1] if conversation.turns else None
    focus = [c for c in cited if last is not None and _names_paper(last.standalone_question or last.question, c.paper)]
    return {c.paper.id for c in focus or cited if not _names_paper(question, c.paper)}


def previous_papers(question: str, standalone: str, conversation: Conversation | None) -> set[str] | None:
    """The ids of the papers the previous turn was given (its sources; empty when it found none) when
    `question` asks a detail of one study ("Is its code on GitHub?", `_asks_study_detail` or
    `assistant.extractive.detail_asked`) and its rewrite `standalone` found no subject to name (``"…
    (follow-up to: …)"``): the study asked about is among those papers, not any paper the detail's words
    retrieve. None otherwise (the answer may use every relevant paper)."""
    from assistant.extractive import detail_asked

    if conversation is None or not conversation.turns or not standalone.rstrip().endswith(")"):
        return None
    last = conversation.turns[-1]
    if not standalone.rstrip().endswith(f"({_FOLLOW_UP}{_asked_before(last)})"):
        return None
    if not (_asks_study_detail(question) or detail_asked(question)):
        return None
    return {s.paper.id for s in last.sources}


_STARTS_SEARCH = re.compile(r"\b(?:is|are)\s+there\b|\banything\b|\b(?:what|wat|how)\s+about\b"
                            r"|(?:^|[.?!:;]\s*)\s*any\b"
                            r"|\b(?:different|unrelated|separate|another|new|other)\s+(?:question|topic|thing)\b"
                            r"|\b(?:switching|unrelated)\b", re.I)
"""'Is there anything on ...?', 'wat about protein design with diffusion models', 'Different question: any
benchmark for ...?': asks whether the collection has a topic, or says the conversation moves on: a search of its own
(a "what about" that needed the history was rewritten already)."""
CONTINUED_MAX_WORDS = 10
"""A question of at most this many words may go on about the conversation's paper (`continued_subject`)."""


def continued_subject(question: str, standalone: str, conversation: Conversation | None) -> str:
    """The paper the conversation is about, for `answer` to add in brackets (``"… (ANN-to-SNN)"``, as
    `deterministic_rewrite` adds a subject) and try when the question read on its own found no paper:
    a terse follow-up without a pronoun ("which nonlinear ops are covered", "how big is the accuracy hit", "do more
    simulations help or whats the key knob") goes on about the paper under discussion. "" when it was rewritten
    already, names something of its own, searches the collection ("Is there anything on deduplicating ...?": a
    new topic, refused if the collection lacks it; "Y a-t-il un article sur l'empoisonnement des données ?", fresh54
    chats: answered from the paper under discussion), describes a paper none of the conversation's is
    (`described_elsewhere`: "who wrote the speculative decoding paper?", a new user's trial, round 35), is longer than
    `CONTINUED_MAX_WORDS`, no earlier answer cited a paper, or the last turn found no paper: the user goes on probing
    topics ("anything on mixture of experts routing?", refused, then "and state space models like mamba?": fresh42
    chats, answered from the paper cited two turns before), as after a refusal "what about ..." does
    (`_new_topic_after_refusal`)."""
    from assistant import prompts
    from assistant.extractive import searches_for_paper

    if (conversation is None or not conversation.turns or standalone != question or _entities(question)
            or searches_for_paper(question) or _STARTS_SEARCH.search(question) or _FOREIGN_SEARCH.search(question)
            or described_elsewhere(question, conversation)
            or len(question.split()) > CONTINUED_MAX_WORDS
            or conversation.turns[-1].answer.startswith(prompts.NO_RELEVANT_PAPER[:-1])):
        return ""
    _, cited = _subject(conversation, question)
    return cited[0] if cited else ""


# --- answer ----------------------------------------------------------------------------------------

THEME_DEPTH = 2
"""With the extractive backend, a several-paper question ("which papers ...", `extractive.asks_several`) is
judged on this many times ``top_k`` retrieved papers (`relevance.THEME_GAP` then leaves out those far below the
theme's papers): a theme's papers may use its words only once ("... including mathematical reasoning,
code generation, and scientific questions") and rank below papers sharing them in passing; 26 of the 58 gold
papers the development files' theme questions missed were not among the first ``top_k``."""


def _name_cased(question: str, retriever: Retriever) -> str:
    """`question` with the collection's names typed in lower case written as names (`spelling.name_cased`), before
    it is read as a follow-up or searched; as typed when the retriever has no store of its own (tests) or its BM25
    index cannot be read (the search reports that)."""
    from assistant.spelling import name_cased

    store = getattr(retriever, "store", None)
    try:
        return name_cased(question, *store.bm25()) if store is not None else question
    except Exception:
        return question


def answer(question: str, *, retriever: Retriever, llm: LLM | AnswerSynthesizer, settings: Settings,
           conversation: Conversation | None = None, filters: Filters | None = None,
           top_k: int | None = None, cancel: threading.Event | None = None) -> Iterator[AnswerEvent]:
    """Answer `question` from the collection behind `retriever` with `llm`; yields answer events.

    `llm` is an LLM backend (streams an answer to the prompt with the numbered sources) or an answer
    synthesizer (``synthesize(standalone question, sources, embedder)``: the extractive answerer, given
    the store's embedder).

    ``Sources`` (papers given to the model, numbered from 1; empty when nothing relevant was found),
    ``TextDelta`` chunks (citation markers already checked), ``Citations``, ``Done``; or ``Error`` (one
    line, a ``kind``, the partial text) after a failure or when `cancel` is set (``kind="cancelled"``).
    Never raises for LLM, store or prompt failures. With `conversation`, a follow-up is rewritten from
    its history first, and a typo no abstract writes is corrected to the collection's word
    (`assistant.spelling`; ``Sources.question`` is the question as searched); the conversation is read, never
    changed: the caller adds the turn
    (``Turn.from_answer(Answer.from_events(...))``, or `Conversation.record`). `top_k` defaults to
    ``settings.top_k``; seconds in ``Done`` are wall time.
    """
    from assistant.extractive import WHICH_AND_WHICH, asks_comparison, asks_several, searches_for_paper
    from assistant.llm import AnswerRequest, LLMError
    from assistant.relevance import judge
    from assistant.retrieval import QueryError, checked_query
    from assistant.text import sentences_citing

    from assistant import prompts

    started = time.perf_counter()
    cancel = cancel or threading.Event()
    parts: list[str] = []

    def fail(message: str, kind: str) -> Error:
        return Error(message, kind=kind, partial="".join(parts))

    try:
        checked_query(question)  # a megabyte pasted by mistake: one error, before any rewrite or search
        from assistant.spelling import chat_spelled

        question = chat_spelled(question)  # "wich base model did they use": read as "which ..."
        question = _name_cased(question, retriever)  # "winq, normuon and pcr": the papers WinQ, NorMuon and PCR
        prompts.load_prompts()
        # "Are there any other papers like that?": the topic of the papers under discussion, not their names
        standalone = similar_papers_question(question, conversation) or standalone_question(question, conversation,
                                                                                            llm)
        rewritten = standalone  # before typos are corrected
        standalone = without_preamble(standalone)  # "hmm ok. anything on ...?": searched without "hmm ok."
    except (QueryError, prompts.PromptError) as exc:
        yield fail(str(exc), exc.kind)
        return
    except LLMError as exc:
        yield fail(f"rewriting the follow-up question failed: {exc}", exc.kind)
        return
    try:
        from assistant.spelling import corrected
        from assistant.text import decimal_points

        # "kv cahce compresion": a typo no abstract writes is searched and judged as the collection's word
        # (a retriever without a store of its own, as tests give, searches the question as typed)
        store = getattr(retriever, "store", None)

        def searched(text: str) -> str:
            text = decimal_points(text)  # "21,74%" is the abstracts' "21.74%"
            return corrected(text, *store.bm25()) if store is not None else text

        standalone = searched(standalone)
        depth = top_k or settings.top_k
        strict = llm.name == BackendName.EXTRACTIVE

        def judged(text: str) -> tuple[list[SearchResult], Judgement]:
            """`text` searched at the answer's depth, and the retrieved papers judged."""
            found = retriever.search(text, top_k=depth, filters=filters)
            return found, judge(text, found, retriever, strict=strict, threshold=_threshold(settings, strict),
                                baseline=depth)

        for m, words, typed in reversed(described_elsewhere(standalone, conversation)):
            # "The selection one: what's the extra compute cost?" of a paper no answer gave: the paper of the
            # conversation's topic that the description fits (`described_elsewhere`)
            last = conversation.turns[-1]
            _, found = judged(searched(f"{' '.join(typed)} {last.standalone_question or last.question}"))
            paper = next((r.paper for r in found.relevant
                          if words <= _specific_stems(f"{r.paper.title} {r.paper.abstract}".replace("-", " "))
                          and _describes(m, typed, f"{r.paper.title} {r.paper.abstract}")), None)
            if paper is not None and _paper_name(paper):
                text = " ".join(standalone.split())
                standalone = text[:m.start()] + _paper_name(paper) + text[m.end():]
        about = about_topic(question) if rewritten != question and conversation is not None else ""
        if about:
            # "what about selecting data instead of rewriting it": searched on its own, a new topic when an approach
            # finds papers other than those the conversation was about, or the collection lacks the topic (asked as a
            # search for it, as "is there a paper on ...?" is judged; `about_topic`)
            own = searched(question)
            asked = own if about == "approach" else searched(
                f"Is there a paper on {question[_ABOUT.search(question).end():].strip()}")
            _, found = judged(asked)
            discussed = {c.paper.id for c in _last_citations(conversation)}
            if ((found.relevant and not discussed & {r.paper.id for r in found.relevant})
                    or (about == "topic" and not found.relevant and found.lacked)):
                standalone, rewritten = own, question
        # "Which papers report results on code generation?": a theme's papers may rank below papers sharing its
        # words in passing; the extractive backend's gate judges THEME_DEPTH times as many (the first `depth`
        # set its baseline). An LLM backend's looser gate would pass most of them on to the prompt.
        # Not for "Are there methods that ...?" (`extractive.asks_existence`): a key word covered only by a paper
        # below the first `depth` answered an out-of-collection question ("... the KV cache of image generation models")
        wide = llm.name == BackendName.EXTRACTIVE and asks_several(standalone)
        aside = set_aside_papers(question, conversation)  # searched past, so as many papers are judged
        results = retriever.search(standalone, top_k=depth * (THEME_DEPTH if wide else 1) + len(aside),
                                   filters=filters)
        results = [r for r in results if r.paper.id not in aside]
    except Exception as exc:  # StoreError / EmbeddingError carry one-line messages and their kind
        own = isinstance(exc, AssistantError)
        yield fail(str(exc) if own else f"retrieval failed ({type(exc).__name__}: {str(exc)[:160]})",
                   exc.kind if own else ErrorKind.STORE)
        return
    try:
        judgement = judge(standalone, results, retriever, strict=strict,
                          threshold=_threshold(settings, strict), baseline=depth)
    except Exception as exc:  # EmbeddingError: one line
        own = isinstance(exc, AssistantError)
        yield fail(str(exc) if own else f"judging relevance failed ({type(exc).__name__}: {str(exc)[:160]})",
                   exc.kind if own else ErrorKind.STORE)
        return
    # a topic the collection lacks ("whats the best recipe for sourdough bread") is no question about the paper under
    # discussion either (a new user's trial, round 21: answered from the optimizer paper's abstract)
    subject = (continued_subject(question, rewritten, conversation)
               if not judgement.relevant and not judgement.lacked else "")
    if subject:
        continued = f"{standalone} ({subject})"
        # "how big is the accuracy hit" after a paper was discussed: read on its own it finds no paper, so it goes
        # on about the paper the conversation is about, if that reading finds it
        try:
            again, second = judged(continued)
        except Exception:  # the first reading's refusal stands
            second = None
        if second is not None and second.relevant:
            standalone, results, judgement = continued, again, second
    relevance = tuple(e.to_json() for e in judgement.evidence)

    def refuse(text: str, why: str, sources: Sequence[Source] = ()) -> Iterator[AnswerEvent]:
        """The events of a refusal: `text`, `why` as the note; of `sources` (none: an answer given without sources),
        those whose marker `text` writes are cited ("The abstracts do not say. The paper asked about is X [1]")."""
        yield Sources(tuple(sources), standalone, why, relevance)
        parts.append(text)
        yield TextDelta(text)
        yield Citations(tuple(Citation(s.n, s.paper, sentences_citing(text, s.n)) for s in sources
                              if f"[{s.n}]" in text))
        yield Done(text, llm.name, llm.model, {}, time.perf_counter() - started, refused=True)

    if not judgement.relevant:
        why = judgement.note
        text = prompts.NO_RELEVANT_PAPER
        if not results and filters is not None and not filters.empty:
            # the filters, not the collection, left nothing: say so in the answer itself
            why = f"no paper matches the filters ({filters.describe()})"
            text = f"No paper in the collection matches the filters ({filters.describe()})."
        elif filters is not None and not filters.empty:  # a paper outside the filters may be about it
            text = f"{prompts.NO_RELEVANT_PAPER[:-1]} (only papers matching the filters were searched: {filters.describe()})."
        elif aside:
            # "is there another kv cache paper?" when the collection has one: the paper given above was left out of the
            # search, and the reader is told so (a new user's trial, round 26, read it as "no paper at all")
            left_out = join_names([_paper_name(c.paper) for c in _last_citations(conversation) if c.paper.id in aside])
            text = f"{prompts.NO_RELEVANT_PAPER[:-1]} (left out as given above: {left_out})."
            why = f"{why}; left out as given above: {left_out}"
        # "other papers": none is discussed; "what about X in that setting, any paper?" searches the collection, and no
        # paper is about it (chats fresh23 c10.4: "the abstracts do not say" once the rewrite named the paper)
        discussed = (discussed_papers(question, standalone, conversation)
                     if (filters is None or filters.empty) and not aside and not searches_for_paper(question) else [])
        if judgement.described and (filters is None or filters.empty):
            # "Did the spiking LLM paper run on Loihi chips?": the paper described is found, its abstract does not
            # mention the name asked; the answer says which paper was read and cites it, as the extractive answerer's
            # own "does not say" does (it had named the paper in the note only)
            from assistant.extractive import not_stated_answer

            chance = {e.id: e.score for e in judgement.evidence}
            sources, _, _ = pack_sources([_Judged(r, chance.get(r.paper.id)) for r in judgement.described],
                                         standalone, llm, llm.max_tokens)
            yield from refuse(not_stated_answer(standalone, sources), judgement.note, sources)
            return
        if judgement.named and (filters is None or filters.empty):
            # "Does WinQ work for vision transformers?": WinQ is in the collection and its abstract does
            # not cover the domain: it does not say, rather than no paper is about the question
            text, why = prompts.CANNOT_ANSWER, judgement.note
        elif discussed:
            # a follow-up about the paper under discussion ("Does that work for image models?"): the
            # paper is known, so nothing relevant means its abstract does not say, not that no paper is
            text = prompts.CANNOT_ANSWER
            why = f"the question asks about {', '.join(discussed)} (the paper under discussion): {why}"
        yield from refuse(text, why)
        return
    relevant = list(judgement.relevant)
    if (asks_several(standalone) or asks_comparison(standalone)) and (
            not _ASKS_CHOICE.search(standalone) or WHICH_AND_WHICH.search(standalone)):
        # ("PCR vs PowerFlow?" lists PCR first too; "DiffuSearch vs EDEN: which one uses tree search and which uses
        # entropy?" asks something of each, not a choice: a new user's trial, round 33, listed EDEN first)
        relevant = in_question_order(standalone, relevant)
    about = previous_papers(question, standalone, conversation)
    if about is not None:
        # "Is its code on GitHub?" after a question no paper was found for: "its" points at the paper
        # the previous question was about, so the detail's words ("code", "GitHub") may not pick another
        relevant = [r for r in relevant if r.paper.id in about]
        if not relevant:
            yield from refuse(prompts.CANNOT_ANSWER, "the question asks about the paper of the previous question, "
                                                     "and no paper was found for it")
            return
    try:
        chance = {e.id: e.score for e in judgement.evidence}
        kept = [_Judged(r, chance.get(r.paper.id)) for r in relevant]
        sources, messages, note = pack_sources(kept, standalone, llm, llm.max_tokens)
    except ContextError as exc:
        yield fail(str(exc), ErrorKind.CONTEXT_LENGTH)
        return
    note = "; ".join(x for x in (judgement.note, note) if x)  # why papers were judged relevant, if unusual
    left_out = [e for e in judgement.evidence if not e.relevant]
    if left_out:  # one line for a reader; each paper's reason is in its `relevance` evidence
        note = "; ".join(x for x in (note, f"{len(left_out)} other retrieved paper(s) judged not about the "
                                           f"question and left out (why: --json, 'relevance')") if x)
    yield Sources(tuple(sources), standalone, note, relevance)

    checker = CitationChecker(len(sources))
    usage: dict = {}
    loop_note = ""
    try:
        if hasattr(llm, "synthesize"):  # the extractive answerer: no LLM, no prompt
            stream = _synthesized(llm, standalone, sources, getattr(getattr(retriever, "store", None), "embedder", None))
        else:
            stream = llm.stream(AnswerRequest(messages=messages, question=standalone, max_tokens=llm.max_tokens),
                                cancel=cancel)
        for chunk in stream:
            if chunk.usage:
                usage = chunk.usage
            if cancel.is_set():
                break
            shown = checker.feed(chunk.text) if chunk.text else ""
            if shown:
                parts.append(shown)
                yield TextDelta(shown)
                looped = repetition_loop("".join(parts))
                if looped:
                    close = getattr(stream, "close", None)
                    if close:
                        close()  # stop generating (frees the model for the next question)
                    loop_note = (f"the answer was cut: the {llm.name} model repeated "
                                 f"\"{looped[:60]}\" over and over")
                    break
    except LLMError as exc:
        parts.append(checker.flush())
        yield fail(str(exc), exc.kind)
        return
    except Exception as exc:  # a backend bug must not crash the chat app or a batch
        yield fail(f"the {llm.name} backend failed ({type(exc).__name__}: {str(exc)[:160]})", ErrorKind.ERROR)
        return
    rest = checker.flush()
    if rest and not cancel.is_set():
        parts.append(rest)
        yield TextDelta(rest)
    text = "".join(parts).strip()
    if cancel.is_set():
        yield Error("Answer stopped.", kind=ErrorKind.CANCELLED, partial=text)
        return
    if not text:
        yield fail(f"the {llm.name} backend returned an empty answer", ErrorKind.EMPTY)
        return
    by_n = {s.n: s for s in sources}
    citations = tuple(Citation(n, by_n[n].paper, sentences_citing(text, n)) for n in checker.cited)
    refused = prompts.says_cannot_answer(text)
    yield Citations(citations, tuple(checker.dropped))
    yield Done(text, llm.name, llm.model, usage, time.perf_counter() - started, refused=refused, note=loop_note)


def _synthesized(synthesizer, question: str, sources: Sequence[Source], embedder) -> Iterator:
    """An answer synthesizer's text (`AnswerSynthesizer.synthesize`) as chunks of a sentence each
    (streamed like a model's), and a last chunk with zero token usage."""
    from assistant.llm import Chunk

    from assistant.text import sentence_spans

    text = synthesizer.synthesize(question, sources, embedder)
    shown = 0
    for _, end in sentence_spans(text):  # a sentence a chunk, as a model streams
        yield Chunk(text[shown:end])
        shown = end
    yield Chunk(text[shown:])
    yield Chunk("", {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0})


def answer_to_json(question: str, events: Iterable[AnswerEvent], *, backend: str | None = None,
                   model: str | None = None) -> dict:
    """The ``ask --json`` object of an answer stream (consumes `events`): ``Answer.from_events(...).to_json()``.

    ``{"question", "standalone_question", "answer", "sources": [{"n", "id", "title", "score", "venue",
    "year", "url"}], "citations": [{"n", "id", "title"}], "dropped_citations": [int], "backend", "model",
    "usage", "seconds", "refused"}`` plus ``"error"`` and ``"error_kind"`` when it failed (``answer`` is
    then the partial text). `backend`/`model` (the LLM's ``name``/``model``) name the backend when the
    stream fails before ``Done``.
    """
    return Answer.from_events(events, question, backend=backend, model=model).to_json()
