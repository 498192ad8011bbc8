"""Pilot tests of the chat app (`make_app(...).run_test()`) over a scripted answer stream."""

from __future__ import annotations

import threading

import pytest

from assistant.chats import ChatStore
from assistant.events import Error
from tests.tui_helpers import (PAPERS, Script, StubStore, notices, rendered_text, shown_answer, stub_llm_factory,
                               wait_until)

SIZE = (120, 36)
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def build(settings, tmp_path, script=None, store=None, **kw):
    from assistant.tui.app import make_app

    return make_app(settings, answer_fn=script or Script(), llm_factory=stub_llm_factory,
                    store=store or StubStore(), export_dir=tmp_path / "exports", **kw)


def backend_shown(app, name: str) -> bool:
    header = str(app.header.render())
    return name in header and "…" not in header


async def ask(pilot, app, question: str) -> None:
    await wait_until(pilot, lambda: app.current is None, what="no answer streaming")
    app.input.load_text(question)
    await pilot.press("enter")


async def test_ask_streams_answer_and_sources(settings, tmp_path):
    gate = threading.Event()
    script = Script(delay=0.01, gate=gate)
    app = build(settings, tmp_path, script)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.count == 19, what="collection loaded")
        assert "19 abstracts" in str(app.header.render())
        assert "scripted" in str(app.header.render())
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.sources_panel.sources, what="sources shown")
        assert app.current is not None and "answering" in app.input.border_title
        await pilot.press("a", "b")  # the input keeps what is typed while the answer streams
        assert app.input.text == "ab"
        app.input.clear()
        gate.set()
        await wait_until(pilot, lambda: app.current is None and app.turns, what="answer done")
        turn = app.turns[0]
        assert turn.status == "complete"
        assert turn.answer.startswith("NorMuon combines orthogonalization")
        view = app.view.turns()[0]
        md = view.markdown.source
        assert "cite:0:1" in md and "cite:0:2" in md  # checked markers became links to the sources
        panel = app.sources_panel
        assert [s.n for s in panel.sources] == [1, 2, 3]
        assert panel.cited == {1, 2}
        labels = [str(panel.get_option_at_index(i).prompt) for i in range(3)]
        assert labels[0].startswith("● [1] NorMuon") and "ICML 2026 · sim 0." in labels[0], labels[0]
        assert "score" not in labels[0]  # the fused retrieval score (1.0 at the top) means nothing to a reader
        assert labels[2].startswith("  [3] [bold]Weird[/] title")  # not cited, shown verbatim
        assert app.focused is app.input and "answering" not in app.input.border_title
        assert script.calls[0]["question"] == "What is NorMuon?"


async def test_follow_up_uses_the_conversation(settings, tmp_path):
    script = Script()
    app = build(settings, tmp_path, script)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: len(app.turns) == 1)
        await ask(pilot, app, "and how much faster is it?")
        await wait_until(pilot, lambda: len(app.turns) == 2)
        assert script.calls[1]["history"] == ["What is NorMuon?"]
        assert [t.question for t in app.conversation.turns] == ["What is NorMuon?", "and how much faster is it?"]
        # the input history walks back with Up
        await pilot.press("up")
        assert app.input.text == "and how much faster is it?"
        await pilot.press("up")
        assert app.input.text == "What is NorMuon?"
        await pilot.press("down", "down")
        assert app.input.text == ""
        # Ctrl+J breaks the line; Enter sends the whole multi-line question
        await pilot.press("l", "i", "n", "e", "ctrl+j", "t", "w", "o")
        assert app.input.text == "line\ntwo"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(app.turns) == 3)
        assert app.turns[2].question == "line\ntwo"


async def test_escape_stops_mid_stream_and_keeps_text(settings, tmp_path):
    gate = threading.Event()
    script = Script(chunks=["First part of the answer [1]. ", "never shown"], gate=None, delay=0.0)
    # stream the first chunk, then hold the stream until the test has pressed Esc

    def held(question, **kw):
        gen = Script(chunks=["First part of the answer [1]. "])
        for event in gen(question, **kw):
            if type(event).__name__ == "Citations":
                gate.wait(10)
                if kw["cancel"].is_set():
                    script.cancelled.append(True)
                    return
            yield event

    app = build(settings, tmp_path, held)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.current is not None and "First part" in app.current.view.text)
        await pilot.press("escape")
        gate.set()
        await wait_until(pilot, lambda: app.current is None)
        turn = app.turns[0]
        assert turn.status == "stopped"
        assert turn.answer == "First part of the answer [1]. "
        assert "stopped" in rendered_text(app.view.turns()[0])
        assert app.focused is app.input
        await wait_until(pilot, lambda: script.cancelled == [True], what="the stream saw the cancel event")
        saved = ChatStore(settings.paths.conversations_db).load(app.chat_id)
        assert saved.turns[0].status == "stopped"


async def test_quit_mid_stream_saves_the_stopped_turn(settings, tmp_path):
    gate = threading.Event()
    app = build(settings, tmp_path, Script(gate=gate))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.sources_panel.sources)
        await pilot.press("ctrl+q")
        gate.set()
    chats = ChatStore(settings.paths.conversations_db)
    [summary] = chats.list()
    assert [(t.question, t.status) for t in chats.load(summary.id).turns] == [("What is NorMuon?", "stopped")]


async def test_new_question_cancels_the_streaming_one(settings, tmp_path):
    gate = threading.Event()
    first = Script(gate=gate)
    second = Script(chunks=["Second answer [2]."], cited=(2,))
    calls = []

    def answer_fn(question, **kw):
        calls.append(question)
        return (first if len(calls) == 1 else second)(question, **kw)

    app = build(settings, tmp_path, answer_fn)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "first question")
        await wait_until(pilot, lambda: app.sources_panel.sources)
        await app.ask("second question")
        gate.set()
        await wait_until(pilot, lambda: len(app.turns) == 2 and app.current is None)
        assert [t.status for t in app.turns] == ["stopped", "complete"]
        assert app.turns[1].answer == "Second answer [2]."
        assert app.view.turns()[0].text == ""  # the old stream's late text never reached the screen
        assert app.sources_panel.cited == {2}


async def test_open_source_from_panel_and_from_marker(settings, tmp_path):
    from assistant.tui.screens.source import SourceScreen

    app = build(settings, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await pilot.press("tab")
        assert app.focused is app.sources_panel
        await pilot.press("enter")  # the first source
        await wait_until(pilot, lambda: isinstance(app.screen, SourceScreen))
        screen = app.screen
        assert screen.source.paper.id == "p-normuon"
        text = rendered_text(screen)
        assert "NorMuon: Making Muon more efficient and scalable" in text
        assert "Zichong Li, Liming Liu" in text and "https://example.org/normuon" in text and "2026" in text
        abstract = screen.query_one(".source-abstract").render()
        highlighted = {abstract.plain[s.start:s.end] for s in abstract.spans}
        assert "NorMuon reduces training cost by 21% over AdamW at the 1.1B scale." in highlighted
        assert "It keeps the memory footprint of Muon." not in highlighted
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SourceScreen))
        # the markers in the answer are links to their sources: click the first [1] on screen
        piece = app.view.turns()[0].markdown.children[0]
        lines = [line.text for line in piece.render_lines(piece.content_region.reset_offset)]
        row = next(i for i, line in enumerate(lines) if "[1]" in line)
        col = lines[row].index("[1]")
        await pilot.click(piece, offset=(col + 1, row))
        await wait_until(pilot, lambda: isinstance(app.screen, SourceScreen), what="source opened by a click")
        assert app.screen.source.paper.id == "p-normuon"
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SourceScreen))
        from assistant.tui.widgets.conversation import AnswerView

        app.view.turns()[0].markdown.post_message(AnswerView.LinkClicked("cite:0:2"))
        await wait_until(pilot, lambda: isinstance(app.screen, SourceScreen))
        assert app.screen.source.paper.id == "p-starkv"


async def test_failing_backend_is_shown_and_app_stays_usable(settings, tmp_path):
    failing = Script(chunks=["Partial text [1]. "], error=Error("LLM server at http://localhost:9 refused the "
                                                                 "connection", kind="connection"))
    calls = []

    def answer_fn(question, **kw):
        calls.append(question)
        return (failing if len(calls) == 1 else Script())(question, **kw)

    app = build(settings, tmp_path, answer_fn)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        turn = app.turns[0]
        assert turn.status == "partial" and turn.answer == "Partial text [1]. "
        assert "refused the connection" in rendered_text(app.view.turns()[0])
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: len(app.turns) == 2)
        assert app.turns[1].status == "complete"


async def test_exception_in_answering_and_unreachable_store(settings, tmp_path):
    from assistant.store.chroma import StoreError

    def boom(question, **kw):
        raise RuntimeError("rate limited (429); retry after 30 s")
        yield  # pragma: no cover

    app = build(settings, tmp_path, boom, store=StubStore(fail=StoreError("Chroma count failed at "
                                                                           "http://localhost:1 (ConnectError)")))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "ConnectError" in rendered_text(app.view), what="store error note")
        assert "store unavailable" in str(app.header.render())
        await ask(pilot, app, "anything?")
        await wait_until(pilot, lambda: app.turns)
        assert app.turns[0].status == "error"
        assert "Chroma count failed" in rendered_text(app.view.turns()[0])
        assert not app.input.read_only
        assert "scripted" in str(app.header.render())  # the backend is named though the store is down
        assert "No sources: the answer failed." in str(app.sources_panel.get_option_at_index(0).prompt)


async def test_rate_limit_exception_from_the_stream(settings, tmp_path):
    def boom(question, **kw):
        raise RuntimeError("rate limited (429); retry after 30 s")
        yield  # pragma: no cover

    app = build(settings, tmp_path, boom)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "anything?")
        await wait_until(pilot, lambda: app.turns)
        assert app.turns[0].status == "error"
        assert "rate limited (429)" in rendered_text(app.view.turns()[0])


async def test_no_abstracts_loaded(settings, tmp_path):
    app = build(settings, tmp_path, store=StubStore(count=0))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "No abstracts loaded" in rendered_text(app.view))
        assert "0 abstracts" in str(app.header.render())


async def test_reopen_saved_conversation_and_export(settings, tmp_path):
    app = build(settings, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await ask(pilot, app, "and STAR-KV?")
        await wait_until(pilot, lambda: len(app.turns) == 2)
        chat_id = app.chat_id
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.chat_id is None and not app.view.turns())
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChatsScreen")
        await pilot.press("enter")  # the most recent conversation
        await wait_until(pilot, lambda: app.chat_id == chat_id and len(app.view.turns()) == 2)
        assert [t.question for t in app.conversation.turns] == ["What is NorMuon?", "and STAR-KV?"]
        assert "cite:1:2" in app.view.turns()[1].markdown.source
        assert app.sources_panel.cited == {1, 2}
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.last_export is not None)
        md = app.last_export.read_text()
        assert md.startswith("# What is NorMuon?")
        assert "## References" in md
        assert "1. Zichong Li, Liming Liu. *NorMuon: Making Muon more efficient and scalable*. ICML 2026. " \
               "id `p-normuon`. <https://example.org/normuon>" in md
        assert "2. *STAR-KV*. ICML 2026. id `p-starkv`." in md
        assert md.count("What is NorMuon?") == 2  # the title and the question once (not quoted again)
        # a follow-up in the reopened conversation is saved as its third turn
        await ask(pilot, app, "and memory?")
        await wait_until(pilot, lambda: len(app.turns) == 3)
    assert len(ChatStore(settings.paths.conversations_db).load(chat_id).turns) == 3


async def test_delete_conversation_from_list(settings, tmp_path):
    app = build(settings, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChatsScreen")
        await pilot.press("d")  # asks first: the conversation is still there
        await wait_until(pilot, lambda: "y deletes" in rendered_text(app.screen))
        assert "What is NorMuon?" in rendered_text(app.screen.query_one("#chats-message"))
        assert len(ChatStore(settings.paths.conversations_db).list()) == 1
        await pilot.press("n")  # kept
        await wait_until(pilot, lambda: "Kept." in rendered_text(app.screen))
        await pilot.press("d", "y")
        await wait_until(pilot, lambda: ChatStore(settings.paths.conversations_db).list() == [])
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.chat_id is None and not app.view.turns())


async def test_copy_answer(settings, tmp_path):
    app = build(settings, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await pilot.press("ctrl+t")
        # the answer with its own marker numbers, then the cited papers with id, link and evidence
        assert app.clipboard.startswith(app.turns[0].answer + "\n\nReferences\n")
        assert "[1] NorMuon: Making Muon more efficient and scalable. Zichong Li, Liming Liu. ICML 2026. " \
               "id: p-normuon. https://example.org/normuon\n" in app.clipboard
        assert "    “NorMuon reduces training cost by 21% over AdamW at the 1.1B scale.”" in app.clipboard
        assert "[2] STAR-KV. ICML 2026. id: p-starkv." in app.clipboard
        assert "[3]" not in app.clipboard  # not cited
        assert any("OSC 52" in m for m in notices(app))  # the message does not claim the paste will work


async def test_settings_switch_backend_and_filters(settings, tmp_path):
    from textual.widgets import Input, Select

    script = Script()
    app = build(settings, tmp_path, script)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.count == 19)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SettingsScreen")
        app.screen.query_one("#backend", Select).value = "extractive"
        app.screen.query_one("#venue", Input).value = "ICML"
        app.screen.query_one("#year", Input).value = "twenty"
        await pilot.press("ctrl+s")
        assert "not a year" in rendered_text(app.screen)  # a bad year is explained, not applied
        app.screen.query_one("#year", Input).value = "2025-2026"
        await pilot.pause()
        assert "not a year" not in rendered_text(app.screen)  # and the explanation goes once it is mended
        app.screen.query_one("#author", Input).value = "Li"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: type(app.screen).__name__ != "SettingsScreen")
        await wait_until(pilot, lambda: backend_shown(app, "extractive"))
        header = str(app.header.render())
        assert "venue=ICML" in header and "2025-2026" in header and "author~Li" in header
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        f = script.calls[0]["filters"]
        assert (f.venue, f.year_min, f.year_max, f.author) == ("ICML", 2025, 2026, "Li")
        assert script.calls[0]["llm"].name == "extractive"


async def test_help_screen(settings, tmp_path):
    app = build(settings, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        assert "Ctrl+O" in app.export_screenshot() and "saved&#160;conversations" in app.export_screenshot()
        await pilot.press("escape")
        await wait_until(pilot, lambda: type(app.screen).__name__ != "HelpScreen")


async def test_text_is_shown_verbatim(settings, tmp_path):
    weird = PAPERS[2]
    answer = ("Text with [bold]brackets[/] and [link=x]y[/link], LaTeX $\\alpha_i * b_i$ and 75\\%, "
              "<sub>tag</sub> 注意力机制 🚀, "
              "Pneumonoultramicroscopicsilicovolcanoconiosis_and_more_and_more_and_more_and_more [3].")
    app = build(settings, tmp_path, Script(chunks=[answer], cited=(3,)))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app, "[bold]what[/] about 注意力 🚀 [1]?")
        await wait_until(pilot, lambda: app.turns)
        question = app.view.turns()[0].query_one(".question").render()
        assert str(question).endswith("[bold]what[/] about 注意力 🚀 [1]?")
        assert app.turns[0].answer == answer
        shown = " ".join(shown_answer(app.view.turns()[0], width=400).split())
        assert "[bold]brackets[/] and [link=x]y[/link]" in shown
        # LaTeX is shown as Unicode text (the raw answer stays in storage)
        assert "LaTeX αᵢ * bᵢ and 75%, <sub>tag</sub> 注意力机制 🚀" in shown
        assert "coniosis_and_more_and_more_and_more_and_more" in shown
        app.open_source(0, 3)
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SourceScreen")
        text = rendered_text(app.screen)
        assert weird.title in text and "Ünïcødé [Author]" in text
        assert "LaTeX O(n²) and α, CJK 注意力机制很重要。" in text and "$O(n^2)$" not in text


@pytest.mark.integration
async def test_real_extractive_backend_over_bundled_collection(settings, bundled_store, tmp_path):
    """The real answer function and extractive backend, real ONNX model and Chroma, bundled abstracts."""
    try:
        import assistant.answering  # noqa: F401
        import assistant.llm  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"answering is not in this checkout yet ({exc})")
    from assistant.tui.app import make_app

    app = make_app(settings, store=bundled_store, backend="extractive", export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.count == 19, timeout=60, what="bundled collection")
        assert "extractive" in str(app.header.render())
        await ask(pilot, app, "What is NorMuon and what does it combine?")
        await wait_until(pilot, lambda: app.turns, timeout=60, what="extractive answer")
        turn = app.turns[0]
        assert turn.status == "complete", turn.error
        assert turn.backend == "extractive"
        cited = [c.paper.title for c in turn.citations]
        assert cited and "NorMuon" in cited[0]
        assert app.sources_panel.cited == {c.n for c in turn.citations}
        # the abstract viewer highlights the quoted sentences of the cited paper
        n = turn.citations[0].n
        assert app.open_source(0, n)
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SourceScreen")
        abstract = app.screen.query_one(".source-abstract").render()
        assert abstract.spans, "no sentence of the cited abstract highlighted"
        await pilot.press("escape")
        # a follow-up goes through the conversation (standalone rewriting) and is answered too
        await ask(pilot, app, "and how much does it save?")
        await wait_until(pilot, lambda: len(app.turns) == 2, timeout=60)
        assert app.turns[1].status == "complete"
        assert app.turns[1].standalone_question != "and how much does it save?"


async def test_backend_that_cannot_start_then_switch(settings, tmp_path):
    """openai chosen without an API key: the real make_llm's error is shown, the app stays usable, and
    switching to the extractive backend in the app answers."""
    from assistant.tui.app import make_app
    from assistant.tui.screens.settings import ChatOptions

    script = Script()
    app = make_app(settings, answer_fn=script, store=StubStore(), backend="openai", export_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "needs an API key" in rendered_text(app.view), what="backend error note")
        header = str(app.header.render())
        assert "19 abstracts" in header and "openai (not available)" in header
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        assert app.turns[0].status == "error" and "needs an API key" in app.turns[0].error
        app.apply_options(ChatOptions("extractive", None, app.options.filters))
        await wait_until(pilot, lambda: backend_shown(app, "extractive"))
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: len(app.turns) == 2)
        assert app.turns[1].status == "complete" and script.calls[-1]["llm"].name == "extractive"


@pytest.mark.parametrize("built, configured", [("fp32", "int8"), ("int8", "fp32")])
async def test_a_collection_of_another_precision_is_named_in_the_header_and_the_note(built, configured, data_dir,
                                                                                     tmp_path):
    """ASSISTANT_EMBEDDING_PRECISION set to the other precision than the collection was built with (a real
    Chroma collection, the real store): the header names the problem where the count would be (no empty
    field), and the note says what to do, whole."""
    import chromadb

    from assistant.settings import load_settings
    from assistant.tui.app import make_app

    settings = load_settings(embedding_precision=configured)
    client = chromadb.PersistentClient(path=str(settings.paths.chroma_dir))
    client.create_collection("papers", metadata={"hnsw:space": "cosine", "embedding_model": "all-MiniLM-L6-v2",
                                                 "embedding_dim": 384, "revision": 1, "embedding_precision": built,
                                                 **({"embedding_int8_version": 2} if built == "int8" else {})})
    del client
    app = make_app(settings, answer_fn=Script(), llm_factory=stub_llm_factory, export_dir=tmp_path / "exports")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "embedding precision mismatch" in str(app.header.render()), what="header")
        header = str(app.header.render())
        assert "papers · embedding precision mismatch  │  scripted" in header and "·  ·" not in header
        note = rendered_text(app.view)
        assert f"built with all-MiniLM-L6-v2 {built} embeddings but the configured precision is {configured}" in note
        assert "or re-ingest into another collection (ASSISTANT_COLLECTION)" in " ".join(note.split())


def test_the_abstract_viewer_shows_markdown_emphasis_as_styles_and_still_highlights():
    from assistant.tui.screens.source import abstract_text

    abstract = ("We propose the **Relative Rank Indicator** for ranking. It needs *fewer expansions* than beam search. "
                "It costs 2$\\times$ less.")
    text, n = abstract_text(abstract, ["It needs *fewer expansions* than beam search."])
    assert text.plain == ("We propose the Relative Rank Indicator for ranking. It needs fewer expansions than beam search. "
                          "It costs 2× less.")
    styles = {text.plain[s.start:s.end]: str(s.style) for s in text.spans}
    assert styles["Relative Rank Indicator"] == "bold" and styles["fewer expansions"] == "italic"
    assert n == 1 and "It needs fewer expansions than beam search." in styles
