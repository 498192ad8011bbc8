"""Evaluation of retrieval and answers against a question file (format: ``../shared/eval/README.md``).

One JSON object per line: ``id``, ``type`` (``single`` | ``multi`` | ``out_of_corpus`` |
``not_in_abstract``), ``q``, ``gold`` (substrings of the raw abstract, LaTeX included, that each identify
one paper of the collection), ``facts`` (strings a correct answer contains); optionally ``gold_ids`` with
``venue`` and ``year`` (the airas known-item format: the paper is the one with that record id, venue and
year; else the one whose title is exactly ``gold[0]``). A line ``{"id": "c01", "turns": [{"q", "type",
"gold", "facts"}, ...]}`` is a conversation: its turns (ids ``c01.1``, ``c01.2``, ...) are asked in order
in one `Conversation`, each with the assistant's own earlier answers as history, and each is scored alone.
Per question (or turn):

- ``recall_at_5`` (recall@k): share of the gold papers among the first k retrieved; ``mrr``: 1 / rank of
  the first gold paper retrieved, 0 when none is (Voorhees, "The TREC-8 Question Answering Track
  Report", 1999). Both only for questions with gold papers.
- ``fact_recall``: share of the expected facts the answer contains, case-insensitively; numbers are
  compared as numbers ("20" matches "20×" and "20.0", not "204"). Only for questions with facts.
- ``citation_precision``: share of the cited papers that are gold, for ``single`` / ``multi``; an answer
  that cites nothing scores 0 (every claim must be cited).
- ``refusal_rate``: for ``out_of_corpus``, 1 when the answer says no paper in the collection is about it
  and cites nothing; for ``not_in_abstract``, 1 when the answer says the abstracts do not state it.

Metrics that do not apply to a question are None and are left out of the averages.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.enums import ErrorKind
from assistant.errors import AssistantError
from assistant.store.readers import json_problem

if TYPE_CHECKING:
    from assistant.conversation import Conversation
    from assistant.retrieval import Filters, Retriever
    from assistant.settings import Settings
    from assistant.store.paper import Paper

TYPES = ("single", "multi", "out_of_corpus", "not_in_abstract")
ANSWERABLE = ("single", "multi")
METRICS = ("recall_at_5", "mrr", "fact_recall", "citation_precision", "refusal_rate", "gold_cited",
           "multi_recall", "false_refusal_rate", "not_in_abstract_rate", "out_of_corpus_rate")
CHAT = "chat"
"""The summary block of every conversation turn (whatever its type)."""
RECALL_K = 5


class QuestionFileError(AssistantError):
    """A question file that cannot be used; the message is one line naming the file and line."""

    kind = ErrorKind.INPUT


@dataclass(frozen=True)
class Question:
    """One evaluation question or conversation turn (see the module docstring for the fields).

    A turn has `conversation` (the conversation's id) and `turn` (1, 2, ...); its `id` is
    ``"<conversation>.<turn>"``. `venue` / `year` / `gold_ids` identify airas gold papers by record id.
    """

    id: str
    type: str
    q: str
    gold: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    line: int = 0
    gold_ids: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    conversation: str = ""
    turn: int = 0


def _question(obj: dict, qid: str, where: str, line: int, **extra) -> Question:
    qtype = obj.get("type")
    if qtype not in TYPES:
        said = "missing" if qtype is None else f"{qtype!r}"
        raise QuestionFileError(f"{where}: field 'type' is {said}; use one of {', '.join(TYPES)}")
    q = obj.get("q")
    if not isinstance(q, str) or not q.strip():
        raise QuestionFileError(f"{where}: field 'q' (the question) is missing or empty")
    gold, facts, gold_ids = obj.get("gold") or [], obj.get("facts") or [], obj.get("gold_ids") or []
    if not all(isinstance(v, list) for v in (gold, facts, gold_ids)):
        raise QuestionFileError(f"{where}: fields 'gold', 'gold_ids' and 'facts' must be lists of strings")
    year = obj.get("year")
    try:
        year = int(year) if year not in (None, "") else None
    except (TypeError, ValueError):
        raise QuestionFileError(f"{where}: field 'year' is {year!r}; give a year such as 2020") from None
    venue = str(obj["venue"]) if obj.get("venue") else None
    return Question(qid, qtype, q.strip(), tuple(str(g) for g in gold if str(g)),
                    tuple(str(f) for f in facts if str(f)), line, tuple(str(i) for i in gold_ids if str(i)),
                    venue, year, **extra)


def _line_questions(raw: str, where: str, n: int, seen: set[str]) -> list[Question]:
    """The questions of one line of a question file (one, or one per turn of a conversation)."""
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise QuestionFileError(f"{where}: not valid JSON ({json_problem(exc)})") from None
    if not isinstance(obj, dict):
        raise QuestionFileError(f"{where}: expected a JSON object per line")
    qid = str(obj.get("id", "")).strip() or f"line{n}"
    if qid in seen:
        raise QuestionFileError(f"{where}: duplicate question id '{qid}'")
    if "turns" in obj:
        turns = obj["turns"]
        if not isinstance(turns, list) or not turns or not all(isinstance(t, dict) for t in turns):
            raise QuestionFileError(f"{where}: field 'turns' must be a non-empty list of objects with 'q'")
        out = [_question(t, f"{qid}.{i}", f"{where} (turn {i})", n, conversation=qid, turn=i)
               for i, t in enumerate(turns, start=1)]
    else:
        out = [_question(obj, qid, where, n)]
    seen.add(qid)
    return out


def load_questions(path: Path, skipped: list[str] | None = None) -> list[Question]:
    """Read a question file (JSONL): questions, and conversations (``"turns"``) expanded into one
    `Question` per turn, in order. Raises `QuestionFileError` naming ``file:line`` and the field for a
    missing file, broken JSON, an unknown type, a missing question or a duplicate id; with a `skipped`
    list, a bad line's message is appended to it and the line skipped instead (the file-level errors
    and a file with no good line still raise)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QuestionFileError(f"{path}: no such file or directory; check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise QuestionFileError(f"{path}: cannot read it ({type(exc).__name__}); give a UTF-8 JSONL file") from None
    out: list[Question] = []
    seen: set[str] = set()
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            out += _line_questions(raw, f"{path}:{n}", n, seen)
        except QuestionFileError as exc:
            if skipped is None:
                raise
            skipped.append(str(exc))
    if not out:  # nothing to evaluate: the first bad line is the error
        raise QuestionFileError(skipped[0] if skipped else f"{path}: no questions in the file")
    return out


# --- gold papers -------------------------------------------------------------------------------------

def resolve_gold(gold: Iterable[str], papers: Sequence[Paper]) -> tuple[list[str], list[str]]:
    """Map each gold substring to the id of the one paper whose raw abstract (LaTeX as stored) or real
    title (not one derived from the abstract) contains it.

    Exact (case-sensitive) matches win; otherwise a case-insensitive match. Returns
    ``(ids, problems)``: a substring matching no paper, or several, is a problem (and gives no id).
    """
    ids: list[str] = []
    problems: list[str] = []
    for g in gold:
        hits = [p.id for p in papers if g in p.abstract or (not p.title_is_derived and g in p.title)]
        if not hits:
            needle = g.casefold()
            hits = [p.id for p in papers if needle in p.abstract.casefold()
                    or (not p.title_is_derived and needle in p.title.casefold())]
        _add_match(set(hits), f"gold '{g}'", ids, problems)
    return ids, problems


def _add_match(hits: set[str], what: str, ids: list[str], problems: list[str]) -> None:
    """Add the one paper id in `hits` to `ids`, or a problem naming `what` when it matches none or several."""
    if len(hits) == 1:
        (hit,) = hits
        if hit not in ids:
            ids.append(hit)
    elif not hits:
        problems.append(f"{what} matches no paper in the collection")
    else:
        problems.append(f"{what} matches {len(hits)} papers")


def resolve_known_items(question: Question, papers: Sequence[Paper]) -> tuple[list[str], list[str]]:
    """The gold papers of an airas known-item question: each ``gold_ids`` entry is the paper with that
    record id (``Paper.source_id``) in the question's venue (case ignored) and year; when the collection
    has no such record (e.g. it was dropped as a duplicate), the paper whose title is exactly the gold
    title, preferring that venue and year. Returns ``(ids, problems)`` like `resolve_gold`."""
    ids: list[str] = []
    problems: list[str] = []
    venue = (question.venue or "").casefold()

    def same_place(p: Paper) -> bool:
        return (not venue or p.venue.casefold() == venue) and (question.year is None or p.year == question.year)

    for i, gid in enumerate(question.gold_ids):
        hits = [p.id for p in papers if p.source_id == gid and same_place(p)]
        title = question.gold[i] if i < len(question.gold) else ""
        if not hits and title:
            titled = [p for p in papers if p.title == title]
            hits = [p.id for p in titled if same_place(p)] or [p.id for p in titled]
        _add_match(set(hits), f"gold id '{gid}' ({question.venue} {question.year})", ids, problems)
    return ids, problems


def question_gold(question: Question, papers: Sequence[Paper]) -> tuple[list[str], list[str]]:
    """The collection ids of `question`'s gold papers: by record id (`resolve_known_items`) when it has
    ``gold_ids``, else by substring (`resolve_gold`); none for ``out_of_corpus``."""
    if question.type == "out_of_corpus":
        return [], []
    if question.gold_ids:
        return resolve_known_items(question, papers)
    return resolve_gold(question.gold, papers)


# --- metrics -----------------------------------------------------------------------------------------

def recall_at_k(retrieved: Sequence[str], gold: Sequence[str], k: int = RECALL_K) -> float | None:
    """|gold ∩ retrieved[:k]| / |gold|; None without gold papers."""
    if not gold:
        return None
    return len(set(gold) & set(retrieved[:k])) / len(set(gold))


def reciprocal_rank(retrieved: Sequence[str], gold: Sequence[str]) -> float | None:
    """1 / (rank of the first gold paper, from 1); 0 when none is retrieved; None without gold."""
    if not gold:
        return None
    wanted = set(gold)
    for rank, pid in enumerate(retrieved, start=1):
        if pid in wanted:
            return 1.0 / rank
    return 0.0


# A number not glued to a name: "GPT-4", "A2R" and "L2" hold no number; "20×", "4-bit", "21.74%" do.
_NUMBER = re.compile(r"(?:(?<![^\s(\[])[-+−])?(?<![A-Za-z0-9.])(?<![A-Za-z]-)(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)")
_FOLD = re.compile(r"[\s\-‐‑–—_]+")


def numbers_in(text: str) -> list[float]:
    """The numbers written in `text` as floats: ``"1,000"`` → 1000, ``"21.74%"`` → 21.74, ``"4×"`` → 4."""
    out = []
    for m in _NUMBER.finditer(text):
        s = m.group(0).replace(",", "").replace("−", "-")
        try:
            out.append(float(s))
        except ValueError:
            continue
    return out


_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "′": "'", "“": '"', "”": '"', "„": '"', "″": '"',
                         "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-"})
_EMPHASIS = re.compile(r"(?<!\\)\*+|(?<![\w\\])_{1,2}(?=\S)|(?<=\S)_{1,2}(?!\w)")


def plain_text(text: str) -> str:
    """`text` as facts are compared: LaTeX rendered and Unicode NFKC (`assistant.text.fold`), markdown
    emphasis (``*``, ``**``, ``_x_``) removed, dashes and quotes unified, casefolded."""
    from assistant.text import fold

    return _EMPHASIS.sub("", fold(text)).translate(_QUOTES).casefold()


def _fold(text: str) -> str:
    return _FOLD.sub(" ", text.casefold()).strip()


def fact_found(fact: str, answer: str) -> bool:
    """True when `answer` states `fact`: both compared as `plain_text` (LaTeX rendered, casefolded),
    every number in the fact occurs in the answer as a number of equal value, and the fact's words (with
    the numbers taken out) occur in the answer in order, ignoring case, hyphens and spacing."""
    fact, answer = plain_text(fact), plain_text(answer)
    wanted = numbers_in(fact)
    have = numbers_in(answer)
    for x in wanted:
        if not any(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for y in have):
            return False
    words = _fold(_NUMBER.sub(" ", fact))
    words = re.sub(r"^[%×x\s]+|[%×\s]+$", "", words).strip()  # units glued to a number: "20×", "4x", "3%"
    if not words:
        return bool(wanted)
    return words in _fold(answer)


def fact_recall(answer: str, facts: Sequence[str]) -> float | None:
    """Share of `facts` found in `answer` (`fact_found`); None without facts."""
    if not facts:
        return None
    return sum(fact_found(f, answer) for f in facts) / len(facts)


def citation_precision(cited: Sequence[str], gold: Sequence[str]) -> float:
    """Share of the cited papers that are gold; 0 when nothing is cited."""
    cited_set = set(cited)
    if not cited_set:
        return 0.0
    return len(cited_set & set(gold)) / len(cited_set)


_NO_PAPER = re.compile(
    r"\bno (?:paper|abstract|source|study|work)s?\b[^.]{0,80}?\b(?:collection|corpus|provided|given|available|sources?)\b"
    r"|\b(?:collection|corpus|sources?|abstracts?) (?:do(?:es)?n[’']t|do(?:es)? not) (?:contain|include|have|cover)\b"
    r"|\bnone of the (?:papers|abstracts|sources)\b"
    r"|\bno relevant (?:paper|abstract|source)s?\b",
    re.IGNORECASE)
_NOT_STATED = re.compile(
    r"\b(?:abstracts?|papers?|sources?)\b[^.]{0,60}?\b(?:do(?:es)?n[’']t|do(?:es)? not|never)\s+"
    r"(?:\w+\s+)?(?:state|say|mention|report|specify|give|provide|disclose|include|contain|describe)"
    r"|\bnot (?:stated|mentioned|reported|specified|given|provided|disclosed|described)\b"
    r"|\b(?:cannot|can[’']t|can not) be (?:determined|found|answered)\b"
    r"|\bno (?:information|mention|details?)\b",
    re.IGNORECASE)


def _phrases() -> tuple[str, str]:
    """The answerer's own refusal sentences (`assistant.prompts.NO_RELEVANT_PAPER`, `assistant.prompts.CANNOT_ANSWER`)."""
    try:
        from assistant.prompts import CANNOT_ANSWER, NO_RELEVANT_PAPER
    except ImportError:  # pragma: no cover - prompts is part of the package
        return "no paper in the collection is about this question", "the abstracts do not say"
    return NO_RELEVANT_PAPER.casefold().rstrip("."), CANNOT_ANSWER.casefold().rstrip(".")


def says_no_paper(answer: str) -> bool:
    """The answer says that no paper in the collection is about the question."""
    return _phrases()[0] in " ".join(answer.casefold().split()) or bool(_NO_PAPER.search(answer))


def says_not_stated(answer: str) -> bool:
    """The answer says that the abstracts do not state what was asked."""
    return _phrases()[1] in " ".join(answer.casefold().split()) or bool(_NOT_STATED.search(answer))


def refusal(qtype: str, answer: str, cited: Sequence[str]) -> float | None:
    """1.0 / 0.0 for ``out_of_corpus`` (said no paper in the collection is about it, and cited
    nothing) and ``not_in_abstract`` (said the abstracts do not state it; citing the paper is fine);
    None for other types. Judged from the text: the answerer's ``Done.refused`` flag is True for both
    kinds of refusal, so it cannot tell them apart."""
    if qtype == "out_of_corpus":
        return float(says_no_paper(answer) and not cited)
    if qtype == "not_in_abstract":
        return float(says_not_stated(answer) and not says_no_paper(answer))
    return None


def refuses(answer: str, refused: bool = False) -> bool:
    """The answer declines to answer: the answerer flagged it (`refused`), or it says no paper is about
    the question, or it says `assistant.prompts.CANNOT_ANSWER` (a partial "the abstracts do not say" counts)."""
    from assistant.prompts import says_cannot_answer

    return bool(refused) or says_no_paper(answer) or says_cannot_answer(answer)


def gold_cited(cited: Sequence[str], gold: Sequence[str]) -> float:
    """1.0 when at least one gold paper is cited, else 0.0."""
    return float(bool(set(cited) & set(gold)))


def multi_recall(cited: Sequence[str], gold: Sequence[str]) -> float | None:
    """Share of the gold papers that are cited; None without gold papers."""
    if not gold:
        return None
    return len(set(cited) & set(gold)) / len(set(gold))


# --- one question, many questions ---------------------------------------------------------------------

@dataclass
class QuestionResult:
    """What happened for one question, with its metrics (None where a metric does not apply)."""

    question: Question
    gold_ids: list[str] = field(default_factory=list)
    standalone_question: str = ""
    retrieved: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    cited: list[str] = field(default_factory=list)
    answer: str = ""
    refused: bool = False
    error: str = ""
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    metrics: dict[str, float | None] = field(default_factory=dict)

    def to_json(self) -> dict:
        q = self.question
        extra = {"conversation": q.conversation, "turn": q.turn} if q.conversation else {}
        return {"id": q.id, "type": q.type, "q": q.q, **extra,
                "standalone_question": self.standalone_question or q.q, "gold": list(q.gold),
                "gold_ids": self.gold_ids, "retrieved": self.retrieved, "sources": self.sources, "cited": self.cited,
                **{m: _round(self.metrics.get(m)) for m in METRICS},
                "answer": self.answer, "refused": self.refused, "error": self.error or None,
                "problems": self.problems, "seconds": round(self.seconds, 3)}


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


def score(result: QuestionResult, answered: bool = True) -> QuestionResult:
    """Fill `result.metrics` from its retrieved / cited ids and answer text. With `answered` False
    (retrieval only), the answer metrics are None. A question whose gold names no paper of the
    collection, or several (`result.problems`), is not scored: every metric None (`summarize` counts it
    as ``unscored``), since any figure for it would measure the question file, not the answer."""
    q, gold = result.question, result.gold_ids
    if result.problems:
        result.metrics = dict.fromkeys(METRICS)
        return result
    has_gold = bool(q.gold) and q.type != "out_of_corpus"
    m: dict[str, float | None] = dict.fromkeys(METRICS)
    m["recall_at_5"] = recall_at_k(result.retrieved, gold, RECALL_K) if has_gold else None
    m["mrr"] = reciprocal_rank(result.retrieved, gold) if has_gold else None
    if answered:
        m["fact_recall"] = fact_recall(result.answer, q.facts)
        if q.type in ANSWERABLE:
            m["citation_precision"] = citation_precision(result.cited, gold)
            m["gold_cited"] = gold_cited(result.cited, gold) if q.gold or q.gold_ids else None
            m["false_refusal_rate"] = float(refuses(result.answer, result.refused))
        if q.type == "multi":
            m["multi_recall"] = multi_recall(result.cited, gold) if gold else None
        m["refusal_rate"] = refusal(q.type, result.answer, result.cited)
        if q.type == "not_in_abstract":
            m["not_in_abstract_rate"] = m["refusal_rate"]
        elif q.type == "out_of_corpus":
            m["out_of_corpus_rate"] = m["refusal_rate"]
    result.metrics = m
    return result


def summarize(results: Sequence[QuestionResult]) -> dict:
    """``{"overall": {...}, "<type>": {...}, "chat": {...}}``: each the mean of every metric over the
    questions it applies to (None when it applies to none), with ``n`` questions, ``errors`` and
    ``unscored`` (gold not found in the collection, `score`). A
    ``<type>`` block counts the questions and conversation turns of that type; ``chat`` every turn."""

    def block(rs: Sequence[QuestionResult]) -> dict:
        out: dict[str, float | int | None] = {"n": len(rs), "errors": sum(1 for r in rs if r.error),
                                               "unscored": sum(1 for r in rs if r.problems)}
        for name in METRICS:
            vals = [r.metrics[name] for r in rs if r.metrics.get(name) is not None]
            out[name] = round(sum(vals) / len(vals), 4) if vals else None
        return out

    summary = {"overall": block(results)}
    for t in TYPES:
        rs = [r for r in results if r.question.type == t]
        if rs:
            summary[t] = block(rs)
    turns = [r for r in results if r.question.conversation]
    if turns:
        summary[CHAT] = block(turns)
    return summary


def evaluate_question(question: Question, *, retriever: Retriever, papers: Sequence[Paper], llm=None,
                      settings: Settings | None = None, filters: Filters | None = None,
                      top_k: int | None = None, conversation: Conversation | None = None) -> QuestionResult:
    """Retrieve (and, with an `llm`, answer) one question and score it. Answering failures are
    recorded in `error`, never raised.

    With `conversation` (a turn), the question is answered as a follow-up in it (its turn is added to
    it) and retrieval is scored on its standalone question; without an `llm` the standalone
    question is the deterministic rewrite and the turn is appended without an answer."""
    started = time.perf_counter()
    result = QuestionResult(question)
    result.gold_ids, result.problems = question_gold(question, papers)
    k = max(top_k or (settings.top_k if settings else 8), 10)
    if llm is not None:
        _answer_into(result, question, retriever=retriever, llm=llm, settings=settings, filters=filters,
                     top_k=top_k, conversation=conversation)
    elif conversation is not None:
        from assistant.answering import standalone_question
        from assistant.conversation import Turn

        result.standalone_question = standalone_question(question.q, conversation, None)
        conversation.add(Turn(question=question.q, standalone_question=result.standalone_question))
    standalone = result.standalone_question or question.q
    try:
        result.retrieved = [r.paper.id for r in retriever.search(standalone, top_k=k, filters=filters)]
    except Exception as exc:  # one failing question must not stop the run
        result.error = result.error or f"retrieval failed ({type(exc).__name__}: {str(exc)[:160]})"
    result.seconds = time.perf_counter() - started
    return score(result, answered=llm is not None)


def _answer_into(result: QuestionResult, question: Question, **kwargs) -> None:
    """Answer `question` and fill `result` from the folded answer (`assistant.events.Answer`)."""
    from assistant import answering
    from assistant.conversation import Turn
    from assistant.events import Answer

    conversation = kwargs.get("conversation")
    if conversation is None:
        kwargs.pop("conversation", None)
    folded = Answer(question=question.q)
    try:
        for event in answering.answer(question.q, **kwargs):
            folded.add(event)
    except Exception as exc:  # one failing question must not stop the run
        folded.error = f"{type(exc).__name__}: {str(exc)[:200]}"
    if conversation is not None:
        conversation.add(Turn.from_answer(folded))
    result.sources = [s.paper.id for s in folded.sources]
    result.standalone_question = folded.standalone_question
    result.cited = list(dict.fromkeys(c.paper.id for c in folded.citations))
    result.answer, result.refused, result.error = folded.text, folded.refused, folded.error


def iter_eval(questions: Sequence[Question], *, retriever: Retriever, llm=None, settings: Settings | None = None,
              filters: Filters | None = None, top_k: int | None = None) -> Iterator[QuestionResult]:
    """Evaluate every question in order, yielding each `QuestionResult` as it is scored (a caller
    interrupted half way keeps the results so far); the turns of one conversation share one
    `Conversation`, so a turn's history is the assistant's own earlier answers."""
    from assistant.conversation import Conversation

    papers = retriever.store.papers()
    conversations: dict[str, Conversation] = {}
    for q in questions:
        conv = conversations.setdefault(q.conversation, Conversation()) if q.conversation else None
        yield evaluate_question(q, retriever=retriever, papers=papers, llm=llm, settings=settings,
                                filters=filters, top_k=top_k, conversation=conv)


def run_eval(questions: Sequence[Question], *, retriever: Retriever, llm=None, settings: Settings | None = None,
             filters: Filters | None = None, top_k: int | None = None,
             progress: Callable[[int, int, QuestionResult], None] | None = None) -> list[QuestionResult]:
    """`iter_eval` as a list; `progress(done, total, result)` after each question."""
    out = []
    for result in iter_eval(questions, retriever=retriever, llm=llm, settings=settings, filters=filters,
                            top_k=top_k):
        out.append(result)
        if progress:
            progress(len(out), len(questions), result)
    return out


def report(results: Sequence[QuestionResult], **meta) -> dict:
    """The ``eval --json`` object: ``{"summary", "questions", **meta}``."""
    return {"summary": summarize(results), "questions": [r.to_json() for r in results], **meta}


def check_thresholds(summary: dict, minimums: dict[str, float | None],
                     maximums: dict[str, float | None] | None = None) -> list[str]:
    """One message per missed ``--min-*`` / ``--max-*`` threshold (overall figures); a metric with no
    value (None) misses any threshold set on it."""
    missed = []
    overall = summary["overall"]
    for bounds, worse, word in ((minimums, lambda v, b: v < b, "below the minimum"),
                                (maximums or {}, lambda v, b: v > b, "above the maximum")):
        for name, bound in bounds.items():
            if bound is None:
                continue
            value = overall.get(name)
            if value is None or worse(value, bound):
                shown = "n/a" if value is None else f"{value:.3f}"
                missed.append(f"{name} {shown} is {word} {bound:.3f}")
    return missed
