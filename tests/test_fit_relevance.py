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
