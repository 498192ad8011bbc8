"""Ingestion: files → `Paper`s → stable ids → embed only what is new or changed → upsert.

Rules (see DESIGN.md, "Nothing lost"):
- ids are stable: from the record's id scoped by venue, year and title (ids in real dumps are often
  unique only within one file, and the same id can name different papers), else from the title,
  else a hash of the normalised abstract;
- re-ingesting the same file changes nothing and embeds nothing (content hashes are compared);
- an edited record replaces the old one in place: same id, new text. For untitled records without
  ids (plain-text lists) the file name and paragraph position identify the old copy;
- duplicates inside the input are reported once each and skipped; a bad record is reported with
  its file and line and the rest goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.store.collection import PaperStore
from assistant.store.paper import Paper, normalise_for_key, sha256_hex
from assistant.store.readers import InputError, iter_input_files, read_file, unreadable_note

if TYPE_CHECKING:
    from concurrent.futures import Future

    from assistant.settings import Settings

CHUNK = 256
BUNDLED_VENUE, BUNDLED_YEAR = "ICML", 2026  # papers embedded and upserted per step


def paper_id(paper: Paper) -> str:
    """The stable collection id of a paper: ``"p"`` + 16 hex digits of a SHA-256.

    Keyed on (venue, year, source id, title) when the record has an id, on (venue, year, title)
    when it has only a real title, and on the normalised abstract otherwise.
    """
    venue, year = paper.venue.casefold(), str(paper.year or "")
    if paper.source_id:
        key = sha256_hex("id", venue, year, paper.source_id, normalise_for_key(paper.title))
    elif not paper.title_is_derived:
        key = sha256_hex("title", venue, year, normalise_for_key(paper.title))
    else:
        key = sha256_hex("text", normalise_for_key(paper.abstract))
    return "p" + key[:16]


@dataclass(frozen=True)
class Skipped:
    """A record that was not ingested: where it is and why. `error` is False for duplicates; `whole_file`
    is True when the whole file was skipped (unreadable, or not abstracts; `line` then names the line
    at fault, if any)."""

    source: str
    line: int
    reason: str
    error: bool = True
    whole_file: bool = False
    item: int = 0  # the record's 1-based place in a JSON array (`Record.item`), 0 elsewhere

    @property
    def where(self) -> str:
        return location(self.source, self.line, self.item)

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


def location(source: str, line: int, item: int = 0) -> str:
    """``file:line`` (``file`` without a line), and ``(record N)`` for the N-th record of a JSON array (a minified
    one is all on line 1)."""
    where = f"{source}:{line}" if line else source
    return f"{where} (record {item})" if item else where


@dataclass
class IngestReport:
    """What an ingest did. `ok` is False when any record or file had an error."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    truncated: int = 0
    seconds: float = 0.0
    embedded: int = 0
    warnings: list[Skipped] = field(default_factory=list)
    """Kept records with an optional field that could not be read and was left empty."""
    not_written: int = 0
    """New or changed papers not stored because the run was interrupted (Ctrl+C); `added` and
    `updated` then count only the papers stored before it."""

    @property
    def ok(self) -> bool:
        return not any(s.error for s in self.skipped)

    @property
    def errors(self) -> list[Skipped]:
        return [s for s in self.skipped if s.error]

    @property
    def duplicates(self) -> list[Skipped]:
        return [s for s in self.skipped if not s.error]

    def to_json(self) -> dict:
        return {
            "added": self.added, "updated": self.updated, "unchanged": self.unchanged,
            "skipped": len(self.skipped), "errors": len(self.errors), "duplicates": len(self.duplicates),
            "truncated": self.truncated, "embedded": self.embedded, "not_written": self.not_written,
            "seconds": round(self.seconds, 3),
            "skipped_records": [{"source": s.source, "line": s.line, **({"record": s.item} if s.item else {}),
                                 "reason": s.reason, "error": s.error}
                                for s in self.skipped],
            "warnings": [{"source": w.source, "line": w.line, **({"record": w.item} if w.item else {}),
                          "reason": w.reason} for w in self.warnings],
        }


def read_papers(paths: Iterable[Path], report: IngestReport, venue: str = "", year: int | None = None) -> list[Paper]:
    """Read every file, assign ids, drop duplicates; problems go into `report.skipped`.

    `venue` / `year` fill records that have none (a plain-text list of one conference's abstracts).
    """
    papers: list[Paper] = []
    seen: dict[str, tuple[str, str]] = {}  # paper id -> (where it was first read, content hash)
    files: list[Path] = []
    for one in paths:  # a missing path or an empty folder is an error of its own; the others are read
        try:
            files += iter_input_files([one])
        except InputError as exc:
            report.skipped.append(Skipped(exc.source, exc.line, exc.reason, whole_file=True))
            continue
        if Path(one).is_dir() and (note := unreadable_note(Path(one))):  # "a.pdf" in a folder of abstracts
            report.warnings.append(Skipped(str(one), 0, note, error=False))
    for path in files:
        try:
            for record in read_file(path):
                if record.paper is None:
                    report.skipped.append(Skipped(record.source, record.line, record.skip_reason, item=record.item))
                    continue
                paper = record.paper
                if (venue and not paper.venue) or (year and not paper.year):
                    paper = replace(paper, venue=paper.venue or venue, year=paper.year or year)
                paper = paper.with_id(paper_id(paper))
                digest = paper.content_hash()
                first = seen.get(paper.id)
                if first is not None:
                    reason = (f"duplicate of {first[0]}" if first[1] == digest
                              else f"same id and title as {first[0]} but different content; kept the first")
                    report.skipped.append(Skipped(record.source, record.line, reason, error=False, item=record.item))
                    continue
                seen[paper.id] = (location(record.source, record.line, record.item), digest)
                report.warnings.extend(Skipped(record.source, record.line, w, error=False, item=record.item)
                                       for w in record.warnings)
                papers.append(paper)
        except InputError as exc:
            report.skipped.append(Skipped(exc.source, exc.line, exc.reason, whole_file=True))
    return papers


def ingest(paths: Iterable[Path], store: PaperStore,
           progress: Callable[[int, int], None] | None = None, venue: str = "", year: int | None = None) -> IngestReport:
    """Ingest abstract files (or folders of them) into `store`.

    New and changed papers are embedded in chunks of `CHUNK`; chunk k+1 is embedded while chunk k is
    upserted by a writer thread (in order, one write in flight). `progress(done, total)` is called, on
    the calling thread, as chunks are stored; `venue` / `year` fill records that
    have none. Never raises for bad records or
    unreadable files (they are in the report); raises `StoreError` / `EmbeddingError` when the
    store or the embedding model is unusable. A `KeyboardInterrupt` while embedding is re-raised with
    ``.report``: what was stored so far (`IngestReport.not_written` counts the rest).
    """
    started = time.perf_counter()
    report = IngestReport()
    papers = read_papers(paths, report, venue, year)
    existing = store.existing_hashes([p.id for p in papers]) if papers else {}
    to_write: list[Paper] = []
    kinds: list[str] = []  # "added" / "updated", one per paper of to_write
    replaced: list[str] = []
    new_ids = {p.id for p in papers}
    by_source: dict[str, dict[str, int | None]] = {}
    for paper in papers:
        old_hash, updated_before = existing.get(paper.id), report.updated
        if old_hash == paper.content_hash():
            report.unchanged += 1
            continue
        if old_hash is not None:
            report.updated += 1
        elif paper.title_is_derived and not paper.source_id and paper.source and paper.position is not None:
            # An untitled paragraph whose text changed: the paper at the same position of the same
            # file, if it is not in this input any more, is its old version.
            if paper.source not in by_source:
                by_source[paper.source] = store.ids_from_source(paper.source)
            old = [i for i, pos in by_source[paper.source].items() if pos == paper.position and i not in new_ids]
            if old:
                replaced.extend(old)
                report.updated += 1
            else:
                report.added += 1
        else:
            report.added += 1
        to_write.append(paper)
        kinds.append("updated" if report.updated > updated_before else "added")
    total = len(to_write)
    if progress:
        progress(0, total)
    # Pipelined: while chunk k is written to Chroma (a writer thread), chunk k+1 is embedded. Writes stay in
    # chunk order, at most one is in flight, and `report.embedded` counts a chunk only once it is stored.
    from concurrent.futures import ThreadPoolExecutor

    writer = ThreadPoolExecutor(1, thread_name_prefix="chroma-write")
    pending: list[tuple[Future, int]] = []  # (the write, papers it stores); at most one

    def finish_write() -> None:
        future, n = pending[0]
        future.result()  # re-raises the write's StoreError
        pending.clear()
        report.embedded += n
        if progress:
            progress(report.embedded, total)

    try:
        for start in range(0, total, CHUNK):
            chunk = to_write[start : start + CHUNK]
            vectors = store.embedder.embed([p.document for p in chunk])
            report.truncated += getattr(getattr(store.embedder, "stats", None), "truncated", 0)
            if pending:
                finish_write()
            # store.upsert marks the collection as being written first (begin_write)
            pending.append((writer.submit(store.upsert, chunk, vectors), len(chunk)))
        if pending:
            finish_write()
        if replaced:
            store.delete(replaced)
    except KeyboardInterrupt as exc:
        if pending:  # already embedded and being written: let it finish, so it is kept and counted
            try:
                finish_write()
            except Exception:
                pass
        stored = kinds[: report.embedded]
        report.added, report.updated = stored.count("added"), stored.count("updated")
        report.not_written = total - report.embedded
        report.seconds = time.perf_counter() - started
        exc.report = report  # type: ignore[attr-defined]
        raise
    finally:  # also after an error or Ctrl+C: what was upserted is stored, and derived indexes must see it
        writer.shutdown(wait=True)  # no write may land after the final mark
        if pending and pending[0][0].done() and pending[0][0].exception() is None:
            report.embedded += pending[0][1]  # written, not yet counted (an embedding error came first)
        if report.embedded or replaced:
            store.mark_changed()
    report.seconds = time.perf_counter() - started
    return report


def source_names(paths: Iterable[Path | str]) -> list[str]:
    """The names papers remember their file by (`Paper.source`, the file name only) for `paths`: a file
    (existing or not) gives its name, a folder the names of the abstract files in it (`iter_input_files`)."""
    names: dict[str, None] = {}
    for path in map(Path, paths):
        if path.is_dir():
            try:
                names.update(dict.fromkeys(p.name for p in iter_input_files([path])))
            except InputError:
                pass  # a folder with no abstract files: nothing came from it
        else:
            names[path.name] = None
    return list(names)


def remove(store: PaperStore, ids: Iterable[str]) -> int:
    """Remove the papers with these ids from the collection (vectors, documents and metadata), marking
    the collection changed so the BM25 index and the papers cache are rebuilt from what is left, here
    and in other processes (`PaperStore.begin_write` / `mark_changed`). Unknown ids are ignored.

    Returns the number of papers removed. Raises `StoreError` when the store cannot be written.
    """
    ids = list(dict.fromkeys(ids))
    stored = store.existing_hashes(ids) if ids else {}
    present = [i for i in ids if i in stored]
    if not present:
        return 0
    try:
        for start in range(0, len(present), CHUNK * 8):
            store.delete(present[start : start + CHUNK * 8])
    finally:  # also after a failure part-way: derived indexes must see what was deleted
        store.mark_changed()
    return len(present)


def bundled_collection() -> Path:
    """The bundled ICML 2026 abstracts (package data)."""
    from importlib.resources import files

    return Path(str(files("assistant.store") / "data" / "icml2026_abstracts.txt"))


def ensure_default_collection(store: PaperStore) -> IngestReport | None:
    """Ingest the bundled collection when the store is new (empty and never written); returns its
    report, or None. A collection a user emptied (`remove`) stays empty."""
    if store.count() > 0 or store.revision() > 0:
        return None
    return ingest([bundled_collection()], store, venue=BUNDLED_VENUE, year=BUNDLED_YEAR)


def new_data_folder(settings: Settings) -> Path | None:
    """The embedded store's data folder when it does not exist yet (opening the store makes it), else None."""
    folder = Path(settings.data_dir).expanduser()
    return folder if settings.chroma_url is None and not folder.exists() else None


def bundled_loaded_message(report: IngestReport, new_folder: Path | None = None) -> str:
    """What a user is told when `ensure_default_collection` filled a new store (`report`): how many abstracts, and,
    when the data folder `new_folder` did not exist before, where they went, since a mistyped ``--data-dir`` makes a
    new folder holding the bundled collection instead of the user's (a new user's trial, round 32)."""
    where = (f" into the new data folder {new_folder} (check --data-dir / ASSISTANT_DATA_DIR if you meant another)"
             if new_folder is not None else "")
    return f"Loaded the bundled ICML 2026 collection ({report.added} abstracts){where}."
