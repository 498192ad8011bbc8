"""Readers for abstract files: plain-text lists, JSON arrays, JSONL and CSV.

Every reader yields `Record`s: a `Paper` (or the reason it was skipped) with the file and line it
came from, so a bad record is reported by position and the rest of the file still loads.
Field names follow what real dumps use (`title`, `abstract`, `authors` as a list or a string,
`author`, `venue`/`conference`, `year`, `url`/`paper_url`/`site`, `id`).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from assistant.enums import ErrorKind
from assistant.errors import AssistantError
from assistant.store.paper import Paper, clean_text, derive_display_name

SUPPORTED_SUFFIXES = (".txt", ".md", ".json", ".jsonl", ".ndjson", ".csv", ".tsv")

TITLE_FIELDS = ("title", "paper_title", "name")
ABSTRACT_FIELDS = ("abstract", "summary", "text", "paperAbstract")
AUTHOR_FIELDS = ("authors", "author", "author_names")
VENUE_FIELDS = ("venue", "conference", "booktitle", "journal")
YEAR_FIELDS = ("year", "publication_year")
URL_FIELDS = ("url", "paper_url", "site", "pdf_url", "link", "forum")
ID_FIELDS = ("id", "paper_id", "doc_id", "_id", "uid")
TOPIC_FIELDS = ("topic", "primary_area", "keywords")
NAMED_ABSTRACT_FIELDS = ("abstract", "summary", "paperabstract")
"""Fields that say they hold an abstract; ``text`` does so only beside a title (BEIR's corpus: title +
text; its queries file has ``text`` alone)."""

EXPECTED_FORMATS = ("expected one abstract per blank-line-separated paragraph (.txt/.md, after an optional heading "
                    "line), or records with 'title' and 'abstract' fields (.json/.jsonl/.csv/.tsv)")
"""What an abstracts file is, in the words every "not abstracts" message ends with."""

MIN_ABSTRACT_WORDS = 20
"""Paragraphs of a text list shorter than this are not abstracts (abstracts run 100-300 words: 1 of
18,225 airas abstracts and none of SciFact's 5,183 or the 19 bundled ones is shorter)."""

# Canonical spellings of common venues (dumps often lower-case them: "iclr", "neurips").
_KNOWN_VENUES = {v.casefold(): v for v in (
    "ICLR", "ICML", "NeurIPS", "CVPR", "ICCV", "ECCV", "ACL", "EMNLP", "NAACL", "AAAI", "IJCAI", "COLM",
    "AISTATS", "UAI", "COLT", "KDD", "WWW", "SIGIR", "TMLR", "JMLR")} | {"nips": "NeurIPS"}


class InputError(AssistantError):
    """A file that cannot be read at all (missing, wrong format, not UTF-8). The message is one
    line naming the file (and line) and what to do."""

    kind = ErrorKind.INPUT

    def __init__(self, source: object, reason: str, line: int = 0):
        self.source, self.reason, self.line = str(source), reason, line
        super().__init__(f"{source}:{line}: {reason}" if line else f"{source}: {reason}")


@dataclass(frozen=True)
class Record:
    """One record read from a file: `paper` is set, or `skip_reason` says why it was skipped.
    `warnings` name optional fields that could not be read and were left empty (the paper is kept)."""

    source: str
    line: int
    paper: Paper | None = None
    skip_reason: str = ""
    warnings: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    """The record's field names, lower-cased (JSON/JSONL/CSV records; empty for a text list)."""
    item: int = 0
    """The record's 1-based place in a JSON array (0 in other files): a minified array has every record on line 1."""


def _listed(folder: Path) -> list[Path]:
    """The files of `folder` (recursively, sorted) that may hold abstracts: not hidden, not its SOURCE.md or
    README.md."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")
                  and p.name.upper() not in {"SOURCE.MD", "README.MD"})


def unreadable_files(folder: Path) -> list[Path]:
    """The files of `folder` that `iter_input_files` leaves out for their type (".pdf", ".docx", no suffix)."""
    return [p for p in _listed(folder) if p.suffix.lower() not in SUPPORTED_SUFFIXES]


def _names(files: list[Path], folder: Path, limit: int = 5) -> str:
    shown = ", ".join(str(p.relative_to(folder)) for p in files[:limit])
    return shown + (f" and {len(files) - limit} more" if len(files) > limit else "")


def iter_input_files(paths: list[Path | str]) -> Iterator[Path]:
    """Expand directories (recursively, sorted) into the supported files they contain.

    Raises `InputError` for a missing path or a directory with no supported file (naming the files it has).
    """
    for path in map(Path, paths):
        if not path.exists():
            raise InputError(path, "no such file or directory; check the path")
        if path.is_dir():
            files = [p for p in _listed(path) if p.suffix.lower() in SUPPORTED_SUFFIXES]
            if not files:
                other = unreadable_files(path)
                found = f"; it has {_names(other, path)}" if other else ""
                raise InputError(path, f"directory has no readable files (expected {', '.join(SUPPORTED_SUFFIXES)})"
                                       f"{found}")
            yield from files
        else:
            yield path


def unreadable_note(folder: Path) -> str:
    """One line naming the files of `folder` whose type cannot be read ("2 files of a type it cannot read left
    out: a.pdf, b.docx (readable: .txt, ...)"), or ``""``."""
    other = unreadable_files(folder)
    if not other:
        return ""
    return (f"{len(other)} file{'s' if len(other) > 1 else ''} of a type it cannot read left out: "
            f"{_names(other, folder)} (readable: {', '.join(SUPPORTED_SUFFIXES)})")


def read_file(path: Path) -> Iterator[Record]:
    """Yield the records of one file, choosing the reader by suffix (`.json` that is not a JSON
    array is read as JSONL). Raises `InputError` when the file cannot be read at all."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read ({exc.strerror}); check permissions") from exc
    suffix = path.suffix.lower()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8-sig", errors="surrogateescape")
        if suffix not in (".jsonl", ".ndjson", ".json") or text.lstrip().startswith("["):
            line = raw[: exc.start].count(b"\n") + 1
            raise InputError(path, f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); re-save the file as UTF-8",
                             line) from exc
        # JSONL: only the lines with undecodable bytes are skipped (`_read_jsonl` reports each)
    if why := binary_data(raw, text):
        raise InputError(path, f"{why}; {EXPECTED_FORMATS}")
    if not text.strip():
        raise InputError(path, "file is empty; nothing to ingest")
    source = str(path)
    if suffix not in SUPPORTED_SUFFIXES:
        raise InputError(path, f"'{suffix or path.name}' files are not abstracts; {EXPECTED_FORMATS} "
                         f"(rename the file if it is one)")
    if suffix in (".jsonl", ".ndjson"):
        records = _read_jsonl(text, source)
    elif suffix == ".json":
        records = _read_json_array(text, source) if text.lstrip().startswith("[") else _read_jsonl(text, source)
    elif suffix in (".csv", ".tsv"):
        records = _read_csv(text, source, delimiter="\t" if suffix == ".tsv" else ",")
    else:
        records = _read_text_list(text, source)
    records = list(records)  # judged as a whole first: a file that is not abstracts gives nothing
    if suffix in (".txt", ".md"):
        _check_text_list(path, records, text)
    else:
        _check_records_name_abstracts(path, records)
    for record in records:
        # Papers remember the file by name only, so the same file ingested from another folder
        # (or the bundled copy in another install) is recognised as the same source.
        if record.paper is not None:
            record = replace(record, paper=replace(record.paper, source=path.name))
        yield record


# --- mapping a dict record to a Paper -------------------------------------------------------------

def _first(record: dict, names: tuple[str, ...]):
    lowered = {str(k).strip().lower(): v for k, v in record.items()}
    for name in names:
        value = lowered.get(name.lower())
        if value not in (None, "", [], {}):
            return value
    return None


def json_kind(value) -> str:
    """What a JSON value is, in JSON's words ("a number", "an object", "null"), for messages about a record or field
    of the wrong kind (a new user's trial, round 23: "record is a int", "record is a NoneType")."""
    if isinstance(value, bool):
        return "true/false"
    return {int: "a number", float: "a number", dict: "an object", list: "a list", type(None): "null"}.get(
        type(value), "text")


def _as_text(value, field: str) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return " ".join(value)
        raise ValueError(f"field '{field}' is {json_kind(value)}, expected text")
    if field == "abstract" and isinstance(value, (int, float, bool)):  # {"abstract": 12345} is no abstract
        raise ValueError(f"field 'abstract' is {json_kind(value)} ({str(value)[:20]}), expected the abstract's text")
    return clean_text(str(value))


def _authors(value) -> tuple[str, ...]:
    """Author names from a list (of names or ``{"name"}`` / ``{"first", "last"}`` objects) or a string
    separated by ``;``, `` and `` or ``,``. Raises `ValueError` for a value that holds no name
    (a number, an object without a name)."""
    if value is None:
        return ()
    if isinstance(value, str):
        sep = ";" if ";" in value else (" and " if " and " in value else ",")
        parts = value.split(sep)
    elif isinstance(value, (list, dict)):
        parts = []
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                item = item.get("name") or " ".join(str(item[k]) for k in ("first", "last") if item.get(k))
            if isinstance(item, str):
                parts.append(item)
        if not any(p.strip() for p in parts):
            raise ValueError(f"field 'authors' is {json.dumps(value, ensure_ascii=False)[:40]}, expected names")
    else:
        raise ValueError(f"field 'authors' is {value!r:.40}, expected names")
    return tuple(a for a in (clean_text(p) for p in parts) if a)


def _venue(value) -> str:
    text = _as_text(value, "venue")
    return _KNOWN_VENUES.get(text.casefold(), text)


def _url(value) -> str:
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = value[0]  # several links: the first
    return _as_text(value, "url")


_YEAR = re.compile(r"(?<!\d)(1[89]\d{2}|20\d{2})(?!\d)")


def _year(value) -> int | None:
    """The year in `value`: ``2024``, ``"2024"``, ``"2021a"``, ``"2021-05-01"``, ``"May 2021"`` -> the
    four-digit year. Raises `ValueError` when it names none (``"in press"``, ``"n.d."``, ``"23"``)."""
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    match = _YEAR.search(str(value)) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if not match:
        raise ValueError(f"field 'year' is {str(value)[:20]!r}, not a year such as 2024")
    return int(match.group(0))


def _optional(parse, value, default, warnings: list[str] | None):
    """`parse(value)`, or `default` with a warning when the value cannot be read."""
    try:
        return parse(value)
    except ValueError as exc:
        if warnings is not None:
            warnings.append(f"{exc}; left empty")
        return default


def paper_from_dict(record: dict, source: str, position: int, warnings: list[str] | None = None) -> Paper:
    """Map one dict from a JSON/JSONL/CSV file to a `Paper`.

    Raises `ValueError` with a message naming the field when the record has no abstract. An optional
    field that cannot be read (a year such as ``"in press"``, authors, venue, url, title, id or topic of the
    wrong type) never costs the abstract: what can be parsed is kept (``"2021a"`` -> 2021), the field is
    left empty, and one message per field is appended to `warnings`.
    """
    if not isinstance(record, dict):
        raise ValueError(f"record is {json_kind(record)}, expected an object with an 'abstract' field")
    abstract = _as_text(_first(record, ABSTRACT_FIELDS), "abstract")
    if not abstract:
        raise ValueError("record has no abstract (field 'abstract' missing or empty)")

    def text(names: tuple[str, ...], field: str) -> str:
        return _optional(lambda v: _as_text(v, field), _first(record, names), "", warnings)

    title = text(TITLE_FIELDS, "title")
    source_id = text(ID_FIELDS, "id")
    extra = {k: str(v) for k, v in record.items() if isinstance(v, (str, int, float)) and k not in
             (*TITLE_FIELDS, *ABSTRACT_FIELDS, *AUTHOR_FIELDS, *VENUE_FIELDS, *YEAR_FIELDS, *URL_FIELDS,
              *ID_FIELDS, *TOPIC_FIELDS)}
    topic = _first(record, TOPIC_FIELDS)
    return Paper(
        abstract=abstract,
        title=title or derive_display_name(abstract),
        title_is_derived=not title,
        authors=_optional(_authors, _first(record, AUTHOR_FIELDS), (), warnings),
        venue=_optional(_venue, _first(record, VENUE_FIELDS), "", warnings),
        year=_optional(_year, _first(record, YEAR_FIELDS), None, warnings),
        url=_optional(_url, _first(record, URL_FIELDS), "", warnings),
        source_id=source_id,
        topic=(text(TOPIC_FIELDS, "topic") if not isinstance(topic, list) else ", ".join(map(str, topic))),
        source=source,
        position=position,
        extra=extra,
    )


def _record(source: str, line: int, obj, position: int, item: int = 0) -> Record:
    warnings: list[str] = []
    fields = tuple(str(k).strip().lower() for k in obj) if isinstance(obj, dict) else ()
    try:
        return Record(source, line, paper=paper_from_dict(obj, source, position, warnings), warnings=tuple(warnings),
                      fields=fields, item=item)
    except ValueError as exc:
        return Record(source, line, skip_reason=str(exc), fields=fields, item=item)


# --- does the file hold abstracts at all? -----------------------------------------------------------

def _names_an_abstract(fields: tuple[str, ...]) -> bool:
    titled = any(f in fields for f in TITLE_FIELDS)
    return any(f in fields for f in NAMED_ABSTRACT_FIELDS) or ("text" in fields and titled)


def _check_records_name_abstracts(path: Path, records: list[Record]) -> None:
    """Raise `InputError` when no record of a JSON/JSONL/CSV file names an abstract (a CSV of numbers, a
    JSON of settings, BEIR's queries file with `text` and no title): one line with the fields found."""
    objects = [r for r in records if r.fields or (r.paper is None and r.skip_reason.startswith("record is "))]
    if not objects or any(_names_an_abstract(r.fields) for r in objects):
        return  # broken lines only (reported one by one), or abstracts
    found: dict[str, None] = {}
    for r in objects[:50]:
        found.update(dict.fromkeys(r.fields))
    what = f"fields found: {', '.join(found)[:80]}" if found else "its records are not JSON objects"
    raise InputError(path, f"no record has an 'abstract' field ({what}), so this is not a file of abstracts; "
                     f"{EXPECTED_FORMATS}")


_CODE_LINE_START = re.compile(
    r"""(\s{4,}|\t)\S|\s*(\#{1,6}\s|```|~~~|\||[-*+]\s|>\s|\$\s|>>>\s|@\w|//|/\*|\*/|<[a-zA-Z/!?]"""
    r"""|(def|class|import|return|elif|else:|try:|except|const|let|var|function|public|private|package)\b"""
    r"""|from\s+\S+\s+import\b"""
    r"""|\[?\d{2,4}[-/.:]\d{1,2}[-/.:]\d{1,4})""")  # the last: a date or time starting a log line
"""The start of a line of code, markup (Markdown headings, lists, tables, fences; HTML) or a log, as opposed
to prose (matched at the start of the line only; a line ending in ``{``, ``}`` or ``;`` is code too)."""


def _code_line(line: str) -> bool:
    return bool(_CODE_LINE_START.match(line)) or line.rstrip()[-1:] in ("{", "}", ";")


_SPACE = re.compile(r"\s+")
_NOT_LETTER = re.compile(r"[\W\d_]+")


def _not_prose(paragraph: str) -> bool:
    """Whether a paragraph is code, markup or data rather than prose: at least 30% of its lines (after
    removing the indentation all its lines share) look like code, markup or a log, or under 60% of the
    characters of its beginning are letters (numbers, tables of values)."""
    if paragraph[:1].isspace():
        import textwrap

        paragraph = textwrap.dedent(paragraph)
    lines = paragraph.splitlines()
    code = sum(1 for line in lines if _code_line(line))
    head = paragraph[:600]  # enough to tell prose from numbers, and cheap on a 16k-paragraph list
    chars = len(_SPACE.sub("", head))
    letters = len(_NOT_LETTER.sub("", head))
    return code >= max(1.0, 0.3 * len(lines)) or letters < 0.6 * chars


def _check_text_list(path: Path, records: list[Record], text: str) -> None:
    """Raise `InputError` when a .txt/.md file does not look like a list of abstracts: a quarter of its
    paragraphs or more are code, markup or data (a README, a program, a log), or most are shorter than
    `MIN_ABSTRACT_WORDS` (notes, titles, claims). One line naming an example paragraph by its line."""
    papers = [r for r in records if r.paper is not None]
    if not papers:
        return
    lines = text.splitlines()
    raw = {r.line: _paragraph_at(lines, r.line) for r in papers}
    prose = {r.line: not _not_prose(raw[r.line]) for r in papers}
    code = [r for r in papers if not prose[r.line]]
    short = [r for r in papers if prose[r.line] and len(r.paper.abstract.split()) < MIN_ABSTRACT_WORDS]
    if len(code) >= max(1.0, 0.25 * len(papers)):
        bad, kind = code, "code, markup or log lines"
    elif len(code) + len(short) > 0.5 * len(papers):
        bad, kind = short or code, f"shorter than {MIN_ABSTRACT_WORDS} words"
    else:
        return
    first = bad[0]
    snippet = " ".join(raw[first.line].split())
    snippet = snippet if len(snippet) <= 40 else snippet[:39] + "…"
    raise InputError(path, f"does not look like a list of abstracts: {len(bad)} of {len(papers)} paragraphs are "
                     f"{kind} (line {first.line}: {snippet!r}); {EXPECTED_FORMATS}")


def _paragraph_at(lines: list[str], line: int) -> str:
    """The raw paragraph (its lines as written) starting at 1-based `line` of the file's `lines`."""
    out = []
    for i in range(line - 1, len(lines)):
        if not lines[i].strip():
            break
        out.append(lines[i])
    return "\n".join(out)


# --- formats ---------------------------------------------------------------------------------------

UNDECODABLE = re.compile("[\udc80-\udcff]")
"""A byte that was not UTF-8, as ``surrogateescape`` decoding keeps it (PEP 383): files read here, command-line
arguments and standard input alike."""


def binary_data(raw: bytes, text: str) -> str:
    """Why the bytes of a file (`raw`, decoded with surrogates as `text`) are no text file: NUL bytes in its first
    8 KiB (an image, an archive), or most of four or more lines not UTF-8; "" for text. A binary file is one error,
    not one "not UTF-8" line per line of it (a new user's trial, round 23)."""
    if b"\0" in raw[:8192]:
        return "not a text file (binary data)"
    filled = [ln for ln in text.splitlines() if ln.strip()]
    if len(filled) >= 4 and sum(bool(UNDECODABLE.search(ln)) for ln in filled) > len(filled) / 2:
        return "not UTF-8 text (most lines hold bytes that are not UTF-8; binary data?)"
    return ""


def _read_jsonl(text: str, source: str) -> Iterator[Record]:
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        undecodable = UNDECODABLE.search(line)
        if undecodable:  # bytes that were not UTF-8, kept by read_file as lone surrogates
            byte = ord(undecodable.group()) - 0xDC00
            yield Record(source, line_no, skip_reason=f"not UTF-8 text (byte 0x{byte:02x}); re-save the file as UTF-8")
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield Record(source, line_no, skip_reason=f"broken JSON ({json_problem(exc)}); fix or remove the line")
            continue
        yield _record(source, line_no, obj, line_no)


def json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a line of JSON, with the column: "unterminated string starting at column 38" (the
    decoder's message ends in "at" where a position follows; it names the position itself)."""
    msg = exc.msg.removesuffix(" at")
    return f"{msg[:1].lower()}{msg[1:]} at column {exc.colno}"


def _read_json_array(text: str, source: str) -> Iterator[Record]:
    """Read a JSON array element by element, so each record knows its line."""
    decoder = json.JSONDecoder()
    try:
        data = decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"broken JSON ({json_problem(exc)}); fix the file, or convert it "
                         f"to JSONL so that one bad line skips only itself", exc.lineno) from exc
    if not isinstance(data, list):
        raise InputError(source, "expected a JSON array of records")
    idx = text.index("[") + 1
    line, counted = 1, 0
    for position, _ in enumerate(data):
        while text[idx] in " \t\r\n,":
            idx += 1
        obj, end = decoder.raw_decode(text, idx)
        line += text.count("\n", counted, idx)
        counted = idx
        yield _record(source, line, obj, position, item=position + 1)
        idx = end


def _read_csv(text: str, source: str, delimiter: str) -> Iterator[Record]:
    csv.field_size_limit(1 << 30)
    # strict: a quote closed inside a cell ('"Broken title,An abstract ...' closed by a later row's quote) is an error,
    # not text merged with the rows it swallowed (a new user's trial, round 21: the file was added as one paper, rc 0)
    reader = csv.DictReader(text.splitlines(keepends=True), delimiter=delimiter, strict=True)
    if not reader.fieldnames or not any(
        (f or "").strip().lower() in ABSTRACT_FIELDS for f in reader.fieldnames
    ):
        raise InputError(source, f"CSV header has no 'abstract' column (found: "
                         f"{', '.join(reader.fieldnames or [])[:80]}); name the abstract column 'abstract' in the first "
                         f"row", 1)
    position = 0
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                reason = (f"broken CSV row: a quoted cell opened on line {start} is never closed (it runs to the end "
                          f"of the file); close the quote")
            elif "expected after" in str(exc):
                reason = (f"broken CSV row: a quote on line {start} opens a cell that a later quote closes in the "
                          f"middle of a cell; close the quote where the cell ends (the rows in between were read "
                          f"as part of it)")
            else:
                reason = f"broken CSV row ({exc})"
            yield Record(source, start, skip_reason=reason)
            continue
        extra = row.pop(None, None)  # more cells than header columns
        record = _record(source, start, row, position)
        if extra and record.paper is not None:  # said, not dropped silently (a new user's trial, round 23)
            record = replace(record, warnings=(*record.warnings, (
                f"the row has {len(reader.fieldnames) + len(extra)} cells, the header {len(reader.fieldnames)}; "
                f"the extra cells ({', '.join(repr(c[:20]) for c in extra[:3])}) are left out")))
        yield record
        position += 1


def _looks_like_heading(paragraph: str) -> bool:
    return "\n" not in paragraph and len(paragraph) < 120 and not re.search(r"[.!?]\s*$", paragraph) \
        and len(paragraph.split()) < 15


def _read_text_list(text: str, source: str) -> Iterator[Record]:
    """Plain-text list: an optional heading line, then one abstract per paragraph (blank-line
    separated). Papers have no title: each gets a derived display name."""
    paragraphs: list[tuple[int, str]] = []
    current: list[str] = []
    start = 1
    for line_no, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not current:
                start = line_no
            current.append(line)
        elif current:
            paragraphs.append((start, "\n".join(current)))
            current = []
    if current:
        paragraphs.append((start, "\n".join(current)))
    if paragraphs and _looks_like_heading(paragraphs[0][1].strip()) and len(paragraphs) > 1:
        paragraphs = paragraphs[1:]
    for position, (line_no, paragraph) in enumerate(paragraphs):
        abstract = " ".join(clean_text(paragraph).split())
        if not abstract:
            yield Record(source, line_no, skip_reason="empty paragraph")
            continue
        yield Record(source, line_no, paper=Paper(
            abstract=abstract, title=derive_display_name(abstract), title_is_derived=True,
            source=source, position=position))
