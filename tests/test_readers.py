"""Readers: every supported format, field spellings of real dumps, and bad input by file and line."""

import json

import pytest

from store.readers import InputError, iter_input_files, read_file

from tests.conftest import AIRAS_DIR, ICML_FILE


def papers(path):
    return [r.paper for r in read_file(path) if r.paper]


def test_text_list_skips_heading_and_keeps_line_numbers():
    records = list(read_file(ICML_FILE))
    assert len(records) == 19
    assert records[0].line == 3  # line 1 is the heading "ICML 2026 论文列表", line 2 is blank
    assert records[0].paper.abstract.startswith("While plan-and-infill decoding")
    assert all(r.paper.title_is_derived for r in records)


def test_json_array_records_know_their_line(tmp_path):
    f = tmp_path / "papers.json"
    f.write_text(json.dumps([{"id": "a", "title": "First", "abstract": "One."},
                             {"id": "b", "title": "Second", "abstract": "Two."}], indent=1))
    records = list(read_file(f))
    assert [r.paper.title for r in records] == ["First", "Second"]
    assert records[0].line == 2 and records[1].line > records[0].line


def test_field_names_as_real_dumps_spell_them(tmp_path):
    f = tmp_path / "dump.jsonl"
    rows = [
        {"paper_id": "1", "title": "A", "abstract": "x", "authors": ["Ann", "Bob"], "conference": "iclr",
         "year": 2021, "paper_url": "https://openreview.net/a"},
        {"id": "2", "title": "B", "abstract": "y", "author": "Carl; Dee", "venue": "NeurIPS", "year": "2020",
         "site": "https://b"},
        {"id": "3", "title": "C", "abstract": "z", "authors": "Eve, Fay"},
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows))
    a, b, c = papers(f)
    assert a.authors == ("Ann", "Bob") and a.venue == "ICLR" and a.year == 2021 and a.url == "https://openreview.net/a"
    assert b.authors == ("Carl", "Dee") and b.venue == "NeurIPS" and b.year == 2020 and b.url == "https://b"
    assert c.authors == ("Eve", "Fay")


def test_broken_jsonl_line_is_reported_and_the_rest_is_read(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"title": "ok", "abstract": "fine"}\n{"title": "broken", \n{"title": "ok2", "abstract": "also"}\n')
    records = list(read_file(f))
    assert [r.paper.title for r in records if r.paper] == ["ok", "ok2"]
    bad = [r for r in records if not r.paper]
    assert len(bad) == 1 and bad[0].line == 2 and "broken JSON" in bad[0].skip_reason


def test_record_without_abstract_is_skipped_with_reason(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"title": "no abstract"}\n{"title": "t", "abstract": "a"}\n')
    records = list(read_file(f))
    assert records[0].paper is None and "no abstract" in records[0].skip_reason and records[0].line == 1
    assert records[1].paper is not None


def test_nested_field_is_named_in_the_reason(tmp_path):
    f = tmp_path / "x.jsonl"
    f.write_text('{"title": {"en": "t"}, "abstract": "a"}\n')
    (record,) = read_file(f)
    assert record.paper is None and "'title'" in record.skip_reason


def test_csv_with_header(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text('title,abstract,authors,year\n"A, with comma","Text one.","Ann; Bob",2024\nB,Text two.,,\n')
    a, b = papers(f)
    assert a.title == "A, with comma" and a.authors == ("Ann", "Bob") and a.year == 2024
    assert b.abstract == "Text two." and b.year is None


def test_csv_without_abstract_column_is_an_input_error(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("name,text2\na,b\n")
    with pytest.raises(InputError, match="no 'abstract' column"):
        list(read_file(f))


def test_non_utf8_line_of_jsonl_skips_only_itself(tmp_path):
    f = tmp_path / "papers.jsonl"
    f.write_bytes(b'{"title": "A", "abstract": "First."}\n'
                  b'{"title": "B", "abstract": "Caf\xe9 latency."}\n'
                  b'{"title": "C", "abstract": "Third."}\n')
    records = list(read_file(f))
    assert [r.paper.title for r in records if r.paper] == ["A", "C"]
    assert [(r.line, r.skip_reason) for r in records if not r.paper] == [
        (2, "not UTF-8 text (byte 0xe9); re-save the file as UTF-8")]


def test_non_utf8_file_names_the_line(tmp_path):
    f = tmp_path / "latin1.txt"
    f.write_bytes("first paragraph.\n\nsecond caf\xe9 paragraph.\n".encode("latin-1"))
    with pytest.raises(InputError) as err:
        list(read_file(f))
    assert err.value.line == 3 and "UTF-8" in str(err.value) and "latin1.txt" in str(err.value)


def test_empty_file_and_empty_folder_and_missing_path(tmp_path):
    (tmp_path / "empty.jsonl").write_text("  \n")
    with pytest.raises(InputError, match="empty"):
        list(read_file(tmp_path / "empty.jsonl"))
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "notes.pdf").write_bytes(b"%PDF")
    with pytest.raises(InputError, match="no readable files"):
        list(iter_input_files([tmp_path / "d"]))
    with pytest.raises(InputError, match="no such file"):
        list(iter_input_files([tmp_path / "missing.json"]))


def test_airas_file_loads_as_it_is():
    records = list(read_file(AIRAS_DIR / "iclr" / "2021.json"))
    assert len(records) == 913
    ok = [r.paper for r in records if r.paper]
    assert len(ok) == 913
    first = ok[0]
    assert first.title == "Learning Energy-Based Models by Diffusion Recovery Likelihood"
    assert first.venue == "ICLR" and first.year == 2021 and first.authors[0] == "Ruiqi Gao"
    assert first.url.startswith("https://openreview.net/forum?id=")
