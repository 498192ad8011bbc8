"""benchmarks.fit_theme: the theme-membership model is fit on the papers kept beside a theme's best."""

from __future__ import annotations

import json
import math

from benchmarks import fit_theme


def _dump(path):
    """Two files of multi questions: the papers kept beside the best are gold when their dense similarity stands
    above the median retrieved paper's, not when it sits at it; one was left out by the model then in use."""
    rows = []
    for file in ("dev_a", "dev_b"):
        for n in range(6):
            papers = [("best", 0.9, 0.2, True, True, ""), ("member", 0.5, 0.15, True, True, ""),
                      ("passing", 0.3, -0.05, False, n % 2 == 0, "" if n % 2 == 0 else "a weaker member of the theme"
                       " than the papers named before it"), ("other", 0.01, -0.1, False, False, "not about it")]
            rows += [{"id": pid, "score": score, "dense_gap": gap, "gold": gold, "relevant": kept, "note": note,
                      "qid": f"m{n}", "file": file, "type": "multi"} for pid, score, gap, gold, kept, note in papers]
    rows.append({"id": "x", "score": 0.4, "dense_gap": 0.0, "gold": False, "relevant": True, "qid": "s1",
                 "file": "dev_a", "type": "single"})  # a one-paper question: not a theme
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_rows_are_the_papers_kept_beside_a_themes_best(tmp_path):
    lines = [json.loads(line) for line in open(_dump(tmp_path / "dump.jsonl"))]
    rows = fit_theme.member_rows(lines)
    # per question: "member" and "passing" (kept, or left out by the membership model); not the best, nor "other"
    assert len(rows) == 2 * 6 * 2
    assert sum(r["gold"] for r in rows) == 12
    assert {r["x"][2] for r in rows} == {math.log(2), math.log(3)}  # log(rank + 1)


def test_the_fit_drops_the_passing_papers_and_prints_the_weights(tmp_path, capsys):
    assert fit_theme.main([_dump(tmp_path / "dump.jsonl"), "--min-member", "0.5"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "<- MIN_MEMBER" in line).split()
    assert row[:3] == ["0.50", "0", "12"]  # held out file by file: every passing paper dropped, no gold one
    weights = next(line for line in out.splitlines() if line.startswith("MEMBER_WEIGHTS"))
    assert float(weights.split("(")[1].split(",")[1]) > 0  # more dense similarity than the median: a member
