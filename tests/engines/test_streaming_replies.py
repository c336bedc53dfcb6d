"""Replies asked for as a stream (issue 44, point 5; GEOMEVAL_STREAM=1): a reply being computed
is seen to progress, so it is never abandoned and sent again however long it runs, even before the
client has seen how fast the server generates; a stream that stalls is abandoned at its own
timeout; a server that does not stream, refuses the stream, or streams without usage is
served all the same. Real HTTP to the in-process server (`ChatServer(stream=True)` streams a
word at a time, as llama.cpp's and vLLM's servers stream a token at a time); counts only."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from geomeval.engines.client import ChatClient, Completion, RetryPolicy
from geomeval.testing.chat_server import ChatServer, Fault

TIMEOUT_S = 0.5
TOKEN_S = 0.004  # 250 words a second: a 300-word reply takes 1.2 s, over twice the timeout


def words(request: dict[str, Any]) -> str:
    """`n words` in the prompt asks for an n-word reply."""
    count = int(request["messages"][-1]["content"].split()[0])
    return " ".join(f"w{i}" for i in range(count))


def _client(server: ChatServer, **kwargs: Any) -> ChatClient:
    return ChatClient("judge", base_url=server.base_url, params={"temperature": 0.0, "max_tokens": 2048},
                      timeout_s=TIMEOUT_S, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01),
                      stream=True, **kwargs)


def _ask(client: ChatClient, lengths: list[int]) -> list[Completion]:
    """Every prompt at once (the client's window permitting)."""

    async def go() -> list[Completion]:
        try:
            return list(await asyncio.gather(
                *(client.complete([{"role": "user", "content": f"{n} words please"}]) for n in lengths)))
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_a_long_streamed_reply_and_the_request_queued_behind_it_are_never_resent() -> None:
    """The judge's first reply runs 1.2 s at a 0.5 s timeout, before the client knows the
    server's speed, on a server computing one request at a time: the reply streams in, and the
    request queued behind it hears the server streaming the reply ahead of it. Both are
    computed once and sent once (before streaming: abandoned at 0.5 s and sent again)."""
    with ChatServer(words, serial=True, stream=True, token_s=TOKEN_S) as server:
        client = _client(server, concurrency=2)
        long, short = _ask(client, [300, 20])
        assert len(server.requests) == server.computed == 2  # nothing abandoned, nothing re-sent
        assert all(request["stream"] is True for request in server.requests)
    assert long.text == words({"messages": [{"content": "300"}]}) and long.attempts == 1
    assert short.text == words({"messages": [{"content": "20"}]}) and short.attempts == 1
    assert long.finish_reason == "stop" and long.usage == {"prompt_tokens": 3, "completion_tokens": 300,
                                                            "total_tokens": 303}
    assert client.tokens["completion_tokens"] == 320 and client.replies_reporting_usage == 2
    assert client.hedges == 0


def test_a_stream_that_stalls_is_abandoned_at_its_own_timeout_and_sent_again() -> None:
    """Progress is each piece of the reply: a stream that stops halfway and stays silent for
    the timeout is abandoned and asked again, and the item gets its whole reply."""
    stall = Fault(on={0}, kind="stall", hang_s=3600)
    with ChatServer(words, stream=True, faults=[stall]) as server:
        (done,) = _ask(_client(server), [40])
        assert len(server.requests) == 2
    assert done.text == words({"messages": [{"content": "40"}]}) and done.attempts == 2


def test_a_stream_cut_short_is_never_taken_for_the_reply(caplog: pytest.LogCaptureFixture) -> None:
    """llama-cpp-python's server (`interrupt_requests`, its default) ends the stream it serves
    with [DONE] and no finish reason as soon as another request waits: that half reply is not
    the answer. The request is asked again, for a whole reply, as is every later one."""
    cut = Fault(on={0}, kind="cut")
    with ChatServer(words, stream=True, faults=[cut]) as server:
        client = _client(server)
        with caplog.at_level("WARNING", logger="geomeval"):
            done, later = _ask(client, [40])[0], _ask(client, [6])[0]
        sent = server.requests
    assert done.text == words({"messages": [{"content": "40"}]}) and done.attempts == 2
    assert done.finish_reason == "stop" and later.text == "w0 w1 w2 w3 w4 w5"
    assert [("stream" in request) for request in sent] == [True, False, False]
    assert caplog.text.count("ended a streamed reply early") == 1


def test_streamed_and_whole_replies_are_the_same_completion() -> None:
    """What is cached and scored does not depend on how the reply travelled: text, finish
    reason and usage are those of the same reply sent whole, a reply cut at max_tokens too."""
    lengths = [0, 1, 7, 300]
    with ChatServer(words, stream=True) as streaming:
        streamed = _ask(_client(streaming), lengths)
        cut = _ask(ChatClient("judge", base_url=streaming.base_url, params={"max_tokens": 5}, stream=True), [9])
    with ChatServer(words) as whole_server:  # a server that does not stream answers whole
        whole = _ask(_client(whole_server), lengths)
        whole_cut = _ask(ChatClient("judge", base_url=whole_server.base_url, params={"max_tokens": 5},
                                    stream=True), [9])
        assert whole_server.requests[0]["stream"] is True  # asked for, ignored: served all the same
    assert [(c.text, c.info) for c in streamed + cut] == [(c.text, c.info) for c in whole + whole_cut]
    assert cut[0].finish_reason == "length" and cut[0].text == "w0 w1 w2 w3 w4"


@pytest.mark.parametrize("refused", ["stream", "stream_options"])
def test_a_server_that_refuses_the_stream_is_asked_without_it(refused: str, caplog: pytest.LogCaptureFixture) -> None:
    message = {"stream": "'stream' is not supported by this server",
               "stream_options": "Unrecognized request argument supplied: stream_options"}[refused]
    refusal = Fault(on={0}, status=400, body=f'{{"error": {{"message": "{message}", "type": "invalid_request_error"}}}}')
    with ChatServer(words, stream=True, faults=[refusal]) as server:
        client = _client(server)
        with caplog.at_level("WARNING", logger="geomeval"):
            first, second = [_ask(client, [5])[0], _ask(client, [6])[0]]
        sent = server.requests
    assert first.text == "w0 w1 w2 w3 w4" and second.text == "w0 w1 w2 w3 w4 w5"
    assert len(sent) == 3 and "stream_options" not in sent[1] and "stream_options" not in sent[2]
    assert ("stream" in sent[2]) is (refused == "stream_options")  # only what was refused is dropped
    assert caplog.text.count("refused") == 1


def test_a_stream_without_usage_keeps_the_reply_and_says_the_tokens_are_missing(
        caplog: pytest.LogCaptureFixture) -> None:
    """llama-cpp-python's server streams without usage: the reply is whole, its tokens are not
    invented, and the log says once how to have them counted."""
    with ChatServer(words, stream=True, stream_usage=False) as server:
        client = _client(server)
        with caplog.at_level("WARNING", logger="geomeval"):
            replies = _ask(client, [3, 4, 5])
    assert [r.text for r in replies] == ["w0 w1 w2", "w0 w1 w2 w3", "w0 w1 w2 w3 w4"]
    assert all(r.usage is None and r.finish_reason == "stop" for r in replies)
    assert client.replies_reporting_usage == 0 and client.tokens["completion_tokens"] == 0
    assert caplog.text.count("reports no token usage in streamed replies") == 1


def test_replies_come_whole_unless_geomeval_stream_is_1(monkeypatch: pytest.MonkeyPatch) -> None:
    with ChatServer(words, stream=True) as server:
        (whole,) = _ask(ChatClient("judge", base_url=server.base_url), [4])
        monkeypatch.setenv("GEOMEVAL_STREAM", "1")
        (streamed,) = _ask(ChatClient("judge", base_url=server.base_url), [4])
        assert "stream" not in server.requests[0] and server.requests[1]["stream"] is True
    assert whole.text == streamed.text == "w0 w1 w2 w3" and whole.usage == streamed.usage


@pytest.mark.slow
def test_a_real_llama_cpp_server_streams_long_replies_that_are_never_resent(
        tmp_path: Path, llama_server: Callable[[Path, str, int], AbstractContextManager[str]]) -> None:
    """llama-cpp-python's server (SmolLM2-135M), which computes one request at a time and
    streams without usage: two replies of up to 200 tokens in turn, each longer than the
    client's timeout (five times the time a reply takes to start here, at least 3 s). Each is
    computed once and sent once (the server logs each request it received and each client that
    left), and ends as the model ended it (the server cuts a stream short only when another
    request waits: see the test above)."""
    log = tmp_path / "server.log"
    with llama_server(log, "smol", 2048) as url:
        prompt = "Write a long story about a triangle and a circle who become friends. Use many details."
        params = {"temperature": 0.0, "max_tokens": 200}

        def ask(client: ChatClient, stories: list[int]) -> list[Completion]:
            async def go() -> list[Completion]:
                try:
                    return list(await asyncio.gather(*(client.complete(
                        [{"role": "user", "content": f"{prompt} Story {n}."}]) for n in stories)))
                finally:
                    await client.aclose()

            return asyncio.run(go())

        # Replies alone warm the server up and say, on this machine under its load, how soon a
        # reply starts (`first_bytes`) and how long a 200-token one takes; the client's timeout
        # is then five times the start (at least 3 s), which the long replies must outlast.
        ask(ChatClient("smol", base_url=url, params={"max_tokens": 8}, timeout_s=600.0, stream=True), [0])
        probe = ChatClient("smol", base_url=url, params=params, timeout_s=600.0, stream=True)
        started = time.monotonic()
        ask(probe, [0])
        reply_s = time.monotonic() - started
        timeout_s = max(3.0, 5 * probe.first_bytes[-1])
        if reply_s < 2 * timeout_s:
            pytest.skip(f"a 200-token reply takes {reply_s:.1f} s here, not twice the {timeout_s:.1f} s timeout")
        answered_before = log.read_text(errors="replace").count("POST /v1/chat/completions")
        client = ChatClient("smol", base_url=url, params=params, timeout_s=timeout_s, concurrency=1,
                            retry=RetryPolicy(max_attempts=3, base_delay_s=0.01), stream=True)
        replies = [ask(client, [n])[0] for n in (1, 2)]  # each about as long as the probe's
    served = log.read_text(errors="replace")
    assert all(r.text and r.attempts == 1 for r in replies), [(r.error, r.attempts) for r in replies]
    assert all(r.finish_reason in ("stop", "length") for r in replies)
    assert client.requests_sent == 2 and client.hedges == 0
    assert served.count("POST /v1/chat/completions") - answered_before == 2
    assert "Disconnected from client" not in served
