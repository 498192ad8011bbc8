"""The store commands as a user runs them: ingest, search, papers, show; --json shapes; errors."""

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from assistant.cli import app

from tests.conftest import ICML_FILE

runner = CliRunner()


def run(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_help_is_instant_and_imports_nothing_heavy():
    code = ("import sys, assistant.cli; heavy = [m for m in ('chromadb', 'onnxruntime', 'llama_index', 'textual', "
            "'openai', 'bm25s', 'llama_cpp') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    result = subprocess.run([sys.executable, "-m", "assistant", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "ingest" in result.stdout and "search" in result.stdout



@pytest.mark.parametrize("args, says", [
    (["search", "x", "-k", "0"], "error: Invalid value for '-k' / '--top-k'"),
    (["bogus"], "error: No such command 'bogus'"),
    (["ingest", "x.json", "--year", "abc"], "error: Invalid value for '--year': 'abc' is not a year; give one"),
    (["search"], "error: Missing argument 'query'"),
])
def test_a_usage_mistake_is_one_error_line_not_a_box(args, says):
    result = subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.startswith(says) and result.stderr.count("\n") == 1, result.stderr
    assert "--help`" in result.stderr and "Traceback" not in result.stderr


def test_global_help_names_the_environment_variables():
    result = subprocess.run([sys.executable, "-m", "assistant", "--help"], capture_output=True, text=True,
                            env={**os.environ, "COLUMNS": "200"})
    assert "[env ASSISTANT_DATA_DIR]" in result.stdout and "[env ASSISTANT_CHROMA_URL]" in result.stdout


@pytest.mark.integration
def test_search_returns_top_k_papers_by_default(monkeypatch):
    monkeypatch.setenv("ASSISTANT_TOP_K", "2")  # the README: "Papers returned by search / given to the LLM"
    result = run("search", "KV cache compression", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["results"]) == 2


@pytest.mark.integration
def test_search_json_has_the_documented_shape_and_loads_the_bundled_collection():
    result = run("search", "KV cache compression", "-k", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["query"] == "KV cache compression"
    assert len(data["results"]) == 3
    first = data["results"][0]
    assert {"id", "title", "abstract", "venue", "year", "score"} <= set(first)
    assert first["title"] == "STAR-KV" and first["venue"] == "ICML" and first["year"] == 2026


@pytest.mark.integration
def test_search_text_output_names_paper_venue_and_figures_a_reader_can_use():
    result = run("search", "NorMuon optimizer", "-k", "2")
    assert result.exit_code == 0
    assert "NorMuon" in result.stdout and "ICML 2026" in result.stdout
    # the cosine similarity and the BM25 match, not the relative fused score (always 1.0 at the top)
    assert "similarity 0." in result.stdout and "key words matched" in result.stdout
    assert "score 1.0000" not in result.stdout


@pytest.mark.integration
def test_show_papers_and_search_render_latex_and_find_a_title_typed_without_it():
    shown = run("show", "A2RBench")
    assert shown.exit_code == 0, shown.output
    assert "A²RBench" in shown.stdout and "$^2$" not in shown.stdout and "\\%" not in shown.stdout
    assert "A²RBench" in run("papers").stdout
    assert "$" not in run("search", "abstract reasoning benchmark", "-k", "1").stdout
    assert "A$^2$RBench" in run("show", "A²RBench", "--json").stdout  # --json keeps the source text


@pytest.mark.integration
def test_papers_and_show():
    result = run("papers", "--json")
    assert result.exit_code == 0
    papers = json.loads(result.stdout)
    assert len(papers) == 19 and all("score" not in p for p in papers)
    star = next(p for p in papers if p["title"] == "STAR-KV")
    shown = run("show", star["id"][:8], "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["abstract"] == star["abstract"]
    missing = run("show", "nope")
    assert missing.exit_code == 1 and "no paper with id 'nope'" in missing.stderr


@pytest.mark.integration
def test_ingest_reports_and_exits_nonzero_on_a_broken_line(tmp_path):
    f = tmp_path / "mixed.jsonl"
    f.write_text('{"title": "Good", "abstract": "We propose GoodNet."}\n{broken\n')
    result = run("ingest", str(f))
    assert result.exit_code == 1
    assert result.stdout.startswith("added 1, updated 0, unchanged 0, skipped 1 (1 error, 0 duplicates)")
    assert f"{f}:2: broken JSON (expecting property name enclosed in double quotes at column 2)" in result.stderr
    again = run("ingest", str(f), "--json")
    data = json.loads(again.stdout)
    assert data["unchanged"] == 1 and data["errors"] == 1


def test_ingest_missing_file_is_one_line():
    result = run("ingest", "/no/such/file.json")
    assert result.exit_code == 1 and "/no/such/file.json: no such file or directory" in result.stderr
    assert "Traceback" not in result.output


def test_bad_year_is_one_line():
    result = run("search", "x", "--year", "last year")
    assert result.exit_code == 2 and result.stderr.startswith("error: --year: ") and result.stderr.count("\n") == 1


@pytest.mark.integration
def test_empty_collection_says_so(monkeypatch):
    monkeypatch.setenv("ASSISTANT_COLLECTION", "empty_one")
    result = run("search", "anything")  # as `ask` does: nothing to search is an error saying how to fill it
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == ("error: the collection 'empty_one' is empty: add abstracts with `assistant ingest "
                             "FILE_OR_FOLDER` (or drop --collection / ASSISTANT_COLLECTION to use the bundled ICML "
                             "2026 abstracts)\n")
    listed = run("papers")  # listing an empty collection is no mistake
    assert listed.exit_code == 0 and "No abstracts loaded" in listed.stdout


@pytest.mark.integration
def test_ingest_with_venue_and_year_for_a_plain_list(monkeypatch):
    monkeypatch.setenv("ASSISTANT_COLLECTION", "mine")
    result = run("ingest", str(ICML_FILE), "--venue", "ICML", "--year", "2026", "--json")
    assert json.loads(result.stdout)["added"] == 19
    listed = json.loads(run("papers", "--json", "--year", "2026").stdout)
    assert len(listed) == 19


def test_search_json_error_is_json_on_stdout_too():
    result = run("search", "x", "--year", "abc", "--json")
    assert result.exit_code == 2  # a usage error
    assert json.loads(result.stdout) == {"query": "x", "error": result.stderr.strip().removeprefix("error: "),
                                         "error_kind": "usage"}


def test_ask_json_setup_error_is_json_on_stdout_too():
    result = run("ask", "What is NorMuon?", "--llm", "openai", "--json")
    assert result.exit_code == 1
    obj = json.loads(result.stdout)
    assert obj["question"] == "What is NorMuon?" and obj["error_kind"] == "usage" and "OPENAI_API_KEY" in obj["error"]


# --- terminal control sequences never reach the terminal ------------------------------------------------

CONTROLS = ["\x1b[2J", "\x1b]0;pwned\x07", "\x1b]52;c;ZXZpbA==\x07", "\r", "\x07", "\x08", "\x9b2J", "\x1b[31m"]


def _has_control(text: str) -> bool:
    return any(c in text for c in ("\x1b", "\x07", "\x08", "\r", "\x9b"))


@pytest.mark.integration
def test_stored_text_with_control_sequences_is_shown_harmlessly(real_store):
    from assistant.store.paper import Paper

    # written by another tool sharing the store (ingest itself cleans control characters): one paper per kind
    papers = [Paper(abstract=f"ZetaNet{seq} speeds up training.", title=f"ZetaNet{seq} paper {i}", venue=f"ICML{seq}",
                    year=2026, authors=(f"Ann{seq} Lee",), url=f"https://x/{seq}", id=f"pzeta{i:012d}")
              for i, seq in enumerate(CONTROLS)]
    real_store.upsert(papers, real_store.embedder.embed([p.document for p in papers]))
    real_store.mark_changed()
    for args in (["search", "ZetaNet", "-k", "20"], ["search", "ZetaNet", "--mode", "bm25", "-k", "20"], ["papers"],
                 ["stats"], *(["show", p.id] for p in papers)):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
        assert not _has_control(result.stdout + result.stderr), (args, repr(result.stdout))
        assert args[0] == "stats" or result.stdout.count("ZetaNet") >= (len(papers) if args[0] != "show" else 1)
    assert "ICML" in run("stats").stdout
    shown = json.loads(run("show", papers[0].id, "--json").stdout)  # --json keeps the text (JSON escapes it)
    assert shown["title"] == papers[0].title


@pytest.mark.parametrize("args", [["ingest", str(ICML_FILE)], ["papers"], ["stats"], ["show", "p1234"],
                                  ["search", "NorMuon"]])
def test_every_json_command_prints_a_json_error_object_on_failure(args, monkeypatch):
    from tests.conftest import free_port

    monkeypatch.setenv("ASSISTANT_CHROMA_URL", f"http://127.0.0.1:{free_port()}")  # no server there
    result = run(*args, "--json")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: Chroma server at http://127.0.0.1:")
    obj = json.loads(result.stdout)
    assert obj["error"] == result.stderr.strip().removeprefix("error: ") and obj["error_kind"] == "store"


@pytest.mark.integration
@pytest.mark.parametrize("command", ["ask", "batch"])
def test_asking_an_empty_collection_says_it_is_empty_and_how_to_ingest(monkeypatch, tmp_path, command):
    monkeypatch.setenv("ASSISTANT_COLLECTION", "empty_one")  # the default collection gets the bundled abstracts
    questions = tmp_path / "q.txt"
    questions.write_text("What is NorMuon?\n")
    args = (["ask", "What is NorMuon?"] if command == "ask"
            else ["batch", str(questions), "-o", str(tmp_path / "a.jsonl")])
    result = run(*args, "--llm", "extractive")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "error: the collection 'empty_one' is empty: add abstracts with `assistant ingest FILE_OR_FOLDER` "
        "(or drop --collection / ASSISTANT_COLLECTION to use the bundled ICML 2026 abstracts)")
    if command == "ask":
        obj = json.loads(run(*args, "--llm", "extractive", "--json").stdout)
        assert obj["error_kind"] == "empty" and obj["question"] == "What is NorMuon?"


@pytest.mark.integration
@pytest.mark.parametrize("args", [
    ["ask", "What is NorMuon?", "--venue", "Nope", "--llm", "extractive"],
    ["search", "x", "--year", "1990"],
])
def test_a_filter_that_matches_nothing_exits_cleanly(args):
    # The model loads in a background thread; a run that never needs it used to abort the process
    # while onnxruntime was building its session (exit 134).
    result = subprocess.run([sys.executable, "-m", "assistant", *args], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert "terminate called" not in result.stderr
    assert "no paper matches the filters" in (result.stdout + result.stderr).casefold()


@pytest.mark.integration
def test_ask_under_a_filter_that_matches_nothing_says_so_in_the_answer():
    result = run("ask", "What is NorMuon?", "--venue", "NeurIPS", "--llm", "extractive", "--json")
    obj = json.loads(result.stdout)
    assert obj["refused"] and obj["citations"] == []
    assert obj["answer"] == "No paper in the collection matches the filters (venue=NeurIPS)."


@pytest.mark.integration
def test_a_refusal_under_filters_says_only_the_filtered_papers_were_searched():
    """A question no paper is about, under filters that keep papers: the refusal names the filters, so a
    reader knows that papers outside them were not searched."""
    result = run("ask", "Which papers study protein folding with cryo-EM maps?", "--year", "2020-2030",
                 "--llm", "extractive", "--json")
    obj = json.loads(result.stdout)
    assert obj["refused"] and obj["citations"] == []
    assert obj["answer"] == ("No paper in the collection is about this question (only papers matching the "
                             "filters were searched: year=2020-2030).")


def _read_only_mount_works() -> bool:
    import shutil
    import subprocess

    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind -o ro / / 2>/dev/null || exit 3"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.integration
@pytest.mark.skipif(not _read_only_mount_works(), reason="needs `unshare -m` and a read-only bind mount")
@pytest.mark.parametrize("command", [["search", "NorMuon"], ["ingest", "papers.json"]])
def test_a_read_only_data_folder_is_named_as_read_only(command, tmp_path):
    """A real read-only folder (a read-only bind mount of a data folder that holds a store): the one
    error line says it is read-only and how to point the product elsewhere."""
    import subprocess
    import sys

    data = tmp_path / "data"
    (tmp_path / "papers.json").write_text(json.dumps([{"title": "NorMuon", "abstract": "NorMuon saves compute."}]))
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(data)}
    made = subprocess.run([sys.executable, "-m", "assistant", "ingest", "papers.json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    args = " ".join(command)
    result = subprocess.run(["unshare", "-m", "sh", "-c", f'mount --bind -o ro "{data}" "{data}" && '
                             f'"{sys.executable}" -m assistant {args}'], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 1
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith(f"error: the data folder {data} is read-only (Read-only file system)")
    assert "ASSISTANT_DATA_DIR (or --data-dir)" in line and f"cp -a {data} " in line


@pytest.mark.parametrize("failure", [OSError(30, "Read-only file system"),
                                     RuntimeError("error returned from database: (code: 8) attempt to write a "
                                                  "readonly database")])
def test_the_store_names_a_read_only_folder_and_what_to_do(failure, tmp_path, monkeypatch):
    """Unit check of the message for both ways Chroma fails on a folder it cannot write (the read-only
    bind mount above needs privileges this test does not)."""
    import chromadb

    from assistant.settings import load_settings
    from assistant.store.chroma import StoreError, make_client

    def refuse(*args, **kwargs):
        raise failure

    monkeypatch.setattr(chromadb, "PersistentClient", refuse)
    settings = load_settings(data_dir=tmp_path)
    with pytest.raises(StoreError) as info:
        make_client(settings)
    message = str(info.value)
    assert message.startswith(f"the data folder {tmp_path} is read-only (")
    assert "point ASSISTANT_DATA_DIR (or --data-dir) at a folder you can write" in message and "\n" not in message


@pytest.mark.parametrize("built, configured, says", [
    ({"embedding_precision": "int8"}, "fp32",
     "int8 embeddings of the old int8 copy (embedding_int8_version unrecorded; int8 runs that copy for it) but "
     "the configured precision is fp32"),
    ({"embedding_precision": "int8", "embedding_int8_version": 1}, "fp32",
     "int8 embeddings of the old int8 copy (embedding_int8_version 1; int8 runs that copy for it)"),
    ({"embedding_precision": "int8", "embedding_int8_version": 2}, "fp32",
     "was built with all-MiniLM-L6-v2 int8 embeddings but the configured precision is fp32"),
    ({"embedding_precision": "fp32"}, "int8", "fp32 embeddings but the configured precision is int8"),
    ({}, "int8", "fp32 embeddings but the configured precision is int8"),  # made before precision was recorded
])
def test_a_precision_mismatch_names_the_old_int8_copy_and_every_way_out(built, configured, says, tmp_path):
    import chromadb

    from assistant.store.chroma import StoreError, open_collection

    client = chromadb.PersistentClient(path=str(tmp_path / "chroma"))
    client.create_collection("papers", metadata={"hnsw:space": "cosine", "embedding_model": "all-MiniLM-L6-v2",
                                                 "embedding_dim": 384, "revision": 0, **built})
    with pytest.raises(StoreError) as info:
        open_collection(client, "papers", "all-MiniLM-L6-v2", 384, embedding_precision=configured)
    message = str(info.value)
    recorded = built.get("embedding_precision", "fp32")
    assert says in message and "\n" not in message
    assert message.endswith(f"unset ASSISTANT_EMBEDDING_PRECISION (each collection is searched at its own) or set "
                            f"ASSISTANT_EMBEDDING_PRECISION={recorded}, or re-ingest into another collection "
                            f"(ASSISTANT_COLLECTION)")


# --- remove ----------------------------------------------------------------------------------------

def _two_files(tmp_path):
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("".join(json.dumps({"title": f"Zebra paper {i}", "abstract": f"Zebrafish stripes {i} studied."})
                             + "\n" for i in range(3)))
    return wrong


def test_remove_by_file_undoes_an_ingest_and_search_agrees(fake_store, monkeypatch, tmp_path):
    from assistant.retrieval import Retriever
    from assistant.store.ingest import ingest

    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    wrong = _two_files(tmp_path)
    ingest([ICML_FILE, wrong], fake_store)
    assert fake_store.count() == 22
    assert Retriever(fake_store).search("zebrafish stripes", top_k=3, mode="bm25")[0].paper.title.startswith("Zebra")
    result = run("remove", "--source", str(wrong))
    assert result.exit_code == 0, result.output
    assert result.stdout == "removed 3 papers from 'papers'; 19 left; re-ingest the file to undo\n"
    assert fake_store.count() == 19 and len(fake_store.papers()) == 19
    assert not [p for p in fake_store.papers() if p.source == "wrong.jsonl"]
    for mode in ("bm25", "dense", "hybrid"):  # the BM25 index and Chroma agree: no removed paper comes back
        hits = Retriever(fake_store).search("zebrafish stripes", top_k=19, mode=mode)
        assert not [h for h in hits if h.paper.title.startswith("Zebra")], mode
    assert run("remove", "--source", "wrong.jsonl").exit_code == 1  # nothing left from it: an error, not silence


def test_remove_by_id_or_title_and_nothing_when_one_names_no_paper(fake_store, monkeypatch, tmp_path):
    from assistant.store.ingest import ingest

    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    ingest([_two_files(tmp_path)], fake_store)
    first = next(p for p in fake_store.papers() if p.title == "Zebra paper 0")
    result = run("remove", first.id[:10], "zebra paper 1", "no such paper")
    assert result.exit_code == 1 and result.stderr.startswith("error: no paper with id 'no such paper'")
    assert fake_store.count() == 3  # one bad name: nothing removed
    result = run("remove", first.id[:10], "zebra paper 1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["removed"] == 2 and data["remaining"] == 1 and first.id in data["ids"]
    assert [p.title for p in fake_store.papers()] == ["Zebra paper 2"]


def test_remove_all_asks_first_and_the_emptied_default_collection_stays_empty(fake_store, monkeypatch, tmp_path):
    from assistant.store.ingest import ensure_default_collection, ingest

    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    ingest([_two_files(tmp_path)], fake_store)
    result = run("remove", "--all")  # no terminal to ask on
    assert result.exit_code == 2 and fake_store.count() == 3
    assert result.stderr == ("error: --all would remove all 3 papers of the collection 'papers': add --yes to "
                             "confirm (there is no terminal to ask)\n")
    assert run("remove", "--all", "--source", "wrong.jsonl").exit_code == 2
    assert run("remove").exit_code == 2
    result = run("remove", "--all", "--yes")
    assert result.exit_code == 0 and result.stdout == "removed 3 papers from 'papers'; 0 left\n"
    assert ensure_default_collection(fake_store) is None and fake_store.count() == 0  # not refilled with ICML 2026


@pytest.mark.integration
def test_a_data_folder_that_is_a_file_is_named_as_a_file(tmp_path):
    import subprocess
    import sys

    notes = tmp_path / "notes.txt"
    notes.write_text("not a folder")
    result = subprocess.run([sys.executable, "-m", "assistant", "--data-dir", str(notes), "stats"], cwd=tmp_path,
                            capture_output=True, text=True, env={**os.environ})
    assert result.returncode == 1
    line = result.stderr.strip().splitlines()[-1]
    assert f"{notes} is a file, not a folder" in line and "--data-dir" in line, line
