"""Saved conversations: SQLite store with numbered migrations, reopen, delete, Markdown export."""

from __future__ import annotations

import sqlite3

from assistant.chats import ChatStore, export_markdown, migrate, title_from, to_markdown
from assistant.conversation import Turn
from assistant.events import Citation, Source
from tests.tui_helpers import PAPERS


def turn(question="What is NorMuon?", answer="NorMuon combines orthogonalization [1]. STAR-KV compresses [2].",
         cited=(1, 2), status="complete"):
    sources = tuple(Source(n=i, paper=p, score=0.03) for i, p in enumerate(PAPERS, start=1))
    citations = tuple(Citation(n, sources[n - 1].paper, (f"sentence citing [{n}]",)) for n in cited)
    return Turn(question=question, answer=answer, status=status, sources=sources, citations=citations,
                backend="extractive", model="best-matching abstract sentences", standalone_question=question)


def test_round_trip_keeps_every_field(settings):
    store = ChatStore(settings.paths.conversations_db)
    chat_id = store.create("What is NorMuon?", {"filters": "venue=ICML"})
    store.save_turn(chat_id, 0, turn())
    loaded = store.load(chat_id)
    assert loaded.title == "What is NorMuon?" and loaded.settings == {"filters": "venue=ICML"}
    got = loaded.turns[0]
    assert got == turn()  # papers (abstract, authors, url), scores, citation sentences all come back
    assert got.sources[2].paper.title == "[bold]Weird[/] title 注意力 🚀"
    assert store.load(chat_id[:6]).id == chat_id  # a prefix is enough


def test_the_turn_of_an_answer_is_the_one_the_chat_saves_and_the_conversation_reads(settings):
    """One turn model: the fold of an answer stream becomes a `Turn` that is saved and reloaded as it
    was, and a conversation holding the reloaded turn rewrites a follow-up from it."""
    from assistant.answering import deterministic_rewrite
    from assistant.conversation import Conversation
    from assistant.events import Answer, Citations, Done, Sources, TextDelta

    sources = tuple(Source(n=i, paper=p, score=0.5) for i, p in enumerate(PAPERS[:2], start=1))
    events = [Sources(sources, "What is NorMuon?"), TextDelta("NorMuon orthogonalizes updates [1]."),
              Citations((Citation(1, PAPERS[0], ("NorMuon orthogonalizes updates [1].",)),), (7,)),
              Done("NorMuon orthogonalizes updates [1].", "scripted", "script-1", {"total_tokens": 9}, 1.5)]
    made = Turn.from_answer(Answer.from_events(events, "What is NorMuon?"), filters={"venue": "ICML"})
    assert (made.status, made.backend, made.dropped_citations, made.seconds) == ("complete", "scripted", (7,), 1.5)
    store = ChatStore(settings.paths.conversations_db)
    chat_id = store.create("What is NorMuon?")
    store.save_turn(chat_id, 0, made)
    loaded = store.load(chat_id).turns[0]
    assert loaded == made and loaded.citations[0].paper.abstract == PAPERS[0].abstract
    conv = Conversation([loaded])
    assert deterministic_rewrite("How much faster is it?", conv) == "How much faster is NorMuon?"


def test_list_newest_first_and_delete(settings):
    store = ChatStore(settings.paths.conversations_db)
    a = store.create("first")
    b = store.create("second")
    store.save_turn(a, 0, turn())
    store.save_turn(a, 1, turn("and then?"))
    listed = store.list()
    assert [c.id for c in listed] == [a, b] and [c.turns for c in listed] == [2, 0]
    assert store.delete(a) is True
    assert store.delete(a) is False
    assert [c.id for c in store.list()] == [b]
    with sqlite3.connect(settings.paths.conversations_db) as db:
        assert db.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == 0  # turns went with the chat


def test_saving_a_turn_again_replaces_it(settings):
    store = ChatStore(settings.paths.conversations_db)
    chat_id = store.create("q")
    store.save_turn(chat_id, 0, turn(status="stopped", answer="half"))
    store.save_turn(chat_id, 0, turn())
    assert [t.status for t in store.load(chat_id).turns] == ["complete"]


def test_migrations_run_once(settings):
    path = settings.paths.conversations_db
    ChatStore(path).list()
    ChatStore(path).list()
    with sqlite3.connect(path) as db:
        assert [r[0] for r in db.execute("SELECT name FROM _migrations")] == ["001_initial"]
        assert migrate(db) == []


def test_unwritable_database_is_one_line_error(tmp_path):
    import pytest

    from assistant.chats import ChatStoreError

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ChatStoreError, match="cannot open the conversations database"):
        ChatStore(blocker / "sub" / "c.sqlite").list()


def test_a_read_only_database_says_what_to_do(tmp_path, monkeypatch):
    """The chat app shows this as "not saved: ..."; it named the failure but not the way out. (Running as
    root, a chmod does not make SQLite read-only, so the failure SQLite raises then is raised here.)"""
    import sqlite3

    import pytest

    from assistant import chats
    from assistant.chats import ChatStoreError

    def read_only(*args, **kwargs):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(chats.sqlite3, "connect", read_only)
    with pytest.raises(ChatStoreError) as err:
        ChatStore(tmp_path / "c.sqlite").create("What is NorMuon?")
    message = str(err.value)
    assert "read-only" in message and "ASSISTANT_DATA_DIR" in message and "\n" not in message


def test_markdown_export_numbers_cited_papers_across_turns(settings, tmp_path):
    store = ChatStore(settings.paths.conversations_db)
    chat_id = store.create("What is NorMuon?")
    store.save_turn(chat_id, 0, turn(answer="STAR-KV compresses [2]. NorMuon [1].", cited=(2, 1)))
    # second turn: its own [1] is the weird paper, its [2] again STAR-KV
    sources = (Source(1, PAPERS[2], 0.03), Source(2, PAPERS[1], 0.02))
    second = Turn(question="[bold]and[/] the rest?", answer="Weird [1] and STAR-KV [2] and unknown [9].",
                       sources=sources, citations=(Citation(1, PAPERS[2]), Citation(2, PAPERS[1])),
                       status="stopped")
    store.save_turn(chat_id, 1, second)
    md = to_markdown(store.load(chat_id))
    # references numbered in order of first citation (the turn's [1] before [2])
    assert "1. Zichong Li, Liming Liu. *NorMuon: Making Muon more efficient and scalable*. ICML 2026. " \
           "id `p-normuon`. <https://example.org/normuon>" in md
    assert "2. *STAR-KV*. ICML 2026. id `p-starkv`." in md
    assert "3. Ünïcødé [Author]. *[bold]Weird[/] title 注意力 🚀*. ICLR 2025. id `p-weird`." in md
    assert "STAR-KV compresses [2]. NorMuon [1]." in md
    assert "Weird [3] and STAR-KV [2] and unknown [9]." in md  # renumbered; an unchecked marker left alone
    assert "## 2. [bold]and[/] the rest?" in md and "_(answer stopped)_" in md
    assert md.count("the rest?") == 1  # each question once
    path = export_markdown(store.load(chat_id), tmp_path / "out")
    assert path.read_text(encoding="utf-8") == md and path.suffix == ".md"


def test_title_from_clips_at_a_word():
    assert title_from("  short\nquestion ") == "short question"
    long = title_from("word " * 40, max_chars=30)
    assert len(long) <= 30 and long.endswith("…")


def test_a_several_paper_answer_keeps_one_line_per_paper_in_the_app_and_the_export():
    """Markdown joins single line breaks into one paragraph; the app's renderer and the export keep them."""
    from rich.console import Console
    from rich.markdown import Markdown

    from assistant.tui.textutil import verbatim_markdown

    answer = "EDEN [1]: decodes with entropy.\nAAD [2]: decodes with alignment."
    console = Console(width=80, record=True)
    console.print(Markdown(verbatim_markdown(answer)))
    lines = [line.strip() for line in console.export_text().splitlines() if line.strip()]
    assert lines == ["EDEN [1]: decodes with entropy.", "AAD [2]: decodes with alignment."]


def test_the_export_lists_every_sentence_a_several_paper_line_quotes():
    """A line "EDEN [1]: s1. s2." carries its marker once, in its head: both sentences are EDEN's, and
    the export's reference list (and Ctrl+T's) showed only the first."""
    from assistant.chats import SavedChat
    from assistant.store.paper import Paper
    from assistant.text import sentences_citing

    eden = Paper(id="p1", title="EDEN", abstract="Decoding is costly. EDEN allocates computation by the model's "
                                                 "uncertainty. It improves output quality over beam search.")
    aad = Paper(id="p2", title="AAD", abstract="Alignment is hard. AAD aligns the model at inference time. It "
                                               "also produces synthetic data for alignment.")
    answer = ("EDEN [1]: EDEN allocates computation by the model's uncertainty. It improves output quality over "
              "beam search.\nAAD [2]: AAD aligns the model at inference time. It also produces synthetic data "
              "for alignment.")
    assert sentences_citing(answer, 1) == ("EDEN [1]: EDEN allocates computation by the model's uncertainty.",
                                           "It improves output quality over beam search.")
    assert all("EDEN" not in s and "beam" not in s for s in sentences_citing(answer, 2))
    sources = (Source(1, eden, 0.5), Source(2, aad, 0.4))
    citations = tuple(Citation(n, s.paper, sentences_citing(answer, n)) for n, s in enumerate(sources, start=1))
    t = Turn(question="Which papers change decoding?", answer=answer, sources=sources, citations=citations,
             status="complete", standalone_question="Which papers change decoding?")
    md = to_markdown(SavedChat(id="c" * 32, title="decoding", created=0.0, updated=0.0, turns=[t]))
    refs = md.split("## References", 1)[1]
    for quoted in ("EDEN allocates computation", "It improves output quality", "AAD aligns the model",
                   "It also produces synthetic data"):
        assert f"> {quoted}" in refs, refs
    assert "Decoding is costly" not in refs and "Alignment is hard" not in refs
