"""The collection counted by venue and year (``assistant stats``, `PaperCollection.stats`), and the text
bar that draws a count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.store.paper import Paper


def collection_stats(papers: Iterable[Paper]) -> dict:
    """``{"total", "venues": [{"venue", "count", "years": [{"year", "count"}]}], "years": [{"year",
    "count"}]}``; papers without a venue or year are counted under None. Venues by count, years in order."""
    by_venue: Counter = Counter()
    by_year: Counter = Counter()
    by_pair: Counter = Counter()
    for p in papers:
        v, y = p.venue or None, p.year
        by_venue[v] += 1
        by_year[y] += 1
        by_pair[(v, y)] += 1

    def year_key(y):
        return (y is None, y or 0)

    venues = [{"venue": v, "count": n,
               "years": [{"year": y, "count": by_pair[(v, y)]}
                         for y in sorted({y for (vv, y) in by_pair if vv == v}, key=year_key)]}
              for v, n in sorted(by_venue.items(), key=lambda kv: (-kv[1], kv[0] is None, str(kv[0])))]
    years = [{"year": y, "count": by_year[y]} for y in sorted(by_year, key=year_key)]
    return {"total": sum(by_venue.values()), "venues": venues, "years": years}


def bar(count: int, largest: int, width: int = 30) -> str:
    """A horizontal bar of `count` relative to `largest`, at most `width` cells (eighths of a cell)."""
    if largest <= 0 or count <= 0:
        return ""
    eighths = max(1, round(count / largest * width * 8))
    full, rest = divmod(eighths, 8)
    return "█" * full + ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")[rest]
