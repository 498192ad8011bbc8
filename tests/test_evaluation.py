"""Evaluation metrics on small hand-checked cases, the question-file reader, and `assistant eval`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from assistant.evaluation import (
    Question,
    QuestionFileError,
    QuestionResult,
    check_thresholds,
    citation_precision,
    fact_found,
    fact_recall,
    load_questions,
    numbers_in,
    question_gold,
    reciprocal_rank,
    recall_at_k,
    refusal,
    resolve_gold,
    says_no_paper,
    says_not_stated,
    score,
    summarize,
)
from assistant.store.paper import Paper

# --- retrieval metrics -------------------------------------------------------------------------------


def test_recall_at_k_counts_gold_in_the_first_k_only():
    retrieved = ["a", "b", "c", "d", "e", "f"]
    assert recall_at_k(retrieved, ["b"], 5) == 1.0
    assert recall_at_k(retrieved, ["f"], 5) == 0.0  # rank 6 is outside recall@5
    assert recall_at_k(retrieved, ["a", "f"], 5) == 0.5
    assert recall_at_k(retrieved, ["a", "x", "y", "z"], 5) == 0.25
    assert recall_at_k(retrieved, [], 5) is None


def test_reciprocal_rank_is_one_over_the_first_gold_rank():
    assert reciprocal_rank(["a", "b", "c"], ["a"]) == 1.0
    assert reciprocal_rank(["a", "b", "c"], ["c", "b"]) == 0.5  # b at rank 2 comes first
    assert reciprocal_rank(["a", "b", "c", "d"], ["d"]) == 0.25
    assert reciprocal_rank(["a", "b"], ["z"]) == 0.0
    assert reciprocal_rank(["a"], []) is None


# --- facts: numbers compared as numbers ---------------------------------------------------------------


def test_numbers_in_reads_decimals_thousands_and_units():
    assert numbers_in("20× less memory, 21.74% better, 1,000 steps, 4x faster") == [20.0, 21.74, 1000.0, 4.0]
    assert numbers_in("A2R, GPT-4o and L2 loss") == []  # digits glued to names are not numbers
    assert numbers_in("a loss of -0.5 after 3-5 epochs") == [-0.5, 3.0, 5.0]


@pytest.mark.parametrize("fact, answer, found", [
    ("20", "It compresses the KV cache by up to 20× with quantization [1].", True),
    ("20", "a 20.0-fold reduction", True),
    ("20", "a 204-fold reduction", False),  # 204 is not 20
    ("20", "a 2.0x reduction", False),
    ("4", "WinQ speeds QAT up by 4x [1].", True),
    ("4", "WinQ speeds QAT up by 40% [1].", False),
    ("21.74%", "an accuracy gain of 21.74 % on MATH", True),
    ("21.74%", "an accuracy gain of 21.7% on MATH", False),
    ("1000", "trained for 1,000 steps", True),
    ("orthogonalization", "NorMuon combines Orthogonalization with neuron-wise normalisation.", True),
    ("exploration constant", "Larger exploration constants matter more than simulations.", True),
    ("exploration constant", "Exploration matters; so does the constant.", False),
    ("neuron-wise", "a neuron wise adaptive step", True),
    ("entropy", "It adapts the decoding.", False),
])
def test_fact_found(fact, answer, found):
    assert fact_found(fact, answer) is found


def test_fact_recall_is_the_share_of_facts_found():
    assert fact_recall("up to 20x with 4-bit quantization", ["20", "4", "pruning"]) == pytest.approx(2 / 3)
    assert fact_recall("anything", []) is None


# --- citations and refusals ---------------------------------------------------------------------------


def test_citation_precision():
    assert citation_precision(["a"], ["a"]) == 1.0
    assert citation_precision(["a", "b", "c"], ["a", "c", "d"]) == pytest.approx(2 / 3)
    assert citation_precision(["a", "a"], ["a"]) == 1.0  # the same paper cited twice counts once
    assert citation_precision([], ["a"]) == 0.0  # an answer that cites nothing earns nothing


@pytest.mark.parametrize("text", [
    "No paper in the collection is about image segmentation for medical scans.",
    "None of the abstracts address this question.",
    "I found no relevant papers for this question.",
    "The collection does not contain a paper on this topic.",
])
def test_says_no_paper(text):
    assert says_no_paper(text)


@pytest.mark.parametrize("text", [
    "The abstracts do not state which GPU was used to train PowerFlow.",
    "The PowerFlow abstract doesn't mention the hardware [1].",
    "The GPU is not stated in the abstract [1].",
])
def test_says_not_stated(text):
    assert says_not_stated(text)


def test_an_ordinary_answer_is_not_a_refusal():
    text = "STAR-KV compresses the KV cache by 20x when combined with quantization [1]."
    assert not says_no_paper(text) and not says_not_stated(text)
    assert refusal("out_of_corpus", text, cited=["p1"]) == 0.0
    assert refusal("not_in_abstract", text, cited=["p1"]) == 0.0


def test_out_of_corpus_refusal_must_cite_nothing():
    text = "No paper in the collection is about this."
    assert refusal("out_of_corpus", text, cited=[]) == 1.0
    assert refusal("out_of_corpus", text, cited=["p1"]) == 0.0  # said no paper, yet cited one
    assert refusal("out_of_corpus", "The abstracts do not say.", cited=[]) == 0.0  # not "no paper"
    assert refusal("single", text, cited=[]) is None


def test_not_in_abstract_refusal_may_cite_the_paper():
    assert refusal("not_in_abstract", "The abstract does not report the GPU [1].", cited=["p1"]) == 1.0
    assert refusal("not_in_abstract", "The abstracts do not say.", cited=[]) == 1.0  # the answerer's phrase
    # the paper exists: saying no paper is about it is wrong
    assert refusal("not_in_abstract", "No paper in the collection is about this question.", cited=[]) == 0.0
    assert refusal("not_in_abstract", "It was trained on an H100 [1].", cited=["p1"]) == 0.0


# --- gold papers, scoring and summary -----------------------------------------------------------------

PAPERS = [
    Paper(abstract="We introduce NorMuon, an optimizer.", title="NorMuon", title_is_derived=True, id="p_nor"),
    Paper(abstract="STAR-KV compresses the KV cache.", title="STAR-KV", title_is_derived=True, id="p_star"),
    Paper(abstract="A study of optimizers: NorMuon and Muon compared.", title="Optimizers", id="p_opt"),
]


def test_resolve_gold_prefers_the_exact_substring_and_reports_ambiguity():
    assert resolve_gold(["STAR-KV"], PAPERS) == (["p_star"], [])
    assert resolve_gold(["star-kv"], PAPERS) == (["p_star"], [])  # case-insensitive fallback
    ids, problems = resolve_gold(["NorMuon", "nothing like this"], PAPERS)
    assert ids == [] and len(problems) == 2
    assert "2 papers" in problems[0] and "matches no paper" in problems[1]


def test_score_and_summary_by_type():
    single = QuestionResult(Question("q1", "single", "?", ("STAR-KV",), ("20",)), gold_ids=["p_star"],
                            retrieved=["p_nor", "p_star"], cited=["p_star", "p_nor"], answer="about 20x [1][2]")
    ooc = QuestionResult(Question("q2", "out_of_corpus", "?"), retrieved=["p_nor"], cited=[],
                         answer="No paper in the collection is about this.")
    nia = QuestionResult(Question("q3", "not_in_abstract", "?", ("NorMuon",)), gold_ids=["p_nor"],
                         retrieved=["p_star", "p_opt", "p_nor"], cited=["p_nor"], answer="It uses H100s [1].")
    for r in (single, ooc, nia):
        score(r)
    assert single.metrics == {"recall_at_5": 1.0, "mrr": 0.5, "fact_recall": 1.0, "citation_precision": 0.5,
                              "refusal_rate": None, "gold_cited": 1.0, "multi_recall": None,
                              "false_refusal_rate": 0.0, "not_in_abstract_rate": None, "out_of_corpus_rate": None}
    assert ooc.metrics["recall_at_5"] is None and ooc.metrics["refusal_rate"] == 1.0
    assert nia.metrics["mrr"] == pytest.approx(1 / 3) and nia.metrics["refusal_rate"] == 0.0
    s = summarize([single, ooc, nia])
    assert s["overall"]["n"] == 3
    assert s["overall"]["mrr"] == pytest.approx((0.5 + 1 / 3) / 2, abs=1e-4)
    assert s["overall"]["refusal_rate"] == 0.5  # one of the two refusal questions
    assert s["overall"]["citation_precision"] == 0.5  # only the single question has it
    assert s["out_of_corpus"]["refusal_rate"] == 1.0 and s["out_of_corpus"]["mrr"] is None
    assert "multi" not in s


def _scored(qid, qtype, gold_ids, cited, answer, gold=None, facts=(), refused=False, conversation="", turn=0):
    q = Question(qid, qtype, "?", tuple(gold if gold is not None else gold_ids), tuple(facts),
                 conversation=conversation, turn=turn)
    return score(QuestionResult(q, gold_ids=list(gold_ids), retrieved=list(gold_ids), cited=list(cited),
                                answer=answer, refused=refused))


def test_per_type_metrics_on_a_hand_made_set():
    """Nine answers with known right values: gold cited, multi recall, false refusals, not-in-abstract
    and out-of-corpus refusals, per type and for the chat turns."""
    results = [
        _scored("s1", "single", ["p_star"], ["p_star"], "STAR-KV reaches 20$\\times$ [1].", facts=["20"]),
        _scored("s2", "single", ["p_nor"], ["p_opt"], "Muon is compared [1]."),  # wrong paper cited
        _scored("s3", "single", ["p_nor"], [], "No paper in the collection is about this question.",
                refused=True),  # a false refusal
        _scored("m1", "multi", ["p_nor", "p_star", "p_opt"], ["p_nor", "p_star"], "NorMuon [1]; STAR-KV [2]."),
        _scored("m2", "multi", ["p_nor", "p_star"], ["p_nor"], "NorMuon [1]. The abstracts do not say.",
                refused=True),  # cites one of two, and half refuses: counted as a refusal
        _scored("n1", "not_in_abstract", ["p_nor"], ["p_nor"], "The abstracts do not say. [1]", refused=True),
        _scored("n2", "not_in_abstract", ["p_nor"], ["p_nor"], "NorMuon was trained on H100 GPUs [1]."),
        _scored("o1", "out_of_corpus", [], [], "No paper in the collection is about this question.", refused=True),
        _scored("o2", "out_of_corpus", [], ["p_opt"], "No paper in the collection is about this question. [1]"),
        _scored("c1.1", "single", ["p_star"], ["p_star"], "STAR-KV [1].", conversation="c1", turn=1),
        _scored("c1.2", "single", ["p_star"], [], "The abstracts do not say.", refused=True, facts=["6.9"],
                conversation="c1", turn=2),
    ]
    s = summarize(results)
    assert set(s) == {"overall", "single", "multi", "not_in_abstract", "out_of_corpus", "chat"}
    assert s["single"]["n"] == 5  # s1-s3 and the two single turns
    assert s["single"]["gold_cited"] == 0.4  # s1 and c1.1
    assert s["single"]["false_refusal_rate"] == 0.4  # s3 and c1.2
    assert s["multi"]["multi_recall"] == round((2 / 3 + 1 / 2) / 2, 4)
    assert s["multi"]["gold_cited"] == 1.0 and s["multi"]["false_refusal_rate"] == 0.5
    assert s["not_in_abstract"]["not_in_abstract_rate"] == 0.5
    assert s["out_of_corpus"]["out_of_corpus_rate"] == 0.5  # o2 cites a paper
    assert s["out_of_corpus"]["not_in_abstract_rate"] is None and s["out_of_corpus"]["multi_recall"] is None
    assert s["chat"]["n"] == 2 and s["chat"]["gold_cited"] == 0.5 and s["chat"]["fact_recall"] == 0.0
    assert s["overall"]["gold_cited"] == round(4 / 7, 4)  # s1, m1, m2, c1.1 of 7 answerable
    assert results[0].metrics["fact_recall"] == 1.0  # 20$\times$ rendered: 20×


@pytest.mark.parametrize("fact, answer", [
    ("6.9", "up to 6.9$\\times$ faster"), ("6.9", "6.9x faster"), ("9,490", "9490 problems"),
    ("9490", "9,490 problems"), ("3.7", "by 3.7\\%"), ("A2RBench", "A$^2$RBench has four stages"),
    ("α < 1", "for $\\alpha < 1$"), ("memory access", "**Memory-access** overhead"),
    ("sequential", "mostly Sequential"), ("human's", "human’s"),
])
def test_facts_match_after_rendering_and_casefolding(fact, answer):
    assert fact_found(fact, answer)


def test_a_number_must_match_as_a_number():
    assert not fact_found("6.9", "69 times") and not fact_found("20", "204 tokens")
    assert not fact_found("2", "A$^2$RBench")  # a digit inside a name is no number


def test_known_items_resolve_by_record_id_venue_and_year_then_exact_title():
    papers = [Paper(abstract="a", title="Deep Sets", venue="ICLR", year=2020, source_id="x1", id="p1"),
              Paper(abstract="b", title="Other", venue="ICML", year=2021, source_id="x1", id="p2"),
              Paper(abstract="c", title="Deep Sets Revisited", venue="ICML", year=2021, source_id="y9", id="p3")]
    q = Question("ak1", "single", "?", ("Deep Sets",), gold_ids=("x1",), venue="iclr", year=2020)
    assert question_gold(q, papers) == (["p1"], [])
    q = Question("ak2", "single", "?", ("Deep Sets Revisited",), gold_ids=("missing",), venue="icml", year=2021)
    assert question_gold(q, papers) == (["p3"], [])  # by exact title, not the substring "Deep Sets"
    assert question_gold(Question("ao1", "out_of_corpus", "?"), papers) == ([], [])


def test_check_thresholds_names_each_missed_metric():
    summary = {"overall": {"recall_at_5": 0.8, "mrr": 0.7, "citation_precision": None}}
    assert check_thresholds(summary, {"recall_at_5": 0.8, "mrr": None}) == []
    missed = check_thresholds(summary, {"recall_at_5": 0.9, "citation_precision": 0.5})
    assert missed == ["recall_at_5 0.800 is below the minimum 0.900",
                      "citation_precision n/a is below the minimum 0.500"]
    assert check_thresholds(summary, {}, {"mrr": 0.5}) == ["mrr 0.700 is above the maximum 0.500"]


# --- the question file ---------------------------------------------------------------------------------


def test_load_questions_reads_the_seed_format(tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text('{"id":"d01","type":"single","q":"What is NorMuon?","gold":["NorMuon"],"facts":["x"]}\n\n'
                    '{"id":"d02","type":"out_of_corpus","q":"Segmentation?","gold":[],"facts":[]}\n')
    qs = load_questions(path)
    assert [(q.id, q.type, q.gold, q.line) for q in qs] == [("d01", "single", ("NorMuon",), 1),
                                                             ("d02", "out_of_corpus", (), 3)]


def test_load_questions_expands_a_conversation_into_its_turns(tmp_path):
    path = tmp_path / "chats.jsonl"
    path.write_text(json.dumps({"id": "c01", "type": "chat", "turns": [
        {"q": "What is STAR-KV?", "type": "single", "gold": ["STAR-KV"], "facts": []},
        {"q": "How much faster is it?", "type": "single", "gold": ["STAR-KV"], "facts": ["6.9"]}]}) + "\n")
    qs = load_questions(path)
    assert [(q.id, q.conversation, q.turn, q.facts) for q in qs] == [("c01.1", "c01", 1, ()),
                                                                     ("c01.2", "c01", 2, ("6.9",))]
    path.write_text('{"id": "c02", "turns": [{"q": "x", "type": "chat"}]}\n')
    with pytest.raises(QuestionFileError, match=r":1 \(turn 1\): field 'type' is 'chat'"):
        load_questions(path)


@pytest.mark.parametrize("content, message", [
    ('{"id":"a","type":"single","q":"x"}\n{broken\n', ":2: not valid JSON"),
    ('{"id":"a","type":"weird","q":"x"}\n', ":1: field 'type' is 'weird'"),
    ('{"id":"a","q":"x"}\n', ":1: field 'type' is missing; use one of single"),
    ('{"id":"a","type":"single","q":""}\n', ":1: field 'q'"),
    ('{"id":"a","type":"single","q":"x"}\n{"id":"a","type":"single","q":"y"}\n', ":2: duplicate question id 'a'"),
    ("\n", "no questions"),
])
def test_load_questions_errors_name_the_line(tmp_path, content, message):
    path = tmp_path / "qa.jsonl"
    path.write_text(content)
    with pytest.raises(QuestionFileError, match=message.replace("(", r"\(")):
        load_questions(path)


# --- the command ----------------------------------------------------------------------------------------

QA = [
    {"id": "s1", "type": "single", "q": "KV cache compression with quantization", "gold": ["STAR-KV"], "facts": []},
    {"id": "s2", "type": "single", "q": "NorMuon optimizer orthogonalization", "gold": ["NorMuon"], "facts": []},
    {"id": "o1", "type": "out_of_corpus", "q": "medical image segmentation", "gold": [], "facts": []},
]


@pytest.fixture
def qa_file(tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QA) + "\n")
    return path


@pytest.mark.integration
def test_eval_retrieval_only_json_and_thresholds(bundled_store, qa_file, tmp_path):
    from assistant.cli import app

    runner = CliRunner()
    out = tmp_path / "report.json"
    res = runner.invoke(app, ["eval", str(qa_file), "--retrieval-only", "--json", "-o", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert json.loads(out.read_text())["summary"] == data["summary"]
    assert set(data["summary"]) == {"overall", "single", "out_of_corpus"}
    assert data["summary"]["single"]["recall_at_5"] == 1.0
    q1 = data["questions"][0]
    assert q1["id"] == "s1" and q1["retrieved"][0] == q1["gold_ids"][0]  # STAR-KV ranked first
    assert set(q1) >= {"retrieved", "cited", "recall_at_5", "mrr", "fact_recall", "citation_precision",
                       "refusal_rate"}
    res = runner.invoke(app, ["eval", str(qa_file), "--retrieval-only", "--min-recall-at-5", "1.0",
                              "--min-refusal-rate", "0.5"])
    assert res.exit_code == 3  # no answers, so no refusal rate: the threshold is missed
    assert "refusal_rate n/a is below the minimum 0.500" in res.stderr


@pytest.mark.integration
def test_eval_interrupted_keeps_the_questions_evaluated_so_far(bundled_store, qa_file, tmp_path, monkeypatch):
    """Ctrl+C on the third question: the report of the first two is printed and written to -o, marked
    interrupted, exit 130 (with a real LLM, an hour of answers is not thrown away)."""
    from assistant import evaluation
    from assistant.cli import app

    real = evaluation.evaluate_question
    calls = []

    def stopped_at_the_third(question, **kwargs):
        calls.append(question.id)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(question, **kwargs)

    monkeypatch.setattr(evaluation, "evaluate_question", stopped_at_the_third)
    out = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["eval", str(qa_file), "--retrieval-only", "--json", "-o", str(out)])
    assert res.exit_code == 130, res.output
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and data["evaluated"] == 2 and data["total"] == 3
    assert [q["id"] for q in data["questions"]] == ["s1", "s2"]
    assert data["summary"]["single"]["recall_at_5"] == 1.0
    assert "interrupted after 2 of 3 questions" in res.stderr


def test_a_question_whose_gold_is_not_in_the_collection_is_not_scored():
    """A typo in a gold title must not pull the figures down (it scored 0 before): the question is
    left out of every mean and counted as unscored."""
    good = _scored("s1", "single", ["p_star"], ["p_star"], "STAR-KV [1].")
    typo = QuestionResult(Question("s2", "single", "?", ("NOT-A-PAPER",)), retrieved=["p_nor"], cited=["p_nor"],
                          answer="NorMuon [1].", problems=["gold 'NOT-A-PAPER' matches no paper in the collection"])
    score(typo)
    assert all(v is None for v in typo.metrics.values())
    s = summarize([good, typo])
    assert s["single"]["citation_precision"] == 1.0 and s["single"]["gold_cited"] == 1.0
    assert s["single"]["n"] == 2 and s["single"]["unscored"] == 1


@pytest.mark.integration
def test_eval_names_the_line_of_a_gold_that_matches_no_paper(bundled_store, tmp_path):
    from assistant.cli import app

    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps(QA[0]) + "\n" + json.dumps(QA[1] | {"id": "s2", "gold": ["NorMuonn"]}) + "\n")
    res = CliRunner().invoke(app, ["eval", str(qa), "--retrieval-only", "--json"])
    assert res.exit_code == 1
    assert f"{qa}:2 (s2): gold 'NorMuonn' matches no paper in the collection: the question is not scored" in res.stderr
    summary = json.loads(res.stdout)["summary"]
    assert summary["single"]["recall_at_5"] == 1.0 and summary["single"]["unscored"] == 1


def test_eval_bad_file_is_one_line_and_exit_1(tmp_path):
    from assistant.cli import app

    bad = tmp_path / "qa.jsonl"
    bad.write_text('{"id":"a","type":"single"}\n')
    res = CliRunner().invoke(app, ["eval", str(bad), "--retrieval-only"])
    assert res.exit_code == 1
    assert res.stderr.strip() == f"error: {bad}:1: field 'q' (the question) is missing or empty"
    res = CliRunner().invoke(app, ["eval", str(tmp_path / "missing.jsonl")])
    assert res.exit_code == 1 and "no such file or directory; check the path" in res.stderr


# --- answers through the event stream -----------------------------------------------------------------


class _StubRetriever:
    def __init__(self, store, papers):
        self.store, self._papers = store, papers

    def search(self, query, top_k=10, filters=None, mode="hybrid"):
        from assistant.retrieval import SearchResult

        return [SearchResult(paper=p, score=1.0 / n, rank=n) for n, p in enumerate(self._papers[:top_k], start=1)]


def test_evaluate_question_reads_sources_citations_and_done(monkeypatch):
    from assistant import answering
    from assistant.evaluation import evaluate_question
    from assistant.events import Citation, Citations, Done, Source, Sources, TextDelta

    def fake_answer(question, **kwargs):
        yield Sources(tuple(Source(n, p, 1.0) for n, p in enumerate(PAPERS, start=1)))
        yield TextDelta("STAR-KV reaches 20× [2]")
        yield TextDelta(" and NorMuon [1].")
        yield Citations((Citation(2, PAPERS[1]), Citation(1, PAPERS[0])), dropped=(7,))
        yield Done("STAR-KV reaches 20× [2] and NorMuon [1].", backend="fake", model="fake")

    monkeypatch.setattr(answering, "answer", fake_answer)
    q = Question("q1", "single", "How much does STAR-KV compress?", ("STAR-KV",), ("20",))
    r = evaluate_question(q, retriever=_StubRetriever(None, PAPERS), papers=PAPERS, llm=object())
    assert r.sources == ["p_nor", "p_star", "p_opt"] and r.cited == ["p_star", "p_nor"]
    assert r.metrics["fact_recall"] == 1.0 and r.metrics["citation_precision"] == 0.5
    assert r.metrics["mrr"] == 0.5  # the stub ranks STAR-KV second


def test_a_failing_answer_is_recorded_not_raised(monkeypatch):
    from assistant import answering
    from assistant.evaluation import evaluate_question
    from assistant.events import Error, TextDelta

    def failing(question, **kwargs):
        yield TextDelta("STAR-KV reaches 20")
        yield Error("cannot connect to the LLM server", kind="connection", partial="STAR-KV reaches 20")

    monkeypatch.setattr(answering, "answer", failing)
    q = Question("q1", "single", "?", ("STAR-KV",), ("20",))
    r = evaluate_question(q, retriever=_StubRetriever(None, PAPERS), papers=PAPERS, llm=object())
    assert r.error == "cannot connect to the LLM server"
    assert r.metrics["fact_recall"] == 1.0 and r.metrics["citation_precision"] == 0.0
    assert summarize([r])["overall"]["errors"] == 1


@pytest.mark.integration
def test_eval_extractive_on_the_seed_questions_passes_the_ci_thresholds(bundled_store):
    from assistant.cli import app
    from tests.conftest import SEED_QA

    if not SEED_QA.exists():
        pytest.skip(f"{SEED_QA} not found")
    res = CliRunner().invoke(app, ["eval", str(SEED_QA), "--llm", "extractive", "--json",
                                   "--min-recall-at-5", "0.9", "--min-citation-precision", "0.9",
                                   "--min-refusal-rate", "1.0"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["backend"] == "extractive" and data["summary"]["overall"]["n"] == 12
    by_id = {q["id"]: q for q in data["questions"]}
    assert by_id["d10"]["cited"] == [] and by_id["d10"]["refusal_rate"] == 1.0  # out of corpus
    assert by_id["d02"]["cited"] == by_id["d02"]["gold_ids"]  # STAR-KV cited for the STAR-KV question


@pytest.mark.integration
def test_eval_asks_conversation_turns_in_order_and_reports_a_chat_block(bundled_store, tmp_path):
    from assistant.cli import app

    chats = tmp_path / "chats.jsonl"
    chats.write_text(json.dumps({"id": "c01", "type": "chat", "turns": [
        {"q": "Is there work on shrinking the KV cache by exploiting redundancy in its hidden dimension?",
         "type": "single", "gold": ["STAR-KV"], "facts": []},
        {"q": "How much faster is it?", "type": "single", "gold": ["STAR-KV"], "facts": []},
        {"q": "Is there a paper on medical image segmentation with U-Nets?", "type": "out_of_corpus",
         "gold": [], "facts": []}]}) + "\n")
    res = CliRunner().invoke(app, ["eval", str(chats), "--llm", "extractive", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    turns = {q["id"]: q for q in data["questions"]}
    assert list(turns) == ["c01.1", "c01.2", "c01.3"]
    assert turns["c01.2"]["standalone_question"] == "How much faster is STAR-KV?"
    assert turns["c01.2"]["gold_cited"] == 1.0 and turns["c01.2"]["recall_at_5"] == 1.0
    assert turns["c01.3"]["standalone_question"] == turns["c01.3"]["q"]  # a new topic is not glued on
    assert data["summary"]["chat"]["n"] == 3 and data["summary"]["chat"]["gold_cited"] == 1.0


def test_load_questions_with_a_skipped_list_skips_bad_lines_and_keeps_the_rest(tmp_path):
    path = tmp_path / "qa.jsonl"
    path.write_text('{"id":"a","type":"single","q":"x"}\n{broken\n{"id":"a","type":"single","q":"y"}\n'
                    '{"id":"b","type":"single","q":"z"}\n')
    skipped: list[str] = []
    assert [q.id for q in load_questions(path, skipped)] == ["a", "b"]
    assert [s.split(": ", 1)[0] for s in skipped] == [f"{path}:2", f"{path}:3"]


@pytest.mark.integration
def test_eval_reports_a_bad_line_evaluates_the_rest_and_exits_1(bundled_store, qa_file):
    from assistant.cli import app

    qa_file.write_text(qa_file.read_text() + "{broken\n")
    res = CliRunner().invoke(app, ["eval", str(qa_file), "--retrieval-only", "--json"])
    assert res.exit_code == 1
    assert f"error: {qa_file}:4: not valid JSON" in res.stderr
    assert [q["id"] for q in json.loads(res.stdout)["questions"]] == ["s1", "s2", "o1"]  # the rest was evaluated


@pytest.mark.integration
@pytest.mark.parametrize("columns", [80, 200])
def test_eval_report_is_readable_at_any_terminal_width(bundled_store, qa_file, monkeypatch, columns):
    """No figure is squeezed to "…": at 80 columns the summary has one row per measure."""
    from assistant.cli import app

    monkeypatch.setenv("COLUMNS", str(columns))
    res = CliRunner().invoke(app, ["eval", str(qa_file), "--retrieval-only"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    assert "…" not in res.stdout
    summary = res.stdout[res.stdout.index("Summary"):].splitlines()
    # the single question's recall@5, printed in full: a row per measure at 80 columns, per type when wide
    row = next(line for line in summary if line.startswith("│ " + ("R@5" if columns == 80 else "single")))
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert cells[2] == "1.00", row  # R@5 row: overall, single, ...; single row: n, R@5, ...
