"""Batch answering: a file of questions in, one JSON line per answer out, resumable.

Input (`read_questions`): a text file with one question per line (blank lines and ``#`` comments are
skipped; the id is the line number), or JSONL (``.jsonl`` / ``.ndjson``, or a ``.json`` file of one object
per line, or a JSON array of such objects) with ``id`` (default: the line number), ``q`` or ``question``, and optional filters ``venue``,
``year``, ``author`` (top level or under ``"filters"``). A JSONL object with ``turns`` (``{"id": "c01",
"turns": [{"q": "..."}, ...]}``) is a conversation: its turns get the ids ``c01.1``, ``c01.2``, ... and are
asked in order in one conversation, so a follow-up ("how much faster is it?") is answered from its
history (the turn's ``standalone_question`` says how it was read).

Output (`run_batch`): one line per question (per turn for a conversation, with ``conversation`` and
``turn``) with the fields of ``ask --json`` plus ``question_id``, and ``error`` / ``error_kind`` when it
failed. Each line is written with a single ``write`` on an
``O_APPEND`` descriptor and flushed as soon as its answer is finished, so a killed run leaves at most a
torn last line. `load_answered` (used by ``--resume``) repairs that line, drops error records so those
questions are retried, and returns the ids already answered; each question is then answered exactly once.
A file that is not an answers file of this command (`check_answers_file`), or the questions file itself
(`same_file`), is never resumed into or overwritten: the run stops before touching it.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.enums import ErrorKind
from assistant.errors import AssistantError
from assistant.store.readers import UNDECODABLE, binary_data, json_kind, json_problem

if TYPE_CHECKING:
    from assistant.conversation import Conversation
    from assistant.llm import LLM
    from assistant.retrieval import Filters, Retriever
    from assistant.settings import Settings


class BatchError(AssistantError):
    """The questions file or the output file cannot be used; one line naming the file."""

    kind = ErrorKind.INPUT


@dataclass(frozen=True)
class BatchQuestion:
    """One question of the input: its `id` (string), text, filters, and its line number in the file; for
    a conversation turn, the conversation's id and the turn's number (from 1)."""

    id: str
    question: str
    filters: Filters | None = None
    line: int = 0
    conversation: str = ""
    turn: int = 0


@dataclass
class BatchSummary:
    """Counts of one run: `answered` (new answers written), `failed` (error records written),
    `skipped` (already answered before this run), `refused` (answered "not in the abstracts"),
    `bad_input` (input lines that are not questions, as ``"file:line: reason"``), `seconds` wall time;
    `stopped`: why the run stopped before the end (`STOP_AFTER` questions in a row failed alike), else ""."""

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
    stopped: str = ""

    @property
    def per_minute(self) -> float:
        done = self.answered + self.failed
        return 60.0 * done / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        return {"total": self.total, "answered": self.answered, "failed": self.failed, "skipped": self.skipped,
                "refused": self.refused, "retried_errors": self.retried_errors, "repaired": self.repaired or None,
                "bad_input": self.bad_input, "seconds": round(self.seconds, 3),
                "questions_per_minute": round(self.per_minute, 2), "output": self.output,
                "stopped": self.stopped or None}


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
    A line that is not UTF-8 or not valid JSON, has no question, or repeats an id is a problem; the rest go on. A
    conversation (``"turns"``) gives one question per turn, ids ``<id>.1``, ``<id>.2``, ...; a turn with no
    question makes the whole conversation a problem (its later turns would lose their history).
    Raises `BatchError` when the file cannot be read.
    """
    from assistant.retrieval import has_words

    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BatchError(f"{path}: no such file or directory; check the path") from None
    except IsADirectoryError:
        raise BatchError(f"{path}: is a folder; give the questions file inside it (.jsonl or .txt)") from None
    except OSError as exc:
        raise BatchError(f"{path}: cannot read the questions file ({exc.strerror}); check permissions") from None
    # Bytes that are not UTF-8 are kept as lone surrogates (as `assistant.store.readers.read_file` does), so
    # only their lines are problems and the other questions are answered.
    text = raw.decode("utf-8-sig", errors="surrogateescape")
    if why := binary_data(raw, text):
        advice = ("give the questions as text, one per line (.txt) or one JSON object per line (.jsonl)"
                  if why.startswith("not a text file") else "re-save the questions as UTF-8 text")
        raise BatchError(f"{path}: {why}; {advice}")
    lines = text.splitlines()
    if path.suffix.lower() in (".csv", ".tsv"):
        return _csv_questions(path, text)
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    if first.startswith("["):  # a JSON array of question objects: one per "line" in the messages
        undecodable = UNDECODABLE.search(text)
        if undecodable:  # one JSON document: it cannot be read in part
            raise BatchError(f"{path}:{text[:undecodable.start()].count(chr(10)) + 1}: not UTF-8 text (byte "
                             f"0x{ord(undecodable.group()) - 0xDC00:02x}); re-save the file as UTF-8")
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BatchError(f"{path}:{exc.lineno}: not valid JSON ({json_problem(exc)})") from None
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
        undecodable = UNDECODABLE.search(line)
        if undecodable:
            problems.append(f"{where}: not UTF-8 text (byte 0x{ord(undecodable.group()) - 0xDC00:02x}); "
                            f"re-save the file as UTF-8")
            continue
        if is_jsonl:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{where}: not valid JSON ({json_problem(exc)})")
                continue
            if not isinstance(obj, dict):
                problems.append(f"{where}: expected an object with 'q' or 'question'")
                continue
            if "turns" in obj and ("q" in obj or "question" in obj):
                problems.append(f"{where}: has both 'turns' and a question; give one question ('q') or a "
                                f"conversation ('turns')")
                continue
            if "turns" in obj:
                turns = _conversation(obj, no, where, seen, problems)
                questions.extend(turns)
                seen.update(t.id for t in turns)
                continue
            key = "q" if "q" in obj else "question"
            q = obj.get(key)
            if not isinstance(q, str) or not q.strip():
                problems.append(f"{where}: '{key}' is blank; give the question" if isinstance(q, str)
                                else f"{where}: no question (give 'q' or 'question')" if q is None
                                else f"{where}: '{key}' is {json_kind(q)}, not text; give the question as a string")
                continue
            qid = str(obj["id"]) if obj.get("id") not in (None, "") else str(no)
            try:
                filters = _filters(obj, where)
            except ValueError as exc:
                problems.append(str(exc))
                continue
        else:
            q, qid, filters = line, str(no), None
        if not has_words(q):  # "???": nothing to search for, as `ask` refuses it
            problems.append(f"{where}: the question has no words ({q.strip()[:20]!r}); ask with words")
            continue
        if qid in seen:
            problems.append(f"{where}: id '{qid}' already used by an earlier question")
            continue
        seen.add(qid)
        questions.append(BatchQuestion(qid, " ".join(q.split()), filters, no))
    return questions, problems


def _csv_questions(path: Path, text: str) -> tuple[list[BatchQuestion], list[str]]:
    """The questions of a CSV (or TSV) file with a header naming a 'q' or 'question' column (and, optionally, 'id'),
    read by the csv module; a row with no question or a broken quote is a problem, the rest go on (a row the csv
    module cannot read is skipped and reading starts again on the line after the row's first). Raises `BatchError`
    when the header has no question column or cannot be read."""
    import csv

    from assistant.retrieval import has_words

    lines = text.splitlines()
    rows: list[tuple[int, list[str]]] = []  # (the line the row starts on, its cells)
    broken: list[tuple[int, str]] = []  # (line, problem)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    start = 0
    while start < len(lines):
        reader = csv.reader(lines[start:], delimiter=delimiter, strict=True)
        begin = start
        try:
            for row in reader:
                rows.append((begin + 1, row))
                begin = start + reader.line_num
            break
        except csv.Error as exc:
            if begin == 0:  # no header, no columns to read the other rows by
                raise BatchError(f"{path}:1: not valid CSV ({exc}); check the quotes of the header row") from None
            # a quote left open swallows every later line into its cell: only that row is lost (a new user's trial,
            # round 35: one broken row lost the whole file)
            broken.append((begin + 1, f"{path.name}:{begin + 1}: not valid CSV ({exc}); check the quotes of that row"))
            start = begin + 1
    header = [h.strip().casefold() for h in (rows[0][1] if rows else [])]
    col = next((header.index(k) for k in ("q", "question") if k in header), None)
    if col is None:
        raise BatchError(f"{path}: a CSV questions file needs a header row with a 'q' or 'question' column (and "
                         f"optionally 'id'); found {', '.join(repr(h) for h in header) or 'no header'}")
    id_col = header.index("id") if "id" in header else None
    questions: list[BatchQuestion] = []
    seen: set[str] = set()
    for no, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        where = f"{path.name}:{no}"
        q = row[col] if col < len(row) else ""
        qid = row[id_col].strip() if id_col is not None and id_col < len(row) and row[id_col].strip() else str(no)
        if not q.strip() or not has_words(q):
            broken.append((no, f"{where}: no question in column '{header[col]}'"))
        elif qid in seen:
            broken.append((no, f"{where}: id '{qid}' already used by an earlier question"))
        else:
            seen.add(qid)
            questions.append(BatchQuestion(qid, " ".join(q.split()), None, no))
    return questions, [problem for _, problem in sorted(broken)]


def _conversation(obj: dict, no: int, where: str, seen: set[str], problems: list[str]) -> list[BatchQuestion]:
    """The turns of one conversation line as questions (see `read_questions`); [] after a problem."""
    from assistant.retrieval import has_words

    cid = str(obj["id"]) if obj.get("id") not in (None, "") else str(no)
    turns = obj["turns"]
    if not isinstance(turns, list) or not turns:
        problems.append(f"{where}: 'turns' must be a non-empty list of objects with 'q'")
        return []
    if cid in seen or any(f"{cid}.{i}" in seen for i in range(1, len(turns) + 1)):
        problems.append(f"{where}: id '{cid}' already used by an earlier question")
        return []
    try:
        filters = _filters(obj, where)
    except ValueError as exc:
        problems.append(str(exc))
        return []
    out = []
    for i, turn in enumerate(turns, start=1):
        q = turn.get("q", turn.get("question")) if isinstance(turn, dict) else None
        if not isinstance(q, str) or not q.strip():
            why = ("the question is blank" if isinstance(q, str) else "no question (give 'q' or 'question')"
                   if q is None else f"the question is {json_kind(q)}, not text")
            problems.append(f"{where}: turn {i}: {why}; the conversation is skipped (its later turns need it)")
            return []
        if not has_words(q):
            problems.append(f"{where}: turn {i} has no words ({q.strip()[:20]!r}); the conversation is skipped")
            return []
        out.append(BatchQuestion(f"{cid}.{i}", " ".join(q.split()), filters, no, conversation=cid, turn=i))
    return out


def answered_records(path: Path, ids: set[str]) -> dict[str, dict]:
    """The records of `path` whose ``question_id`` is in `ids` (answered conversation turns, read on
    ``--resume`` to rebuild the history of the turns still to ask). Unreadable lines are skipped."""
    out: dict[str, dict] = {}
    try:
        data = Path(path).read_bytes()
    except OSError:
        return out
    for raw in data.split(b"\n"):
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict) and str(rec.get("question_id")) in ids and not rec.get("error"):
            out.setdefault(str(rec["question_id"]), rec)
    return out


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


def load_answered(path: Path, questions: Sequence[BatchQuestion] = ()) -> tuple[set[str], str, int]:
    """For ``--resume``: the ids answered in `path`, after repairing it.

    At most a torn last line (a run killed while writing it) is removed, and so are error records (their
    questions are asked again); the file is rewritten atomically only if something was removed. Raises
    `BatchError`, leaving the file untouched, when it is not an answers file (`check_answers_file`) or
    an id it answered now names another of `questions` (`check_same_questions`).
    Returns ``(answered ids, what was repaired or "", error records removed)``.
    """
    path = Path(path)
    if not path.exists():
        return set(), "", 0
    check_answers_file(path)
    data = path.read_bytes()
    keep: list[bytes] = []
    answered: set[str] = set()
    records: list[dict] = []
    bad = errors = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            bad += 1  # the torn last line (check_answers_file allows no other)
            continue
        records.append(rec)
        qid = str(rec["question_id"])
        if rec.get("error"):
            errors += 1
            continue
        if qid in answered:
            continue
        answered.add(qid)
        keep.append(raw)
    _same_questions(path, records, questions)  # before any repair: a refused resume changes nothing
    repaired = f"removed {bad} torn last line" if bad else ""
    if bad or errors or (data and not data.endswith(b"\n")):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(b"".join(line + b"\n" for line in keep))
        os.replace(tmp, path)
    return answered, repaired, errors


def check_same_questions(path: Path, questions: Sequence[BatchQuestion]) -> None:
    """For ``--resume``: raise `BatchError`, leaving `path` untouched, when an id answered in `path` now
    names a different question (ids are line numbers in a text file, so a line added above the others
    renumbers them; or another questions file is resumed into these answers): resuming would skip it and
    keep the old answer under its id. The message names the id, the line and both questions. Lines that
    are not JSON (a torn last line) and records without ``question`` are not compared."""
    path = Path(path)
    if not path.exists():
        return
    records = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            records.append(json.loads(raw) if raw.strip() else None)
        except ValueError:
            continue
    _same_questions(path, records, questions)


def _same_questions(path: Path, records: Sequence, questions: Sequence[BatchQuestion]) -> None:
    """`check_same_questions` over the parsed lines `records` of `path`."""
    asked: dict[str, str] = {}
    for rec in records:
        if _is_answer(rec) and isinstance(rec.get("question"), str):
            asked.setdefault(str(rec["question_id"]), rec["question"])
    for q in questions:
        before = asked.get(q.id)
        if before is not None and " ".join(before.split()) != " ".join(q.question.split()):
            raise BatchError(f"{path}: question {q.id} was answered as {before[:60]!r}, but line {q.line} of the "
                             f"questions file now asks {q.question[:60]!r}, so --resume would skip it; the "
                             f"questions changed since that run: write to a new -o file, or use --overwrite")


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

STOP_AFTER = 3
"""A run stops when this many questions in a row fail with the same error kind of `SHARED_FAILURES`:
they fail on what every question needs (the Chroma server stopped, the model files gone, the LLM
server down or the key refused), so the rest would fail alike; unanswered ones are asked on resume."""
SHARED_FAILURES = frozenset({ErrorKind.STORE, ErrorKind.EMBEDDING, ErrorKind.CONNECTION, ErrorKind.AUTH,
                             ErrorKind.CONFIG})

def answer_record(q: BatchQuestion, *, retriever: Retriever, llm: LLM, settings: Settings,
                  filters: Filters | None = None, top_k: int | None = None,
                  cancel: threading.Event | None = None, conversation: Conversation | None = None) -> dict:
    """The output record of one question (never raises: a failure becomes ``error``/``error_kind``):
    the folded answer's ``ask --json`` object (`assistant.events.Answer.to_json`). With `conversation`,
    it is answered as a follow-up in it and its turn is added to it."""
    from assistant.answering import answer
    from assistant.conversation import Turn
    from assistant.events import Answer

    started = time.perf_counter()
    turn_fields = {"conversation": q.conversation, "turn": q.turn} if q.conversation else {}
    folded = Answer(question=q.question, backend=llm.name, model=llm.model)
    try:
        for event in answer(q.question, retriever=retriever, llm=llm, settings=settings,
                            filters=q.filters or filters, top_k=top_k, cancel=cancel, conversation=conversation):
            folded.add(event)
    except Exception as exc:  # answer() reports its own failures; this is a last resort
        folded.error, folded.error_kind = f"{type(exc).__name__}: {str(exc)[:200]}", ErrorKind.ERROR
        folded.seconds = time.perf_counter() - started
    if conversation is not None:
        conversation.add(Turn.from_answer(folded))
    return {"question_id": q.id, **turn_fields, **folded.to_json()}


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
    `STOP_AFTER` failures in a row of one `SHARED_FAILURES` kind stop it too (`BatchSummary.stopped`).
    The turns of a conversation are asked in order by one worker, in one `Conversation`; on resume its
    history is rebuilt from the turns already answered in `output`.
    Raises `BatchError` (nothing written) when resuming into a file that is not an answers file, or
    whose answered ids name other questions than `questions` (`load_answered`).
    """
    summary = BatchSummary(total=len(questions), output=str(output))
    started = time.perf_counter()
    done_ids: set[str] = set()
    if resume:
        done_ids, summary.repaired, summary.retried_errors = load_answered(output, questions)
    todo = [q for q in questions if q.id not in done_ids]
    summary.skipped = len(questions) - len(todo)
    units = _units(questions, todo, done_ids, output)
    if on_start is not None:
        on_start(len(todo), summary.skipped)
    cancel = cancel or threading.Event()
    writer = JsonlAppender(output)

    def one(q: BatchQuestion, conversation: Conversation | None = None) -> dict | None:
        if cancel.is_set():
            return None
        record = answer_record(q, retriever=retriever, llm=llm, settings=settings, filters=filters,
                               top_k=top_k, cancel=cancel, conversation=conversation)
        if cancel.is_set() and record.get("error_kind") == ErrorKind.CANCELLED:
            return None  # not answered: asked again on resume
        writer.write(record)
        return record

    from assistant.conversation import Turn

    def step(q: BatchQuestion | dict, conversation: Conversation) -> dict | None:
        if isinstance(q, dict):  # a turn answered in an earlier run: its history for the next turns
            conversation.add(Turn.from_json(q))
            return None
        return one(q, conversation)

    def unit(item) -> list[dict | None]:
        if isinstance(item, BatchQuestion):
            return [one(item)]
        conversation, steps = item
        return [step(q, conversation) for q in steps]

    streak: list[str] = []  # error kinds of the latest questions, while they fail alike

    def count(record: dict | None) -> None:
        if record is None:
            return
        if record.get("error"):
            summary.failed += 1
            kind = record.get("error_kind")
            if kind not in SHARED_FAILURES:
                streak.clear()
            elif streak[-1:] != [kind]:
                streak[:] = [kind]
            else:
                streak.append(kind)
            if len(streak) >= STOP_AFTER and not summary.stopped:
                summary.stopped = (f"{STOP_AFTER} questions in a row failed ({kind}), the last with: "
                                   f"{' '.join(str(record['error']).split())}")
                cancel.set()
        else:
            streak.clear()
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
            for item in units:
                if cancel.is_set():
                    break
                if isinstance(item, BatchQuestion):
                    count(one(item))
                    continue
                conversation, steps = item
                for q in steps:
                    if cancel.is_set():
                        break
                    count(step(q, conversation))
        else:
            with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="batch") as pool:
                pending = {pool.submit(unit, item) for item in units}
                try:
                    while pending:
                        finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                        for f in finished:
                            for record in f.result():
                                count(record)
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


def _units(questions: Sequence[BatchQuestion], todo: Sequence[BatchQuestion], done_ids: set[str],
           output: Path) -> list:
    """The work of a run in input order: a question alone, or ``(Conversation, steps)`` for a
    conversation with turns left to ask, where each step is a turn to ask (`BatchQuestion`) or the
    record of a turn answered in an earlier run (a dict, replayed into the history)."""
    from assistant.conversation import Conversation

    todo_ids = {q.id for q in todo}
    answered_turns = {q.id for q in questions if q.conversation and q.id in done_ids}
    records = answered_records(output, answered_turns) if answered_turns else {}
    units: list = []
    by_conversation: dict[str, list] = {}
    for q in questions:
        if not q.conversation:
            if q.id in todo_ids:
                units.append(q)
            continue
        if q.conversation not in by_conversation:
            by_conversation[q.conversation] = []
            units.append((Conversation(), by_conversation[q.conversation]))
        steps = by_conversation[q.conversation]
        if q.id in todo_ids:
            steps.append(q)
        elif q.id in records:
            steps.append(records[q.id])
    # a conversation with nothing left to ask is no work
    return [u for u in units if isinstance(u, BatchQuestion) or any(isinstance(x, BatchQuestion) for x in u[1])]
