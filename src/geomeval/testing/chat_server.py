"""A real OpenAI-compatible chat server on 127.0.0.1 for tests and benches.

Answers come from a script (a function of the request), with optional latency and
injected faults, so clients are tested over real HTTP rather than with mocks. It
only ever binds the loopback interface.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[dict[str, Any]], str]


@dataclass
class Fault:
    """Answer the request numbers in `on` with `status` (and a body) instead of a completion."""

    on: set[int]
    status: int = 500
    body: str = '{"error": {"message": "injected fault"}}'
    headers: dict[str, str] = field(default_factory=dict)


class ChatServer:
    def __init__(self, responder: Responder, *, latency_s: float = 0.0, faults: list[Fault] | None = None):
        self.responder = responder
        self.latency_s = latency_s
        self.faults = faults or []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    number = len(server.requests)
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                if server.latency_s:
                    time.sleep(server.latency_s)
                for fault in server.faults:
                    if number in fault.on:
                        self._send(fault.status, fault.body.encode(), fault.headers)
                        return
                if not self.path.endswith("/chat/completions"):
                    self._send(404, b'{"error": "not found"}')
                    return
                content = server.responder(body)
                payload = {
                    "id": f"cmpl-{number}",
                    "object": "chat.completion",
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
                self._send(200, json.dumps(payload).encode())

            def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def prompt_text(request: dict[str, Any]) -> str:
    """The text parts of a request's last user message (for scripted responders)."""
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")
