"""Helpers for the chat app tests: a scripted answer stream, a stub store and LLM, `wait_until`.

The scripted stream stands in for `assistant.answering.answer` (same signature, same events); it is a
fake at the edge, used by the Pilot and snapshot tests. One test runs the real extractive backend.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from assistant.events import Citation, Citations, Done, Error, Source, Sources, TextDelta
from assistant.store.paper import Paper

PAPERS = [
    Paper(abstract="We introduce NorMuon, an optimizer that combines orthogonalization with neuron-wise "
                   "normalization. NorMuon reduces training cost by 21% over AdamW at the 1.1B scale. "
                   "It keeps the memory footprint of Muon.",
          title="NorMuon: Making Muon more efficient and scalable", authors=("Zichong Li", "Liming Liu"),
          venue="ICML", year=2026, url="https://example.org/normuon", id="p-normuon"),
    Paper(abstract="STAR-KV compresses the KV cache by low-rank projection. Combined with quantization it "
                   "reaches 20x compression with little loss. We evaluate on long-context benchmarks.",
          title="STAR-KV", venue="ICML", year=2026, id="p-starkv"),
    Paper(abstract="Markup-looking text: [bold]not bold[/] and [link=x]y[/link], LaTeX $O(n^2)$ and \\alpha, "
                   "CJK 注意力机制很重要。 emoji 🚀 and a very long word "
                   "Pneumonoultramicroscopicsilicovolcanoconiosis_and_more_and_more_and_more_without_spaces.",
          title="[bold]Weird[/] title 注意力 🚀", authors=("Ünïcødé [Author]",), venue="ICLR", year=2025,
          id="p-weird"),
]
SOURCES = tuple(Source(n=i, paper=p, score=0.033 - i * 0.001, similarity=0.5 - i * 0.05, bm25_matched=True,
                       relevance=0.9 - i * 0.1) for i, p in enumerate(PAPERS, start=1))


class StubStore:
    """Stands in for `PaperStore` where the scripted stream does not retrieve."""

    def __init__(self, count: int = 19, fail: Exception | None = None):
        self._count = count
        self.fail = fail
        self.settings = None

    def count(self) -> int:
        if self.fail:
            raise self.fail
        return self._count

    def papers(self) -> list[Paper]:
        """The three test papers (the header counts those matching the filters)."""
        if self.fail:
            raise self.fail
        return list(PAPERS)


@dataclass
class StubLLM:
    name: str = "scripted"
    model: str = "script-1"


def stub_llm_factory(settings, name=None, model=None):
    return StubLLM(name=name or "scripted", model=model or "script-1")


@dataclass
class Script:
    """A scripted answer stream. `chunks` are streamed `delay` seconds apart; `gate`, if set, is
    waited on before the first chunk (tests use it to act mid-stream); `error` ends the stream."""

    chunks: Sequence[str] = ("NorMuon combines orthogonalization with neuron-wise normalization [1]. ",
                             "It cuts training cost by 21% over AdamW [1]. ",
                             "STAR-KV reaches 20x KV cache compression [2].")
    sources: Sequence[Source] = SOURCES
    cited: Sequence[int] = (1, 2)
    delay: float = 0.0
    error: Error | None = None
    gate: threading.Event | None = None
    calls: list[dict] = field(default_factory=list)
    cancelled: list[bool] = field(default_factory=list)
    backend: str = "scripted"
    model: str = "script-1"
    standalone: str | None = None  # the rewritten question retrieval "used" (default: the question)
    note: str = ""  # the Sources note (why there are few or none)
    refused: bool = False

    def __call__(self, question: str, *, retriever=None, llm=None, settings=None, conversation=None,
                 filters=None, top_k=None, cancel: threading.Event | None = None):
        history = [t.question for t in getattr(conversation, "turns", [])]
        self.calls.append({"question": question, "history": history, "filters": filters, "llm": llm})
        yield Sources(tuple(self.sources), question=self.standalone or question, note=self.note)
        if self.gate is not None:
            self.gate.wait(10)
        text = ""
        for chunk in self.chunks:
            if cancel is not None and cancel.is_set():
                self.cancelled.append(True)
                return
            if self.delay:
                time.sleep(self.delay)
            text += chunk
            yield TextDelta(chunk)
        if self.error is not None:
            yield Error(self.error.message, kind=self.error.kind, partial=text)
            return
        by_n = {s.n: s for s in self.sources}
        cites = tuple(Citation(n, by_n[n].paper, tuple(s.strip() for s in _sentences(text) if f"[{n}]" in s))
                      for n in self.cited if n in by_n)
        yield Citations(cites)
        yield Done(answer=text, backend=self.backend, model=self.model, seconds=0.5, refused=self.refused)


def _sentences(text: str) -> list[str]:
    import re

    return [s for s in re.split(r"(?<=\.)\s+", text) if s]


async def wait_until(pilot, predicate: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    """Let the app run until `predicate()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await pilot.pause(0.02)
    await pilot.pause()


def rendered_text(widget) -> str:
    """Plain text of everything the widget and its children show (for assertions)."""
    from textual.widgets import Markdown, Static

    from assistant.tui.widgets.conversation import AnswerView

    parts = []
    if isinstance(widget, (Markdown, AnswerView)):
        return widget.source
    for w in [widget, *widget.query("*")]:
        if isinstance(w, (Markdown, AnswerView)):
            parts.append(w.source)
        elif isinstance(w, Static):
            parts.append(str(w.render()))
    return "\n".join(parts)


def shown_answer(turn_view, width: int = 100) -> str:
    """The answer of a `TurnView` as drawn (its Rich Markdown pieces rendered to plain text)."""
    from rich.console import Console

    console = Console(width=width, record=True, file=open("/dev/null", "w"), color_system=None)
    from rich.markdown import Markdown as RichMarkdown

    for piece in turn_view.markdown.children:
        console.print(RichMarkdown(piece.markdown))
    return console.export_text()


def notices(app) -> list[str]:
    """The messages of the notifications the app is showing (toasts)."""
    return [n.message for n in app._notifications]


async def settle(pilot) -> None:
    await pilot.pause()
    await asyncio.sleep(0)
