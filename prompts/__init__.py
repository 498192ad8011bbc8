"""Prompt templates: text files in this package, loaded through `importlib.resources` and checked.

Each template is a ``str.format`` text whose placeholders are declared in `PLACEHOLDERS`; loading a
template with an unknown or a missing placeholder raises `PromptError`, and so does rendering one
without all of its values. The phrase the model must use when the abstracts do not answer the question
(`CANNOT_ANSWER`) lives here and nowhere else: the prompts receive it as ``{cannot_answer}`` and the
answering code looks for it (`says_cannot_answer`), following paper-qa's ``CANNOT_ANSWER_PHRASE``.

Templates:

=========  ==========================================  ===========================================
name       placeholders                                used for
=========  ==========================================  ===========================================
system     cannot_answer                               the system message of every answer
answer     sources, question, cannot_answer            the user message: numbered abstracts + question
source     n, title, venue_year, abstract              one numbered abstract inside ``{sources}``
rewrite    history, question                           follow-up -> standalone question
=========  ==========================================  ===========================================
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import cache

from assistant.enums import ErrorKind
from assistant.errors import AssistantError

CANNOT_ANSWER = "The abstracts do not say."
"""What the model replies (and what the product shows) when the given abstracts do not answer."""

NO_RELEVANT_PAPER = "No paper in the collection is about this question."
"""What the product answers when retrieval finds nothing relevant (no sources, no citations)."""

PLACEHOLDERS: dict[str, frozenset[str]] = {
    "system": frozenset({"cannot_answer"}),
    "answer": frozenset({"sources", "question", "cannot_answer"}),
    "source": frozenset({"n", "title", "venue_year", "abstract"}),
    "rewrite": frozenset({"history", "question"}),
}


class PromptError(AssistantError):
    """A prompt template is missing, has unknown or missing placeholders, or lacks a value (kind
    ``config``)."""

    kind = ErrorKind.CONFIG


@dataclass(frozen=True)
class Prompt:
    """One checked template. `render(**values)` fills every placeholder (all are required)."""

    name: str
    text: str
    placeholders: frozenset[str]

    def render(self, **values: object) -> str:
        missing = self.placeholders - values.keys()
        if missing:
            raise PromptError(f"prompt '{self.name}': no value for {{{', '.join(sorted(missing))}}}")
        return self.text.format(**{k: values[k] for k in self.placeholders})


def placeholders_of(text: str) -> set[str]:
    """The ``{name}`` placeholders of a ``str.format`` template. Raises `PromptError` on positional
    (``{}``/``{0}``), attribute or index placeholders and on unbalanced braces."""
    names: set[str] = set()
    try:
        for _, field, _, _ in string.Formatter().parse(text):
            if field is None:
                continue
            if not re.fullmatch(r"[A-Za-z_]\w*", field):
                raise PromptError(f"placeholder '{{{field}}}' is not a plain name")
            names.add(field)
    except ValueError as exc:  # "Single '}' encountered in format string"
        raise PromptError(str(exc)) from None
    return names


def check(name: str, text: str, expected: frozenset[str]) -> Prompt:
    """A `Prompt` for `text` if its placeholders are exactly `expected`, else `PromptError`."""
    try:
        found = placeholders_of(text)
    except PromptError as exc:
        raise PromptError(f"prompt '{name}': {exc}") from None
    unknown, missing = found - expected, expected - found
    if unknown or missing:
        parts = []
        if unknown:
            parts.append(f"unknown placeholder(s) {', '.join('{' + p + '}' for p in sorted(unknown))}")
        if missing:
            parts.append(f"missing placeholder(s) {', '.join('{' + p + '}' for p in sorted(missing))}")
        raise PromptError(f"prompt '{name}' ({name}.txt): " + "; ".join(parts))
    return Prompt(name, text.strip() + "\n" if name != "source" else text.strip(), expected)


@cache
def load_prompts() -> dict[str, Prompt]:
    """Every template of `PLACEHOLDERS`, read from this package and checked (cached).

    Raises `PromptError` naming the file when one is missing or its placeholders are wrong.
    """
    from importlib.resources import files

    out = {}
    for name, expected in PLACEHOLDERS.items():
        try:
            text = (files(__name__) / f"{name}.txt").read_text(encoding="utf-8")
        except (FileNotFoundError, OSError) as exc:
            raise PromptError(f"prompt file prompts/{name}.txt cannot be read ({exc})") from None
        out[name] = check(name, text, expected)
    return out


def get(name: str) -> Prompt:
    """The checked template `name` (see `PLACEHOLDERS`)."""
    return load_prompts()[name]


def _norm(text: str) -> str:
    return " ".join(text.replace("’", "'").casefold().split()).rstrip(".")


def says_cannot_answer(answer: str) -> bool:
    """True when `answer` contains the `CANNOT_ANSWER` phrase (case, spacing, apostrophes and the
    final full stop ignored) or states it with the near-identical "the abstracts don't say"."""
    text = _norm(answer)
    return any(p in text for p in (_norm(CANNOT_ANSWER), "the abstracts don't say", "the abstracts do not state"))
