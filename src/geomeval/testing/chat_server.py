"""A real OpenAI-compatible chat server on 127.0.0.1 for tests and benches.

Answers come from a script (a function of the request), with optional latency and
injected faults (error statuses with Retry-After, hangs, malformed JSON, truncated
bodies, dropped connections, streams that stall), so clients are tested over real HTTP
rather than with mocks. With `stream=True` it answers a request that asks for a stream
(`"stream": true`) with server-sent events, a word at a time, `token_s` seconds apart, and
the usage in a last event when asked (`stream_options.include_usage`), as vLLM and
llama.cpp's server do; without, it answers every request whole, as a server that does not
stream. It is a small HTTP/1.1 server on asyncio with keep-alive, running on its own
thread (or its own process: `python -m geomeval.testing.chat_server`), so hundreds of
slow requests in flight cost no threads. It only ever binds the loopback interface.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Responder = Callable[[dict[str, Any]], str]
FAULT_KINDS = ("status", "hang", "malformed", "truncated", "drop", "stall", "cut")
MAX_BODY = 64 * 1024 * 1024


@dataclass
class Fault:
    """Answer some requests with a fault instead of a completion.

    `on` picks request numbers (0-based, in arrival order); `rate` picks a seeded
    random share of requests instead. Kinds: `status` (the given status, body and
    headers, e.g. 429 with Retry-After), `hang` (wait `hang_s` before answering),
    `malformed` (200 with a body that is not JSON), `truncated` (a Content-Length
    longer than the body, then the connection closes), `drop` (close at once), `stall`
    (a streamed reply that stops after half its words and sends nothing for `hang_s`; a
    request not streamed hangs), `cut` (a streamed reply that ends after half its words with
    [DONE] and no finish reason, as llama-cpp-python's server cuts a stream short when another
    request waits; a request not streamed is answered whole).
    """

    on: set[int] = field(default_factory=set)
    status: int = 500
    body: str = '{"error": {"message": "injected fault"}}'
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = "status"
    rate: float = 0.0
    hang_s: float = 3600.0

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; use one of {', '.join(FAULT_KINDS)}")


class ChatServer:
    def __init__(
        self,
        responder: Responder,
        *,
        latency_s: float = 0.0,
        faults: list[Fault] | None = None,
        seed: int = 0,
        port: int = 0,
        text_only: bool = False,
        serial: bool = False,
        stream: bool = False,
        token_s: float = 0.0,
        stream_usage: bool = True,
    ):
        self.responder = responder
        self.text_only = text_only  # answer 500 to list-form content, as llama.cpp's server does
        # Compute one request at a time, `latency_s` each, and skip a queued request whose
        # client has gone, as llama.cpp's server does; `computed` counts the work done.
        self.serial = serial
        self.computed = 0
        self.stream = stream  # answer `"stream": true` with server-sent events
        self.token_s = token_s  # seconds between two streamed words
        self.stream_usage = stream_usage  # report usage in a stream's last event when asked
        self._turn: asyncio.Lock | None = None
        self.latency_s = latency_s
        self.faults = faults or []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.faulted: list[int] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._port = port
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.sockets[0].getsockname()[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("chat server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", self._port, backlog=1024)
        )
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            for task in asyncio.all_tasks(self._loop):
                task.cancel()
            self._loop.run_until_complete(asyncio.sleep(0))
            self._loop.close()

    def _pick_fault(self, number: int) -> Fault | None:
        for fault in self.faults:
            if number in fault.on:
                return fault
            if fault.rate and self._rng.random() < fault.rate:
                return fault
        return None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:  # the server stopping with a client still connected: no traceback
            pass
        finally:
            writer.close()

    async def _one_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection should close."""
        request_line = await reader.readline()
        if not request_line:
            return False
        method, path, _ = request_line.decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip()] = value.strip()
        length = int(headers.get("Content-Length") or headers.get("content-length") or 0)
        if length > MAX_BODY:
            raise ValueError("request body too large")
        raw = await reader.readexactly(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        with self._lock:
            number = len(self.requests)
            self.requests.append(body)
            self.headers.append(headers)
            fault = self._pick_fault(number)
            if fault is not None:
                self.faulted.append(number)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(number, method, path, body, fault, reader, writer)
        finally:
            with self._lock:
                self.in_flight -= 1

    async def _answer(
        self, number: int, method: str, path: str, body: dict[str, Any], fault: Fault | None,
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
    ) -> bool:
        if not self.serial:
            return await self._compute(number, method, path, body, fault, writer)
        if self._turn is None:
            self._turn = asyncio.Lock()
        async with self._turn:
            if reader.at_eof() or writer.transport.is_closing():
                return False  # the client gave up while queued: nothing computed
            return await self._compute(number, method, path, body, fault, writer)

    async def _compute(
        self, number: int, method: str, path: str, body: dict[str, Any], fault: Fault | None,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """The work on one request: `latency_s`, then the reply (or the fault)."""
        with self._lock:
            self.computed += 1
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        return await self._reply(number, method, path, body, fault, writer)

    async def _reply(
        self, number: int, method: str, path: str, body: dict[str, Any], fault: Fault | None,
        writer: asyncio.StreamWriter,
    ) -> bool:
        if fault is not None and fault.kind == "cut" and not (self.stream and body.get("stream")):
            fault = None
        if fault is not None and not (fault.kind in ("stall", "cut") and self.stream and body.get("stream")):
            return await self._fault(fault, writer)
        if method != "POST" or not path.endswith("/chat/completions"):
            await self._send(writer, 404, b'{"error": "not found"}')
            return True
        if self.text_only and any(isinstance(m.get("content"), list) for m in body.get("messages") or []):
            # llama.cpp's server (llama-cpp-python 0.3) on list-form content
            await self._send(writer, 500, b'{"error": {"message": "content must be a string"}}')
            return True
        try:
            content = self.responder(body)
        except Exception as exc:  # a broken script is the test's bug: answer 500 and say so
            await self._send(writer, 500, json.dumps({"error": f"responder failed: {exc}"}).encode())
            return True
        # Tokens are words here; a reply longer than max_tokens is cut there, as a real
        # server cuts it, and ends with finish_reason "length".
        words = content.split(" ")
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        finish = "stop"
        if isinstance(limit, int) and len(words) > limit:
            content, words, finish = " ".join(words[:limit]), words[:limit], "length"
        prompt_tokens = sum(len(json.dumps(m.get("content", "")).split(" ")) for m in body.get("messages") or [])
        payload = {
            "id": f"cmpl-{number}",
            "object": "chat.completion",
            "model": body.get("model", ""),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}
            ],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(words),
                      "total_tokens": prompt_tokens + len(words)},
        }
        if self.stream and body.get("stream"):
            stall = fault.hang_s if fault is not None and fault.kind == "stall" else None
            cut = fault is not None and fault.kind == "cut"
            return await self._stream(writer, payload, words, body, stall, cut)
        await self._send(writer, 200, json.dumps(payload).encode())
        return True

    async def _stream(self, writer: asyncio.StreamWriter, payload: dict[str, Any], words: list[str],
                      body: dict[str, Any], stall: float | None, cut: bool = False) -> bool:
        """`payload`'s reply as server-sent events in chunked encoding: a first event with the
        role, one per word `token_s` apart, the finish reason, usage where asked, [DONE]. A
        stall stops after half the words for `stall` seconds and closes."""
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")

        async def event(data: dict[str, Any] | str) -> None:
            text = data if isinstance(data, str) else json.dumps(data)
            chunk = f"data: {text}\n\n".encode()
            writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            await writer.drain()

        def delta(content: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": payload["id"], "object": "chat.completion.chunk", "model": payload["model"],
                    "choices": [{"index": 0, "delta": content, "finish_reason": finish}]}

        await event(delta({"role": "assistant", "content": ""}))
        for n, word in enumerate(words):
            if stall is not None and n == len(words) // 2:
                await asyncio.sleep(stall)
                return False
            if cut and n == len(words) // 2:
                break
            if self.token_s:
                await asyncio.sleep(self.token_s)
            await event(delta({"content": word if n == 0 else " " + word}))
        if not cut:
            await event(delta({}, payload["choices"][0]["finish_reason"]))
        options = body.get("stream_options")
        if self.stream_usage and isinstance(options, dict) and options.get("include_usage"):
            await event({"id": payload["id"], "object": "chat.completion.chunk", "choices": [],
                         "usage": payload["usage"]})
        await event("[DONE]")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    async def _fault(self, fault: Fault, writer: asyncio.StreamWriter) -> bool:
        if fault.kind == "status":
            await self._send(writer, fault.status, fault.body.encode(), fault.headers)
            return True
        if fault.kind in ("hang", "stall"):
            await asyncio.sleep(fault.hang_s)
            return False
        if fault.kind == "malformed":
            await self._send(writer, 200, b'{"choices": [{"message": {"content": "unterminated')
            return True
        if fault.kind == "truncated":
            body = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "par'
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body) + 200}\r\n\r\n"
            writer.write(head.encode() + body)
            await writer.drain()
            return False
        return False  # drop

    @staticmethod
    async def _send(
        writer: asyncio.StreamWriter, status: int, data: bytes, headers: dict[str, str] | None = None
    ) -> None:
        lines = [f"HTTP/1.1 {status} X", "Content-Type: application/json", f"Content-Length: {len(data)}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)
        await writer.drain()


def prompt_text(request: dict[str, Any]) -> str:
    """The text parts of a request's last user message (for scripted responders)."""
    content = request["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")


def main(argv: list[str] | None = None) -> None:
    """Serve fixed answers in a process of its own (for benches): prints the port, then serves."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--answer", default='{"steps": [1], "final_answer_correct": 1}')
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = ChatServer(lambda request: args.answer, latency_s=args.latency, port=args.port)
    with server:
        print(server.port, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            sys.stdin.read()  # serve until the parent closes our stdin


if __name__ == "__main__":
    main()
