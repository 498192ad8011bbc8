"""Chat app latency: cold launch to a usable input, and key-press-to-effect while an answer streams.

1. **Launch (cold)**: a fresh Python process per run (imports included) builds the app with
   `make_app(settings)` exactly as ``assistant chat`` does and runs it headless; we record the time
   from spawning the process to the first moment the question input is mounted, focused and
   editable, and to the moment the collection is loaded (store opened, ONNX model loaded, abstracts
   counted; answering possible). The first run of a fresh data folder also ingests the bundled
   abstracts; it is reported separately.
2. **Keys while streaming**: in process (``App.run_test``, headless), a long Markdown answer
   (default 2,700 words: paragraphs, bullet lists, bold, inline math, citation markers) streams at
   `--rate` chunks/s (default 200, one word per ``TextDelta``) while keys are pressed: F1 / Esc (open
   and close the help screen) and Tab / Shift+Tab (move focus). Key-to-paint = time from the key
   entering the app's message queue (as a terminal key does) to the first screen update the app
   hands to its driver after the key's effect is in the app's state (`App._display`; headless, so
   writing to a real terminal is not included). A 10 ms timer records event-loop stalls (lateness
   beyond its period) while the answer streams.

Run: ``.venv/bin/python benchmarks/tui_latency.py [--runs 5] [--tokens 2700] [--rate 200]``
(``--no-launch`` skips part 1 and prints part 2 without writing docs/benchmarks.md).
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

ANSWER_WORDS = ("NorMuon combines orthogonalization with **neuron-wise normalization** [1] and cuts the cost of "
                "training by 21% over AdamW [1]. STAR-KV compresses the KV cache by low-rank projection [2]; "
                "with quantization it reaches 20$\\times$ reduction [2] at $O(n^2)$ cost.").split()


def tokens(n: int) -> list[str]:
    """`n` chunks of one word each, shaped as a long Markdown answer: paragraphs of ~60 words, each
    followed by a three-item bullet list."""
    out = []
    for i in range(n):
        word = ANSWER_WORDS[i % len(ANSWER_WORDS)]
        k = i % 75
        sep = "\n\n" if k == 59 else ("\n- " if k in (62, 67, 72) else ("\n\n" if k == 74 else " "))
        out.append(word + sep)
    return out


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


async def streaming_keys(n_tokens: int, rate: float) -> dict:
    from assistant.events import Citations, Done, Sources, TextDelta
    from assistant.settings import load_settings
    from assistant.tui.app import make_app
    from tests.tui_helpers import SOURCES, StubStore, stub_llm_factory

    done_streaming = threading.Event()
    chunks = tokens(n_tokens)

    def answer_fn(question, *, cancel=None, **kw):
        yield Sources(SOURCES, question=question)
        next_at = time.perf_counter()
        for tok in chunks:
            next_at += 1.0 / rate
            pause = next_at - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            if cancel is not None and cancel.is_set():
                return
            yield TextDelta(tok)
        done_streaming.set()
        yield Citations(())
        yield Done(answer="".join(chunks), backend="scripted", model=f"{rate:g} chunks/s")

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ASSISTANT_DATA_DIR"] = tmp
        app = make_app(load_settings(), answer_fn=answer_fn, llm_factory=stub_llm_factory, store=StubStore(),
                       export_dir=Path(tmp))
        gaps: dict[str, list[float]] = {"f1 (open help)": [], "escape (close help)": [], "tab (focus)": [],
                                        "shift+tab (focus)": []}
        stalls: list[float] = []
        paints: list[float] = []
        display = app._display

        def timed_display(screen, renderable):
            if renderable is not None and not app._batch_count:
                paints.append(time.perf_counter())
            return display(screen, renderable)

        app._display = timed_display
        async with app.run_test(size=(120, 36)) as pilot:
            while app.count is None:
                await pilot.pause(0.01)
            app.input.load_text("What is NorMuon?")
            await pilot.press("enter")
            while not app.view.turns() or not app.view.turns()[0].text:
                await pilot.pause(0.01)
            started = time.perf_counter()

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
                t_effect = time.perf_counter()
                while not (paints and paints[-1] >= t_effect):
                    await asyncio.sleep(0.0005)
                gaps[label].append(paints[-1] - t0)

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
            streamed_seconds = time.perf_counter() - started
            while app.current is not None:
                await pilot.pause(0.01)
            shown = len(app.view.turns()[0].text)
    return {"gaps": gaps, "stalls": stalls, "chars": shown, "seconds": streamed_seconds,
            "words": len("".join(chunks).split())}


def key_table(result: dict, rate: float) -> str:
    all_gaps = [g for v in result["gaps"].values() for g in v]
    rows = [[label, len(v), statistics.median(v) * 1000, percentile(v, 95) * 1000, max(v) * 1000]
            for label, v in result["gaps"].items()]
    rows.append(["all keys", len(all_gaps), statistics.median(all_gaps) * 1000, percentile(all_gaps, 95) * 1000,
                 max(all_gaps) * 1000])
    stalls = result["stalls"]
    rows.append(["event-loop stall (10 ms timer)", len(stalls), statistics.median(stalls) * 1000,
                 percentile(stalls, 95) * 1000, max(stalls) * 1000])
    over = sum(1 for g in all_gaps if g > 0.25)
    table = markdown_table([f"key-to-paint while streaming at {rate:g} chunks/s", "presses", "median (ms)",
                            "p95 (ms)", "max (ms)"], rows)
    return (f"{table}\n\n{over} of {len(all_gaps)} presses took over 250 ms to paint; "
            f"{sum(1 for s in stalls if s > 0.25)} stalls over 250 ms.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold launches (after the first, ingesting one)")
    parser.add_argument("--tokens", type=int, default=2700, help="chunks (one word each) in the streamed answer")
    parser.add_argument("--rate", type=float, default=200.0, help="chunks per second")
    parser.add_argument("--no-launch", action="store_true", help="only part 2, printed, docs not written")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return

    if args.no_launch:
        load_before = os.getloadavg()[0]
        result = asyncio.run(streaming_keys(args.tokens, args.rate))
        print(key_table(result, args.rate))
        print(f"{result['words']} words ({result['chars']} characters) streamed in {result['seconds']:.1f} s; "
              f"1-minute load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, "
              f"on {os.cpu_count()} cores")
        return

    from assistant.tui.app import STREAM_FPS

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        first = launch_once(data)
        runs = [launch_once(data) for _ in range(args.runs)]
    med = {k: statistics.median(r[k] for r in runs) for k in ("imports", "input", "collection")}
    worst = {k: max(r[k] for r in runs) for k in ("imports", "input", "collection")}

    load_before = os.getloadavg()[0]
    result = asyncio.run(streaming_keys(args.tokens, args.rate))
    load_after = os.getloadavg()[0]
    rows = [["launch → usable input (s)", med["input"], worst["input"], first["input"]],
            ["launch → collection loaded (s)", med["collection"], worst["collection"], first["collection"]],
            ["  of which imports (s)", med["imports"], worst["imports"], first["imports"]]]
    launch_table = markdown_table(["cold launch (fresh process)", f"median of {args.runs}", "max",
                                   "first run (ingests the bundled abstracts)"], rows)
    body = (f"{launch_table}\n\n{key_table(result, args.rate)}\n\nStreamed {result['words']} words "
            f"({result['chars']} characters of Markdown, {args.tokens} chunks) in one answer in "
            f"{result['seconds']:.1f} s; {first['count']} abstracts in the collection. The app shows streamed "
            f"text at most {STREAM_FPS} times a second (chunks in between are shown together, less often when "
            f"the event loop runs late) and redraws only the Markdown block being written. Headless: the "
            f"time to write a frame to a real terminal is not included. The "
            f"machine was shared and loaded by other work (1-minute load average {load_before:.1f} before and "
            f"{load_after:.1f} after the streaming part, on {os.cpu_count()} cores), so the tails are noisy.")
    write_section("tui_latency", "Chat app: launch and key latency",
                  body, f"python benchmarks/tui_latency.py --runs {args.runs} --tokens {args.tokens} "
                        f"--rate {args.rate:g}")


if __name__ == "__main__":
    main()
