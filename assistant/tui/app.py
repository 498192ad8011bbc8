"""The chat app: `make_app` builds it for the ``assistant chat`` command and for tests.

The app only consumes the answer event stream (`assistant.events`): it runs the answer function in a
thread worker (``@work(thread=True, exclusive=True)``), hands each event to the UI thread with
``call_from_thread``, and sets the answer's ``cancel`` event on Esc. Streamed text is not handed over
chunk by chunk: the worker appends it to the job's buffer and a timer on the UI thread shows what came
at most 10 times a second (`STREAM_FPS`), and less often when the event loop runs late (a loaded
machine), so a fast stream cannot flood the event loop and keys stay quick. The input stays editable
while an answer streams; Enter then queues the question, which is asked when the answer ends (Esc
stops the answer and puts queued questions back into the input).

Filters belong to the conversation: they are saved with it (and with each turn), come back when it is
reopened, and a new conversation starts with the filters given on the command line.

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
from textual.widgets import OptionList, Static

from assistant.enums import BackendName, ErrorKind, TurnStatus
from assistant.chats import (ChatStore, ChatStoreError, answer_with_references, cited_sentences, export_markdown,
                             title_from)
from assistant.conversation import Turn
from assistant.errors import AssistantError
from assistant.events import Answer, Citations, Done, Error, Source, Sources, TextDelta
from assistant.retrieval import Filters
from assistant.tui.screens.chats import ChatDeleted, ChatsScreen
from assistant.tui.screens.help import HelpScreen
from assistant.tui.screens.settings import ChatOptions, SettingsScreen
from assistant.tui.screens.source import SourceScreen
from assistant.tui.textutil import one_line
from assistant.text import printable
from assistant.tui.widgets.conversation import AnswerView, ConversationView, TurnView
from assistant.tui.widgets.header import ChatHeader
from assistant.tui.widgets.keybar import KeyBar
from assistant.tui.widgets.question_input import QuestionInput
from assistant.tui.widgets.sources import SourcesPanel

if TYPE_CHECKING:
    from assistant.settings import Settings
    from assistant.store.collection import PaperStore

AnswerFn = Callable[..., Iterator[Any]]
"""``answer(question, *, retriever, llm, settings, conversation, filters, top_k, cancel)`` → events."""
LLMFactory = Callable[..., Any]
"""``make_llm(settings, name=None, model=None)`` → a backend with ``.name`` and ``.model``."""

INPUT_TITLE = "Ask · Enter sends · Ctrl+J new line · ↑↓ history"
STREAMING_TITLE = "answering… Esc stops · Enter queues the next question"
STREAM_FPS = 10
"""How often (per second) streamed text is shown at most; chunks arriving in between are shown together.
When the flush timer fires late (the event loop is busy), the next flush waits that much longer again
(up to `STREAM_MAX_WAIT` seconds), leaving the loop time for keys."""
STREAM_MAX_WAIT = 0.5
SOURCES_WIDTHS = ((130, 42), (100, 36), (70, 28))
"""(terminal columns at least, sources panel columns); narrower terminals hide the panel (F3 shows it)."""


@dataclass
class Job:
    """The answer being streamed: its turn view, its events folded so far (`answer`, fed by the worker),
    the turn built from them and its cancel event."""

    question: str
    position: int
    view: TurnView
    filters: Filters
    cancel: threading.Event = field(default_factory=threading.Event)
    turn: Turn = None  # type: ignore[assignment]
    answer: Answer = None  # type: ignore[assignment]
    started: float = field(default_factory=time.monotonic)
    pending: list[str] = field(default_factory=list)  # streamed text not shown yet (worker → UI thread)
    buffer_lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.turn is None:
            self.turn = Turn(question=self.question, filters=self.filters.to_json())
        if self.answer is None:
            self.answer = Answer(question=self.question)

    def take_pending(self) -> str:
        with self.buffer_lock:
            text = "".join(self.pending)
            self.pending.clear()
        return text


def _default_store(settings: Settings) -> tuple[PaperStore, str]:
    """The configured store; the default collection gets the bundled abstracts when empty."""
    from assistant.store.collection import PaperStore
    from assistant.store.ingest import bundled_loaded_message, ensure_default_collection, new_data_folder

    new_folder = new_data_folder(settings)
    store = PaperStore(settings)
    message = ""
    if settings.collection == "papers":
        report = ensure_default_collection(store)
        if report is not None:
            message = bundled_loaded_message(report, new_folder)
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


def filters_from_json(data: dict | None) -> Filters:
    """`Filters` from their saved JSON ({} or None: no filters; unknown keys are ignored)."""
    if not data:
        return Filters()
    known = set(Filters.__dataclass_fields__)
    return Filters(**{k: v for k, v in data.items() if k in known})


def chat_hint(kind: str, backend: str, where: str = "") -> str:
    """The fix for a failed answer that applies in the chat with this `backend` ("" when none is known);
    `where` is the LLM server.

    Settings from the environment need a restart; Ctrl+S switches backend for the next question."""
    if kind == ErrorKind.EMBEDDING:  # the embedding model is missing or broken, not the store
        return "set ASSISTANT_EMBEDDING_MODEL_DIR to the model's folder and restart the chat"
    if kind == ErrorKind.STORE:
        return "check the store with `assistant stats`, then ask again"
    if backend == BackendName.OPENAI:
        if kind == ErrorKind.AUTH:
            return "check OPENAI_API_KEY and restart the chat, or pick another backend with Ctrl+S"
        if kind in (ErrorKind.CONNECTION, ErrorKind.TIMEOUT):
            return (f"start the server{f' at {where}' if where else ''} (or set OPENAI_BASE_URL and restart), "
                    "or pick another backend with Ctrl+S")
        if kind == ErrorKind.RATE_LIMIT:
            return "wait a moment and ask again, or pick another backend with Ctrl+S"
        if kind == ErrorKind.CONTEXT_LENGTH:
            return "ask with fewer sources (assistant chat -k 3) or a model with a longer context window"
        return "pick another backend or model with Ctrl+S"
    if backend == BackendName.LOCAL:
        if kind == ErrorKind.CONFIG:
            return "set ASSISTANT_LOCAL_MODEL_PATH to a GGUF file and restart, or pick another backend with Ctrl+S"
        return "pick another backend with Ctrl+S"
    if kind == ErrorKind.CONFIG:
        return "pick another backend with Ctrl+S"
    return ""


def error_message(exc: BaseException) -> str:
    """One line for the conversation: the product's own errors as they are, others with their type."""
    text = " ".join(printable(str(exc)).split()) or type(exc).__name__
    own = isinstance(exc, AssistantError)  # kept whole: its end says what to do
    return one_line(text if own else f"{type(exc).__name__}: {text}", 800 if own else 300)


class ChatApp(App):
    """Terminal chat over the paper collection. Build it with `make_app`."""

    CSS_PATH = "app.tcss"
    TITLE = "Paper assistant"
    ENABLE_COMMAND_PALETTE = False
    # the key bar shows these in order and clips at the right edge: the essentials come first
    BINDINGS = [
        Binding("f1", "help", "Help"),
        Binding("escape", "stop", "Stop"),
        Binding("ctrl+n", "new_chat", "New"),
        Binding("ctrl+o", "chats", "Chats"),
        Binding("ctrl+s", "settings", "Settings"),
        Binding("f3", "toggle_sources", "Panel"),
        Binding("ctrl+t", "copy_answer", "Copy"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+r", "export", "Export"),
        Binding("f2", "focus_sources", "Sources", show=False),
        Binding("ctrl+up,alt+up", "select_turn(-1)", "Previous answer", show=False),
        Binding("ctrl+down,alt+down", "select_turn(1)", "Next answer", show=False),
        Binding("f4", "edit_last", "Edit last question", show=False),
        Binding("f5", "regenerate", "Ask the last question again", show=False),
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
        self.turns: list[Turn] = []
        self.conversation = _new_conversation()
        self.current: Job | None = None
        self.last_export: Path | None = None
        self.default_filters = options.filters  # what a new conversation starts with (the command line's)
        self.queued: list[str] = []  # questions sent while an answer streamed, asked in order
        self.selected: int | None = None  # the turn whose sources the panel shows
        self.sources_shown: bool | None = None  # None: by terminal width; else what F3 last chose
        self.replacing: int | None = None  # F4: the next question replaces this turn
        self._flush_timer = None  # the pending one-shot flush of streamed text (see `_schedule_flush`)

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
        yield KeyBar([(b.key, b.description, b.action) for b in self.BINDINGS if b.show], id="keys",
                     essential=("help", "quit", "copy_answer", "stop", "new_chat", "chats"))

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
        self._layout_sources()

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

    # --- layout: the sources panel fits the terminal -------------------------------------------------
    def on_resize(self, event) -> None:
        self._layout_sources(event.size.width)

    def _layout_sources(self, width: int | None = None) -> None:
        """Size the sources panel for the terminal width (`SOURCES_WIDTHS`), or hide it on a narrow one
        unless F3 asked for it; the conversation and the input get the rest."""
        width = width or self.size.width
        pane = self.query_one("#sources-pane")
        panel_width = next((w for at_least, w in SOURCES_WIDTHS if width >= at_least), 0)
        shown = self.sources_shown if self.sources_shown is not None else panel_width > 0
        pane.display = shown
        if shown:
            pane.styles.width = panel_width or max(20, width // 2)
        if not shown and self.focused is self.sources_panel:
            self.input.focus()

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
                    self._llm = self._llm_factory(self.settings, name=None if key[0] == BackendName.AUTO else key[0],
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
            self._from_thread(self._load_failed, error_message(exc), getattr(exc, "problem", "store unavailable"))
            return
        self._from_thread(self._loaded, count)

    def _from_thread(self, fn, *args) -> Any:
        try:
            return self.call_from_thread(fn, *args)
        except RuntimeError:  # the app has closed
            return None

    async def _loaded(self, count: int) -> None:
        self.count = count
        self._count_matching()
        llm = self._llm
        self.header.set_state(count=count, problem="", backend=getattr(llm, "name", "?"),
                              model=getattr(llm, "model", "") or "")
        notice = getattr(llm, "notice", "")
        if notice:
            await self.view.add_note(Text(notice, style="italic"))
        if count == 0:
            await self.view.add_note(Text("No abstracts loaded: add some with `assistant ingest FILE`, "
                                          "then start the chat again.", style="bold"), classes="note -error")

    async def _load_failed(self, message: str, problem: str = "store unavailable") -> None:
        """Show why the store or the backend could not be set up: `message` (one line, what to do) in the
        conversation, `problem` (a few words, e.g. "embedding precision mismatch") in the header."""
        if self._counted is None:  # the store did not answer
            self.header.set_state(problem=problem)
        else:
            self.count = self._counted
            self.header.set_state(count=self._counted, problem="")
        if self._llm is not None:
            self.header.set_state(backend=self._llm.name, model=getattr(self._llm, "model", "") or "")
        else:  # the backend could not be set up
            self.header.set_state(backend=f"{self.options.backend} (not available)", model="")
        await self.view.add_note(Text("⚠ " + message, style="bold"), classes="note -error")

    @work(thread=True, exclusive=True, group="match", exit_on_error=False)
    def _count_matching(self) -> None:
        """Count the papers matching the conversation's filters (worker); the header shows it."""
        filters = self.options.filters
        if filters.empty:
            self._from_thread(self._matching_counted, filters, None)
            return
        try:
            papers = self._store.papers()
        except Exception:  # a store that cannot list its papers: the header shows no count
            return
        self._from_thread(self._matching_counted, filters, sum(1 for p in papers if filters.matches(p)))

    def _matching_counted(self, filters: Filters, matching: int | None) -> None:
        if filters == self.options.filters:
            self.header.set_state(matching=matching)

    # --- asking ------------------------------------------------------------------------------------
    @on(QuestionInput.Submitted)
    async def _submitted(self, event: QuestionInput.Submitted) -> None:
        event.stop()
        self.input.remember(event.text)
        self.input.clear()
        if self.current is not None:  # queued: asked when the streaming answer ends
            self.queued.append(event.text)
            self._show_input_state()
            self.notify(f"Queued: {one_line(printable(event.text), 60)} (asked when this answer ends; "
                        "Esc stops it and puts the question back)", timeout=4)
            return
        await self.ask(event.text)

    async def ask(self, question: str) -> None:
        """Ask `question` in this conversation. A question still streaming is stopped first; after
        F4 the question replaces the last turn."""
        if self.current is not None:
            await self._stop_current()
        if self.replacing is not None:
            await self._drop_turns_from(self.replacing)
            self.replacing = None
        position = len(self.turns)
        view = await self.view.add_turn(position, question)
        job = Job(question=question, position=position, view=view, filters=self.options.filters)
        self.current = job
        self._show_input_state()
        self._select(position)
        self.sources_panel.show_sources((), turn=position, note="Retrieving…")
        self._schedule_flush(1 / STREAM_FPS)
        self._answer_worker(job)

    def _show_input_state(self) -> None:
        box = self.input
        streaming = self.current is not None
        box.set_class(streaming, "-streaming")
        title = STREAMING_TITLE if streaming else INPUT_TITLE
        if self.queued:
            title = f"answering… Esc stops · {len(self.queued)} queued"
        box.border_title = title

    def _schedule_flush(self, wait: float) -> None:
        due = time.monotonic() + wait
        self._flush_timer = self.set_timer(wait, lambda: self._flush_stream(due))

    async def _flush_stream(self, due: float) -> None:
        """Show the text streamed since the last flush (a timer on the UI thread), then schedule the next
        one: 1/`STREAM_FPS` s later, plus twice as long as this one ran late (a busy loop), at most
        `STREAM_MAX_WAIT` s."""
        job = self.current
        if job is None:
            return
        late = max(0.0, time.monotonic() - due)
        text = job.take_pending()
        if text:
            await job.view.write(text)
        if self.current is job:
            self._schedule_flush(min(STREAM_MAX_WAIT, 1 / STREAM_FPS + 2 * late))

    @work(thread=True, exclusive=True, group="answer", exit_on_error=False)
    def _answer_worker(self, job: Job) -> None:
        events = None
        finished = False

        def deliver(event) -> None:
            job.answer.add(event)  # the one fold; the UI thread reads the result from it
            self._from_thread(self._on_event, job, event)

        try:
            self._ensure_ready()
            if self.count is None:
                self._from_thread(self._loaded, self._store.count())
            job.answer.backend = getattr(self._llm, "name", None)
            job.answer.model = getattr(self._llm, "model", None)
            events = self._answer_fn(job.question, retriever=self._retriever, llm=self._llm,
                                     settings=self.settings, conversation=self.conversation,
                                     filters=None if job.filters.empty else job.filters, top_k=self.top_k,
                                     cancel=job.cancel)
            for event in events:
                if job.cancel.is_set():
                    return
                if isinstance(event, TextDelta):  # shown by `_flush_stream`, a frame at a time
                    with job.buffer_lock:
                        job.answer.add(event)
                        job.pending.append(event.text)
                    continue
                deliver(event)
                if isinstance(event, (Done, Error)):
                    finished = True
                    return
            if not job.cancel.is_set():
                finished = True
                deliver(Error("the answer ended without finishing", kind=ErrorKind.EMPTY))
        except Exception as exc:  # LLM down, store unreachable, …: shown in the conversation
            if not finished and not job.cancel.is_set():
                deliver(Error(error_message(exc), kind=ErrorKind.EXCEPTION))
        finally:
            close = getattr(events, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:
                    pass

    async def _on_event(self, job: Job, event) -> None:
        """Apply one answer event on the UI thread; events of a stopped or replaced answer are ignored.
        The turn takes what the fold (`job.answer`) knows; the event only says what to show now."""
        if job is not self.current:
            return
        turn = job.turn
        if not isinstance(event, Sources):
            pending = job.take_pending()  # text streamed before this event is shown first
            if pending:
                await job.view.write(pending)
        with job.buffer_lock:
            turn.update(job.answer)
        if isinstance(event, Sources):
            job.view.show_standalone(event.question)
            if self.selected == job.position:
                self.sources_panel.show_sources(turn.sources, turn=job.position,
                                                note=event.note or "No paper in the collection matched.")
        elif isinstance(event, TextDelta):
            await job.view.write(event.text)
        elif isinstance(event, Citations):
            if self.selected == job.position:
                self.sources_panel.mark_cited(c.n for c in turn.citations)
        elif isinstance(event, Done):
            turn.seconds = turn.seconds or (time.monotonic() - job.started)
            job.view.show_reason(self._reason(turn))
            await job.view.finish(turn.answer, [c.n for c in turn.citations], TurnStatus.COMPLETE, self._note(job))
            await self._end(job)
        elif isinstance(event, Error):
            if not turn.sources and self.selected == job.position:
                self.sources_panel.show_sources((), turn=job.position, note="No sources: the answer failed.")
            self._fill_backend(turn)
            hint = chat_hint(event.kind, self._backend_name(turn), getattr(self._llm, "where", "") or "")
            note = self._note(job, with_time=False)
            if hint:
                note.append(f"\n→ {hint}", style="italic")
            await job.view.fail(turn.error, turn.answer, note)
            turn.answer = job.view.text
            turn.status = job.view.status
            await self._end(job)

    def _backend_name(self, turn: Turn) -> str:
        return turn.backend or getattr(self._llm, "name", "") or self.options.backend

    @staticmethod
    def _reason(turn: Turn) -> str:
        """The reason an answer has no sources, said in the answer (e.g. no paper matches the filters)."""
        if turn.sources or not turn.note:
            return ""
        note = printable(turn.note)
        if note.startswith("no paper matches the filters"):
            return f"⚠ {note[0].upper()}{note[1:]}: change or clear them with Ctrl+S."
        return f"{note[0].upper()}{note[1:]}." if turn.refused else ""

    def _fill_backend(self, turn: Turn) -> None:
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
        elif turn.status == TurnStatus.COMPLETE and turn.sources:
            t.append(" · cites no source")
        if turn.dropped_citations:
            t.append(" · removed unknown markers " + " ".join(f"[{n}]" for n in turn.dropped_citations),
                     style="yellow")
        if turn.status == TurnStatus.PARTIAL:
            t.append(" · the answer is incomplete", style="yellow")
        if turn.refused:  # as the answer says it: no paper is about it, or the abstracts do not say
            from assistant.prompts import says_cannot_answer

            # "The abstracts do not say." about a paper the question names comes without sources too
            t.append(" · the abstracts do not answer this" if turn.sources or says_cannot_answer(turn.answer)
                     else " · no paper in the collection is about this", style="yellow")
        if not turn.sources and turn.note and not self._reason(turn):
            t.append(" · ")
            t.append(printable(turn.note))
        return t

    async def _stop_current(self) -> None:
        """Stop the streaming answer: keep its text, mark it stopped, save it."""
        job = self.current
        if job is None:
            return
        job.cancel.set()
        pending = job.take_pending()
        if pending:
            await job.view.write(pending)
        turn = job.turn
        turn.status = TurnStatus.STOPPED
        self._fill_backend(turn)
        note = Text("■ stopped", style="bold yellow")
        note.append(" · what came is kept" if job.view.text.strip() else " before any text came", style="dim")
        await job.view.finish(None, [], TurnStatus.STOPPED, note)
        turn.answer = job.view.text
        await self._end(job)

    async def _end(self, job: Job) -> None:
        """The turn is over (complete, partial, stopped, error): record it, save it, give input back."""
        if job is not self.current:
            return
        self.current = None
        if self._flush_timer is not None:
            self._flush_timer.stop()
        self.turns.append(job.turn)
        self.conversation.add(job.turn)  # every turn, whatever its ending (answer() never adds one)
        self._save(job.position, job.turn)
        if self.selected == job.position:
            self._select(job.position)
        self._show_input_state()
        if self.queued:
            await self.ask(self.queued.pop(0))

    def _chat_settings(self) -> dict:
        f = self.options.filters
        return {"backend": self.options.backend, "model": self.options.model, "filters": f.describe(),
                "filters_json": f.to_json()}

    def _save_settings(self) -> None:
        """Save the conversation's settings (filters, backend) now, e.g. after Ctrl+S."""
        if self.chat_id is None:
            return
        try:
            self.chats.update_settings(self.chat_id, self._chat_settings())
        except ChatStoreError as exc:
            self.notify(f"not saved: {exc}", severity="error", timeout=8)

    def _save(self, position: int, turn: Turn) -> None:
        try:
            if self.chat_id is None:
                self.chat_id = self.chats.create(title_from(self.turns[0].question), self._chat_settings())
            self.chats.save_turn(self.chat_id, position, turn, self._chat_settings())
        except ChatStoreError as exc:
            self.notify(f"not saved: {exc}", severity="error", timeout=8)

    # --- actions -----------------------------------------------------------------------------------
    async def action_stop(self) -> None:
        """Stop the streaming answer; questions queued behind it go back into the input, unsent."""
        queued, self.queued = self.queued, []
        if self.current is not None:
            await self._stop_current()
        if queued:
            draft = self.input.text.strip()
            self.input.load_text("\n".join(queued + ([draft] if draft else [])))
            self.input.move_cursor(self.input.document.end)
            self.notify("Stopped. The queued question is back in the input: Enter asks it.", timeout=5)
        if self.replacing is not None and self.current is None:
            self.replacing = None
        self._show_input_state()

    async def action_quit(self) -> None:
        """Quit; an answer still streaming is stopped and saved first (nothing shown is lost)."""
        self.queued = []
        await self._stop_current()
        self.exit()

    async def action_new_chat(self) -> None:
        """A new conversation, with the filters given on the command line (none by default)."""
        self.queued = []
        await self._stop_current()
        await self._reset()
        self._set_filters(self.default_filters)
        await self._welcome()
        self.input.focus()
        self.notify("New conversation" + (f" (filters: {self.default_filters.describe()})."
                                          if not self.default_filters.empty else ", no filters."))

    def _set_filters(self, filters: Filters) -> None:
        self.options = ChatOptions(self.options.backend, self.options.model, filters)
        self.header.set_state(filters=filters.describe(), matching=None)
        if self.count is not None:
            self._count_matching()

    async def _reset(self) -> None:
        self.chat_id = None
        self.turns = []
        self.replacing = None
        self.selected = None
        self.conversation = _new_conversation()
        await self.view.clear()
        self._show_input_state()
        self.sources_panel.show_sources((), note="The sources of the answer appear here.")
        self.query_one("#sources-title", Static).update(Text("Sources"))

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
        self.queued = []
        await self._stop_current()
        await self._reset()
        self.chat_id = chat.id
        self._set_filters(filters_from_json((chat.settings or {}).get("filters_json")))
        note = Text(f"Reopened “{chat.title}” ({len(chat.turns)} question{'s' if len(chat.turns) != 1 else ''}).",
                    style="dim italic")
        await self.view.add_note(note)
        for position, turn in enumerate(chat.turns):
            view = await self.view.add_turn(position, turn.question)
            view.show_standalone(turn.standalone_question)
            view.show_reason(self._reason(turn))
            status = Text(printable(f"{turn.backend} · {turn.model}") if turn.backend else "", style="dim")
            if turn.status == TurnStatus.STOPPED:
                status.append(" · ■ stopped", style="yellow")
            if turn.error:
                status.append(" · ⚠ " + printable(turn.error), style="red")
            cited = sorted({c.n for c in turn.citations})
            if cited:
                status.append(" · cites " + " ".join(f"[{n}]" for n in cited))
            view.show_saved(turn.answer, cited, turn.status, status)
            self.turns.append(turn)
            self.conversation.add(turn)
            self.input.remember(turn.question)
        if chat.turns:
            self._select(len(chat.turns) - 1)
        self.view.scroll_end(animate=False)
        self.input.focus()
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
        """Use another backend/model or other filters from the next question on (saved with the
        conversation at once)."""
        changed_llm = (options.backend, options.model) != (self.options.backend, self.options.model)
        self.options = options
        self._set_filters(options.filters)
        self._save_settings()
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

    def copy_text(self) -> tuple[str, int] | None:
        """What Ctrl+T copies: the selected answer (else the latest with text) with its reference list,
        and the number of references; None when there is no answer yet."""
        import dataclasses

        turn = self._turn_at(self.selected) if self.selected is not None else None
        if self.current is not None and turn is self.current.turn:  # still streaming: what came so far
            with self.current.buffer_lock:
                so_far = self.current.view.text + "".join(self.current.pending)
            turn = dataclasses.replace(turn, answer=so_far)
        if turn is None or not turn.answer.strip():
            turn = next((t for t in reversed(self.turns) if t.answer.strip()), None)
        if turn is None:
            return None
        return answer_with_references(turn), len(turn.citations)

    def action_copy_answer(self) -> None:
        """Copy the selected answer with its references. The terminal's clipboard is reached by an OSC 52
        escape sequence, which many terminals (and tmux by default) ignore without telling: the message
        says so rather than claiming success."""
        got = self.copy_text()
        if got is None:
            self.notify("No answer to copy yet.", severity="warning")
            return
        text, refs = got
        self.copy_to_clipboard(text)
        self.notify(f"Sent the answer ({len(text)} characters, {refs} reference{'s' if refs != 1 else ''}) to the "
                    "terminal's clipboard (OSC 52). If pasting gives nothing, your terminal does not allow it: "
                    "Ctrl+R exports the conversation to a file.", timeout=8)

    def action_focus_sources(self) -> None:
        if not self.query_one("#sources-pane").display:
            self.sources_shown = True
            self._layout_sources()
        self.sources_panel.focus()

    def action_toggle_sources(self) -> None:
        """Show or hide the sources panel (F3); on a narrow terminal it is hidden until asked for."""
        pane = self.query_one("#sources-pane")
        self.sources_shown = not pane.display
        self._layout_sources()

    # --- which answer's sources are shown ---------------------------------------------------------
    def _select(self, position: int | None) -> None:
        """Show the sources of turn `position` in the panel and mark that turn."""
        self.selected = position
        views = self.view.turns()
        for view in views:
            view.set_class(view.position == position and len(views) > 1, "-selected")
        turn = self._turn_at(position) if position is not None else None
        if turn is None:
            return
        total = max(len(self.turns), len(views))
        self.query_one("#sources-title", Static).update(
            Text(f"Sources · answer {position + 1}" + (f" of {total}" if total > 1 else "")))
        if self.current is not None and self.current.position == position and not turn.sources:
            self.sources_panel.show_sources((), turn=position, note="Retrieving…")
            return
        note = (printable(turn.note) if turn.note else
                "No sources: the answer failed." if turn.status == "error" else "No paper in the collection matched.")
        self.sources_panel.show_sources(turn.sources, (c.n for c in turn.citations), turn=position, note=note)

    @on(TurnView.Selected)
    def _turn_clicked(self, event: TurnView.Selected) -> None:
        self._select(event.position)

    @on(ConversationView.InView)
    def _turn_in_view(self, event: ConversationView.InView) -> None:
        self.call_after_refresh(self._sync_in_view)  # once the layout has settled (mounting moves things)

    def _sync_in_view(self) -> None:
        position = self.view.turn_in_view()
        if position is not None and position != self.selected:
            self._select(position)

    def action_select_turn(self, step: int) -> None:
        """Select the previous (-1) or next (+1) answer and scroll to it."""
        count = len(self.view.turns())
        if not count:
            return
        position = min(max((self.selected if self.selected is not None else count - 1) + step, 0), count - 1)
        self._select(position)
        view = next((v for v in self.view.turns() if v.position == position), None)
        if view is not None:
            self.view.show_turn(view)

    # --- edit and ask again ---------------------------------------------------------------------
    def action_edit_last(self) -> None:
        """Put the last question back into the input; sending it replaces the last answer."""
        if self.current is not None or not self.turns:
            self.notify("Nothing to edit: ask a question first (or wait for the answer / press Esc).",
                        severity="warning")
            return
        self.replacing = len(self.turns) - 1
        self.input.load_text(self.turns[-1].question)
        self.input.move_cursor(self.input.document.end)
        self.input.focus()
        self.input.border_title = "Edit the last question · Enter replaces its answer · Esc keeps it"

    async def action_regenerate(self) -> None:
        """Ask the last question again (replacing its answer), e.g. after switching backend."""
        if self.current is not None or not self.turns:
            self.notify("Nothing to ask again yet.", severity="warning")
            return
        self.replacing = len(self.turns) - 1
        await self.ask(self.turns[-1].question)

    async def _drop_turns_from(self, position: int) -> None:
        """Remove turn `position` and later ones: from the screen, the conversation and the saved chat."""
        for view in self.view.turns():
            if view.position >= position:
                await view.remove()
        self.turns = self.turns[:position]
        self.conversation.turns = self.conversation.turns[:position]
        if self.chat_id is not None:
            try:
                self.chats.delete_turns_from(self.chat_id, position)
            except ChatStoreError as exc:
                self.notify(f"not saved: {exc}", severity="error", timeout=8)

    def action_help(self) -> None:
        """The help screen; installed once and reused, so F1 does not build its table again."""
        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")
        self.push_screen("help", lambda _: self.input.focus())

    # --- sources -----------------------------------------------------------------------------------
    @on(OptionList.OptionSelected, "#sources")
    def _source_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        panel = self.sources_panel
        if event.option.id and event.option.id.startswith("source-") and panel.turn is not None:
            self.open_source(panel.turn, int(event.option.id.removeprefix("source-")))

    @on(AnswerView.LinkClicked)
    def _link_clicked(self, event: AnswerView.LinkClicked) -> None:
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

    # --- papers like this ---------------------------------------------------------------------------
    def show_similar(self, paper, k: int = 8) -> None:
        """Open the list of the `k` papers nearest to `paper` (worker: the store is queried off the loop)."""
        self.notify("Finding papers like this…", timeout=2)
        self._similar_worker(paper, k)

    @work(thread=True, exclusive=True, group="similar", exit_on_error=False)
    def _similar_worker(self, paper, k: int) -> None:
        from assistant.similar import similar_papers

        try:
            self._ensure_ready()
            neighbours = similar_papers(self._store, paper.id, k)
        except Exception as exc:
            self._from_thread(self.notify, f"papers like this: {error_message(exc)}", severity="error")
            return
        from assistant.tui.screens.source import SimilarScreen

        self._from_thread(self.push_screen, SimilarScreen(paper, neighbours))

    def _turn_at(self, position: int) -> Turn | None:
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
        sentences = cited_sentences(turn, citation) if citation else ()
        self.push_screen(SourceScreen(source, sentences, cited=citation is not None))
        if position != self.selected:
            self._select(position)
        return True


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
