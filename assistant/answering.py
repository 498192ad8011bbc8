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

import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from assistant.events import AnswerEvent, Citation, Citations, Done, Error, Source, Sources, TextDelta

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

_MARKER = re.compile(r"\[\s*(\d{1,4}(?:\s*(?:,|;|–|-|and)\s*\d{1,4})*)\s*\]")
_PARTIAL = re.compile(r"\[[\d\s,;–\-and]{0,40}")


def _numbers(group: str) -> list[int]:
    out: list[int] = []
    for part in re.split(r"\s*(?:,|;|and)\s*", group):
        if not part:
            continue
        m = re.fullmatch(r"(\d+)\s*[–-]\s*(\d+)", part)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            out.extend(range(lo, hi + 1) if 0 < hi - lo <= 20 else (lo, hi))
        elif part.strip().isdigit():
            out.append(int(part))
    return out


class CitationChecker:
    """Checks citation markers in streamed text against `n_sources` given sources.

    `feed(text)` returns the text that can be shown now, with each marker rewritten to name only
    given sources (``[2, 7]`` -> ``[2]``) or removed with the space before it (``[7]``); text that may
    be the start of a marker (``"[2,"``) is held back until it is complete. `flush()` returns the rest.
    `cited` lists the kept source numbers in order of first use; `dropped` the removed numbers.
    """

    def __init__(self, n_sources: int):
        self.n_sources = n_sources
        self.cited: list[int] = []
        self.dropped: list[int] = []
        self._buf = ""
        self._space = ""  # whitespace held back: removed when a dropped marker follows it
        self._started = False  # text shown yet (leading whitespace after a dropped first marker goes)

    def _fix(self, m: re.Match) -> str:
        keep: list[int] = []
        for x in _numbers(m.group(1)):
            if 1 <= x <= self.n_sources:
                if x not in keep:
                    keep.append(x)
            elif x not in self.dropped:
                self.dropped.append(x)
        for x in keep:
            if x not in self.cited:
                self.cited.append(x)
        return "[" + ", ".join(map(str, keep)) + "]" if keep else ""

    def _emit(self, out: list[str], text: str) -> None:
        if not self._started:
            text = text.lstrip()
        if not text:
            return
        self._started = True
        stripped = text.rstrip()
        if stripped:
            out.append(self._space + stripped)
            self._space = text[len(stripped):]
        else:
            self._space += text

    def feed(self, text: str) -> str:
        self._buf += text
        out: list[str] = []
        while self._buf:
            i = self._buf.find("[")
            if i < 0:
                self._emit(out, self._buf)
                self._buf = ""
                break
            self._emit(out, self._buf[:i])
            self._buf = self._buf[i:]
            m = _MARKER.match(self._buf)
            if m:
                fixed = self._fix(m)
                if fixed:
                    self._emit(out, fixed)
                elif not self._buf[m.end():m.end() + 1].isalnum():
                    self._space = ""  # "word [7]." -> "word."; "word [7] next" -> "word next"
                self._buf = self._buf[m.end():]
                continue
            p = _PARTIAL.match(self._buf)
            if p and p.end() == len(self._buf):
                break  # may still become a marker: wait for more text
            self._emit(out, "[")
            self._buf = self._buf[1:]
        return "".join(out)

    def flush(self) -> str:
        out: list[str] = []
        rest, self._buf = self._buf, ""
        self._emit(out, rest)
        return "".join(out)


def check_citations(text: str, n_sources: int) -> tuple[str, list[int], list[int]]:
    """`text` with markers naming no given source removed: ``(clean text, cited, dropped)``."""
    checker = CitationChecker(n_sources)
    clean = checker.feed(text) + checker.flush()
    return clean, checker.cited, checker.dropped


def cited_sentences(text: str, n: int) -> tuple[str, ...]:
    """The sentences of `text` that carry marker [n] (alone or in a group)."""
    out = []
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if any(n in _numbers(m.group(1)) for m in _MARKER.finditer(sentence)):
            out.append(sentence.strip())
    return tuple(out)


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
    seen: dict[str, int] = {}
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        key = " ".join(sentence.casefold().split())
        if len(key.split()) >= 4:
            seen[key] = seen.get(key, 0) + 1
            if seen[key] >= REPEAT_SENTENCE:
                return sentence.strip()
    return None


# --- relevance gate ---------------------------------------------------------------------------------

def is_relevant(results: Sequence[SearchResult], question: str, settings: Settings, retriever: Retriever,
                strict: bool = True) -> tuple[bool, str]:
    """Whether any retrieved paper is about `question`: ``(relevant, reason when not)``.

    The decision of `assistant.relevance.judge` (dense similarity to the abstract and to its best
    sentence, IDF-weighted key-word coverage from `retriever`'s BM25 index, names after LaTeX/Unicode
    folding) against ``settings.min_relevance`` (`strict`: the extractive backend) or
    ``settings.min_relevance_llm`` (LLM backends)."""
    from assistant.relevance import judge

    j = judge(question, results, retriever, strict=strict, threshold=_threshold(settings, strict))
    return bool(j.relevant), j.note


def _threshold(settings: Settings, strict: bool) -> float:
    return settings.min_relevance if strict else settings.min_relevance_llm


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
    from assistant.relevance import judge

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
        strict = llm.name == "extractive"
        try:
            judgement = judge(standalone, results, retriever, strict=strict,
                              threshold=_threshold(settings, strict))
        except Exception as exc:  # EmbeddingError: one line
            yield fail(str(exc) if type(exc).__name__ == "EmbeddingError"
                       else f"judging relevance failed ({type(exc).__name__}: {str(exc)[:160]})", "store")
            return
        relevance = tuple(e.to_json() for e in judgement.evidence)
        if not judgement.relevant:
            why = judgement.note
            if not results and filters is not None and not filters.empty:
                why = f"no paper matches the filters ({filters.describe()})"
            yield Sources((), standalone, why, relevance)
            text = prompts.NO_RELEVANT_PAPER
            parts.append(text)
            yield TextDelta(text)
            yield Citations(())
            turn.answer, turn.status, turn.refused = text, "complete", True
            turn.seconds = time.perf_counter() - started
            yield Done(text, llm.name, llm.model, {}, turn.seconds, refused=True)
            return
        try:
            chance = {e.id: e.score for e in judgement.evidence}
            kept = [_Judged(r, chance.get(r.paper.id)) for r in judgement.relevant]
            sources, messages, note = pack_sources(kept, standalone, llm, llm.max_tokens)
        except ContextError as exc:
            yield fail(str(exc), "context_length")
            return
        left_out = [e for e in judgement.evidence if not e.relevant]
        if left_out:
            why = "; ".join(f"'{e.title[:50]}': {e.note}" for e in left_out[:3])
            more = f" (and {len(left_out) - 3} more)" if len(left_out) > 3 else ""
            note = "; ".join(x for x in (note, f"{len(left_out)} retrieved paper(s) judged not relevant: "
                                               f"{why}{more}") if x)
        turn.sources = [s.to_json() for s in sources]
        yield Sources(tuple(sources), standalone, note, relevance)

        checker = CitationChecker(len(sources))
        usage: dict = {}
        request = AnswerRequest(messages=messages, question=standalone, sources=sources,
                                embedder=getattr(getattr(retriever, "store", None), "embedder", None),
                                max_tokens=llm.max_tokens)
        loop_note = ""
        try:
            stream = llm.stream(request, cancel=cancel)
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
        yield Done(text, llm.name, llm.model, usage, turn.seconds, refused=refused, note=loop_note)
    finally:
        if not turn.answer and parts:
            turn.answer = "".join(parts).strip()
        if not turn.seconds:
            turn.seconds = time.perf_counter() - started
        if conversation is not None:
            conversation.add(turn)


def answer_to_json(question: str, events: Iterable[AnswerEvent], *, backend: str | None = None,
                   model: str | None = None) -> dict:
    """The ``ask --json`` object of an answer stream (consumes `events`).

    ``{"question", "standalone_question", "answer", "sources": [{"n", "id", "title", "score", "venue",
    "year", "url"}], "citations": [{"n", "id", "title"}], "dropped_citations": [int], "backend", "model",
    "usage", "seconds", "refused"}`` plus ``"error"`` and ``"error_kind"`` when it failed (``answer`` is
    then the partial text). `backend`/`model` (the LLM's ``name``/``model``) name the backend when the
    stream fails before ``Done``.
    """
    out: dict = {"question": question, "standalone_question": question, "answer": "", "sources": [],
                 "citations": [], "dropped_citations": [], "backend": backend, "model": model, "usage": {},
                 "seconds": None, "refused": False}
    texts: list[str] = []
    started = time.perf_counter()
    for ev in events:
        if isinstance(ev, Sources):
            out["sources"] = [s.to_json() for s in ev.sources]
            out["standalone_question"] = ev.question or question
            if ev.note:
                out["note"] = ev.note
            if ev.relevance:
                out["relevance"] = list(ev.relevance)
        elif isinstance(ev, TextDelta):
            texts.append(ev.text)
        elif isinstance(ev, Citations):
            out["citations"] = [c.to_json() for c in ev.citations]
            out["dropped_citations"] = list(ev.dropped)
        elif isinstance(ev, Done):
            out.update(answer=ev.answer, backend=ev.backend, model=ev.model, usage=dict(ev.usage),
                       seconds=round(ev.seconds, 3), refused=ev.refused)
            if ev.note:
                out["note"] = "; ".join(x for x in (out.get("note"), ev.note) if x)
        elif isinstance(ev, Error):
            out.update(answer=(ev.partial or "".join(texts)).strip(), error=ev.message, error_kind=ev.kind,
                       seconds=round(time.perf_counter() - started, 3))
    return out
