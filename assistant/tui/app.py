"""The chat app: `make_app` builds it for the ``assistant chat`` command and for tests.

The app only consumes the answer event stream (`assistant.events`): it runs the answer function in a
thread worker (``@work(thread=True, exclusive=True)``), hands each event to the UI thread with
``call_from_thread``, and sets the answer's ``cancel`` event on Esc or when a new question starts.
Collaborators are injectable (answer function, store, LLM factory, conversation store), with defaults
from the settings, so tests run the real app over a scripted answer stream.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Markdown, OptionList, Static

from assistant.chats import ChatStore, ChatStoreError, SavedTurn, export_markdown, title_from
from assistant.events import Citations, Done, Error, Source, Sources, TextDelta
from assistant.retrieval import Filters
from assistant.tui.screens.chats import ChatDeleted, ChatsScreen
from assistant.tui.screens.help import HelpScreen
from assistant.tui.screens.settings import ChatOptions, SettingsScreen
from assistant.tui.screens.source import SourceScreen
from assistant.tui.textutil import markers_in, one_line
from assistant.tui.widgets.conversation import ConversationView, TurnView
from assistant.tui.widgets.header import ChatHeader
from assistant.tui.widgets.question_input import QuestionInput
from assistant.tui.widgets.sources import SourcesPanel

if TYPE_CHECKING:
    from assistant.settings import Settings
    from store.collection import PaperStore

AnswerFn = Callable[..., Iterator[Any]]
"""``answer(question, *, retriever, llm, settings, conversation, filters, top_k, cancel)`` → events."""
LLMFactory = Callable[..., Any]
"""``make_llm(settings, name=None, model=None)`` → a backend with ``.name`` and ``.model``."""

INPUT_TITLE = "Ask · Enter sends · Ctrl+J new line · ↑↓ history"
LOCKED_TITLE = "answering… Esc stops"


@dataclass
class Job:
    """The answer being streamed: its turn view, the turn being built and its cancel event."""

    question: str
    position: int
    view: TurnView
    filters: Filters
    cancel: threading.Event = field(default_factory=threading.Event)
    turn: SavedTurn = None  # type: ignore[assignment]
    started: float = field(default_factory=time.monotonic)
    dropped: tuple[int, ...] = ()
    note: str = ""
    refused: bool = False

    def __post_init__(self) -> None:
        if self.turn is None:
            self.turn = SavedTurn(question=self.question)


def _default_store(settings: Settings) -> tuple[PaperStore, str]:
    """The configured store; the default collection gets the bundled abstracts when empty."""
    from store.collection import PaperStore
    from store.ingest import ensure_default_collection

    store = PaperStore(settings)
    message = ""
    if settings.collection == "papers":
        report = ensure_default_collection(store)
        if report is not None:
            message = f"Loaded the bundled ICML 2026 collection ({report.added} abstracts)."
    return store, message


def _default_answer_fn(*args, **kwargs):
    from assistant.answering import answer

    return answer(*args, **kwargs)


def _default_llm_factory(settings, name=None, model=None):
    from assistant.llm import make_llm

    return make_llm(settings, name=name, model=model)


def _new_conversation():
    from assistant.conversation import Conversation

    return Conversation()


def _conversation_turn(saved: SavedTurn, dropped: tuple[int, ...] = (), refused: bool = False):
    """The `assistant.conversation.Turn` for a finished turn (sources and citations as their JSON)."""
    from assistant.conversation import Turn

    status = saved.status if saved.status in ("complete", "partial", "stopped", "error") else "partial"
    return Turn(question=saved.question, standalone_question=saved.standalone_question or saved.question,
                answer=saved.answer, sources=[s.to_json() for s in saved.sources],
                citations=[c.to_json() for c in saved.citations], dropped_citations=list(dropped),
                status=status, backend=saved.backend, model=saved.model, error=saved.error, refused=refused,
                seconds=saved.seconds)


def _snapshot(conversation):
    """A copy of the conversation for one answer call. `answer()` appends its turn to the conversation
    it is given when its stream ends, which for a stopped answer happens later, on the worker thread;
    the app instead records each turn itself, in order, exactly as shown and saved."""
    import copy

    snap = copy.copy(conversation)
    snap.turns = list(conversation.turns)
    return snap


def error_message(exc: BaseException) -> str:
    """One line for the conversation: the product's own errors as they are, others with their type."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    own = type(exc).__name__ in ("StoreError", "EmbeddingError", "SettingsError", "ChatStoreError", "LLMError")
    return one_line(text if own else f"{type(exc).__name__}: {text}", 300)


class ChatApp(App):
    """Terminal chat over the paper collection. Build it with `make_app`."""

    CSS_PATH = "app.tcss"
    TITLE = "Paper assistant"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("escape", "stop", "Stop"),
        Binding("ctrl+n", "new_chat", "New"),
        Binding("ctrl+o", "chats", "Chats"),
        Binding("ctrl+s", "settings", "Settings"),
        Binding("ctrl+r", "export", "Export"),
        Binding("ctrl+t", "copy_answer", "Copy"),
        Binding("f2", "focus_sources", "Sources"),
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, settings: Settings, *, answer_fn: AnswerFn, llm_factory: LLMFactory,
                 store: PaperStore | None, store_factory: Callable[[Settings], tuple[PaperStore, str]],
                 chat_store: ChatStore, export_dir: Path, options: ChatOptions, top_k: int | None,
                 chat_id: str | None):
        super().__init__()
        self.settings = settings
        self.options = options
        self.top_k = top_k
        self.export_dir = Path(export_dir)
        self.chats = chat_store
        self._answer_fn = answer_fn
        self._llm_factory = llm_factory
        self._store = store
        self._store_factory = store_factory
        self._open_chat_id = chat_id
        self._lock = threading.Lock()
        self._retriever = None
        self._llm = None
        self._llm_key: tuple[str, str | None] | None = None
        self.count: int | None = None
        self._counted: int | None = None  # last count seen by a worker (the store answered)
        self.chat_id: str | None = None
        self.turns: list[SavedTurn] = []
        self.conversation = _new_conversation()
        self.current: Job | None = None
        self.last_export: Path | None = None

    # --- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield ChatHeader(id="header")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ConversationView(id="conversation")
                yield QuestionInput(id="question")
            with Vertical(id="sources-pane"):
                yield Static(Text("Sources"), id="sources-title", markup=False)
                yield SourcesPanel(id="sources")
        yield Footer()

    @property
    def header(self) -> ChatHeader:
        return self.query_one(ChatHeader)

    @property
    def input(self) -> QuestionInput:
        return self.query_one(QuestionInput)

    @property
    def view(self) -> ConversationView:
        return self.query_one(ConversationView)

    @property
    def sources_panel(self) -> SourcesPanel:
        return self.query_one(SourcesPanel)

    async def on_mount(self) -> None:
        self.input.border_title = INPUT_TITLE
        self.header.set_state(collection=self.settings.collection, filters=self.options.filters.describe())
        self.sources_panel.show_sources((), note="The sources of the answer appear here.")
        self.input.focus()
        if self._open_chat_id:
            await self.open_chat(self._open_chat_id)
        else:
            await self._welcome()
        self._load_collaborators()

    async def _welcome(self) -> None:
        await self.view.add_note(Text.assemble(
            ("Ask a question about the abstracts in the collection. ", "bold"),
            "Answers cite papers as [n]; open a source from the panel on the right (Tab, then Enter) or "
            "by clicking its marker. F1 shows every key."))

    # --- collaborators (store, retriever, LLM), prepared off the event loop -------------------------
    def _ensure_ready(self) -> int:
        """Open the store and make the LLM backend if not done yet (worker threads only). Returns the
        number of abstracts. Raises the store's error, else the backend's (each is tried either way,
        so the header can name a working backend when only the store is down, and the reverse)."""
        with self._lock:
            error: Exception | None = None
            count = 0
            try:
                if self._store is None:
                    self._store, message = self._store_factory(self.settings)
                    if message:
                        self.call_from_thread(self.notify, message)
                count = self._store.count()
                self._counted = count
                if self._retriever is None:
                    from assistant.retrieval import Retriever

                    self._retriever = Retriever(self._store, self.settings)
            except Exception as exc:
                error = exc
            key = (self.options.backend, self.options.model)
            if self._llm is None or self._llm_key != key:
                self._llm = None
                try:
                    self._llm = self._llm_factory(self.settings, name=None if key[0] == "auto" else key[0],
                                                  model=key[1])
                    self._llm_key = key
                except Exception as exc:
                    error = error or exc
            if error is not None:
                raise error
            return count

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load_collaborators(self) -> None:
        try:
            count = self._ensure_ready()
        except Exception as exc:  # shown in the conversation; the app stays usable
            self._from_thread(self._load_failed, error_message(exc))
            return
        self._from_thread(self._loaded, count)

    def _from_thread(self, fn, *args) -> Any:
        try:
            return self.call_from_thread(fn, *args)
        except RuntimeError:  # the app has closed
            return None

    async def _loaded(self, count: int) -> None:
        self.count = count
        llm = self._llm
        self.header.set_state(count=count, problem="", backend=getattr(llm, "name", "?"),
                              model=getattr(llm, "model", "") or "")
        notice = getattr(llm, "notice", "")
        if notice:
            await self.view.add_note(Text(notice, style="italic"))
        if count == 0:
            await self.view.add_note(Text("No abstracts loaded: add some with `assistant ingest FILE`, "
                                          "then start the chat again.", style="bold"), classes="note -error")

    async def _load_failed(self, message: str) -> None:
        if self._counted is None:  # the store did not answer
            self.header.set_state(problem="store unavailable")
        else:
            self.count = self._counted
            self.header.set_state(count=self._counted, problem="")
        if self._llm is not None:
            self.header.set_state(backend=self._llm.name, model=getattr(self._llm, "model", "") or "")
        else:  # the backend could not be set up
            self.header.set_state(backend=f"{self.options.backend} (not available)", model="")
        await self.view.add_note(Text("⚠ " + message, style="bold"), classes="note -error")

    # --- asking ------------------------------------------------------------------------------------
    @on(QuestionInput.Submitted)
    async def _submitted(self, event: QuestionInput.Submitted) -> None:
        event.stop()
        self.input.remember(event.text)
        self.input.clear()
        await self.ask(event.text)

    async def ask(self, question: str) -> None:
        """Ask `question` in this conversation. A question still streaming is stopped first."""
        if self.current is not None:
            await self._stop_current()
        position = len(self.turns)
        view = await self.view.add_turn(position, question)
        job = Job(question=question, position=position, view=view, filters=self.options.filters)
        self.current = job
        self._lock_input(True)
        self.sources_panel.show_sources((), turn=position, note="Retrieving…")
        self._answer_worker(job)

    @work(thread=True, exclusive=True, group="answer", exit_on_error=False)
    def _answer_worker(self, job: Job) -> None:
        events = None
        finished = False
        try:
            self._ensure_ready()
            if self.count is None:
                self._from_thread(self._loaded, self._store.count())
            events = self._answer_fn(job.question, retriever=self._retriever, llm=self._llm,
                                     settings=self.settings, conversation=_snapshot(self.conversation),
                                     filters=None if job.filters.empty else job.filters, top_k=self.top_k,
                                     cancel=job.cancel)
            for event in events:
                if job.cancel.is_set():
                    return
                self._from_thread(self._on_event, job, event)
                if isinstance(event, (Done, Error)):
                    finished = True
                    return
            if not job.cancel.is_set():
                finished = True
                self._from_thread(self._on_event, job, Error("the answer ended without finishing", kind="empty"))
        except Exception as exc:  # LLM down, store unreachable, …: shown in the conversation
            if not finished and not job.cancel.is_set():
                self._from_thread(self._on_event, job, Error(error_message(exc), kind="exception"))
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:
                    pass

    async def _on_event(self, job: Job, event) -> None:
        """Apply one answer event on the UI thread; events of a stopped or replaced answer are ignored."""
        if job is not self.current:
            return
        turn = job.turn
        if isinstance(event, Sources):
            turn.sources = tuple(event.sources)
            turn.standalone_question = event.question
            job.note = event.note
            self.sources_panel.show_sources(turn.sources, turn=job.position,
                                            note=event.note or "No paper in the collection matched.")
        elif isinstance(event, TextDelta):
            await job.view.write(event.text)
        elif isinstance(event, Citations):
            turn.citations = tuple(event.citations)
            job.dropped = tuple(event.dropped)
            self.sources_panel.mark_cited(c.n for c in turn.citations)
        elif isinstance(event, Done):
            turn.answer = event.answer
            turn.backend, turn.model = event.backend, event.model
            turn.seconds = event.seconds or (time.monotonic() - job.started)
            job.refused = event.refused
            turn.status = "complete"
            await job.view.finish(event.answer, [c.n for c in turn.citations], "complete", self._note(job))
            await self._end(job)
        elif isinstance(event, Error):
            turn.error = event.message
            if not turn.sources:
                self.sources_panel.show_sources((), turn=job.position, note="No sources: the answer failed.")
            turn.status = "partial" if (job.view.text or event.partial).strip() else "error"
            self._fill_backend(turn)
            await job.view.fail(event.message, event.partial, self._note(job, with_time=False))
            turn.answer = job.view.text
            turn.status = job.view.status
            await self._end(job)

    def _fill_backend(self, turn: SavedTurn) -> None:
        if not turn.backend and self._llm is not None:
            turn.backend, turn.model = getattr(self._llm, "name", ""), getattr(self._llm, "model", "") or ""

    def _note(self, job: Job, with_time: bool = True) -> Text:
        turn = job.turn
        t = Text(style="dim")
        if turn.backend:
            t.append(f"{turn.backend} · {turn.model}")
        if with_time:
            t.append(f" · {turn.seconds:.1f} s")
        cited = sorted({c.n for c in turn.citations})
        if cited:
            t.append(" · cites " + " ".join(f"[{n}]" for n in cited))
        elif turn.status == "complete" and turn.sources:
            t.append(" · cites no source")
        if job.dropped:
            t.append(" · removed unknown markers " + " ".join(f"[{n}]" for n in job.dropped), style="yellow")
        if turn.status == "partial":
            t.append(" · the answer is incomplete", style="yellow")
        if job.refused:
            t.append(" · the abstracts do not answer this", style="yellow")
        if not turn.sources and job.note:
            t.append(" · ")
            t.append(job.note)
        return t

    async def _stop_current(self) -> None:
        """Stop the streaming answer: keep its text, mark it stopped, save it."""
        job = self.current
        if job is None:
            return
        job.cancel.set()
        turn = job.turn
        turn.status = "stopped"
        self._fill_backend(turn)
        note = Text("■ stopped", style="bold yellow")
        note.append(" · what came is kept" if job.view.text.strip() else " before any text came", style="dim")
        await job.view.finish(None, [], "stopped", note)
        turn.answer = job.view.text
        await self._end(job)

    async def _end(self, job: Job) -> None:
        """The turn is over (complete, partial, stopped, error): record it, save it, give input back."""
        if job is not self.current:
            return
        self.current = None
        self.turns.append(job.turn)
        # every turn, whatever its ending, as answer() itself records them
        self.conversation.add(_conversation_turn(job.turn, job.dropped, job.refused))
        self._save(job.position, job.turn)
        self._lock_input(False)

    def _lock_input(self, locked: bool) -> None:
        box = self.input
        box.read_only = locked
        box.set_class(locked, "-locked")
        box.border_title = LOCKED_TITLE if locked else INPUT_TITLE
        if not locked and (self.screen is self.screen_stack[0]):
            box.focus()

    def _chat_settings(self) -> dict:
        f = self.options.filters
        return {"backend": self.options.backend, "model": self.options.model, "filters": f.describe(),
                "filters_json": f.to_json()}

    def _save(self, position: int, turn: SavedTurn) -> None:
        try:
            if self.chat_id is None:
                self.chat_id = self.chats.create(title_from(self.turns[0].question), self._chat_settings())
            self.chats.save_turn(self.chat_id, position, turn, self._chat_settings())
        except ChatStoreError as exc:
            self.notify(f"not saved: {exc}", severity="error", timeout=8)

    # --- actions -----------------------------------------------------------------------------------
    async def action_stop(self) -> None:
        if self.current is not None:
            await self._stop_current()

    async def action_quit(self) -> None:
        """Quit; an answer still streaming is stopped and saved first (nothing shown is lost)."""
        await self._stop_current()
        self.exit()

    async def action_new_chat(self) -> None:
        await self._stop_current()
        await self._reset()
        await self._welcome()
        self.notify("New conversation.")

    async def _reset(self) -> None:
        self.chat_id = None
        self.turns = []
        self.conversation = _new_conversation()
        await self.view.clear()
        self.sources_panel.show_sources((), note="The sources of the answer appear here.")

    def action_chats(self) -> None:
        async def chosen(chat_id: str | None) -> None:
            if chat_id:
                await self.open_chat(chat_id)
            self.input.focus()

        self.push_screen(ChatsScreen(self.chats, current=self.chat_id), chosen)

    async def open_chat(self, chat_id: str) -> bool:
        """Show a saved conversation and continue it (its filters come back too)."""
        try:
            chat = self.chats.load(chat_id)
        except ChatStoreError as exc:
            self.notify(str(exc), severity="error")
            return False
        if chat is None:
            self.notify(f"No saved conversation with id {chat_id}.", severity="error")
            return False
        await self._stop_current()
        await self._reset()
        self.chat_id = chat.id
        filters = (chat.settings or {}).get("filters_json")
        if filters:
            self.options = ChatOptions(self.options.backend, self.options.model, Filters(**filters))
            self.header.set_state(filters=self.options.filters.describe())
        note = Text(f"Reopened “{chat.title}” ({len(chat.turns)} question{'s' if len(chat.turns) != 1 else ''}).",
                    style="dim italic")
        await self.view.add_note(note)
        for position, turn in enumerate(chat.turns):
            view = await self.view.add_turn(position, turn.question)
            status = Text(f"{turn.backend} · {turn.model}" if turn.backend else "", style="dim")
            if turn.status == "stopped":
                status.append(" · ■ stopped", style="yellow")
            if turn.error:
                status.append(" · ⚠ " + turn.error, style="red")
            cited = sorted({c.n for c in turn.citations})
            if cited:
                status.append(" · cites " + " ".join(f"[{n}]" for n in cited))
            view.show_saved(turn.answer, cited, turn.status, status)
            self.turns.append(turn)
            self.conversation.add(_conversation_turn(turn))
            self.input.remember(turn.question)
        if chat.turns:
            last = chat.turns[-1]
            self.sources_panel.show_sources(last.sources, (c.n for c in last.citations), turn=len(chat.turns) - 1)
        self.view.scroll_end(animate=False)
        return True

    @on(ChatDeleted)
    async def _current_deleted(self, event: ChatDeleted) -> None:
        if event.chat_id == self.chat_id:
            await self._reset()
            await self._welcome()

    def action_settings(self) -> None:
        def chosen(options: ChatOptions | None) -> None:
            if options is not None:
                self.apply_options(options)
            self.input.focus()

        self.push_screen(SettingsScreen(self.options), chosen)

    def apply_options(self, options: ChatOptions) -> None:
        """Use another backend/model or other filters from the next question on."""
        changed_llm = (options.backend, options.model) != (self.options.backend, self.options.model)
        self.options = options
        self.header.set_state(filters=options.filters.describe())
        if changed_llm:
            self.header.set_state(backend=f"{options.backend}…", model=options.model or "")
            self._load_collaborators()

    def action_export(self) -> None:
        if not self.chat_id or not self.turns:
            self.notify("Nothing to export yet: ask a question first.", severity="warning")
            return
        try:
            chat = self.chats.load(self.chat_id)
            if chat is None:
                raise ChatStoreError("this conversation is no longer saved")
            path = export_markdown(chat, self.export_dir)
        except (ChatStoreError, OSError) as exc:
            self.notify(f"export failed: {exc}", severity="error", timeout=8)
            return
        self.last_export = path
        self.notify(f"Exported to {path}", timeout=8)

    def action_copy_answer(self) -> None:
        text = self.current.view.text if self.current is not None else ""
        if not text and self.turns:
            text = next((t.answer for t in reversed(self.turns) if t.answer.strip()), "")
        if not text:
            self.notify("No answer to copy yet.", severity="warning")
            return
        self.copy_to_clipboard(text)
        self.notify(f"Copied the answer ({len(text)} characters).")

    def action_focus_sources(self) -> None:
        self.sources_panel.focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(), lambda _: self.input.focus())

    # --- sources -----------------------------------------------------------------------------------
    @on(OptionList.OptionSelected, "#sources")
    def _source_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        panel = self.sources_panel
        if event.option.id and event.option.id.startswith("source-") and panel.turn is not None:
            self.open_source(panel.turn, int(event.option.id.removeprefix("source-")))

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        href = event.href
        if href.startswith("cite:"):
            event.stop()
            try:
                _, turn, n = href.split(":")
                self.open_source(int(turn), int(n))
            except ValueError:
                pass
        elif href.startswith(("http://", "https://")):
            event.stop()
            self.open_url(href)

    def _turn_at(self, position: int) -> SavedTurn | None:
        if self.current is not None and self.current.position == position:
            return self.current.turn
        return self.turns[position] if 0 <= position < len(self.turns) else None

    def open_source(self, position: int, n: int) -> bool:
        """Open source `n` of turn `position` in the abstract viewer."""
        turn = self._turn_at(position)
        source: Source | None = next((s for s in turn.sources if s.n == n), None) if turn else None
        if source is None:
            self.notify(f"Source [{n}] is not among this answer's sources.", severity="warning")
            return False
        citation = next((c for c in turn.citations if c.n == n), None)
        sentences = citation.sentences if citation else ()
        if citation and not sentences:
            sentences = tuple(s for s in _answer_sentences(turn.answer) if n in markers_in(s))
        self.push_screen(SourceScreen(source, sentences, cited=citation is not None))
        return True


def _answer_sentences(answer: str) -> list[str]:
    from assistant.tui.textutil import sentence_spans

    return [answer[s:e] for s, e in sentence_spans(answer)]


def make_app(settings: Settings | None = None, *, answer_fn: AnswerFn | None = None,
             llm_factory: LLMFactory | None = None, store: PaperStore | None = None,
             store_factory: Callable[[Settings], tuple[PaperStore, str]] | None = None,
             chat_store: ChatStore | None = None, export_dir: Path | None = None,
             backend: str | None = None, model: str | None = None, filters: Filters | None = None,
             top_k: int | None = None, chat_id: str | None = None) -> ChatApp:
    """The chat app, used by ``assistant chat`` and by the tests.

    Defaults come from `settings`: ``assistant.answering.answer``, ``assistant.llm.make_llm``, the
    configured store (opened in a worker after the first frame, with the bundled abstracts loaded into
    an empty default collection), conversations in ``settings.paths.conversations_db``, exports in the
    current folder. `backend` is "auto", "openai", "local" or "extractive" (default: ``settings.llm``);
    `chat_id` reopens a saved conversation (an id prefix is enough).
    """
    if settings is None:
        from assistant.settings import load_settings

        settings = load_settings()
    options = ChatOptions(backend=backend or settings.llm, model=model if model is not None else settings.model,
                          filters=filters or Filters())
    return ChatApp(
        settings,
        answer_fn=answer_fn or _default_answer_fn,
        llm_factory=llm_factory or _default_llm_factory,
        store=store,
        store_factory=store_factory or _default_store,
        chat_store=chat_store or ChatStore(settings.paths.conversations_db),
        export_dir=export_dir or Path.cwd(),
        options=options,
        top_k=top_k,
        chat_id=chat_id,
    )
