"""Chat app latency: cold launch to a usable input, and key-press-to-effect while an answer streams.

1. **Launch (cold)**: a fresh Python process per run (imports included) builds the app with
   `make_app(settings)` exactly as ``assistant chat`` does and runs it headless; we record the time
   from spawning the process to the first moment the question input is mounted, focused and
   editable, and to the moment the collection is loaded (store opened, ONNX model loaded, abstracts
   counted; answering possible). The first run of a fresh data folder also ingests the bundled
   abstracts; it is reported separately.
2. **Keys while streaming**: in process (``App.run_test``, headless), an answer streams at
   50 tokens/s (one ``TextDelta`` every 20 ms, Markdown with paragraphs, a list and citation
   markers) while keys are pressed: F1 / Esc (open and close the help screen) and Tab / Shift+Tab
   (move focus). Gap = time from sending the key to its effect being visible in the app's state.
   A 10 ms timer also records the largest stall of the event loop during streaming.

Run: ``.venv/bin/python benchmarks/tui_latency.py [--runs 5] [--tokens 600]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._report import markdown_table, write_section  # noqa: E402

MODEL_DIR = Path(os.environ.get("ASSISTANT_EMBEDDING_MODEL_DIR",
                               ROOT.parent / "shared" / "models" / "all-MiniLM-L6-v2"))


# --- 1. cold launch ----------------------------------------------------------------------------------

def child(out: Path) -> None:
    """Runs in the spawned process: the real app, headless; writes wall-clock stamps to `out`."""
    from assistant.settings import load_settings
    from assistant.tui.app import make_app

    imported = time.time()
    app = make_app(load_settings(), backend="extractive")
    stamps: dict[str, float] = {"imported": imported}

    async def auto_pilot(pilot) -> None:
        while not (app.input.has_focus and not app.input.read_only and app.input.is_mounted):
            await asyncio.sleep(0.001)
        stamps["input"] = time.time()
        deadline = time.time() + 300
        while app.count is None and time.time() < deadline:
            await asyncio.sleep(0.005)
        stamps["collection"] = time.time()
        stamps["count"] = app.count or 0
        app.exit()

    app.run(headless=True, auto_pilot=auto_pilot, size=(120, 36))
    out.write_text(json.dumps(stamps))


def launch_once(data_dir: Path) -> dict[str, float]:
    out = data_dir.parent / "stamps.json"
    env = dict(os.environ, ASSISTANT_DATA_DIR=str(data_dir), ASSISTANT_EMBEDDING_MODEL_DIR=str(MODEL_DIR))
    start = time.time()
    subprocess.run([sys.executable, __file__, "--child", str(out)], env=env, check=True, cwd=ROOT)
    stamps = json.loads(out.read_text())
    return {"imports": stamps["imported"] - start, "input": stamps["input"] - start,
            "collection": stamps["collection"] - start, "count": stamps["count"]}


# --- 2. keys while an answer streams -----------------------------------------------------------------

ANSWER_WORDS = ("NorMuon combines orthogonalization with neuron-wise normalization [1] and cuts the cost of "
                "training by 21% over AdamW [1]. STAR-KV compresses the KV cache by low-rank projection [2]; "
                "with quantization it reaches 20$\\times$ reduction [2].").split()


def tokens(n: int) -> list[str]:
    out = []
    for i in range(n):
        word = ANSWER_WORDS[i % len(ANSWER_WORDS)]
        sep = "\n\n" if i % 60 == 59 else ("\n- " if i % 60 == 40 else " ")
        out.append(word + sep)
    return out


async def streaming_keys(n_tokens: int, rate: float = 50.0) -> dict:
    from assistant.events import Citations, Done, Sources, TextDelta
    from assistant.tui.app import make_app
    from assistant.settings import load_settings
    from tests.tui_helpers import SOURCES, StubStore, stub_llm_factory

    done_streaming = threading.Event()

    def answer_fn(question, *, cancel=None, **kw):
        yield Sources(SOURCES, question=question)
        next_at = time.perf_counter()
        for tok in tokens(n_tokens):
            next_at += 1.0 / rate
            pause = next_at - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            if cancel is not None and cancel.is_set():
                return
            yield TextDelta(tok)
        done_streaming.set()
        yield Citations(())
        yield Done(answer="".join(tokens(n_tokens)), backend="scripted", model="50 tok/s")

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ASSISTANT_DATA_DIR"] = tmp
        app = make_app(load_settings(), answer_fn=answer_fn, llm_factory=stub_llm_factory, store=StubStore(),
                       export_dir=Path(tmp))
        gaps: dict[str, list[float]] = {"f1 (open help)": [], "escape (close help)": [], "tab (focus)": [],
                                        "shift+tab (focus)": []}
        stalls: list[float] = []
        async with app.run_test(size=(120, 36)) as pilot:
            while app.count is None:
                await pilot.pause(0.01)
            app.input.load_text("What is NorMuon?")
            await pilot.press("enter")
            while not app.view.turns() or not app.view.turns()[0].text:
                await pilot.pause(0.01)

            async def watch_loop() -> None:
                last = time.perf_counter()
                while not done_streaming.is_set():
                    await asyncio.sleep(0.01)
                    now = time.perf_counter()
                    stalls.append(now - last - 0.01)
                    last = now

            watcher = asyncio.create_task(watch_loop())

            from textual import events

            async def timed(key: str, label: str, effect) -> None:
                # the key goes in as a terminal key does (driver → app message queue); Pilot.press is
                # not used because it waits for the app to be idle, which it is not while streaming
                event = events.Key(key, None)
                event.set_sender(app)
                t0 = time.perf_counter()
                app._driver.send_message(event)
                while not effect():
                    await asyncio.sleep(0.0005)
                gaps[label].append(time.perf_counter() - t0)

            while not done_streaming.is_set():
                await timed("f1", "f1 (open help)", lambda: type(app.screen).__name__ == "HelpScreen")
                await asyncio.sleep(0.1)
                await timed("escape", "escape (close help)", lambda: type(app.screen).__name__ != "HelpScreen")
                await asyncio.sleep(0.05)
                await timed("tab", "tab (focus)", lambda: app.focused is app.sources_panel)
                await asyncio.sleep(0.05)
                await timed("shift+tab", "shift+tab (focus)", lambda: app.focused is app.input)
                await asyncio.sleep(0.05)
            await watcher
            streamed = len(app.view.turns()[0].text)
            while app.current is not None:
                await pilot.pause(0.01)
    return {"gaps": gaps, "stalls": stalls, "chars": streamed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold launches (after the first, ingesting one)")
    parser.add_argument("--tokens", type=int, default=600, help="tokens streamed at 50 tokens/s")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        first = launch_once(data)
        runs = [launch_once(data) for _ in range(args.runs)]
    med = {k: statistics.median(r[k] for r in runs) for k in ("imports", "input", "collection")}
    worst = {k: max(r[k] for r in runs) for k in ("imports", "input", "collection")}

    load_before = os.getloadavg()[0]
    result = asyncio.run(streaming_keys(args.tokens))
    load_after = os.getloadavg()[0]
    all_gaps = [g for v in result["gaps"].values() for g in v]
    rows = [["launch → usable input (s)", med["input"], worst["input"], first["input"]],
            ["launch → collection loaded (s)", med["collection"], worst["collection"], first["collection"]],
            ["  of which imports (s)", med["imports"], worst["imports"], first["imports"]]]
    launch_table = markdown_table(["cold launch (fresh process)", f"median of {args.runs}", "max",
                                   "first run (ingests the bundled abstracts)"], rows)
    key_rows = [[label, len(v), statistics.median(v) * 1000, max(v) * 1000] for label, v in result["gaps"].items()]
    key_rows.append(["all keys", len(all_gaps), statistics.median(all_gaps) * 1000, max(all_gaps) * 1000])
    key_rows.append(["event-loop stall (10 ms timer)", len(result["stalls"]),
                     statistics.median(result["stalls"]) * 1000, max(result["stalls"]) * 1000])
    key_table = markdown_table(["while streaming at 50 tokens/s", "presses", "median (ms)", "max (ms)"], key_rows)
    body = (f"{launch_table}\n\n{key_table}\n\nStreamed {args.tokens} tokens ({result['chars']} characters of "
            f"Markdown) in one answer; {first['count']} abstracts in the collection. Headless (no terminal "
            f"output), so terminal drawing time is not included. The machine's cores were shared with other work "
            f"(1-minute load average {load_before:.1f} before and {load_after:.1f} after the streaming part on "
            f"{os.cpu_count()} cores). Profile of the worst gaps: Textual's layout refresh of the screen as Markdown "
            f"blocks mount, and the Footer recomposing its keys when focus or screen changes.")
    write_section("tui_latency", "Chat app: launch and key latency",
                  body, f"python benchmarks/tui_latency.py --runs {args.runs} --tokens {args.tokens}")


if __name__ == "__main__":
    main()
