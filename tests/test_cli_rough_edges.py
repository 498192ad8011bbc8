"""CLI rough edges from issue 10, checked as the user sees them (CliRunner on the bundled collection)."""

import json

import pytest
from typer.testing import CliRunner

from assistant.cli import app
from assistant.cli.collection import _print_ingest_report
from assistant.store.ingest import IngestReport

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_ingest_of_a_missing_file_is_one_error_line_naming_it(tmp_path):
    result = run("ingest", str(tmp_path / "my_list.txt"))
    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path / 'my_list.txt'}: no such file or directory; check the path\n"
    assert result.stdout == ""


def test_ingest_to_a_file_writes_no_blank_progress_line(tmp_path):
    """A new user's trial (round 21): stderr redirected to a file held a blank line before the errors: the progress
    bar's, which is drawn only on a terminal now."""
    f = tmp_path / "bad.jsonl"
    f.write_text('{"title": "T", "abstract": "An abstract about quantization."}\nnot json\n')
    result = run("ingest", str(f))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {f}:2: ")


@pytest.mark.parametrize("n, says", [(1, "note: 1 abstract is longer"), (2, "note: 2 abstracts are longer")])
def test_the_truncation_note_agrees_in_number(n, says, capsys):
    _print_ingest_report(IngestReport(added=3, truncated=n), log=None)
    assert says in capsys.readouterr().out


def test_help_shows_no_type_after_a_flag():
    result = runner.invoke(app, ["stats", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout
    assert "<str>" in result.stdout  # options that take a value still show it


def test_stats_says_which_filter_chose_the_papers(settings, fake_store, monkeypatch, tmp_path):
    from assistant.store.ingest import ingest

    path = tmp_path / "papers.json"
    path.write_text(json.dumps([{"id": f"p{i}", "title": f"Paper {i}", "abstract": f"About topic {i}.",
                                 "conference": v, "year": 2024} for i, v in enumerate(["ICLR", "ICLR", "ICML"])]))
    ingest([path], fake_store)
    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    res = run("stats", "--venue", "ICLR")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == "papers: 2 abstracts matching the filters (venue=ICLR), of 3"
    assert run("stats").stdout.splitlines()[0] == "papers: 3 abstracts"
    data = json.loads(run("stats", "--venue", "ICLR", "--json").stdout)
    assert data["total"] == 2 and data["filters"]["venue"] == "ICLR"


def test_show_accepts_a_title_and_lists_an_ambiguous_prefix():
    res = run("show", "star-kv")  # the bundled collection's display name, any case
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("STAR-KV  (name derived from the abstract)\nid: p")
    res = run("show", "p")  # every id starts with 'p'
    assert res.exit_code == 1
    line = res.stderr.strip()
    assert line.startswith("error: id prefix 'p' matches 19 papers (p") and "; and 16 more)" in line
    assert "give the full id or more of its characters" in line and "\n" not in line
    papers = json.loads(run("papers", "--json").stdout)
    first = next(p for p in papers if p["id"] == line.split("(", 1)[1].split()[0])
    assert first["title"] in line
    res = run("show", "no such paper")
    assert res.exit_code == 1 and res.stderr.startswith("error: no paper with id 'no such paper' or that title")


def test_batch_resume_with_another_backend_says_which_answers_it_kept(bundled_store, tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id":"q1","q":"What is STAR-KV?"}\n{"id":"q2","q":"What is WinQ?"}\n'
                         '{"id":"q3","q":"What is EDEN?"}\n')
    out = tmp_path / "a.jsonl"
    kept = {"question": "What is STAR-KV?", "answer": "From the model.", "backend": "openai", "model": "gpt-x",
            "citations": [], "refused": False}
    out.write_text(json.dumps({**kept, "question_id": "q1"}) + "\n"
                   + json.dumps({**kept, "question_id": "q2", "question": "What is WinQ?"}) + "\n")
    res = run("batch", str(questions), "-o", str(out), "--resume", "--llm", "extractive")
    assert res.exit_code == 0, res.output
    assert ("note: 2 answers kept in " + str(out) + " came from another backend (openai), not extractive; "
            "add --overwrite (or give a new -o file) to answer them again with extractive") in res.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["backend"] for r in records] == ["openai", "openai", "extractive"]  # kept, not re-answered
    res = run("batch", str(questions), "-o", str(out), "--resume", "--llm", "extractive")
    assert "came from another backend" in res.stderr  # still said on the next resume


def test_batch_answers_the_other_questions_when_one_is_too_long(bundled_store, tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "long", "q": "What is STAR-KV? " + "pasted text " * 2000}) + "\n"
                         + json.dumps({"id": "ok", "q": "What is WinQ?"}) + "\n")
    out = tmp_path / "a.jsonl"
    res = run("batch", str(questions), "-o", str(out), "--llm", "extractive")
    assert res.exit_code == 1, res.output
    assert "question long: error: the question is 24,016 characters long" in res.stderr
    records = {r["question_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert "WinQ" in records["ok"]["answer"] and records["ok"]["citations"]
    assert records["long"]["error"].startswith("the question is 24,016 characters long")


@pytest.mark.parametrize("command, text, what", [("ask", "???", "the question"),
                                                  ("search", "🙂🙂", "the search query")])
def test_a_question_without_words_is_a_usage_error(bundled_store, command, text, what):
    # a new user's trial: "???" was searched and answered "No paper in the collection ...", exit 0
    res = run(command, text)
    assert res.exit_code == 2
    assert res.stderr.strip() == f"error: {what} has no words ({text!r}); ask with words"


def test_ctrl_c_during_ingest_says_what_was_kept(settings, fake_store, monkeypatch, tmp_path):
    from assistant.store import ingest

    monkeypatch.setattr(ingest, "CHUNK", 2)
    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps({"title": f"Paper {i}", "abstract": f"About topic {i}."}) + "\n"
                            for i in range(5)))
    embed, calls = fake_store.embedder.embed, []

    def embed_then_ctrl_c(texts):
        calls.append(len(texts))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return embed(texts)

    monkeypatch.setattr(fake_store.embedder, "embed", embed_then_ctrl_c)
    res = run("ingest", str(path))
    assert res.exit_code == 130
    line = res.stderr.strip()
    assert line.startswith("interrupted: kept added 2, updated 0, unchanged 0; 3 new or changed abstracts were "
                           "not stored (run the same ingest again to add them); log: ")
    log = json.loads(open(line.rsplit("log: ", 1)[1]).read())
    assert log["added"] == 2 and log["not_written"] == 3
    assert fake_store.count() == 2


def test_ctrl_c_during_batch_says_what_was_kept_and_how_to_resume(bundled_store, tmp_path, monkeypatch):
    import assistant.batch

    questions = tmp_path / "q.txt"
    questions.write_text("What is STAR-KV?\nWhat is WinQ?\n")
    out = tmp_path / "a.jsonl"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(assistant.batch, "run_batch", interrupted)
    res = run("batch", str(questions), "-o", str(out), "--llm", "extractive")
    assert res.exit_code == 130
    assert (f"interrupted: the answers written so far are kept in {out}; run the same command with --resume "
            "to answer the rest") in res.stderr


def test_ingest_with_one_missing_path_ingests_the_others_and_exits_1(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text('{"title": "Kept", "abstract": "An abstract that is kept."}\n')
    result = run("ingest", str(good), str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 1
    assert f"error: {tmp_path / 'nope.jsonl'}: no such file or directory; check the path" in result.stderr
    assert result.stdout.startswith("added 1,")
    listed = run("papers", "--json")
    assert [p["title"] for p in json.loads(listed.stdout)] == ["Kept"]


# --- usage errors: one `error:` line, exit code 2, for every command alike --------------------------

@pytest.mark.parametrize("args, says", [
    (["search", ""], "error: the search query is empty;"),
    (["search", "   ", "--json"], "error: the search query is empty;"),
    (["ask", ""], "error: the question is empty;"),
    (["ask", "What is NorMuon? " + "pasted text " * 2000], "error: the question is 24,016 characters long; at most"),
    (["search", "NorMuon " * 3000], "error: the search query is 23,999 characters long; at most 20,000"),
    (["show", ""], "error: the paper id or title is empty;"),
    (["similar", " "], "error: the paper id or title is empty;"),
    (["ask", "What is NorMuon?", "--llm", "gpt5"], "error: --llm: unknown LLM backend 'gpt5': choose openai"),
    (["batch", "q.txt", "-o", "a.jsonl", "--llm", "gpt5"], "error: --llm: unknown LLM backend 'gpt5'"),
    (["eval", "qa.jsonl", "--llm", "gpt5"], "error: --llm: unknown LLM backend 'gpt5'"),
    (["chat", "--llm", "gpt5"], "error: --llm: unknown LLM backend 'gpt5'"),
    (["search", "x", "--mode", "fuzzy"], "error: --mode must be hybrid, dense or bm25, not 'fuzzy'"),
    (["papers", "--year", "soon"], "error: --year: year 'soon' is not a year or range"),
    (["stats", "--year", "soon"], "error: --year: year 'soon' is not a year or range"),
    (["eval", "qa.jsonl", "--year", "soon"], "error: --year: year 'soon' is not a year or range"),
    # a value typer's own parsing reported as "Input should be a valid integer" (a new user's trial, round 23)
    (["ingest", "q.txt", "--year", "2021-2023"], "error: Invalid value for '--year': '2021-2023' is not a year; give"),
    (["batch", "q.txt", "-o", "a.jsonl", "--resume", "--overwrite"], "error: --resume and --overwrite contradict"),
    (["search", "x", "-k", "0"], "error: Invalid value for '-k' / '--top-k'"),  # Click's own usage error
    (["search", "x", "--no-such-flag"], "error: No such option: --no-such-flag"),
    (["remove"], "error: say which papers to remove:"),
    (["remove", "--all", "p123"], "error: --all removes every paper: give it alone"),
    (["remove", "--source", ""], "error: --source is empty;"),
    # bytes that are not UTF-8, as a shell passes them (PEP 383 surrogates): a traceback and a store error before
    (["search", "\udcff\udcfe EDEN"], "error: the search query is not UTF-8 text (byte 0xff); give it in UTF-8"),
    (["ask", "\udcff what"], "error: the question is not UTF-8 text (byte 0xff);"),
    (["show", "\udcff"], "error: the paper id or title is not UTF-8 text (byte 0xff);"),
])
def test_every_usage_mistake_is_one_error_line_and_exit_code_2(args, says, tmp_path, monkeypatch, capsys):
    from assistant.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "q.txt").write_text("What is NorMuon?\n")
    (tmp_path / "qa.jsonl").write_text(json.dumps({"id": "q1", "type": "single", "q": "What is NorMuon?"}) + "\n")
    with pytest.raises(SystemExit) as exit_:
        main(args)  # as `assistant ARGS` runs: Click's usage errors and the commands' own alike
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert err.startswith(says) and err.count("\n") == 1, err
    assert not (tmp_path / "data" / "chroma").exists()  # refused before the store was opened
    assert not (tmp_path / "data" / "chroma").exists()  # refused before the store was opened


def test_ingest_refuses_files_that_are_not_abstracts_and_keeps_the_others(fake_store, monkeypatch, tmp_path):
    """A README, a program, a CSV of numbers and BEIR's queries file beside a real list: one error line
    each naming the file and the expected format, nothing from them, the real list ingested, exit 1."""
    from tests.conftest import ICML_FILE

    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "NOTES.md").write_text("# Notes\n\n## Setup\n\n```sh\nmake run\n```\n\n- one\n- two\n")
    (folder / "numbers.csv").write_text("x,y\n1,2\n3,4\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "1", "text": "Vitamin D lowers fracture risk."}) + "\n")
    script = tmp_path / "tool.py"
    script.write_text("import sys\nprint(sys.argv)\n")
    res = run("ingest", str(folder), str(script), str(ICML_FILE))
    assert res.exit_code == 1
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 4, (res.stdout, res.stderr)
    for name in ("NOTES.md", "numbers.csv", "queries.jsonl", "tool.py"):
        line = next(e for e in errors if f"{name}" in e.split(":", 2)[1])
        assert "'abstract'" in line and "the file is skipped, the others are kept" in line, line
    assert res.stdout.startswith("added 19, updated 0, unchanged 0, skipped 4 (4 errors, 0 duplicates)")
    assert fake_store.count() == 19 and {p.source for p in fake_store.papers()} == {ICML_FILE.name}


def test_ingest_of_one_unreadable_file_does_not_speak_of_others(fake_store, monkeypatch, tmp_path):
    """A lone file that is not a list of abstracts: its error line says it is skipped, and not that "the others are
    kept" when there are none (a new user's trial, round 26); exit 1, nothing added."""
    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    lone = tmp_path / "paper.pdf"
    lone.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")
    res = run("ingest", str(lone))
    assert res.exit_code == 1
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "paper.pdf" in errors[0], res.stderr
    assert errors[0].endswith("the file is skipped"), errors[0]
    assert fake_store.count() == 0


def test_a_misspelled_env_setting_is_a_warning_not_silence(monkeypatch):
    monkeypatch.setenv("ASSISTANT_TOPK", "5")
    result = run("ask", "")  # any command: the warning comes before the command's own work
    assert ("warning: ASSISTANT_TOPK is not a setting and is ignored; did you mean ASSISTANT_TOP_K?\n"
            in result.stderr)


def test_an_unreachable_chroma_server_names_the_url_as_read(settings):
    from assistant.errors import AssistantError
    from assistant.store.chroma import make_client

    with pytest.raises(AssistantError) as err:
        make_client(settings.model_copy(update={"chroma_url": "127.0.0.1:9"}))
    assert str(err.value).startswith("Chroma server at 127.0.0.1:9 (read as http://127.0.0.1:9) is not reachable; "
                                     "start it")


def test_a_question_searched_as_asked_but_for_its_punctuation_shows_no_searched_for_line():
    """A new user's trial (round 22): "¿Qué artículos tratan de la cuantización?" printed "(searched for: Qué artículos
    ...)", which differs only by the "¿"."""
    from assistant.text import same_question

    assert same_question("¿Qué artículos tratan de la cuantización?", "Qué artículos tratan de la cuantización?")
    assert same_question("  what is  NorMuon ? ", "What is NorMuon?")
    assert not same_question("How much faster is it?", "How much faster is STAR-KV?")
    result = run("ask", "¿Qué artículos tratan de la cuantización?", "--llm", "extractive")
    assert result.exit_code == 0 and "searched for" not in result.stderr, result.stderr


def test_a_question_searched_without_its_opening_acknowledgement_shows_no_rewrite():
    """A new user's trial (round 34): "ok. which papers propose new decoding methods?" showed "asked as: which papers
    propose new decoding methods?", which only drops "ok."."""
    from assistant.answering import rewrote

    assert not rewrote("ok. which papers propose new decoding methods?", "which papers propose new decoding methods?")
    assert not rewrote("thanks. unrelated - is there a paper on KV cache compression?",
                       "is there a paper on KV cache compression?")
    assert rewrote("ok. how much faster is it?", "how much faster is STAR-KV?")
    assert not rewrote("What is WinQ?", "")
    result = run("ask", "hmm ok. which papers propose new decoding methods?", "--llm", "extractive")
    assert result.exit_code == 0 and "searched for" not in result.stderr, result.stderr


@pytest.mark.parametrize("where, says", [
    ("folder", "is a folder; give a file such as"),
    ("under_a_file", "is a file, not a folder; choose another -o path"),
])
def test_eval_refuses_a_report_path_it_cannot_write_before_asking_anything(bundled_store, tmp_path, where, says):
    """A new user's trial (round 23): `eval -o <folder>` asked every question, then failed to write the report and
    printed nothing: the whole run was lost."""
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps({"id": "s1", "type": "single", "q": "What is WinQ?", "gold": ["WinQ"]}) + "\n")
    (tmp_path / "afile").write_text("x")
    output = tmp_path if where == "folder" else tmp_path / "afile" / "report.json"
    res = run("eval", str(qa), "--llm", "extractive", "-o", str(output))
    assert res.exit_code == 1
    assert res.stderr.strip().startswith(f"error: -o {output}") and says in res.stderr
    assert res.stdout == ""  # nothing was asked


def test_a_data_folder_that_did_not_exist_is_named_when_the_bundled_collection_fills_it(tmp_path):
    """A new user's trial (round 32): a mistyped --data-dir was made and filled with the bundled collection without a
    word; the note names the new folder, once (the next command finds it filled)."""
    folder = tmp_path / "typo"
    first = run("--data-dir", str(folder), "papers")
    assert first.exit_code == 0
    assert f"into the new data folder {folder}" in first.stderr and "--data-dir" in first.stderr
    again = run("--data-dir", str(folder), "papers")
    assert again.exit_code == 0 and "Loaded the bundled" not in again.stderr
    made = tmp_path / "made"
    made.mkdir()  # a folder the user made for it: no warning, only what was loaded
    quiet = run("--data-dir", str(made), "papers")
    assert "Loaded the bundled ICML 2026 collection (19 abstracts)." in quiet.stderr
    assert "new data folder" not in quiet.stderr


def test_a_missing_embedding_model_is_one_line_naming_the_option_and_no_llm(tmp_path, monkeypatch):
    """A new user's trial (round 35): `--embedding-model-dir /nope` was told to set the environment variable, and the
    line ended with the LLM backend's name, which has no part in the error."""
    monkeypatch.setenv("ASSISTANT_DATA_DIR", str(tmp_path / "data"))
    result = run("--embedding-model-dir", str(tmp_path / "nope"), "ask", "what is WinQ?", "--llm", "extractive")
    assert result.exit_code == 1
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith(f"error: embedding model not found in {tmp_path / 'nope'} (missing onnx/"), line
    assert "--embedding-model-dir" in line and "(backend" not in line, line
