"""`assistant batch`: input formats, error records, resume, and a run killed with SIGKILL then resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.openai_stub import Behaviour, OpenAIStub


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]  # every line must parse


# --- input and output files -------------------------------------------------------------------------

def test_read_questions_from_text_and_jsonl(tmp_path):
    from assistant.batch import read_questions

    txt = tmp_path / "q.txt"
    txt.write_text("# my questions\nWhat is WinQ?\n\n  What is   NorMuon?  \n")
    qs, problems = read_questions(txt)
    assert [(q.id, q.question) for q in qs] == [("2", "What is WinQ?"), ("4", "What is NorMuon?")]
    assert problems == []

    jl = tmp_path / "q.jsonl"
    jl.write_text("\n".join([
        json.dumps({"id": "a", "q": "What is WinQ?"}),
        json.dumps({"id": "b", "question": "What is EDEN?", "venue": "ICML", "year": "2026"}),
        "{not json",
        json.dumps({"id": "c"}),
        json.dumps({"id": "a", "q": "duplicate id"}),
        json.dumps({"q": "no id", "filters": {"author": "Smith", "year": "2020-2022"}}),
        json.dumps({"id": "d", "q": "bad year", "year": "last year"}),
        json.dumps({"id": "e", "q": "   "}),
        '{"id": "f", "q": "unterminated}',
        json.dumps({"id": "g", "question": ""}),
    ]) + "\n")
    qs, problems = read_questions(jl)
    assert [q.id for q in qs] == ["a", "b", "6"]
    assert qs[1].filters.venue == "ICML" and qs[1].filters.year_min == 2026 == qs[1].filters.year_max
    assert qs[2].filters.author == "Smith" and (qs[2].filters.year_min, qs[2].filters.year_max) == (2020, 2022)
    assert [p.split(":")[1] for p in problems] == ["3", "4", "5", "7", "8", "9", "10"]
    assert problems[0].startswith("q.jsonl:3: not valid JSON")
    assert "no question" in problems[1] and "already used" in problems[2] and "last year" in problems[3]
    # a blank question is named as blank, and the decoder's position is said once (a new user's trial)
    assert problems[4] == "q.jsonl:8: 'q' is blank; give the question"
    assert problems[5] == "q.jsonl:9: not valid JSON (unterminated string starting at column 18)"
    assert problems[6] == "q.jsonl:10: 'question' is blank; give the question"  # the field the line used

    # a question without words ("???") is no question, as `ask` refuses it (a new user's trial, round 16)
    nowords = tmp_path / "n.jsonl"
    nowords.write_text(json.dumps({"id": "a", "q": "???"}) + "\n" + json.dumps({"id": "b", "q": "What is WinQ?"}) + "\n"
                       + json.dumps({"id": "c", "turns": [{"q": "What is EDEN?"}, {"q": "🙂"}]}) + "\n")
    qs, problems = read_questions(nowords)
    assert [q.id for q in qs] == ["b"]
    assert problems == ["n.jsonl:1: the question has no words ('???'); ask with words",
                        "n.jsonl:3: turn 2 has no words ('🙂'); the conversation is skipped"]

    arr = tmp_path / "q.json"
    arr.write_text(json.dumps([{"id": "x", "q": "What is WinQ?"}, {"question": "What is EDEN?"}], indent=2))
    qs, problems = read_questions(arr)
    assert [(q.id, q.question) for q in qs] == [("x", "What is WinQ?"), ("2", "What is EDEN?")] and problems == []


@pytest.mark.parametrize("name", ["q.txt", "q.jsonl"])
def test_a_line_that_is_not_utf8_is_a_problem_and_the_other_questions_are_read(tmp_path, name):
    from assistant.batch import read_questions

    path = tmp_path / name
    lines = ["What is WinQ?", "Qu'est-ce que NorMuon, caf\u00e9 ?", "What is EDEN?"]
    if name.endswith(".jsonl"):
        lines = [json.dumps({"q": q}, ensure_ascii=False) for q in lines]
    path.write_bytes("\n".join(lines).encode("latin-1") + b"\n")  # an editor that saved as Latin-1
    qs, problems = read_questions(path)
    assert [q.question for q in qs] == ["What is WinQ?", "What is EDEN?"]
    assert problems == [f"{name}:2: not UTF-8 text (byte 0xe9); re-save the file as UTF-8"]


def test_a_missing_questions_file_is_one_line_naming_it(tmp_path):
    from assistant.batch import BatchError, read_questions

    with pytest.raises(BatchError) as err:
        read_questions(tmp_path / "nope.txt")
    assert str(err.value) == f"{tmp_path / 'nope.txt'}: no such file or directory; check the path"


def test_a_folder_given_as_the_questions_file_is_named_as_a_folder(tmp_path):
    """A new user's trial (round 21): `batch qdir` said "cannot read the questions file (Is a directory); check
    permissions"."""
    from assistant.batch import BatchError, read_questions

    with pytest.raises(BatchError) as err:
        read_questions(tmp_path)
    assert str(err.value) == f"{tmp_path}: is a folder; give the questions file inside it (.jsonl or .txt)"


def test_read_questions_expands_a_conversation_into_turns(tmp_path):
    from assistant.batch import read_questions

    jl = tmp_path / "chats.jsonl"
    jl.write_text("\n".join([
        json.dumps({"id": "c01", "turns": [{"q": "What is STAR-KV?"}, {"q": "How much  faster is it?"}]}),
        json.dumps({"id": "s1", "q": "What is WinQ?"}),
        json.dumps({"id": "c02", "venue": "ICML", "turns": [{"q": "What is EDEN?"}, {"question": "Who made it?"}]}),
        json.dumps({"id": "c03", "turns": [{"q": "What is PCR?"}, {"x": 1}]}),
        json.dumps({"id": "c01", "turns": [{"q": "again"}]}),
    ]) + "\n")
    qs, problems = read_questions(jl)
    assert [(q.id, q.conversation, q.turn, q.question) for q in qs] == [
        ("c01.1", "c01", 1, "What is STAR-KV?"), ("c01.2", "c01", 2, "How much faster is it?"),
        ("s1", "", 0, "What is WinQ?"), ("c02.1", "c02", 1, "What is EDEN?"), ("c02.2", "c02", 2, "Who made it?")]
    assert qs[4].filters.venue == "ICML"
    assert [p.split(":")[1] for p in problems] == ["4", "5"]
    assert "turn 2: no question" in problems[0] and "already used" in problems[1]


def test_read_questions_names_what_is_wrong_with_a_line(tmp_path):
    """A new user's trial (round 23): a number as 'q' was "no question", a line with both 'q' and 'turns' lost its
    'q' without a word, a blank turn was "has no question"."""
    from assistant.batch import read_questions

    jl = tmp_path / "mixed.jsonl"
    jl.write_text("\n".join([
        json.dumps({"id": "e", "q": 123}),
        json.dumps({"id": "z3", "q": "what is mHC", "turns": [{"q": "and its speedup?"}]}),
        json.dumps({"id": "z1", "turns": [{"q": "what is WinQ"}, {"q": " "}]}),
        json.dumps({"id": "ok", "q": "what is EDEN"}),
    ]) + "\n")
    qs, problems = read_questions(jl)
    assert [q.id for q in qs] == ["ok"]
    assert problems == [
        "mixed.jsonl:1: 'q' is a number, not text; give the question as a string",
        "mixed.jsonl:2: has both 'turns' and a question; give one question ('q') or a conversation ('turns')",
        "mixed.jsonl:3: turn 2: the question is blank; the conversation is skipped (its later turns need it)"]


def test_read_questions_refuses_binary_data_once(tmp_path):
    from assistant.batch import BatchError, read_questions

    blob = tmp_path / "rand.bin"
    blob.write_bytes(bytes(range(256)) * 12)
    with pytest.raises(BatchError, match=r"rand\.bin: not a text file \(binary data\)"):
        read_questions(blob)
    latin = tmp_path / "latin.txt"  # no NUL byte, but most lines are not UTF-8
    latin.write_bytes(b"\n".join(b"caf\xe9 \xe0 la cr\xe8me %d" % i for i in range(6)))
    with pytest.raises(BatchError, match=r"latin\.txt: not UTF-8 text \(most lines"):
        read_questions(latin)


def test_read_questions_reads_a_csv_by_its_header(tmp_path):
    from assistant.batch import BatchError, read_questions

    csv_file = tmp_path / "q.csv"
    csv_file.write_text('id,q\n1,what is mHC\n2,\n3,"How much faster is STAR-KV, in the end?"\n', encoding="utf-8")
    qs, problems = read_questions(csv_file)
    assert [(q.id, q.question) for q in qs] == [("1", "what is mHC"), ("3", "How much faster is STAR-KV, in the end?")]
    assert problems == ["q.csv:3: no question in column 'q'"]
    headless = tmp_path / "h.csv"
    headless.write_text("1,what is mHC\n", encoding="utf-8")
    with pytest.raises(BatchError, match=r"needs a header row with a 'q' or 'question' column"):
        read_questions(headless)


@pytest.mark.parametrize("rows, kept, problems", [
    # a quote left open in the last row (a new user's trial, round 35: the whole file was lost)
    (['x1,What is ALIVE?', 'x2', 'x3,"unterminated'], ["x1"],
     ["q.csv:3: no question in column 'q'", "q.csv:4: not valid CSV (unexpected end of data); check the quotes of "
      "that row"]),
    # one in the middle swallows the later lines into its cell: only that row is lost
    (['x1,What is ALIVE?', 'x2,"what is mHC', 'x3,How much faster is STAR-KV?', 'x4,"A, quoted, question?"'],
     ["x1", "x3", "x4"], ["q.csv:3: not valid CSV (',' expected after '\"'); check the quotes of that row"]),
    # a quoted question over two lines is one row (a control)
    (['x1,"What is', 'ALIVE?"', 'x2,what is mHC'], ["x1", "x2"], []),
])
def test_a_broken_csv_row_is_a_problem_and_the_other_rows_are_kept(tmp_path, rows, kept, problems):
    from assistant.batch import read_questions

    csv_file = tmp_path / "q.csv"
    csv_file.write_text("\n".join(["id,q", *rows]) + "\n", encoding="utf-8")
    qs, found = read_questions(csv_file)
    assert [q.id for q in qs] == kept and found == problems


def test_a_broken_csv_header_is_an_error_naming_it(tmp_path):
    from assistant.batch import BatchError, read_questions

    csv_file = tmp_path / "q.csv"
    csv_file.write_text('"id,q\nx1,What is ALIVE?\n', encoding="utf-8")
    with pytest.raises(BatchError, match=r"q\.csv:1: not valid CSV \(unexpected end of data\); check the quotes of "
                                         r"the header row"):
        read_questions(csv_file)


def test_resume_repairs_a_torn_last_line_and_retries_errors(tmp_path):
    from assistant.batch import load_answered

    out = tmp_path / "a.jsonl"
    out.write_text(json.dumps({"question_id": "1", "answer": "x"}) + "\n"
                   + json.dumps({"question_id": "2", "answer": "", "error": "boom"}) + "\n"
                   + json.dumps({"question_id": "3", "answer": "y"}) + "\n"
                   + '{"question_id": "4", "answ')
    answered, repaired, errors = load_answered(out)
    assert answered == {"1", "3"} and errors == 1 and "1 torn" in repaired
    assert [r["question_id"] for r in read_jsonl(out)] == ["1", "3"]
    assert load_answered(out) == ({"1", "3"}, "", 0)  # nothing left to repair


# --- the command through the openai backend (stub server) ------------------------------------------

def test_batch_refuses_an_answers_path_it_cannot_write_before_answering(tmp_path):
    from typer.testing import CliRunner

    from assistant.cli import app

    questions = tmp_path / "q.txt"
    questions.write_text("What is WinQ?\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    # a file where the folder should be, and a folder that does not exist (a mistyped path is not created: a new
    # user's trial, round 16)
    for out, says in [(tmp_path, "is a folder"), (blocker / "answers.jsonl", f"{blocker} is not a folder"),
                      (tmp_path / "no-such" / "answers.jsonl", f"{tmp_path / 'no-such'} does not exist")]:
        result = CliRunner().invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "extractive"])
        assert result.exit_code == 1
        assert result.stderr.startswith("error: ") and says in result.stderr, result.stderr
    assert not (tmp_path / "no-such").exists()

@pytest.fixture
def stub():
    with OpenAIStub() as s:
        yield s


@pytest.mark.integration
def test_batch_writes_one_line_per_question_and_a_failure_does_not_stop_it(stub, bundled_store, tmp_path,
                                                                          monkeypatch):
    from typer.testing import CliRunner

    from assistant.cli import app

    monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
    stub.reply = "From the abstracts [1]."
    stub.behaviour_for = lambda body: (Behaviour("500") if "NorMuon" in body["messages"][-1]["content"]
                                       and "Question: What is NorMuon" in body["messages"][-1]["content"] else None)
    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(json.dumps(x) for x in [
        {"id": "winq", "q": "What speedup does WinQ give to quantization-aware training?"},
        {"id": "normuon", "q": "What is NorMuon?"},
        {"id": "starkv", "question": "How much does STAR-KV compress the KV cache?", "venue": "ICML"},
        {"id": "med", "q": "Which paper proposes a new image segmentation architecture for medical scans?"},
    ]) + "\n")
    out = tmp_path / "answers.jsonl"
    runner = CliRunner()
    result = runner.invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "openai", "--concurrency", "4",
                                 "-k", "3"])
    assert result.exit_code == 1, result.output  # one question failed
    records = {r["question_id"]: r for r in read_jsonl(out)}
    assert set(records) == {"winq", "normuon", "starkv", "med"}
    assert records["normuon"]["error_kind"] == "server" and "HTTP 500" in records["normuon"]["error"]
    assert records["winq"]["citations"][0]["title"] == "WinQ" and "error" not in records["winq"]
    assert records["starkv"]["sources"][0]["title"] == "STAR-KV"
    assert records["med"]["refused"] and records["med"]["citations"] == []
    for r in records.values():
        assert {"question", "answer", "sources", "citations", "dropped_citations", "backend", "model", "usage",
                "seconds"} <= r.keys() and r["backend"] == "openai"
    assert "answered 3 (1 refused), failed 1" in result.stderr

    # the service recovers: --resume asks only the failed question again
    stub.behaviour_for = None
    before = len(stub.chat_requests)
    result = runner.invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "openai", "--resume", "-k", "3"])
    assert result.exit_code == 0, result.output
    assert len(stub.chat_requests) - before == 1
    records = read_jsonl(out)
    assert sorted(r["question_id"] for r in records) == ["med", "normuon", "starkv", "winq"]
    assert not any("error" in r for r in records)

    # an existing output file is not overwritten by accident: a usage mistake (exit code 2)
    result = runner.invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "openai"])
    assert result.exit_code == 2 and "--resume" in result.stderr


@pytest.mark.integration
def test_batch_killed_with_sigkill_and_resumed_answers_each_question_once(stub, tmp_path):
    stub.reply = "Answer [1]."
    stub.delay = 0.5
    n = 12
    questions = tmp_path / "q.txt"
    questions.write_text("\n".join(f"What does WinQ do for quantization, variant {i}?" for i in range(n)) + "\n")
    out = tmp_path / "answers.jsonl"
    env = {**os.environ, "OPENAI_BASE_URL": stub.url, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "assistant", "batch", str(questions), "-o", str(out), "--llm", "openai", "-k", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if out.exists() and len(out.read_bytes().splitlines()) >= 3:
                break
            if proc.poll() is not None:
                pytest.fail(f"batch ended before it was killed: {proc.communicate()}")
            time.sleep(0.05)
        else:
            pytest.fail("batch wrote no answers within 120 s")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    written = len(out.read_bytes().splitlines())
    assert 3 <= written < n
    with open(out, "ab") as f:  # what a kill in the middle of a write leaves behind
        f.write(b'{"question_id": "12", "answer": "half a li')

    stub.delay = 0
    resumed = subprocess.run(cmd + ["--resume"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    records = read_jsonl(out)
    ids = [r["question_id"] for r in records]
    assert sorted(ids, key=int) == [str(i) for i in range(1, n + 1)]  # each exactly once
    assert all("error" not in r and r["answer"] for r in records)
    assert "repaired the output file" in resumed.stderr
    assert f"already answered {written}" in resumed.stderr
    # the refusals counted are the answers of this run, said beside them (round 28: "refused 0 of N" read as none)
    assert f"answered {n - written} (0 refused)" in resumed.stderr


@pytest.mark.integration
def test_batch_with_the_extractive_backend(bundled_store, tmp_path):
    from typer.testing import CliRunner

    from assistant.cli import app

    questions = tmp_path / "q.txt"
    questions.write_text("What speedup does WinQ give to quantization-aware training?\n"
                         "Which GPU was used to train PowerFlow?\n")
    out = tmp_path / "a.jsonl"
    result = CliRunner().invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "extractive", "-c", "4",
                                      "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["answered"] == 2 and summary["refused"] == 1 and summary["backend"] == "extractive"
    assert "one question at a time" in result.stderr
    winq, gpu = read_jsonl(out)
    assert winq["question_id"] == "1" and winq["citations"][0]["title"] == "WinQ"
    assert gpu["refused"] and gpu["citations"] == []


def test_batch_reports_a_bad_line_as_an_error_with_file_and_line_and_answers_the_rest(bundled_store, tmp_path):
    from typer.testing import CliRunner

    from assistant.cli import app

    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "a", "q": "What is NorMuon?"}\nnot json\n')
    out = tmp_path / "a.jsonl"
    result = CliRunner().invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "extractive"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: q.jsonl:2: not valid JSON"), result.stderr
    assert [row["question_id"] for row in read_jsonl(out)] == ["a"]


# --- the output file never destroys the user's data -------------------------------------------------

QUESTIONS = '{"id":"q1","q":"What is STAR-KV?"}\n{"id":"q2","q":"What is EDEN?"}\n'
ABSTRACTS = ('{"title": "EDEN", "abstract": "We propose EDEN, an entropy-informed decoding method."}\n'
             '{"title": "WinQ", "abstract": "WinQ speeds up quantization-aware training."}\n')


def _batch(args):
    from typer.testing import CliRunner

    from assistant.cli import app

    return CliRunner().invoke(app, ["batch", *args, "--llm", "extractive"])


@pytest.mark.parametrize("flags", [["--resume"], ["--overwrite"], []])
@pytest.mark.parametrize("link", ["same path", "symlink", "hard link", "dotted path"])
def test_batch_refuses_the_questions_file_as_its_output(tmp_path, flags, link):
    questions = tmp_path / "q.jsonl"
    questions.write_text(QUESTIONS)
    out = {"same path": questions, "dotted path": tmp_path / "sub" / ".." / "q.jsonl",
           "symlink": tmp_path / "answers.jsonl", "hard link": tmp_path / "answers.jsonl"}[link]
    (tmp_path / "sub").mkdir()
    if link == "symlink":
        out.symlink_to(questions)
    elif link == "hard link":
        os.link(questions, out)
    result = _batch([str(questions), "-o", str(out), *flags])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "is the questions file itself" in result.stderr
    assert questions.read_text() == QUESTIONS  # nothing lost


@pytest.mark.parametrize("content, line, says", [
    (ABSTRACTS, 1, "not an answer record"),  # an abstracts dump: valid JSON, not answers
    (json.dumps({"question_id": "1", "answer": "x"}) + "\n" + ABSTRACTS, 2, "not an answer record"),
    ("my notes about the run\n" + json.dumps({"question_id": "1", "answer": "x"}) + "\n", 1, "is not JSON"),
    ('[1, 2]\n', 1, "not an answer record"),
])
@pytest.mark.parametrize("flag", ["--resume", "--overwrite"])
def test_batch_refuses_to_resume_into_or_overwrite_a_file_that_is_not_answers(tmp_path, content, line, says, flag):
    questions = tmp_path / "one.txt"
    questions.write_text("What is EDEN?\n")
    out = tmp_path / "my_abstracts.jsonl"
    out.write_text(content)
    result = _batch([str(questions), "-o", str(out), flag])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: {out}:{line}: ")
    assert says in result.stderr and "choose another -o file" in result.stderr
    assert out.read_text() == content  # untouched


def test_resume_removes_only_a_torn_last_line(tmp_path):
    from assistant.batch import BatchError, load_answered

    out = tmp_path / "a.jsonl"
    good = json.dumps({"question_id": "1", "answer": "x"}) + "\n"
    torn_in_the_middle = good + '{"question_id": "2", "answ\n' + good.replace('"1"', '"3"')
    out.write_text(torn_in_the_middle)
    with pytest.raises(BatchError, match=r"a.jsonl:2: is not JSON"):
        load_answered(out)
    assert out.read_text() == torn_in_the_middle
    out.write_text(good + '{"question_id": "2", "answ')  # torn last line: the one repair allowed
    assert load_answered(out) == ({"1"}, "removed 1 torn last line", 0)
    assert out.read_text() == good


@pytest.mark.integration
def test_batch_asks_the_turns_of_a_conversation_in_order_and_resumes_per_turn(bundled_store, tmp_path):
    """c01.2 ("how much faster is it?") is read with its history: the paper the first answer cited. After
    its line is lost, --resume asks it again with the history rebuilt from the file (c01.1 is not asked
    again), and the result is the same standalone question."""
    from typer.testing import CliRunner

    from assistant.cli import app

    questions = tmp_path / "chats.jsonl"
    questions.write_text("\n".join([
        json.dumps({"id": "c01", "turns": [
            {"q": "Is there work on shrinking the KV cache by exploiting redundancy in its hidden dimension?"},
            {"q": "How much faster is it?"},
            {"q": "Which decoding method approximates beam search with fewer expansions?"}]}),
        json.dumps({"id": "s1", "q": "What is NorMuon?"}),
    ]) + "\n")
    out = tmp_path / "a.jsonl"
    runner = CliRunner()
    result = runner.invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "extractive", "--json"])
    assert result.exit_code == 0, result.output
    records = read_jsonl(out)
    by_id = {r["question_id"]: r for r in records}
    assert [r["question_id"] for r in records] == ["c01.1", "c01.2", "c01.3", "s1"]
    assert by_id["c01.1"]["citations"][0]["title"] == "STAR-KV"
    assert by_id["c01.2"]["standalone_question"] == "How much faster is STAR-KV?"
    assert by_id["c01.2"]["citations"][0]["title"] == "STAR-KV"
    assert (by_id["c01.2"]["conversation"], by_id["c01.2"]["turn"]) == ("c01", 2)
    # a self-contained switch of topic is not rewritten and finds its own paper
    assert by_id["c01.3"]["standalone_question"] == by_id["c01.3"]["question"]
    assert by_id["c01.3"]["citations"][0]["title"] == "EDEN"
    assert "conversation" not in by_id["s1"]

    out.write_text("".join(json.dumps(r) + "\n" for r in records if r["question_id"] != "c01.2"))
    result = runner.invoke(app, ["batch", str(questions), "-o", str(out), "--llm", "extractive", "--json",
                                 "--resume"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["answered"] == 1 and summary["skipped"] == 3
    again = read_jsonl(out)
    assert sorted(r["question_id"] for r in again) == ["c01.1", "c01.2", "c01.3", "s1"]
    assert again[-1]["question_id"] == "c01.2"
    assert again[-1]["standalone_question"] == "How much faster is STAR-KV?"


@pytest.mark.parametrize("now", ["What is NorMuon?\nWhat is WinQ?\nWhat is EDEN?\n",  # a line added above
                                 "What is STAR-KV?\n"])  # another questions file resumed into these answers
def test_resume_refuses_answers_whose_ids_name_other_questions(tmp_path, now):
    """Text-file ids are line numbers: resuming after the questions changed would skip a new question and
    keep an old answer under its id. The run stops before touching anything and says why."""
    answers = "".join(json.dumps({"question_id": str(i), "question": q, "answer": "x"}) + "\n"
                      for i, q in enumerate(["What is WinQ?", "What is EDEN?"], start=1))
    out = tmp_path / "answers.jsonl"
    out.write_text(answers)
    questions = tmp_path / "q.txt"
    questions.write_text(now)
    result = _batch([str(questions), "-o", str(out), "--resume"])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: {out}: question 1 was answered as ")
    assert "--overwrite" in result.stderr and "new -o file" in result.stderr
    assert out.read_text() == answers  # untouched


def test_resume_accepts_the_same_questions_respaced(tmp_path):
    from assistant.batch import BatchQuestion, check_same_questions

    out = tmp_path / "a.jsonl"
    out.write_text(json.dumps({"question_id": "1", "question": "What is  WinQ?", "answer": "x"}) + "\n")
    check_same_questions(out, [BatchQuestion("1", "What is WinQ? ", line=1)])  # no error


def test_an_existing_file_of_something_else_is_named_as_such_not_offered_resume(tmp_path):
    questions = tmp_path / "one.txt"
    questions.write_text("What is EDEN?\n")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    result = _batch([str(questions), "-o", str(notes)])
    assert result.exit_code == 1 and "not an answers file" in result.stderr and "--resume" not in result.stderr
    assert notes.read_text() == "my notes\n"


def test_load_answered_refuses_other_questions_before_repairing(tmp_path):
    """The library path (`run_batch(resume=True)`): the same refusal, and the torn last line is not yet
    repaired, so a refused resume changes nothing."""
    from assistant.batch import BatchError, BatchQuestion, load_answered

    out = tmp_path / "a.jsonl"
    text = json.dumps({"question_id": "1", "question": "What is WinQ?", "answer": "x"}) + '\n{"question_id": "2", "q'
    out.write_text(text)
    with pytest.raises(BatchError, match=r"question 1 was answered as 'What is WinQ\?'"):
        load_answered(out, [BatchQuestion("1", "What is NorMuon?", line=1)])
    assert out.read_text() == text
    assert load_answered(out, [BatchQuestion("1", "What is WinQ?", line=1)]) == ({"1"}, "removed 1 torn last line", 0)
