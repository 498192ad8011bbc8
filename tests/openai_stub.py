"""A real HTTP server speaking the OpenAI chat-completions API (JSON and SSE streaming), for tests.

Scriptable per test: `OpenAIStub.script(*behaviours)` queues what the next requests get; when the queue
is empty every request gets `default`. Behaviours (`Behaviour.kind`):

- ``"ok"``: the reply (``stub.reply``: a string or ``fn(request_json) -> str``), streamed in small chunks
  when ``stream`` is true (with a usage chunk if ``stream_options.include_usage``), else one JSON body;
- ``"401"``, ``"500"``: an OpenAI-style error body with that status;
- ``"429"``: rate limited, with ``Retry-After: <retry_after>`` when given;
- ``"context_length"``: 400 with code ``context_length_exceeded``;
- ``"hang"``: accept the request and never answer (until the stub stops);
- ``"broken"``: start a 200 stream and close it with no text and no ``finish_reason`` (what llama.cpp's
  server does when the prompt is too long or another request interrupts it); ``"cut"``: the same after
  some text.

``behaviour_for(request_json)`` may return a `Behaviour` for a given request (e.g. fail one question).
Server-wide switches: ``reject_stream_options`` (400 "Unrecognized request argument supplied:
stream_options", like older compatible servers), ``empty_choices`` (interleave chunks whose ``choices``
is empty), ``chunk_delay`` (seconds between streamed chunks), ``delay`` (seconds before answering).
Every request body is kept in ``stub.requests``. Connection refused needs no stub: use a free port.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Behaviour:
    kind: str = "ok"
    retry_after: str | None = None
    text: str | None = None  # overrides stub.reply for this request


class OpenAIStub:
    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self.reply: str | Callable[[dict], str] = "Stub answer [1]."
        self.default = Behaviour("ok")
        self.behaviour_for: Callable[[dict], Behaviour | None] | None = None  # per-request override
        self.reject_stream_options = False
        self.empty_choices = False
        self.chunk_delay = 0.0
        self.delay = 0.0
        self.requests: list[dict] = []
        self._queue: list[Behaviour] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "stub-model", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                stub._handle(self, body)

            def _json(self, status: int, obj: dict, headers: dict | None = None):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="openai-stub")

    # --- control ------------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """Base URL for OPENAI_BASE_URL (ends in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, *behaviours: Behaviour | str) -> None:
        """Queue behaviours for the next requests (strings are kinds)."""
        with self._lock:
            self._queue.extend(b if isinstance(b, Behaviour) else Behaviour(b) for b in behaviours)

    def start(self) -> OpenAIStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if "messages" in r]

    # --- serving ------------------------------------------------------------------------------------
    def _next(self) -> Behaviour:
        with self._lock:
            return self._queue.pop(0) if self._queue else self.default

    def _handle(self, h, body: dict) -> None:
        with self._lock:
            self.requests.append(body)
        if not h.path.rstrip("/").endswith("/chat/completions"):
            h._json(404, {"error": {"message": f"no route {h.path}"}})
            return
        b = (self.behaviour_for(body) if self.behaviour_for else None) or self._next()
        if self.delay:
            time.sleep(self.delay)
        if b.kind == "hang":
            self._stop.wait(120)
            return
        if b.kind == "401":
            h._json(401, {"error": {"message": "Incorrect API key provided: sk-bad.", "type": "invalid_request_error",
                                    "code": "invalid_api_key"}})
            return
        if b.kind == "429":
            h._json(429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                                    "code": "rate_limit_exceeded"}},
                    {"Retry-After": b.retry_after} if b.retry_after is not None else None)
            return
        if b.kind == "500":
            h._json(500, {"error": {"message": "The server had an error while processing your request."}})
            return
        if b.kind == "context_length":
            h._json(400, {"error": {"message": "This model's maximum context length is 2048 tokens. However, your "
                                               "messages resulted in 9000 tokens.", "type": "invalid_request_error",
                                    "param": "messages", "code": "context_length_exceeded"}})
            return
        if self.reject_stream_options and "stream_options" in body:
            h._json(400, {"error": {"message": "Unrecognized request argument supplied: stream_options",
                                    "type": "invalid_request_error"}})
            return
        text = b.text if b.text is not None else (self.reply(body) if callable(self.reply) else self.reply)
        model = body.get("model", "stub-model")
        usage = {"prompt_tokens": 100, "completion_tokens": max(1, len(text.split())),
                 "total_tokens": 100 + max(1, len(text.split()))}
        if not body.get("stream"):
            h._json(200, {"id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()),
                          "model": model, "usage": usage,
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": text}}]})
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Connection", "close")
        h.end_headers()

        def send(obj) -> None:
            payload = obj if isinstance(obj, str) else json.dumps(obj)
            h.wfile.write(f"data: {payload}\n\n".encode())
            h.wfile.flush()

        def chunk(delta: dict, finish=None) -> dict:
            return {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()),
                    "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        try:
            if self.empty_choices:
                send({"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": model,
                      "choices": []})
            send(chunk({"role": "assistant", "content": ""}))
            if b.kind == "broken":
                return
            pieces = [text[i:i + 6] for i in range(0, len(text), 6)]
            if b.kind == "cut":
                pieces = pieces[: max(1, len(pieces) // 2)]
            for i, piece in enumerate(pieces):
                if self.chunk_delay:
                    time.sleep(self.chunk_delay)
                send(chunk({"content": piece}))
                if self.empty_choices and i % 2 == 0:
                    send({"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": model,
                          "choices": []})
            if b.kind == "cut":
                return
            send(chunk({}, "stop"))
            if (body.get("stream_options") or {}).get("include_usage"):
                send({"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 0, "model": model,
                      "choices": [], "usage": usage})
            send("[DONE]")
        except (BrokenPipeError, ConnectionResetError):
            pass
        h.close_connection = True


if __name__ == "__main__":  # a stub for manual runs: python -m tests.openai_stub [port]
    import sys

    with OpenAIStub(port=int(sys.argv[1]) if len(sys.argv) > 1 else 0) as s:
        if len(sys.argv) > 2:
            s.chunk_delay = float(sys.argv[2])
        print(s.url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
