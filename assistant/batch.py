"""Batch answering: a file of questions in, one JSON line per answer out, resumable.

Input (`read_questions`): a text file with one question per line (blank lines and ``#`` comments are
skipped; the id is the line number), or JSONL (``.jsonl`` / ``.ndjson``, or a ``.json`` file of one object
per line, or a JSON array of such objects) with ``id`` (default: the line number), ``q`` or ``question``, and optional filters ``venue``,
``year``, ``author`` (top level or under ``"filters"``).

Output (`run_batch`): one line per question with the fields of ``ask --json`` plus ``question_id``, and
``error`` / ``error_kind`` when it failed. Each line is written with a single ``write`` on an
``O_APPEND`` descriptor and flushed as soon as its answer is finished, so a killed run leaves at most a
torn last line. `load_answered` (used by ``--resume``) repairs that line, drops error records so those
questions are retried, and returns the ids already answered; each question is then answered exactly once.
A file that is not an answers file of this command (`check_answers_file`), or the questions file itself
(`same_file`), is never resumed into or overwritten: the run stops before touching it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.llm import LLM
    from assistant.retrieval import Filters, Retriever
    from assistant.settings import Settings


class BatchError(Exception):
    """The questions file or the output file cannot be used; one line naming the file."""


@dataclass(frozen=True)
class BatchQuestion:
    """One question of the input: its `id` (string), text, filters, and its line number in the file."""

    id: str
    question: str
    filters: Filters | None = None
    line: int = 0


@dataclass
class BatchSummary:
    """Counts of one run: `answered` (new answers written), `failed` (error records written),
    `skipped` (already answered before this run), `refused` (answered "not in the abstracts"),
    `bad_input` (input lines that are not questions, as ``"file:line: reason"``), `seconds` wall time."""

    total: int = 0
    answered: int = 0
    failed: int = 0
    skipped: int = 0
    refused: int = 0
    repaired: str = ""
    retried_errors: int = 0
    bad_input: list[str] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""

    @property
    def per_minute(self) -> float:
        done = self.answered + self.failed
        return 60.0 * done / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        return {"total": self.total, "answered": self.answered, "failed": self.failed, "skipped": self.skipped,
                "refused": self.refused, "retried_errors": self.retried_errors, "repaired": self.repaired or None,
                "bad_input": self.bad_input, "seconds": round(self.seconds, 3),
                "questions_per_minute": round(self.per_minute, 2), "output": self.output}


# --- input ------------------------------------------------------------------------------------------

def _filters(obj: dict, where: str):
    from assistant.retrieval import Filters, parse_year

    spec = obj.get("filters") if isinstance(obj.get("filters"), dict) else obj
    venue, year, author = spec.get("venue"), spec.get("year"), spec.get("author")
    if not (venue or year or author):
        return None
    try:
        lo, hi = parse_year(year)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return Filters(venue=str(venue) if venue else None, year_min=lo, year_max=hi,
                   author=str(author) if author else None)


def read_questions(path: Path) -> tuple[list[BatchQuestion], list[str]]:
    """The questions of `path` and the problems found: ``(questions, ["file:line: reason"])``.

    JSONL when the name ends in .jsonl/.ndjson/.json or the first non-blank line starts with ``{``.
    A line that is not valid JSON, has no question, or repeats an id is a problem; the rest go on.
    Raises `BatchError` when the file cannot be read.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise BatchError(f"cannot read the questions file {path}: {exc}") from None
    lines = text.splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    if first.startswith("["):  # a JSON array of question objects: one per "line" in the messages
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BatchError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        lines = [json.dumps(item) for item in items] if isinstance(items, list) else []
        first = "{"
        path_note = " (array item)"
    else:
        path_note = ""
    is_jsonl = path.suffix.lower() in (".jsonl", ".ndjson", ".json") or first.startswith("{")
    questions: list[BatchQuestion] = []
    problems: list[str] = []
    seen: set[str] = set()
    for no, raw in enumerate(lines, start=1):
        line = raw.strip()
        where = f"{path.name}:{no}{path_note}"
        if not line or (not is_jsonl and line.startswith("#")):
            continue
        if is_jsonl:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{where}: not valid JSON ({exc.msg})")
                continue
            if not isinstance(obj, dict):
                problems.append(f"{where}: expected an object with 'q' or 'question'")
                continue
            q = obj.get("q", obj.get("question"))
            if not isinstance(q, str) or not q.strip():
                problems.append(f"{where}: no question (give 'q' or 'question')")
                continue
            qid = str(obj["id"]) if obj.get("id") not in (None, "") else str(no)
            try:
                filters = _filters(obj, where)
            except ValueError as exc:
                problems.append(str(exc))
                continue
        else:
            q, qid, filters = line, str(no), None
        if qid in seen:
            problems.append(f"{where}: id '{qid}' already used by an earlier question; skipped")
            continue
        seen.add(qid)
        questions.append(BatchQuestion(qid, " ".join(q.split()), filters, no))
    return questions, problems


# --- output -----------------------------------------------------------------------------------------

def same_file(a: Path, b: Path) -> bool:
    """True when `a` and `b` name one file: the same path after resolving symbolic links (and ``..``),
    or, when both exist, the same inode (a hard link)."""
    a, b = Path(a), Path(b)
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def _is_answer(rec) -> bool:
    return isinstance(rec, dict) and "question_id" in rec and "answer" in rec


def check_answers_file(path: Path) -> None:
    """Raise `BatchError` unless `path` is missing, empty, or an answers file of ``assistant batch``:
    every line an answer record (an object with ``question_id`` and ``answer``), except that the last
    line may be torn (a run killed while writing it). Used before ``--resume`` rewrites the file and
    before ``--overwrite`` replaces it, so a file of something else (abstracts, questions, notes) is
    never changed; the message names the first line that is not an answer."""
    path = Path(path)
    if not path.exists():
        return
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BatchError(f"cannot read the answers file {path}: {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    for no, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        last = no == len(lines)  # no newline after it: possibly a line torn by a kill
        try:
            rec = json.loads(raw)
        except ValueError:
            if last:
                continue
            rec = None
            what = "is not JSON"
        else:
            what = "is JSON but not an answer record (no 'question_id' and 'answer')"
        if not _is_answer(rec):
            raise BatchError(f"{path}:{no}: {what}, so {path.name} is not an answers file of `assistant batch`; "
                             f"it was left as it is: choose another -o file")


def load_answered(path: Path) -> tuple[set[str], str, int]:
    """For ``--resume``: the ids answered in `path`, after repairing it.

    At most a torn last line (a run killed while writing it) is removed, and so are error records (their
    questions are asked again); the file is rewritten atomically only if something was removed. Raises
    `BatchError`, leaving the file untouched, when it is not an answers file (`check_answers_file`).
    Returns ``(answered ids, what was repaired or "", error records removed)``.
    """
    path = Path(path)
    if not path.exists():
        return set(), "", 0
    check_answers_file(path)
    data = path.read_bytes()
    keep: list[bytes] = []
    answered: set[str] = set()
    bad = errors = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            bad += 1  # the torn last line (check_answers_file allows no other)
            continue
        qid = str(rec["question_id"])
        if rec.get("error"):
            errors += 1
            continue
        if qid in answered:
            continue
        answered.add(qid)
        keep.append(raw)
    repaired = f"removed {bad} torn last line" if bad else ""
    if bad or errors or (data and not data.endswith(b"\n")):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(b"".join(line + b"\n" for line in keep))
        os.replace(tmp, path)
    return answered, repaired, errors


class JsonlAppender:
    """Appends one JSON object per line to a file: one ``os.write`` per line on an ``O_APPEND``
    descriptor, then ``fsync``; safe to call from several threads."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._lock = threading.Lock()

    def write(self, record: dict) -> None:
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            view = memoryview(data)
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


# --- running ----------------------------------------------------------------------------------------

def answer_record(q: BatchQuestion, *, retriever: Retriever, llm: LLM, settings: Settings,
                  filters: Filters | None = None, top_k: int | None = None,
                  cancel: threading.Event | None = None) -> dict:
    """The output record of one question (never raises: a failure becomes ``error``/``error_kind``)."""
    from assistant.answering import answer, answer_to_json

    started = time.perf_counter()
    try:
        events = answer(q.question, retriever=retriever, llm=llm, settings=settings,
                        filters=q.filters or filters, top_k=top_k, cancel=cancel)
        record = answer_to_json(q.question, events, backend=llm.name, model=llm.model)
    except Exception as exc:  # answer() reports its own failures; this is a last resort
        record = {"question": q.question, "answer": "", "sources": [], "citations": [], "dropped_citations": [],
                  "backend": llm.name, "model": llm.model, "usage": {}, "refused": False,
                  "seconds": round(time.perf_counter() - started, 3),
                  "error": f"{type(exc).__name__}: {str(exc)[:200]}", "error_kind": "error"}
    return {"question_id": q.id, **record}


def run_batch(questions: Sequence[BatchQuestion], output: Path, *, retriever: Retriever, llm: LLM,
              settings: Settings, concurrency: int = 1, resume: bool = False, filters: Filters | None = None,
              top_k: int | None = None, on_record: Callable[[dict], None] | None = None,
              on_start: Callable[[int, int], None] | None = None, cancel: threading.Event | None = None) -> BatchSummary:
    """Answer `questions` into the JSONL file `output`, `concurrency` at a time (threads).

    With `resume`, ids already answered in `output` are skipped (see `load_answered`); without it the
    file is appended to (the CLI refuses an existing file unless told to overwrite it). `on_record` is
    called with each record after it is written and `on_start(to_answer, already_answered)` once before
    the first (for a progress bar). Setting `cancel` (or Ctrl-C in the
    calling thread) stops the run: answers written so far stay, unfinished ones are asked on resume.
    Raises `BatchError` (nothing written) when resuming into a file that is not an answers file.
    """
    summary = BatchSummary(total=len(questions), output=str(output))
    started = time.perf_counter()
    done_ids: set[str] = set()
    if resume:
        done_ids, summary.repaired, summary.retried_errors = load_answered(output)
    todo = [q for q in questions if q.id not in done_ids]
    summary.skipped = len(questions) - len(todo)
    if on_start is not None:
        on_start(len(todo), summary.skipped)
    cancel = cancel or threading.Event()
    writer = JsonlAppender(output)

    def one(q: BatchQuestion) -> dict | None:
        if cancel.is_set():
            return None
        record = answer_record(q, retriever=retriever, llm=llm, settings=settings, filters=filters,
                               top_k=top_k, cancel=cancel)
        if cancel.is_set() and record.get("error_kind") == "cancelled":
            return None  # not answered: asked again on resume
        writer.write(record)
        return record

    def count(record: dict | None) -> None:
        if record is None:
            return
        if record.get("error"):
            summary.failed += 1
        else:
            summary.answered += 1
            summary.refused += bool(record.get("refused"))
        if on_record is not None:
            on_record(record)

    try:
        if todo:
            try:
                retriever.store.bm25()  # load the collection once before the threads start
            except Exception:
                pass  # each question reports the store's error itself
        if concurrency <= 1:
            for q in todo:
                if cancel.is_set():
                    break
                count(one(q))
        else:
            with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="batch") as pool:
                pending = {pool.submit(one, q) for q in todo}
                try:
                    while pending:
                        finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                        for f in finished:
                            count(f.result())
                except BaseException:
                    cancel.set()
                    for f in pending:
                        f.cancel()
                    raise
    except KeyboardInterrupt:
        cancel.set()
        raise
    finally:
        writer.close()
        summary.seconds = time.perf_counter() - started
    return summary
