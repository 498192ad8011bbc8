"""benchmarks.fit_relevance: evidence dumped at both embedding precisions pools into separate questions."""

from __future__ import annotations

import json

from benchmarks import fit_relevance


def _dump(path, precision, dense):
    rows = [{"id": pid, "title": pid, "dense_similarity": d, "sentence_similarity": d, "lexical": lex,
             "score": 0.5, "relevant": True, "qid": qid, "file": "dev", "type": "single", "q": "q",
             "gold": gold, **({"precision": precision} if precision else {})}
            for qid in ("q1", "q2") for pid, d, lex, gold in (("a", dense, 1.0, True), ("b", dense - 0.3, 0.0, False))]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_a_question_dumped_at_both_precisions_counts_twice_in_its_file():
    assert fit_relevance.question_key("dev", "q1") == "dev#q1"
    assert fit_relevance.question_key("dev", "q1", "fp32") == "dev#q1"  # fp32 dumps made before keep their keys
    assert fit_relevance.question_key("dev", "q1", "int8") == "dev#q1@int8"
    assert fit_relevance.question_key("dev", "q1", "int8").split("#")[0] == "dev"  # left out with its file


def test_pooled_dumps_print_each_question_once_per_precision(tmp_path, capsys):
    fp32 = _dump(tmp_path / "fp32.jsonl", None, 0.6)
    int8 = _dump(tmp_path / "int8.jsonl", "int8", 0.58)
    assert fit_relevance.main([fp32, int8, "--all"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("q1 ")]
    assert len(lines) == 2 and all(" G " in line for line in lines)  # two questions, each best paper gold
    assert fit_relevance.main([fp32, "--all"]) == 0
    assert len([ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("q1 ")]) == 1


def test_compare_names_the_question_whose_kept_papers_differ_and_the_evidence_that_moved(tmp_path, capsys):
    def dump(path, kept_b, uncovered_b):
        rows = [{"id": "a", "title": "NorMuon", "dense_similarity": 0.5, "sentence_similarity": 0.6, "focus": 0.5,
                 "sentence_lexical": 0.4, "dense_gap": 0.1, "uncovered": 0.3, "relevant": True},
                {"id": "b", "title": "WinQ", "dense_similarity": 0.4, "sentence_similarity": 0.5, "focus": 0.5,
                 "sentence_lexical": 0.4, "dense_gap": 0.0, "uncovered": uncovered_b, "relevant": kept_b}]
        path.write_text("".join(json.dumps({**r, "qid": qid, "file": "dev", "type": "multi", "q": f"{qid}?"}) + "\n"
                                for qid in ("m1", "m2") for r in rows))
        return str(path)

    fp32 = dump(tmp_path / "fp32.jsonl", True, 0.30)
    int8 = dump(tmp_path / "int8.jsonl", False, 0.40)
    differing, change = fit_relevance.compare(fp32, int8)
    assert [d["key"] for d in differing] == ["dev#m1", "dev#m2"] and differing[0]["only_a"] == ["WinQ"]
    assert max(change, key=change.get) == "uncovered" and change["dense"] == 0.0
    assert fit_relevance.main([fp32, int8, "--compare"]) == 0
    assert "2 of 2 questions keep other papers" in capsys.readouterr().out
