"""A reply may legally run to the request's token limit, and a long one can take longer than
the client's timeout to compute. Once the client has seen how fast the server generates, a
request is given the time its longest legal reply takes, so a reply being computed is never
abandoned and sent again (issue 44: 28 judge requests abandoned at 120 s, 27 re-sent, while the
server computed 2,047-token replies in 132 s). Real HTTP to a serial in-process server whose
time per reply grows with its length; counts only, no wall-clock assertion."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from geomeval.engines.client import MAX_ALLOWANCE_FACTOR, REPLY_MARGIN, ChatClient, RetryPolicy
from geomeval.engines.pacing import UNKNOWN_RATE
from geomeval.testing.chat_server import ChatServer, Fault

SECONDS_PER_TOKEN = 0.004  # the server generates 250 tokens (words) a second
TIMEOUT_S = 0.5
MAX_TOKENS = 400  # the longest legal reply takes 1.6 s: three timeouts


def generating(request: dict) -> str:
    """`n words` in the prompt asks for an n-word reply, computed at the server's speed."""
    words = int(request["messages"][-1]["content"].split()[0])
    time.sleep(words * SECONDS_PER_TOKEN)
    return " ".join(["x"] * words)


def _ask_in_turn(server: ChatServer, lengths: list[int], max_tokens: int | None = MAX_TOKENS) -> list:
    params = {"temperature": 0.0} | ({"max_tokens": max_tokens} if max_tokens else {})
    client = ChatClient("judge", base_url=server.base_url, params=params, timeout_s=TIMEOUT_S, concurrency=1,
                        retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))

    async def go() -> list:
        try:
            return [await client.complete([{"role": "user", "content": f"{n} words please"}]) for n in lengths]
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_a_long_reply_is_waited_for_once_the_servers_speed_is_known() -> None:
    with ChatServer(generating, serial=True) as server:
        replies = _ask_in_turn(server, [40, 40, 40, 300])  # the last takes 1.2 s, over twice the timeout
        assert len(server.requests) == 4 and server.computed == 4  # nothing abandoned, nothing re-sent
    assert [len(r.text.split()) for r in replies] == [40, 40, 40, 300]
    assert replies[-1].attempts == 1


@pytest.mark.slow
def test_a_long_first_reply_is_waited_for_before_the_servers_speed_is_known() -> None:
    """Issue 44: the first replies, before any has shown the server's speed, are given the time
    their longest legal reply takes at a conservative rate (`UNKNOWN_RATE`), within the cap. A
    first reply over twice the timeout is computed once and never abandoned nor re-sent, and the
    requests queued behind it on the serial server wait their turn."""
    with ChatServer(generating, serial=True) as server:
        client = ChatClient("judge", base_url=server.base_url, params={"max_tokens": MAX_TOKENS},
                            timeout_s=TIMEOUT_S, concurrency=3, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))

        async def go() -> list:
            try:
                return list(await asyncio.gather(*(client.complete([{"role": "user", "content": f"{n} words please"}])
                                                   for n in (300, 300, 40))))
            finally:
                await client.aclose()

        replies = asyncio.run(go())
        assert len(server.requests) == server.computed == 3  # nothing abandoned, nothing re-sent
    assert [len(r.text.split()) for r in replies] == [300, 300, 40]
    assert all(r.attempts == 1 for r in replies) and client.requests_sent == 3 and client.hedges == 0


@pytest.mark.slow
def test_a_long_whole_reply_is_not_hedged_once_short_ones_set_the_hedge_time() -> None:
    """Ten short replies (0.08 s each) make a request silent for 0.15 s look hung; a whole (not
    streamed) 300-token reply takes 1.2 s. It may be computing for as long as its longest legal
    reply takes at the slowest rate seen, so it is not hedged before then: the server computes
    each prompt once."""
    with ChatServer(generating, serial=True) as server:
        replies = _ask_in_turn(server, [20] * 10 + [300])
        assert len(server.requests) == server.computed == 11
    assert [len(r.text.split()) for r in replies] == [20] * 10 + [300]
    assert replies[-1].attempts == 1


@pytest.mark.slow
def test_a_server_that_never_answers_is_still_given_up_on() -> None:
    """Before the server's speed is known a request waits for its longest legal reply at the
    conservative rate, capped at `MAX_ALLOWANCE_FACTOR` timeouts: a server that accepts and
    never answers still costs a bounded number of attempts, each abandoned at the cap."""
    hang = Fault(rate=1.0, kind="hang", hang_s=3600)
    with ChatServer(generating, faults=[hang]) as server:
        client = ChatClient("judge", base_url=server.base_url, params={"max_tokens": 2048}, timeout_s=0.2,
                            retry=RetryPolicy(base_delay_s=0.01, breaker_failures=100))

        async def go() -> Any:
            try:
                return await client.complete([{"role": "user", "content": "5 words please"}])
            finally:
                await client.aclose()

        done = asyncio.run(go())
        sent = len(server.requests)
    cap = 0.2 * MAX_ALLOWANCE_FACTOR  # 2048 tokens at UNKNOWN_RATE would be 384 s
    assert done.text is None and f"no reply to this request for {cap:.3g}s" in (done.error or "")
    assert "deadline" in (done.error or "") and 1 <= sent <= 3 and done.attempts == sent


def test_the_allowance_is_the_longest_reply_at_the_slowest_rate_within_bounds() -> None:
    client = ChatClient("judge", base_url="http://127.0.0.1:9/v1", timeout_s=120.0)  # the default
    body = {"max_tokens": 2048}
    assert client.reply_allowance_s(body) == 2048 / UNKNOWN_RATE * REPLY_MARGIN  # no reply seen yet: 384 s
    client.rates.extend([40.0, 15.5, 30.0])  # tokens a second: a loaded server's slowest is 15.5
    assert client.reply_allowance_s(body) == 2048 / 15.5 * REPLY_MARGIN  # 396 s: the 132 s reply, even at half that speed
    assert client.reply_allowance_s({"max_tokens": 16}) == 120.0  # never under the timeout
    assert client.reply_allowance_s({}) == 120.0  # no token limit: no longest legal reply
    client.rates.append(0.1)
    assert client.reply_allowance_s(body) == 120.0 * MAX_ALLOWANCE_FACTOR


def test_a_judge_queued_behind_the_models_requests_on_one_server_is_not_abandoned() -> None:
    """Model and judge on one serial server (llama.cpp serving both): the judge's request waits
    behind the model's, longer in all than its timeout; each reply the server gives the model is
    progress for it, so it is computed once and never sent again."""
    with ChatServer(lambda request: "fine", serial=True, latency_s=0.35) as server:
        model = ChatClient("model", base_url=server.base_url, timeout_s=TIMEOUT_S,
                           retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))
        judge = ChatClient("judge", base_url=server.base_url, timeout_s=TIMEOUT_S,
                           retry=RetryPolicy(max_attempts=3, base_delay_s=0.01))

        async def go() -> list:
            try:
                asked = [asyncio.ensure_future(model.complete([{"role": "user", "content": f"item {i}"}]))
                         for i in range(3)]
                await asyncio.sleep(0.05)  # the judge's request goes out behind the model's three
                asked.append(asyncio.ensure_future(judge.complete([{"role": "user", "content": "judge"}])))
                return list(await asyncio.gather(*asked))
            finally:
                await model.aclose()
                await judge.aclose()

        replies = asyncio.run(go())
        assert len(server.requests) == 4 and server.computed == 4
    assert [r.text for r in replies] == ["fine"] * 4 and all(r.attempts == 1 for r in replies)
