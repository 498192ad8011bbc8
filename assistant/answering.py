"""Answering: question (+ conversation) -> retrieval -> prompt -> LLM stream -> checked citations.

`answer()` yields the events of `assistant.events`: ``Sources, TextDelta*, Citations, Done`` or, on a
failure or a cancel, ``Sources?, TextDelta*, Error``. It contains no UI code; the CLI, the batch runner
and the chat app consume the same stream.

Steps:
1. A follow-up (a conversation with turns) is rewritten into a standalone question: by the LLM with the
   ``rewrite`` prompt, or, for the extractive backend, by naming the previous question's subject. The
   answer prompt then holds the standalone question only (the history is spent on the rewrite).
2. Retrieval (`Retriever.search`), then a relevance gate (`is_relevant`): when no paper is about the
   question the answer is `prompts.NO_RELEVANT_PAPER`, with no sources and no citations.
3. The papers are numbered [1]..[k] and packed into the context window minus the answer's
   ``max_tokens`` minus the prompt itself (`pack_sources`): the lowest-ranked are dropped first.
4. Text is streamed through `CitationChecker`, which removes markers naming no given source
   (``[7]`` with three sources; ``[2, 7]`` becomes ``[2]``) before the text is shown.
5. `Citations` maps each remaining marker to its paper; ``Done.refused`` is True when the answer says
   `prompts.CANNOT_ANSWER`.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from assistant.events import Answer, AnswerEvent, Citation, Citations, Done, Error, Source, Sources, TextDelta

if TYPE_CHECKING:
    from assistant.conversation import Conversation
    from assistant.llm import LLM
    from assistant.retrieval import Filters, Retriever, SearchResult
    from assistant.settings import Settings

MESSAGE_OVERHEAD = 8
"""Tokens a chat template adds per message (role markers); OpenAI's cookbook counts 3-4, templates of
open models up to ~8."""
LEXICAL_COVERAGE = 0.75
"""Share of a question's content words (stemmed, at least two) that one abstract must contain to count
as relevant by words alone."""
SAFETY_MARGIN = 32
"""Tokens kept free in the context window in case the token count is an estimate."""


class ContextError(Exception):
    """Even without sources the prompt does not fit the context window."""


# --- citations ------------------------------------------------------------------------------------

_MARKER = re.compile(r"\[\s*(\d{1,4}(?:\s*(?:,|;|–|-|and)\s*\d{1,4})*)\s*\]")  # a plain marker as models write it
_CANONICAL = re.compile(r"\[(\d+(?:, \d+)*)\]")  # a checked marker as the checker writes it: [2] or [1, 3]

_OPENERS = "[【［〔"
_BRACKET = re.compile(r"[\[【［〔]([^\[\]【】［］〔〕\n]{0,60})[\]】］〕]")
_PARTIAL = re.compile(r"[\[【［〔][\w\s,;:&^†#.\-–—、，；：]{0,60}")
_CUE_WORD = r"(?:sources?|src|refs?|references?|papers?|abstracts?|docs?|documents?|citations?|cit|cite)"
_PIECE = re.compile(rf"(?P<cue>\^|†|#|{_CUE_WORD}\.?\s*(?:no\.?\s*)?[:#]?\s*)?(?P<a>\d{{1,3}})"
                    rf"(?:\s*[-–—]\s*(?:\^|{_CUE_WORD}\.?\s*)?(?P<b>\d{{1,3}}))?", re.I)
_FILE_CITATION = re.compile(rf"(?:{_CUE_WORD}\s*)?(\d{{1,3}})(?::\d+)?\s*†.*", re.I)  # 【4:0†source】
_SEPARATORS = re.compile(r"\s*(?:,\s*and\b|,|;|、|&|\band\b)\s*", re.I)
_NOT_CITING = re.compile(  # bracketed numbers after these are references to the text or math, not sources
    r"(?:\b(?:eqs?|equations?|figs?|figures?|tables?|tab|sections?|secs?|appendix|app|algorithms?|alg|"
    r"theorems?|thm|lemmas?|props?|propositions?|corollary|definitions?|def|lines?|steps?|chapters?|ch|"
    r"intervals?|ranges?|between|within|dimensions?|shape|sizes?)\.?|[=∈≤≥<>×∼≈∝§]|\\in)\s*$", re.I)
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


def cited_sentences(text: str, n: int) -> tuple[str, ...]:
    """The sentences of `text` (checked by `CitationChecker`) that carry marker [n] (alone or in a group)."""
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+|(?<=[。！？])", text):
        if any(n in nums and 0 not in nums for nums in
               ([int(x) for x in m.group(1).split(", ")] for m in _CANONICAL.finditer(sentence))):
            out.append(sentence.strip())
    return tuple(out)


# --- relevance gate ---------------------------------------------------------------------------------

def is_relevant(results: Sequence[SearchResult], question: str, settings: Settings) -> tuple[bool, str]:
    """Whether any retrieved paper is about `question`: ``(relevant, reason when not)``.

    Relevant when the best dense cosine similarity is at least ``settings.min_similarity``, or when the
    question names a method, benchmark or acronym (``NorMuon``, ``GRPO``) that a retrieved abstract
    mentions, or when one retrieved abstract contains at least `LEXICAL_COVERAGE` of the question's
    content words ("What is the lottery ticket hypothesis?"); MiniLM similarities of a short question
    to a whole abstract about an unfamiliar term are often low (0.2-0.3) even when it is the paper
    asked about.
    """
    from assistant.text import content_stems, mentions, name_tokens

    if not results:
        return False, "no paper matched"
    best = max((r.dense_similarity or 0.0) for r in results)
    if best >= settings.min_similarity:
        return True, ""
    names = name_tokens(question)
    if any(mentions(r.paper.document, nm) for r in results for nm in names):
        return True, ""
    asked = content_stems(question)
    if len(asked) >= 2 and any(len(asked & content_stems(r.paper.document)) >= LEXICAL_COVERAGE * len(asked)
                               for r in results):
        return True, ""
    shown = math.floor(best * 1000) / 1000  # rounded down: 0.3497 must not read "0.35 < 0.35"
    return False, (f"no paper is close enough to the question (best similarity {shown:.3f} < "
                   f"min_similarity {settings.min_similarity:g})")


# --- prompt -----------------------------------------------------------------------------------------

def render_source(n: int, paper, abstract: str | None = None) -> str:
    import prompts

    vy = paper.venue_year
    return prompts.get("source").render(n=n, title=paper.title, venue_year=f" ({vy})" if vy else "",
                                        abstract=paper.abstract if abstract is None else abstract)


def build_messages(question: str, blocks: Sequence[str]) -> list[dict]:
    """System + user messages for `question` over the rendered source `blocks`."""
    import prompts

    system = prompts.get("system").render(cannot_answer=prompts.CANNOT_ANSWER)
    user = prompts.get("answer").render(sources="\n\n".join(blocks) if blocks else "(none)",
                                        question=question, cannot_answer=prompts.CANNOT_ANSWER)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def prompt_tokens(messages: Sequence[dict], count) -> int:
    """Tokens of `messages` by `count` plus `MESSAGE_OVERHEAD` per message and 3 for the reply primer."""
    return sum(count(m["content"]) + MESSAGE_OVERHEAD for m in messages) + 3


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
        sources = [Source(i, r.paper, r.score) for i, r in enumerate(results, start=1)]
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
        sources.append(Source(n, r.paper, r.score))
        used += cost
    if not sources:
        raise ContextError(f"no source fits the context window ({window} tokens, {max_tokens} reserved for the "
                           f"answer); raise ASSISTANT_CONTEXT_WINDOW")
    dropped = len(results) - len(sources)
    note = (f"{dropped} lower-ranked paper(s) left out to fit the context window ({window} tokens)"
            if dropped else "")
    return sources, build_messages(question, blocks), note


# --- follow-ups -------------------------------------------------------------------------------------

def deterministic_rewrite(question: str, conversation: Conversation) -> str:
    """A follow-up that names no method gets the previous question's subject: its names
    (``"how much faster is it? (STAR-KV)"``), else the whole previous question."""
    from assistant.text import name_tokens

    if not conversation.turns or name_tokens(question):
        return question
    prev = conversation.turns[-1].standalone_question or conversation.turns[-1].question
    names = name_tokens(prev)
    if names:
        return f"{question.strip()} ({', '.join(names)})"
    return f"{question.strip()} (follow-up to: {prev.strip()})"


def standalone_question(question: str, conversation: Conversation | None, llm: LLM) -> str:
    """`question` unchanged without history; else rewritten with the LLM and the ``rewrite`` prompt
    (the deterministic rewrite for backends that cannot write, or when the model's reply is unusable).
    Raises `LLMError` when the LLM call fails."""
    import prompts

    if conversation is None or not conversation.turns:
        return question
    if not getattr(llm, "can_chat", False):
        return deterministic_rewrite(question, conversation)
    text = prompts.get("rewrite").render(history=conversation.history_text(), question=question)
    reply = llm.complete([{"role": "user", "content": text}], max_tokens=96)
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    line = lines[0] if lines else ""
    line = re.sub(r"^(standalone question|question)\s*:\s*", "", line, flags=re.I).strip().strip('"“”\'')
    if not line or len(line) > 3 * len(question) + 200:
        return deterministic_rewrite(question, conversation)
    return line


# --- answer ----------------------------------------------------------------------------------------

def answer(question: str, *, retriever: Retriever, llm: LLM, settings: Settings,
           conversation: Conversation | None = None, filters: Filters | None = None,
           top_k: int | None = None, cancel: threading.Event | None = None) -> Iterator[AnswerEvent]:
    """Answer `question` from the collection behind `retriever` with `llm`; yields answer events.

    ``Sources`` (papers given to the model, numbered from 1; empty when nothing relevant was found),
    ``TextDelta`` chunks (citation markers already checked), ``Citations``, ``Done``; or ``Error`` (one
    line, a ``kind``, the partial text) after a failure or when `cancel` is set (``kind="cancelled"``).
    Never raises for LLM, store or prompt failures. With `conversation`, a follow-up is rewritten from
    its history first, and the finished turn (whatever its status) is appended to it: callers must not
    add it themselves. `top_k` defaults to ``settings.top_k``; seconds in ``Done`` are wall time.
    """
    from assistant.conversation import Turn
    from assistant.llm import AnswerRequest, LLMError

    import prompts

    started = time.perf_counter()
    cancel = cancel or threading.Event()
    turn = Turn(question=question, backend=llm.name, model=llm.model, status="stopped")
    parts: list[str] = []

    def fail(message: str, kind: str) -> Error:
        turn.status = "partial" if parts else "error"
        turn.error = message
        return Error(message, kind=kind, partial="".join(parts))

    try:
        try:
            prompts.load_prompts()
            standalone = standalone_question(question, conversation, llm)
        except prompts.PromptError as exc:
            yield fail(str(exc), "config")
            return
        except LLMError as exc:
            yield fail(f"rewriting the follow-up question failed: {exc}", exc.kind)
            return
        turn.standalone_question = standalone
        try:
            results = retriever.search(standalone, top_k=top_k or settings.top_k, filters=filters)
        except Exception as exc:  # StoreError / EmbeddingError carry one-line messages
            yield fail(str(exc) if type(exc).__name__ in ("StoreError", "EmbeddingError")
                       else f"retrieval failed ({type(exc).__name__}: {str(exc)[:160]})", "store")
            return
        relevant, why = is_relevant(results, standalone, settings)
        if not relevant:
            if not results and filters is not None and not filters.empty:
                why = f"no paper matches the filters ({filters.describe()})"
            yield Sources((), standalone, why)
            text = prompts.NO_RELEVANT_PAPER
            parts.append(text)
            yield TextDelta(text)
            yield Citations(())
            turn.answer, turn.status, turn.refused = text, "complete", True
            turn.seconds = time.perf_counter() - started
            yield Done(text, llm.name, llm.model, {}, turn.seconds, refused=True)
            return
        try:
            sources, messages, note = pack_sources(results, standalone, llm, llm.max_tokens)
        except ContextError as exc:
            yield fail(str(exc), "context_length")
            return
        turn.sources = [s.to_json() for s in sources]
        yield Sources(tuple(sources), standalone, note)

        checker = CitationChecker(len(sources))
        usage: dict = {}
        request = AnswerRequest(messages=messages, question=standalone, sources=sources,
                                embedder=getattr(getattr(retriever, "store", None), "embedder", None),
                                max_tokens=llm.max_tokens)
        try:
            for chunk in llm.stream(request, cancel=cancel):
                if chunk.usage:
                    usage = chunk.usage
                if cancel.is_set():
                    break
                shown = checker.feed(chunk.text) if chunk.text else ""
                if shown:
                    parts.append(shown)
                    yield TextDelta(shown)
        except LLMError as exc:
            parts.append(checker.flush())
            turn.answer = "".join(parts).strip()
            yield fail(str(exc), exc.kind)
            return
        except Exception as exc:  # a backend bug must not crash the chat app or a batch
            turn.answer = "".join(parts).strip()
            yield fail(f"the {llm.name} backend failed ({type(exc).__name__}: {str(exc)[:160]})", "error")
            return
        rest = checker.flush()
        if rest and not cancel.is_set():
            parts.append(rest)
            yield TextDelta(rest)
        text = "".join(parts).strip()
        turn.answer = text
        if cancel.is_set():
            turn.status = "stopped"
            yield Error("Answer stopped.", kind="cancelled", partial=text)
            return
        if not text:
            yield fail(f"the {llm.name} backend returned an empty answer", "empty")
            return
        by_n = {s.n: s for s in sources}
        citations = tuple(Citation(n, by_n[n].paper, cited_sentences(text, n)) for n in checker.cited)
        refused = prompts.says_cannot_answer(text)
        turn.citations = [c.to_json() for c in citations]
        turn.dropped_citations = list(checker.dropped)
        turn.refused, turn.usage, turn.status = refused, usage, "complete"
        yield Citations(citations, tuple(checker.dropped))
        turn.seconds = time.perf_counter() - started
        yield Done(text, llm.name, llm.model, usage, turn.seconds, refused=refused)
    finally:
        if not turn.answer and parts:
            turn.answer = "".join(parts).strip()
        if not turn.seconds:
            turn.seconds = time.perf_counter() - started
        if conversation is not None:
            conversation.add(turn)


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
