"""Pilot tests of the chat app's researcher-facing behaviour: each answer keeps its own sources, filters
belong to the conversation, deleting asks first, no keystroke is lost while an answer streams, small
terminals, copy/export with references, terminal-safe and LaTeX-rendered text, edit and ask again."""

from __future__ import annotations

import threading

import pytest

from assistant.chats import ChatStore
from assistant.events import Error, Source
from assistant.retrieval import Filters
from assistant.tui.screens.settings import ChatOptions
from tests.tui_helpers import PAPERS, SOURCES, Script, StubStore, rendered_text, stub_llm_factory, wait_until

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def build(settings, tmp_path, script=None, **kw):
    from assistant.tui.app import make_app

    return make_app(settings, answer_fn=script or Script(), llm_factory=stub_llm_factory, store=StubStore(),
                    export_dir=tmp_path / "exports", **kw)


async def ask(pilot, app, question: str) -> None:
    await wait_until(pilot, lambda: app.current is None and app.count is not None, what="ready")
    app.input.load_text(question)
    await pilot.press("enter")


def panel_ids(app) -> list[str]:
    return [s.paper.id for s in app.sources_panel.sources]


class Switch:
    """One scripted stream per question, in order."""

    def __init__(self, *scripts):
        self.scripts = list(scripts)
        self.calls: list[dict] = []

    def __call__(self, question, **kw):
        script = self.scripts[min(len(self.calls), len(self.scripts) - 1)]
        self.calls.append({"question": question, "filters": kw.get("filters")})
        return script(question, **kw)


# --- 1. each answer's own sources -----------------------------------------------------------------------

async def test_a_named_papers_unstated_detail_is_not_called_a_missing_paper(settings, tmp_path):
    """"What about NorMuon's memory footprint?" answered "The abstracts do not say." with no sources: the footer
    said "no paper in the collection is about this" (a new user's trial, round 16), contradicting the answer."""
    unstated = Script(chunks=["The abstracts do not say."], sources=(), cited=(),
                      note="the question asks about NorMuon, whose abstract does not state 'memory footprint'",
                      refused=True)
    app = build(settings, tmp_path, Switch(unstated))
    async with app.run_test(size=(140, 40)) as pilot:
        await ask(pilot, app, "What about NorMuon's memory footprint?")
        await wait_until(pilot, lambda: app.current is None and len(app.view.turns()) == 1)
        footer = rendered_text(app.view.turns()[0])
        assert "the abstracts do not answer this" in footer and "no paper in the collection" not in footer


async def test_each_answer_shows_its_own_sources(settings, tmp_path):
    first = Script(chunks=["NorMuon cuts cost [1]."], sources=SOURCES[:1], cited=(1,))
    second = Script(chunks=["STAR-KV compresses [1]."], sources=(Source(1, PAPERS[1], 0.03),), cited=(1,))
    refusal = Script(chunks=["No paper in the collection is about this question."], sources=(), cited=(),
                     note="no relevant paper", refused=True)
    app = build(settings, tmp_path, Switch(first, second, refusal))
    async with app.run_test(size=(140, 40)) as pilot:
        for q in ("What is NorMuon?", "And STAR-KV?", "What about bananas?"):
            await ask(pilot, app, q)
            await wait_until(pilot, lambda: app.current is None and len(app.turns) == len(app.view.turns()))
        assert app.selected == 2 and panel_ids(app) == []
        assert "answer 3 of 3" in rendered_text(app.query_one("#sources-title"))
        # the footer says the refusal as the answer does: no paper, not "the abstracts do not answer this"
        footer = rendered_text(app.view.turns()[2])
        assert "no paper in the collection is about this" in footer and "do not answer" not in footer
        await pilot.press("ctrl+up")
        assert app.selected == 1 and panel_ids(app) == ["p-starkv"] and app.sources_panel.cited == {1}
        await pilot.press("ctrl+up")
        assert panel_ids(app) == ["p-normuon"]
        assert "answer 1 of 3" in rendered_text(app.query_one("#sources-title"))
        # marker [1] of each answer opens that answer's paper, whatever the panel shows
        assert "cite:1:1" in app.view.turns()[1].markdown.source
        app.open_source(1, 1)
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SourceScreen")
        assert app.screen.source.paper.id == "p-starkv"
        await pilot.press("escape")
        await pilot.press("ctrl+down", "ctrl+down")
        assert app.selected == 2 and panel_ids(app) == []
        # clicking a turn selects it
        await pilot.click(app.view.turns()[0].query_one(".question"))
        await wait_until(pilot, lambda: app.selected == 0)
        assert panel_ids(app) == ["p-normuon"]


# --- 2. filters belong to the conversation --------------------------------------------------------------

async def test_filters_are_the_conversations(settings, tmp_path):
    script = Script()
    app = build(settings, tmp_path, script)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: app.count == 19)
        app.apply_options(ChatOptions("auto", None, Filters(year_min=2025, year_max=2025)))
        # the header counts the papers matching the filters (one of the three test papers is from 2025)
        await wait_until(pilot, lambda: "1 matches" in str(app.header.render()))
        assert "year=2025" in str(app.header.render())
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        assert script.calls[0]["filters"] == Filters(year_min=2025, year_max=2025)
        chat_id = app.chat_id
        chats = ChatStore(settings.paths.conversations_db)
        assert chats.load(chat_id).turns[0].filters == {"year_min": 2025, "year_max": 2025}
        # a new conversation starts without the filter
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.chat_id is None)
        assert app.options.filters.empty and "no filters" in str(app.header.render())
        await ask(pilot, app, "Unfiltered?")
        await wait_until(pilot, lambda: app.turns)
        assert script.calls[1]["filters"] is None
        second_id = app.chat_id
        # reopening restores the conversation's own filters, and clearing them is saved at once
        assert await app.open_chat(chat_id)
        assert app.options.filters == Filters(year_min=2025, year_max=2025)
        app.apply_options(ChatOptions("auto", None, Filters()))
        assert await app.open_chat(second_id)
        assert await app.open_chat(chat_id)
        assert app.options.filters.empty and "no filters" in str(app.header.render())


async def test_refusal_caused_by_filters_says_so_in_the_answer(settings, tmp_path):
    script = Script(chunks=["No paper in the collection is about this question."], sources=(), cited=(),
                    note="no paper matches the filters (year=2024)", refused=True)
    app = build(settings, tmp_path, script, filters=Filters(year_min=2024, year_max=2024))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: "0 match" in str(app.header.render()), what="matching count")
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        reason = "No paper matches the filters (year=2024): change or clear them with Ctrl+S."
        assert reason in rendered_text(app.view.turns()[0].query_one(".reason"))
        chat_id = app.chat_id
        await pilot.press("ctrl+n")
        assert await app.open_chat(chat_id)  # still said after reopening
        await wait_until(pilot, lambda: app.view.turns())
        assert reason in rendered_text(app.view.turns()[0].query_one(".reason"))


# --- 3. deleting asks first (see also test_tui.test_delete_conversation_from_list) ----------------------

async def test_conversation_list_has_one_cursor_and_matching_help(settings, tmp_path):
    app = build(settings, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChatsScreen")
        label = str(app.screen.query_one("#chat-list").get_option_at_index(0).prompt)
        assert "▸" not in label and "(open)" in label  # the open one is said in words, not a second cursor
        assert "d deletes (asks first)" in app.screen.query_one("#chats-box").border_subtitle
        await pilot.press("d", "escape")  # Esc cancels the question, the list stays
        assert type(app.screen).__name__ == "ChatsScreen"
        assert len(ChatStore(settings.paths.conversations_db).list()) == 1
    from assistant.tui.screens.help import KEYS

    assert any("d, then y" in what for _, what in KEYS)


# --- 4. no keystroke is lost ----------------------------------------------------------------------------

async def test_typing_while_streaming_queues_the_next_question(settings, tmp_path):
    gate = threading.Event()
    first = Script(gate=gate)
    script = Switch(first, Script(chunks=["Second answer [2]."], cited=(2,)))
    app = build(settings, tmp_path, script)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.sources_panel.sources)
        await pilot.press(*"and STAR-KV?")
        assert app.input.text == "and STAR-KV?"
        await pilot.press("enter")
        assert app.queued == ["and STAR-KV?"] and "1 queued" in app.input.border_title
        assert len(script.calls) == 1  # not asked yet: the first answer is still streaming
        gate.set()
        await wait_until(pilot, lambda: len(app.turns) == 2 and app.current is None)
        assert [t.question for t in app.turns] == ["What is NorMuon?", "and STAR-KV?"]
        assert [t.status for t in app.turns] == ["complete", "complete"]


async def test_escape_puts_queued_questions_back(settings, tmp_path):
    gate = threading.Event()
    app = build(settings, tmp_path, Script(gate=gate))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.sources_panel.sources)
        app.input.load_text("a follow-up")
        await pilot.press("enter")
        await pilot.press(*"draft")
        await pilot.press("escape")
        gate.set()
        await wait_until(pilot, lambda: app.current is None and app.turns)
        assert app.turns[0].status == "stopped" and len(app.turns) == 1
        assert app.input.text == "a follow-up\ndraft" and app.queued == []


async def test_focus_returns_to_the_input_after_ctrl_n(settings, tmp_path):
    app = build(settings, tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        app.view.focus()
        await pilot.press("ctrl+n")
        await pilot.press(*"next")
        assert app.focused is app.input and app.input.text == "next"
        app.view.focus()  # typing on the conversation pane goes to the input too
        await pilot.press("x")
        assert app.focused is app.input and app.input.text == "nextx"


# --- 5. small terminals ---------------------------------------------------------------------------------

@pytest.mark.parametrize("size, panel", [((140, 40), 42), ((80, 24), 28), ((56, 18), 0), ((44, 14), 0)])
async def test_layout_fits_the_terminal(settings, tmp_path, size, panel):
    app = build(settings, tmp_path, filters=Filters(venue="ICML"))
    async with app.run_test(size=size) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await pilot.pause()
        pane = app.query_one("#sources-pane")
        assert (pane.outer_size.width if pane.display else 0) == panel
        width, height = size
        assert app.view.size.width >= width - panel - 2 and app.view.size.width >= 40
        # the question and the input are on screen; the header keeps the count, backend and filters
        assert app.input.region.height >= 3 and app.input.region.bottom <= height - 1
        header = str(app.header.render())
        assert "19" in header and "scripted" in header and "venue=ICML" in header
        if not panel:  # F3 shows the hidden panel, F3 again hides it
            await pilot.press("f3")
            assert pane.display and pane.outer_size.width >= 20
            await pilot.press("f3")
            assert not pane.display


async def test_key_bar_keeps_help_and_quit_at_80_columns(settings, tmp_path):
    from assistant.tui.widgets.keybar import KeyBar

    app = build(settings, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.count is not None)
        shown = str(app.query_one(KeyBar).render())
        assert shown.startswith(" f1 Help  esc Stop ") and "^q Quit" in shown and len(shown.rstrip()) <= 80
        await pilot.click(KeyBar, offset=(2, 0))  # clicking a key runs it
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")


async def test_key_bar_at_60_columns_leaves_out_the_least_essential_keys(settings, tmp_path):
    from assistant.tui.widgets.keybar import KeyBar

    app = build(settings, tmp_path)
    async with app.run_test(size=(60, 24)) as pilot:
        await wait_until(pilot, lambda: app.count is not None)
        shown = str(app.query_one(KeyBar).render())
        assert "^t Copy" in shown and "^q Quit" in shown and shown.startswith(" f1 Help ")
        assert "Export" not in shown and len(shown.rstrip()) <= 60
        assert shown.index("Copy") < shown.index("Quit")  # the order of the keys is kept


# --- 7. copy and export keep the evidence; terminal-safe, LaTeX rendered ---------------------------------

async def test_control_sequences_never_reach_the_terminal(settings, tmp_path):
    evil = "Clean \x1b[2J\x1b]0;pwned\x07text\r with 20$\\times$ speed [1]."
    app = build(settings, tmp_path, Script(chunks=[evil], cited=(1,)))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What\x1b[31m is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        shown = app.view.turns()[0].markdown.source + rendered_text(app.view.turns()[0])
        assert "\x1b" not in shown and "\x07" not in shown and "\r" not in shown
        assert "Clean text with 20× speed" in shown
        assert app.turns[0].answer == evil  # the raw text is what is saved
        await pilot.press("ctrl+t")
        assert "\x1b" not in app.clipboard and "20× speed" in app.clipboard
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.last_export is not None)
        md = app.last_export.read_text()
        assert "\x1b" not in md and "\x07" not in md and "20× speed" in md


async def test_export_has_standalone_question_filters_and_evidence(settings, tmp_path):
    script = Switch(Script(), Script(standalone="How much faster is NorMuon than AdamW?"))
    app = build(settings, tmp_path, script, filters=Filters(venue="ICML"))
    async with app.run_test(size=(140, 40)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await ask(pilot, app, "how much faster is it?")
        await wait_until(pilot, lambda: len(app.turns) == 2)
        # the rewritten question is shown under the question, only where it differs
        assert "asked as: How much faster is NorMuon than AdamW?" in rendered_text(app.view.turns()[1])
        assert not app.view.turns()[0].query_one(".standalone").display
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.last_export is not None)
        md = app.last_export.read_text()
    assert md.count("how much faster is it?") == 1
    assert "_asked as: How much faster is NorMuon than AdamW?; filters: venue=ICML_" in md
    assert "1. Zichong Li, Liming Liu. *NorMuon: Making Muon more efficient and scalable*. ICML 2026. " \
           "id `p-normuon`. <https://example.org/normuon>\n" \
           "   > We introduce NorMuon, an optimizer that combines orthogonalization with neuron-wise normalization.\n" \
           "   > NorMuon reduces training cost by 21% over AdamW at the 1.1B scale.\n" in md
    assert "filters now: venue=ICML" in md


# --- 8. edit and ask again; the chat's error hints ---------------------------------------------------------

async def test_edit_last_question_and_ask_again(settings, tmp_path):
    script = Script()
    app = build(settings, tmp_path, script)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        await ask(pilot, app, "What is STAR-KV?")
        await wait_until(pilot, lambda: len(app.turns) == 2)
        await pilot.press("f4")
        assert app.input.text == "What is STAR-KV?"
        await pilot.press("backspace", *" compression?", "enter")
        await wait_until(pilot, lambda: app.current is None and len(app.view.turns()) == 2 and
                         app.turns[-1].question.endswith("compression?"))
        assert [t.question for t in app.turns] == ["What is NorMuon?", "What is STAR-KV compression?"]
        await pilot.press("f5")
        await wait_until(pilot, lambda: len(script.calls) == 4 and app.current is None)
        assert len(app.turns) == 2 and len(app.view.turns()) == 2
        saved = ChatStore(settings.paths.conversations_db).load(app.chat_id)
        assert [t.question for t in saved.turns] == ["What is NorMuon?", "What is STAR-KV compression?"]
        assert [c["history"] for c in script.calls][3] == ["What is NorMuon?"]


@pytest.mark.parametrize("backend, kind, fix", [
    ("openai", "connection", "start the server"),
    ("openai", "auth", "check OPENAI_API_KEY"),
    ("local", "config", "ASSISTANT_LOCAL_MODEL_PATH"),
])
async def test_error_hint_names_the_fix_for_the_backend(settings, tmp_path, backend, kind, fix):
    script = Script(chunks=[], error=Error("the LLM failed", kind=kind))
    app = build(settings, tmp_path, script, backend=backend)
    async with app.run_test(size=(140, 40)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        status = rendered_text(app.view.turns()[0].status_line)
        assert fix in status and "Ctrl+S" in status and "--llm" not in status
        others = {"openai": "ASSISTANT_LOCAL_MODEL_PATH", "local": "OPENAI"}[backend]
        assert others not in status


# --- 8. papers like this (real Chroma and ONNX vectors) ---------------------------------------------------

@pytest.mark.integration
async def test_papers_like_this_are_the_nearest_stored_vectors(settings, bundled_store, tmp_path):
    import numpy as np

    from assistant.similar import similar_papers
    from assistant.tui.app import make_app

    papers = bundled_store.papers()
    normuon = next(p for p in papers if p.title.startswith("NorMuon") or p.display_name == "NorMuon")
    got = similar_papers(bundled_store, normuon.id, k=5)
    # the same five as a brute-force cosine over every stored vector, in the same order
    stored = bundled_store.collection.get(include=["embeddings"])
    vectors = {i: np.asarray(v, dtype=np.float64) for i, v in zip(stored["ids"], stored["embeddings"])}
    q = vectors[normuon.id]
    cosine = {i: float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q))) for i, v in vectors.items() if i != normuon.id}
    expected = sorted(cosine, key=cosine.get, reverse=True)[:5]
    assert [p.id for p, _ in got] == expected
    assert all(abs(sim - cosine[p.id]) < 1e-4 for p, sim in got)

    source = Source(n=1, paper=normuon, score=0.03)
    app = make_app(settings, answer_fn=Script(sources=(source,), cited=()), llm_factory=stub_llm_factory,
                   store=bundled_store, export_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.turns)
        app.open_source(0, 1)
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SourceScreen")
        await pilot.press("s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SimilarScreen", timeout=30)
        assert [p.id for p, _ in app.screen.neighbours][:5] == expected
        await pilot.press("enter")  # opens the most similar paper in the viewer
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SourceScreen")
        assert app.screen.source.paper.id == expected[0]


def test_a_missing_embedding_model_is_its_own_error_kind_with_its_own_hint(settings):
    from assistant.answering import answer
    from assistant.llm import make_llm
    from assistant.tui.app import chat_hint
    from assistant.store.embeddings import EmbeddingError

    class NoModelRetriever:  # the query cannot be embedded: the model folder is missing
        def search(self, query, top_k=None, filters=None):
            raise EmbeddingError("embedding model all-MiniLM-L6-v2 is not in /root/.cache and could not be "
                                 "downloaded (OSError); set ASSISTANT_EMBEDDING_MODEL_DIR")

    events = list(answer("What is NorMuon?", retriever=NoModelRetriever(), llm=make_llm(settings, "extractive"),
                         settings=settings))
    assert events[-1].kind == "embedding" and "ASSISTANT_EMBEDDING_MODEL_DIR" in events[-1].message
    assert "ASSISTANT_EMBEDDING_MODEL_DIR" in chat_hint("embedding", "extractive")
    assert "assistant stats" in chat_hint("store", "extractive")  # a store failure keeps its own hint


async def test_questions_typed_fast_while_streaming_are_queued_separately(settings, tmp_path):
    gate = threading.Event()
    app = build(settings, tmp_path, Script(gate=gate))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, app, "What is NorMuon?")
        await wait_until(pilot, lambda: app.sources_panel.sources)
        await pilot.press(*"What is WinQ?", "enter", *"What is EDEN?", "enter")
        assert app.queued == ["What is WinQ?", "What is EDEN?"] and app.input.text == ""
        gate.set()


async def test_ctrl_up_and_down_step_one_answer_at_a_time_when_answers_scroll(settings, tmp_path):
    """Answers shorter than half the view, so the view scrolls and the last ones sit at its end: each Ctrl+Up selects
    the answer before the selected one and brings it to the top; the middle of the view (showing the
    next answer) or the end of the scroll never takes the selection back (it did: one step behind)."""
    short = Script(chunks=["NorMuon cuts the cost of training by a fifth over AdamW at the 1.1B scale [1]. "],
                   sources=SOURCES[:1], cited=(1,))
    app = build(settings, tmp_path, short)
    async with app.run_test(size=(100, 30)) as pilot:  # about 6 lines a turn, 25 in the view
        for n in range(5):
            await ask(pilot, app, f"Question {n + 1}?")
            await wait_until(pilot, lambda: app.current is None and len(app.turns) == n + 1
                             and len(app.view.turns()) == n + 1)
        await pilot.pause()
        assert app.selected == 4 and app.view.max_scroll_y > 0  # the view scrolls
        for expected in (3, 2, 1, 0, 0):
            await pilot.press("ctrl+up")
            await pilot.pause()
            await pilot.pause()
            assert app.selected == expected
            assert f"answer {expected + 1} of 5" in rendered_text(app.query_one("#sources-title"))
        for expected in (1, 2, 3, 4, 4):
            await pilot.press("ctrl+down")
            await pilot.pause()
            await pilot.pause()
            assert app.selected == expected
            top = app.view.turns()[expected].virtual_region.y
            assert top <= app.view.scroll_y + 1 or app.view.scroll_y >= app.view.max_scroll_y - 1
