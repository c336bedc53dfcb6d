"""Replies asked for as a stream (issue 44, point 5): a reply being computed is seen to
progress, so it is never abandoned and sent again however long it runs, even before the
client has seen how fast the server generates; a stream that stalls is abandoned at its own
timeout; a server that does not stream, refuses the stream, or streams without usage is
served all the same. Real HTTP to the in-process server (`ChatServer(stream=True)` streams a
word at a time, as llama.cpp's and vLLM's servers stream a token at a time); counts only."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from geomeval.client import ChatClient, Completion, RetryPolicy
from geomeval.testing.chat_server import ChatServer, Fault

TIMEOUT_S = 0.5
TOKEN_S = 0.004  # 250 words a second: a 300-word reply takes 1.2 s, over twice the timeout


def words(request: dict[str, Any]) -> str:
    """`n words` in the prompt asks for an n-word reply."""
    count = int(request["messages"][-1]["content"].split()[0])
    return " ".join(f"w{i}" for i in range(count))


def _client(server: ChatServer, **kwargs: Any) -> ChatClient:
    return ChatClient("judge", base_url=server.base_url, params={"temperature": 0.0, "max_tokens": 2048},
                      timeout_s=TIMEOUT_S, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01), **kwargs)


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


def test_streamed_and_whole_replies_are_the_same_completion() -> None:
    """What is cached and scored does not depend on how the reply travelled: text, finish
    reason and usage are those of the same reply sent whole, a reply cut at max_tokens too."""
    lengths = [0, 1, 7, 300]
    with ChatServer(words, stream=True) as streaming:
        streamed = _ask(_client(streaming), lengths)
        cut = _ask(ChatClient("judge", base_url=streaming.base_url, params={"max_tokens": 5}), [9])
    with ChatServer(words) as whole_server:  # a server that does not stream answers whole
        whole = _ask(_client(whole_server), lengths)
        whole_cut = _ask(ChatClient("judge", base_url=whole_server.base_url, params={"max_tokens": 5}), [9])
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


def test_geomeval_stream_0_asks_for_whole_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOMEVAL_STREAM", "0")
    with ChatServer(words, stream=True) as server:
        (done,) = _ask(_client(server), [4])
        assert "stream" not in server.requests[0]
    assert done.text == "w0 w1 w2 w3" and done.usage is not None
