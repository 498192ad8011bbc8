"""Pure text helpers for the chat app (no Textual import): citation markers turned into links, safe
one-line labels and Markdown that shows a model's text as written. Sentences, stop words, markers and
the abstract sentences an answer relied on are `assistant.text`'s.

Nothing here interprets user or paper text as markup: results are plain strings, spans, or
`rich.text.Text` built with ``Text(...)`` (never ``Text.from_markup``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.text import CITATION_MARKER, hard_line_breaks


def link_citations(answer: str, cited: Sequence[int], turn: int) -> str:
    """Markdown with each checked marker ``[n]`` (also ``[1, 3]``) made a link ``cite:<turn>:<n>``
    that the app opens as source n of that turn. Markers not in `cited` are left as they are."""
    cited_set = set(cited)

    def sub(m: re.Match) -> str:
        nums = [int(x) for x in re.findall(r"\d+", m.group(1))]
        if not nums or not all(n in cited_set for n in nums):
            return m.group(0)
        return "".join(f"[\\[{n}\\]](cite:{turn}:{n})" for n in nums)

    return CITATION_MARKER.sub(sub, answer)


def one_line(text: str, max_chars: int) -> str:
    """`text` on one line, clipped to `max_chars` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= max_chars else line[: max_chars - 1] + "…"


_MATH_OR_CODE = re.compile(r"(`+)(?:.+?)\1|\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
_ESCAPED_PUNCT = re.compile(r"\\(?=[!-/:-@\[-`{-~])")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_MATH_SPECIAL = re.compile(r"([*_\[\]<`~])")


def verbatim_markdown(text: str) -> str:
    """Markdown that renders the model's text as it is while keeping its Markdown (lists, bold, code).

    LaTeX survives: a backslash before punctuation (``75\\%``, ``\\{``) is doubled so Markdown does not
    eat it, and inside ``$...$`` / ``$$...$$`` the characters Markdown would read as emphasis or links
    (``* _ [ ] < ` ~``) are escaped. Outside math, ``<tag`` is escaped so it is not taken as HTML.
    Code spans are left alone. A single line break stays a line break (`hard_line_breaks`): one line per
    paper in a several-paper answer.
    """
    out: list[str] = []
    last = 0
    for m in _MATH_OR_CODE.finditer(text):
        out.append(_TAG_START.sub(r"\\<", _ESCAPED_PUNCT.sub(r"\\\\", text[last:m.start()])))
        chunk = m.group(0)
        if not chunk.startswith("`"):
            chunk = _MATH_SPECIAL.sub(r"\\\1", _ESCAPED_PUNCT.sub(r"\\\\", chunk))
        out.append(chunk)
        last = m.end()
    out.append(_TAG_START.sub(r"\\<", _ESCAPED_PUNCT.sub(r"\\\\", text[last:])))
    return hard_line_breaks("".join(out))
