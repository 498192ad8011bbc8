"""`assistant stats`: the collection counted by venue and year, as a bar chart and as JSON."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from assistant.stats import bar, collection_stats
from assistant.store.paper import Paper


def _papers(spec):
    return [Paper(abstract=f"abstract {i}", title=f"t{i}", venue=v, year=y, id=f"p{i}")
            for i, (v, y) in enumerate(spec)]


def test_collection_stats_counts_by_venue_and_year():
    papers = _papers([("ICLR", 2024)] * 3 + [("ICLR", 2023)] + [("ICML", 2024)] * 2 + [("", None)])
    s = collection_stats(papers)
    assert s["total"] == 7
    assert [(v["venue"], v["count"]) for v in s["venues"]] == [("ICLR", 4), ("ICML", 2), (None, 1)]
    assert s["venues"][0]["years"] == [{"year": 2023, "count": 1}, {"year": 2024, "count": 3}]
    assert s["years"] == [{"year": 2023, "count": 1}, {"year": 2024, "count": 5}, {"year": None, "count": 1}]


def test_bar_is_proportional_and_never_empty_for_a_nonzero_count():
    assert bar(10, 10, width=10) == "█" * 10
    assert bar(5, 10, width=10) == "█" * 5
    assert bar(1, 1000, width=10) == "▏"  # tiny counts still show
    assert bar(0, 10) == ""


@pytest.fixture
def airas_sample(tmp_path):
    """Three venues/years in the airas JSON layout."""
    files = {"iclr/2024.json": [("ICLR", 2024)] * 3, "iclr/2023.json": [("ICLR", 2023)],
             "icml/2024.json": [("ICML", 2024)] * 2}
    for name, spec in files.items():
        path = tmp_path / "airas" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        recs = [{"id": f"{name}-{i}", "title": f"Paper {name} {i}", "abstract": f"About topic {i} of {name}.",
                 "conference": v, "year": y} for i, (v, y) in enumerate(spec)]
        path.write_text(json.dumps(recs))
    return tmp_path / "airas"


def test_stats_command_text_and_json(settings, fake_store, airas_sample, monkeypatch):
    from assistant.cli import app
    from assistant.store.ingest import ingest

    ingest([airas_sample], fake_store)
    monkeypatch.setattr("assistant.cli.collection.open_store", lambda s, load_default=True: fake_store)
    runner = CliRunner()
    res = runner.invoke(app, ["stats", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["total"] == 6
    assert {(v["venue"], v["count"]) for v in data["venues"]} == {("ICLR", 4), ("ICML", 2)}
    res = runner.invoke(app, ["stats"])
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    iclr24 = next(line for line in lines if "ICLR" in line and "2024" in line)
    icml24 = next(line for line in lines if "ICML" in line and "2024" in line)
    assert iclr24.rstrip().endswith("3") and icml24.rstrip().endswith("2")
    assert iclr24.count("█") > icml24.count("█") > 0  # the bar is longer for the larger count
    res = runner.invoke(app, ["stats", "--venue", "ICML", "--json"])
    assert json.loads(res.stdout)["total"] == 2
    res = runner.invoke(app, ["stats", "--year", "1999"])
    assert res.exit_code == 0 and "No paper matches the filters (year=1999)" in res.stdout


def test_stats_on_the_bundled_collection(data_dir):
    from assistant.cli import app

    res = CliRunner().invoke(app, ["stats", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["total"] == 19
    assert data["venues"] == [{"venue": "ICML", "count": 19, "years": [{"year": 2026, "count": 19}]}]
