"""A server that hangs some requests, or asks the client to come back later (issue 37, point 6):
a hung request is abandoned at its own timeout while the others go on, and `Retry-After`
(seconds or an HTTP date) is waited for in full, up to a cap and the run's remaining time.
Asserted by counts and the order the server saw requests in, never by wall time; the time a
20%-hang run takes against a clean one is measured by bench/hanging_server.py."""

from __future__ import annotations

import asyncio
import email.utils
import time
from typing import Any

import pytest

from geomeval.engines.client import ChatClient, RequestBudget, RetryPolicy
from geomeval.engines.engine import for_each
from geomeval.testing.chat_server import ChatServer, Fault, prompt_text


def _answer(request: dict[str, Any]) -> str:
    return "answer to " + prompt_text(request)


def _ask(client: ChatClient, prompts: list[str], gaps: list[float] | None = None) -> list[Any]:
    """Each prompt as one item, as a run asks them (`engine.for_each`, as many at once as the
    client's concurrency), or each `gaps[i]` seconds after the start."""
    replies: list[Any] = [None] * len(prompts)

    async def one(index: int) -> None:
        if gaps:
            await asyncio.sleep(gaps[index])
        replies[index] = await client.complete([{"role": "user", "content": prompts[index]}])

    async def main() -> None:
        try:
            if gaps:
                await asyncio.gather(*(one(i) for i in range(len(prompts))))
            else:
                await for_each(range(len(prompts)), client.concurrency, one)
        finally:
            await client.aclose()

    asyncio.run(main())
    return replies


def _prompts_seen(server: ChatServer) -> list[str]:
    return [prompt_text(request) for request in server.requests]


@pytest.mark.slow
def test_hung_requests_are_abandoned_at_their_own_timeout_while_the_rest_go_on() -> None:
    """A fifth of the requests hang. Each hung one is sent again once its own timeout has
    passed, while the other items are still being asked and answered (before, a hung request
    timed out only once the whole server went quiet, so the retries came in waves after the
    other items), and every item ends with its answer: no item lost, one extra request per
    hang."""
    prompts = [f"question {i}" for i in range(100)]
    hang = Fault(rate=0.2, kind="hang", hang_s=3600)
    with ChatServer(_answer, latency_s=0.3, faults=[hang], seed=3) as server:
        client = ChatClient("m", base_url=server.base_url, concurrency=8, timeout_s=1.0,
                            retry=RetryPolicy(base_delay_s=0.05, breaker_failures=100))
        replies = _ask(client, prompts)
        seen = _prompts_seen(server)
        hung = [seen[n] for n in server.faulted]
    assert [r.text for r in replies] == [f"answer to {p}" for p in prompts]  # every item scored
    assert len(seen) == client.requests_sent == len(prompts) + len(hung)  # one more request per hang
    assert 10 <= len(hung) <= 35  # the fault did hang about a fifth
    first_sent = {p: seen.index(p) for p in prompts}
    last_first_attempt = max(first_sent.values())
    retried_early = [p for p in set(hung) if seen.index(p, first_sent[p] + 1) < last_first_attempt]
    # the items hung early were asked again while the rest of the run was still being sent
    assert len(retried_early) >= len(set(hung)) // 2, (len(retried_early), len(set(hung)))


def test_many_requests_hung_at_once_halve_the_window_once(caplog: pytest.LogCaptureFixture) -> None:
    """Eight requests sent together all time out together: they went out under one window,
    so it is halved once (8 -> 4), not down to 1, and the retries proceed four at a time."""
    hang = Fault(on=set(range(8)), kind="hang", hang_s=3600)
    with ChatServer(_answer, faults=[hang]) as server:
        client = ChatClient("m", base_url=server.base_url, concurrency=8, timeout_s=0.5,
                            retry=RetryPolicy(max_attempts=3, base_delay_s=0.05, breaker_failures=100))
        with caplog.at_level("WARNING", logger="geomeval"):
            replies = _ask(client, [f"q{i}" for i in range(8)])
    assert all(r.text for r in replies) and len(server.requests) == 16
    assert caplog.text.count("a request timed out; requests in flight") == 1
    assert "8 -> 4" in caplog.text


@pytest.mark.slow
@pytest.mark.parametrize("form", ["seconds", "http-date"])
def test_a_429_with_retry_after_is_waited_for_then_succeeds(form: str) -> None:
    """The first item is told to come back in 2 s (by seconds or an HTTP date); a second item
    sent 1 s into the run reaches the server before the first one's retry. With a 0.5 s
    timeout the retry deadline alone (1.25 s) would have given up; the server's request for
    a wait is its answer, not silence."""
    when = "2" if form == "seconds" else email.utils.formatdate(time.time() + 3, usegmt=True)
    fault = Fault(on={0}, status=429, headers={"Retry-After": when}, body='{"error": "slow down"}')
    with ChatServer(_answer, faults=[fault]) as server:
        client = ChatClient("m", base_url=server.base_url, timeout_s=0.5,
                            retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.05))
        first, second = _ask(client, ["first", "second"], gaps=[0.0, 1.0])
        seen = _prompts_seen(server)
    assert seen == ["first", "second", "first"]  # the retry waited past the second item's send
    assert first.text == "answer to first" and first.attempts == 2
    assert second.text == "answer to second" and second.attempts == 1


def test_a_retry_after_past_the_cap_or_the_runs_time_gives_up_without_coming_back_early() -> None:
    fault = Fault(on={0}, status=429, headers={"Retry-After": "120"})
    with ChatServer(_answer, faults=[fault]) as server:
        client = ChatClient("m", base_url=server.base_url, retry=RetryPolicy(max_retry_after_s=60.0))
        (done,) = _ask(client, ["first"])
        assert len(server.requests) == 1  # not asked again before the server said it could answer
    assert done.text is None and "asked to retry after 120 s" in (done.error or "")

    fault = Fault(on={0}, status=429, headers={"Retry-After": "5"})
    with ChatServer(_answer, faults=[fault]) as server:
        client = ChatClient("m", base_url=server.base_url)
        client.budget = RequestBudget(max_seconds=2.0)
        (done,) = _ask(client, ["first"])
        assert len(server.requests) == 1
    assert done.text is None and "the run's time ends" in (done.error or "")


@pytest.mark.slow
def test_a_hung_request_is_hedged_long_before_its_timeout_and_the_first_reply_wins() -> None:
    """A fifth of the requests hang, at a 30 s timeout. Once the client has seen how soon
    replies come (0.1 s), a request silent for much longer is sent once more while the first
    copy keeps waiting, and the first reply wins: every item answered with its own answer,
    without waiting out a timeout; one hedge per hung copy (a hedge that hangs is hedged in
    turn), each a request like any other (counted, reserved on the budget), at most
    `max_attempts` copies of an item."""
    prompts = [f"question {i}" for i in range(60)]
    hang = Fault(rate=0.2, kind="hang", hang_s=3600)
    with ChatServer(_answer, latency_s=0.1, faults=[hang], seed=5) as server:
        client = ChatClient("m", base_url=server.base_url, concurrency=8, timeout_s=30.0)
        client.budget = RequestBudget()
        replies = _ask(client, prompts)
        seen = _prompts_seen(server)
        hung = len(server.faulted)
    assert [r.text for r in replies] == [f"answer to {p}" for p in prompts]
    assert hung >= 5 and hung <= client.hedges <= hung + 3  # the odd spare hedge of a slow reply
    assert len(seen) == client.requests_sent == client.budget.requests == len(prompts) + client.hedges
    assert client.usage()["hedges"] == client.hedges
    for prompt, reply in zip(prompts, replies, strict=True):
        assert reply.attempts == seen.count(prompt) <= client.retry.max_attempts  # copies it took


@pytest.mark.slow
def test_no_hedge_for_a_reply_being_computed_nor_a_queue_worked_through_in_order() -> None:
    """A long reply that streams in, and requests waiting their turn on a server that answers
    one at a time, are progressing: neither is sent twice, however long they take against the
    replies seen before."""
    lengths = [3] * 12 + [400] + [3] * 6  # the long one takes 4 s against 0.03 s
    with ChatServer(lambda request: " ".join(["w"] * int(prompt_text(request))),
                    stream=True, token_s=0.01) as server:
        client = ChatClient("m", base_url=server.base_url, concurrency=4, timeout_s=30.0, stream=True)
        replies = _ask(client, [str(n) for n in lengths])
        assert len(server.requests) == len(lengths)
    assert [len(r.text.split()) for r in replies] == lengths and client.hedges == 0

    with ChatServer(_answer, latency_s=0.15, serial=True) as server:
        client = ChatClient("m", base_url=server.base_url, concurrency=8, timeout_s=30.0)
        replies = _ask(client, [f"q{i}" for i in range(24)])
        assert len(server.requests) == server.computed == 24
    assert all(r.text for r in replies) and client.hedges == 0
