"""benchmarks.gate_sweep: the gate's trade-off per threshold, from evidence dumps."""

from __future__ import annotations


def test_gate_sweep_counts_a_known_item_quoted_from_its_paper_and_a_refused_out_of_collection_question():
    from benchmarks.gate_sweep import questions, rates

    def row(qid, qtype, score, gold=False, note=""):
        return {"file": "f", "qid": qid, "type": qtype, "score": score, "gold": gold, "note": note, "names": []}

    lines = [row("k1", "single", 0.60, gold=True), row("k1", "single", 0.30),
             row("k2", "single", 0.50), row("k2", "single", 0.45, gold=True),  # another paper first: not its paper
             row("k3", "single", 0.42, gold=True), row("k3", "single", 0.10),  # below 0.48, far ahead of the next
             row("o1", "out_of_corpus", 0.46), row("o1", "out_of_corpus", 0.40),
             row("o2", "out_of_corpus", 0.90, note="no paper in the collection mentions Loihi")]  # refused anyway
    qs = questions(lines)
    assert rates(qs, 0.48) == (1 / 3, 1.0, 3, 2)
    assert rates(qs, 0.44) == (1 / 3, 0.5, 3, 2)  # k2 quotes its first paper; o1 is answered
    assert rates(qs, 0.40) == (2 / 3, 0.5, 3, 2)
    assert rates(qs, 0.48, lead=(0.38, 0.18)) == (2 / 3, 1.0, 3, 2)  # k3 stands out; o1 leads by 0.06 only
