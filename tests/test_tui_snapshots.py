"""Snapshot tests (pytest-textual-snapshot) of the chat app's main screens at 80x24 (a laptop terminal
split, the smallest size the layout is designed for: the sources panel narrows to 28 columns) and at
140x40 (a full-screen terminal).

Update after an intended change with ``pytest tests/test_tui_snapshots.py --snapshot-update`` and look
at the SVGs in ``tests/__snapshots__/test_tui_snapshots/`` before committing them.
"""

from __future__ import annotations

import sqlite3

import pytest

from assistant.chats import ChatStore
from assistant.conversation import Turn
from assistant.events import Error
from tests.tui_helpers import SOURCES, Script, StubStore, stub_llm_factory, wait_until

SIZES = pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "140x40"])


def build(settings, tmp_path, script=None, **kw):
    from assistant.tui.app import make_app

    return make_app(settings, answer_fn=script or Script(), llm_factory=stub_llm_factory, store=StubStore(),
                    export_dir=tmp_path, **kw)


def steady(pilot) -> None:
    """A cursor that does not blink, so the snapshot does not depend on the moment it is taken."""
    pilot.app.input.cursor_blink = False


def pressed(*keys: str):
    async def run_before(pilot) -> None:
        steady(pilot)
        await pilot.press(*keys)
        await pilot.pause()

    return run_before


def asked(question: str, then=None):
    async def run_before(pilot) -> None:
        app = pilot.app
        steady(pilot)
        await wait_until(pilot, lambda: app.count is not None)
        app.input.load_text(question)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.turns and app.current is None)
        if then is not None:
            await then(pilot)
        await pilot.pause()

    return run_before


@SIZES
def test_empty_chat(snap_compare, settings, tmp_path, size):
    async def loaded(pilot):
        steady(pilot)
        await wait_until(pilot, lambda: pilot.app.count is not None)

    assert snap_compare(build(settings, tmp_path), terminal_size=size, run_before=loaded)


@SIZES
def test_answer_with_sources(snap_compare, settings, tmp_path, size):
    assert snap_compare(build(settings, tmp_path), terminal_size=size, run_before=asked("What is NorMuon?"))


@SIZES
def test_source_viewer_with_highlights(snap_compare, settings, tmp_path, size):
    async def open_first(pilot):
        await pilot.press("tab", "enter")
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "SourceScreen")

    assert snap_compare(build(settings, tmp_path), terminal_size=size,
                        run_before=asked("What is NorMuon?", open_first))


@SIZES
def test_verbatim_text_in_viewer(snap_compare, settings, tmp_path, size):
    async def open_third(pilot):
        pilot.app.open_source(0, 3)
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "SourceScreen")

    script = Script(chunks=["[bold]Weird[/] $a*b$ and 75\\% with 注意力 🚀 [3]."], cited=(3,))
    assert snap_compare(build(settings, tmp_path, script), terminal_size=size,
                        run_before=asked("[red]what[/] is 注意力?", open_third))


@SIZES
def test_failing_backend(snap_compare, settings, tmp_path, size):
    script = Script(chunks=["Partial text [1]. "], error=Error("LLM server at http://127.0.0.1:9/v1 refused the "
                                                                "connection; is it running?", kind="connection"))
    assert snap_compare(build(settings, tmp_path, script), terminal_size=size,
                        run_before=asked("What is NorMuon?"))


@SIZES
def test_help_screen(snap_compare, settings, tmp_path, size):
    assert snap_compare(build(settings, tmp_path), terminal_size=size, run_before=pressed("f1"))


@SIZES
def test_settings_screen(snap_compare, settings, tmp_path, size):
    assert snap_compare(build(settings, tmp_path), terminal_size=size, run_before=pressed("ctrl+s"))


@SIZES
def test_conversation_list(snap_compare, settings, tmp_path, size):
    chats = ChatStore(settings.paths.conversations_db)
    for i, title in enumerate(["What is NorMuon?", "Compare the KV cache papers [bold]x[/]"]):
        chat_id = chats.create(title)
        chats.save_turn(chat_id, 0, Turn(question=title, answer="…", sources=SOURCES))
    with sqlite3.connect(chats.path) as db:  # fixed times so the snapshot does not depend on the clock
        db.execute("UPDATE chats SET created = 1780000000, updated = 1780000000 + rowid * 60")
    assert snap_compare(build(settings, tmp_path, chat_store=chats), terminal_size=size, run_before=pressed("ctrl+o"))


@SIZES
def test_filters_and_two_answers(snap_compare, settings, tmp_path, size):
    """Two answers, the first selected (its sources in the panel), filters counted in the header."""
    from assistant.retrieval import Filters

    async def second_then_first(pilot):
        app = pilot.app
        app.input.load_text("and how much faster is it?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.turns) == 2 and app.current is None)
        await pilot.press("ctrl+up")
        await pilot.pause()

    first, follow_up = Script(), Script(standalone="How much faster than AdamW is NorMuon?")
    calls = []

    def script(question, **kw):
        calls.append(question)
        return (first if len(calls) == 1 else follow_up)(question, **kw)

    assert snap_compare(build(settings, tmp_path, script, filters=Filters(venue="ICML", year_min=2026,
                                                                          year_max=2026)),
                        terminal_size=size, run_before=asked("What is NorMuon?", second_then_first))


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    import time

    time.tzset()
