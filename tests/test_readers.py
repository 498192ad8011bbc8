"""Readers: every supported format, field spellings of real dumps, and bad input by file and line."""

import json

import pytest

from assistant.store.readers import InputError, iter_input_files, read_file

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
    f.write_text('{"title": {"en": "t"}, "abstract": {"en": "a"}}\n{"title": {"en": "t"}, "abstract": "a"}\n')
    skipped, kept = read_file(f)
    assert skipped.paper is None and "'abstract'" in skipped.skip_reason
    assert kept.paper.abstract == "a" and "'title'" in kept.warnings[0]  # an optional field never drops it


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
    with pytest.raises(InputError, match="no readable files.*it has notes.pdf"):
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


@pytest.mark.parametrize("field, value, expect, warned", [
    ("year", "in press", ("year", None), "field 'year' is 'in press'"),
    ("year", "n.d.", ("year", None), "field 'year' is 'n.d.'"),
    ("year", "2021a", ("year", 2021), None),
    ("year", "2021-05-03", ("year", 2021), None),
    ("year", "forthcoming", ("year", None), "field 'year' is 'forthcoming'"),
    ("year", "23", ("year", None), "field 'year' is '23'"),
    ("year", 23, ("year", None), "field 'year' is '23'"),
    ("year", 2024.0, ("year", 2024), None),
    ("authors", 42, ("authors", ()), "field 'authors' is 42"),
    ("authors", {"name": "Ann Lee"}, ("authors", ("Ann Lee",)), None),
    ("authors", [{"affiliation": "MIT"}], ("authors", ()), "field 'authors'"),
    ("url", {"href": "https://x"}, ("url", ""), "field 'url' is an object"),
    ("url", ["https://a", "https://b"], ("url", "https://a"), None),
    ("venue", {"name": "ICML"}, ("venue", ""), "field 'venue' is an object"),
    ("title", {"en": "T"}, ("title_is_derived", True), "field 'title' is an object"),
])
def test_a_bad_optional_field_never_drops_the_abstract(tmp_path, field, value, expect, warned):
    f = tmp_path / "dump.jsonl"
    f.write_text(json.dumps({"title": "Ok", "abstract": "We propose WinQ."}) + "\n"
                 + json.dumps({"title": "T", "abstract": "We propose NorMuon.", field: value}) + "\n")
    first, second = list(read_file(f))
    assert second.line == 2 and second.paper is not None and second.paper.abstract == "We propose NorMuon."
    assert getattr(second.paper, expect[0]) == expect[1]
    if warned:
        assert len(second.warnings) == 1 and second.warnings[0].startswith(warned), second.warnings
        assert second.warnings[0].endswith("left empty")
    else:
        assert second.warnings == ()
    assert first.warnings == ()


def test_ingest_keeps_records_with_a_bad_year_and_warns_with_file_and_line(tmp_path):
    from typer.testing import CliRunner

    from assistant.cli import app

    f = tmp_path / "dump.jsonl"
    f.write_text("".join(json.dumps({"id": str(i), "title": f"Paper {i}", "abstract": f"Abstract {i}.", "year": y}) + "\n"
                         for i, y in enumerate(["2024", "in press", "n.d.", "2021a", "forthcoming", "23"])))
    result = CliRunner().invoke(app, ["ingest", str(f), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["added"] == 6 and report["skipped"] == 0
    assert [(w["line"], w["reason"].split(",")[0]) for w in report["warnings"]] == [
        (2, "field 'year' is 'in press'"), (3, "field 'year' is 'n.d.'"), (5, "field 'year' is 'forthcoming'"),
        (6, "field 'year' is '23'")]
    assert all(w["source"] == str(f) for w in report["warnings"])
    listed = CliRunner().invoke(app, ["papers", "--json"])
    years = {p["title"]: p["year"] for p in json.loads(listed.stdout)}
    assert years == {"Paper 0": 2024, "Paper 1": None, "Paper 2": None, "Paper 3": 2021, "Paper 4": None,
                     "Paper 5": None}
    text = CliRunner().invoke(app, ["ingest", str(f)])
    assert f"warning: {f}:2: field 'year' is 'in press', not a year such as 2024; left empty" in text.stderr


def test_ingest_reports_a_bad_record_as_an_error_line_and_keeps_the_rest(tmp_path):
    from typer.testing import CliRunner

    from assistant.cli import app

    f = tmp_path / "dump.jsonl"
    f.write_text(json.dumps({"title": "Kept", "abstract": "A kept abstract."}) + "\n"
                 + json.dumps({"title": "No abstract"}) + "\n")
    result = CliRunner().invoke(app, ["ingest", str(f)])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"error: {f}:2: record has no abstract"), result.stderr
    listed = CliRunner().invoke(app, ["papers", "--json"])
    assert [p["title"] for p in json.loads(listed.stdout)] == ["Kept"]


# --- files that are not abstracts -------------------------------------------------------------------

ABSTRACT = ("We propose NorMuon, an optimizer that combines orthogonalized updates with neuron-wise adaptive "
            "learning rates. On language-model pretraining at 1.1B parameters it reaches the loss of AdamW with "
            "21.74% fewer training steps while keeping the memory footprint of Muon.")

NOT_ABSTRACTS = {
    "README.md": "# my project\n\nA tool.\n\n## Install\n\n```sh\npip install tool\n```\n\n- fast\n- small\n",
    "notes.txt": "Todo\n\nbuy milk\n\ncall Ana about the NorMuon slides\n\nread the STAR-KV paper\n",
    "script.txt": "import sys\n\n\ndef main():\n    for line in sys.stdin:\n        print(line)\n\n\n"
                  "if __name__ == '__main__':\n    main()\n",
    "server.txt": "2026-01-03 10:00:01 INFO start\n2026-01-03 10:00:02 INFO listening on port 8000\n"
                  "2026-01-03 10:00:09 WARN slow request\n",
    "numbers.csv": "x,y,z\n1,2,3\n4,5,6\n",
    "text_only.csv": "id,text\n1,an item\n2,another item\n",
    "settings.json": json.dumps([{"name_of_run": "a", "lr": 0.1}, {"name_of_run": "b", "lr": 0.2}]),
    "queries.jsonl": json.dumps({"_id": "1", "text": "Vitamin D lowers the risk of fractures.", "metadata": {}}) + "\n",
    "main.py": f'"""{ABSTRACT}"""\n',
}


@pytest.mark.parametrize("name", sorted(NOT_ABSTRACTS))
def test_a_file_that_is_not_abstracts_is_one_error_naming_it_and_the_expected_format(name, tmp_path):
    f = tmp_path / name
    f.write_text(NOT_ABSTRACTS[name])
    with pytest.raises(InputError) as info:
        list(read_file(f))  # nothing is yielded: not even its first paragraph or record
    message = str(info.value)
    assert message.startswith(f"{f}") and "\n" not in message
    assert ("'abstract'" in message and ("'title'" in message or "column" in message)), message


def test_a_text_list_of_real_abstracts_with_a_heading_and_a_short_note_is_kept(tmp_path):
    f = tmp_path / "my_list.md"
    f.write_text(f"# ICML 2026 picks\n\n{ABSTRACT}\n\n{ABSTRACT.replace('NorMuon', 'AdaMuon')}\n\n"
                 f"{ABSTRACT.replace('NorMuon', 'SoftMuon')}\n\nWithdrawn by the authors.\n")
    assert [p.title for p in papers(f)][:3] == ["NorMuon", "AdaMuon", "SoftMuon"]


def test_every_real_dataset_still_reads_in_full(tmp_path):
    import zipfile

    from tests.conftest import SCIFACT_DIR

    assert len(papers(ICML_FILE)) == 19
    airas = [p for f in iter_input_files([AIRAS_DIR]) for p in papers(f)]
    assert len(airas) == 18225
    with zipfile.ZipFile(SCIFACT_DIR / "hf_allenai_scifact_csv" / "scifact.zip") as z:
        z.extract("corpus_train.csv", tmp_path)
    assert len(papers(tmp_path / "corpus_train.csv")) == 5183


def test_an_unterminated_quote_in_a_csv_is_named_as_such(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text('title,abstract\n"unterminated,hello\nWinQ,We propose WinQ for faster quantization-aware training.\n')
    (record,) = read_file(f)
    assert record.paper is None and record.line == 2
    assert record.skip_reason == "broken CSV row: a quoted cell opened on line 2 is never closed (it runs to the end " \
                                 "of the file); close the quote"


def test_a_quote_closed_inside_a_later_cell_is_a_broken_row_not_a_merged_paper(tmp_path):
    """A new user's trial (round 21): the quote opened on line 2 was closed by line 3's, the rows between were read
    as one title, and the file was added as one paper with exit code 0. The row is reported; the rows after are kept."""
    f = tmp_path / "bad.csv"
    f.write_text('title,abstract\n"Broken title,An abstract about things\nGood,"Another abstract, fine."\n'
                 'Third,A third abstract that is fine.\n')
    broken, third = read_file(f)
    assert broken.paper is None and broken.line == 2 and "a quote on line 2 opens a cell" in broken.skip_reason
    assert third.paper is not None and third.paper.title == "Third"


def test_a_record_or_abstract_of_the_wrong_kind_is_named_in_json_words(tmp_path):
    """A new user's trial (round 23): {"abstract": 12345} was ingested as the paper "12345", and a JSON array holding
    5 and null was reported as "record is a int" / "record is a NoneType"."""
    f = tmp_path / "x.jsonl"
    f.write_text('{"title": "num abs", "abstract": 12345}\n5\nnull\n{"title": "t", "abstract": "We propose X."}\n')
    number, five, null, kept = read_file(f)
    assert number.paper is None and number.skip_reason == ("field 'abstract' is a number (12345), expected the "
                                                           "abstract's text")
    assert five.skip_reason == "record is a number, expected an object with an 'abstract' field"
    assert null.skip_reason == "record is null, expected an object with an 'abstract' field"
    assert kept.paper.abstract == "We propose X."


def test_a_csv_row_with_more_cells_than_the_header_is_kept_with_a_warning(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text('title,abstract,year\nExtra,"We propose X.",2024,extra,cols\nOk,We propose Y.,2023\n')
    extra, ok = read_file(f)
    assert extra.paper.abstract == "We propose X." and extra.paper.year == 2024
    assert extra.warnings == ("the row has 5 cells, the header 3; the extra cells ('extra', 'cols') are left out",)
    assert ok.warnings == ()


def test_a_binary_file_is_one_error_not_one_per_line(tmp_path):
    """A new user's trial (round 23): a binary bin.json given to ingest gave 41 "bin.json:N: not UTF-8 text" lines."""
    blob = tmp_path / "bin.json"
    blob.write_bytes(bytes(range(256)) * 12)
    with pytest.raises(InputError, match=r"bin\.json: not a text file \(binary data\); expected one abstract"):
        list(read_file(blob))


def test_a_folder_names_the_files_of_a_type_it_cannot_read(tmp_path):
    from assistant.store.readers import unreadable_note

    (tmp_path / "abstracts.txt").write_text("An abstract about quantization of language models with many words.\n")
    (tmp_path / "paper.pdf").write_bytes(b"%PDF")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "slides.pptx").write_bytes(b"PK")
    (tmp_path / ".hidden").write_text("x")
    assert [p.name for p in iter_input_files([tmp_path])] == ["abstracts.txt"]
    note = unreadable_note(tmp_path)
    assert note.startswith("2 files of a type it cannot read left out: paper.pdf, sub/slides.pptx"), note
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "more.jsonl").write_text("{}\n")
    assert unreadable_note(tmp_path / "only") == ""
