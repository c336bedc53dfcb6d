"""One model on several servers (issue 43, point 2): `--base-url` (and the judge's) names
them comma-separated; each request goes to the server whose window is least taken, each
server keeping its own adaptive window; a server that stops answering is set aside and its
requests go to the others, and the run goes on. Real HTTP to three loopback servers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from geomeval.core.errors import UsageError
from geomeval.engines.client import ChatClient, RetryPolicy, check_base_url
from geomeval.engines.endpoints import redact_url
from geomeval.engines.engine import for_each
from geomeval.testing.chat_server import ChatServer, prompt_text


def _answer(request: dict[str, Any]) -> str:
    return "answer to " + prompt_text(request)


def test_three_servers_share_a_run_and_one_that_dies_is_set_aside(caplog: pytest.LogCaptureFixture) -> None:
    servers = [ChatServer(_answer, latency_s=0.05) for _ in range(3)]
    for server in servers:
        server.__enter__()
    try:
        client = ChatClient("m", base_url=",".join(s.base_url for s in servers), concurrency=2, timeout_s=10.0,
                            retry=RetryPolicy(base_delay_s=0.01, max_delay_s=0.05))
        assert client.concurrency == 6  # each server's window, three servers
        prompts = [f"q{i}" for i in range(60)]
        replies: list[Any] = [None] * len(prompts)
        counts_at_death: list[int] = []

        async def one(index: int) -> None:
            if index == 20:  # a third of the way in, the third server goes away
                counts_at_death.extend(len(s.requests) for s in servers)
                await asyncio.to_thread(servers[2].__exit__)
            replies[index] = await client.complete([{"role": "user", "content": prompts[index]}])

        async def main() -> None:
            try:
                await for_each(range(len(prompts)), client.concurrency, one)
            finally:
                await client.aclose()

        with caplog.at_level("WARNING", logger="geomeval"):
            asyncio.run(main())
        counts = [len(s.requests) for s in servers]
    finally:
        for server in servers[:2]:
            server.__exit__()
    assert [r.text for r in replies] == [f"answer to {p}" for p in prompts]  # the run went on
    assert client.failure is None and "set aside" in caplog.text
    assert all(n >= 4 for n in counts_at_death)  # all three took a share while they lived
    assert counts[2] - counts_at_death[2] <= 6  # the dead one: at most what was in flight to it
    assert sum(counts[:2]) - sum(counts_at_death[:2]) >= 40  # the other two took the rest
    assert abs(counts[0] - counts[1]) <= 8  # balanced between them


def test_several_base_urls_are_checked_each_and_redacted_each() -> None:
    assert check_base_url(" http://a:1/v1/ ,http://b:2/v1") == "http://a:1/v1,http://b:2/v1"
    with pytest.raises(UsageError, match="twice"):
        check_base_url("http://a:1/v1,http://a:1/v1")
    with pytest.raises(UsageError, match="empty entry"):
        check_base_url("http://a:1/v1,,http://b:2/v1")
    with pytest.raises(UsageError, match="not an http"):
        check_base_url("http://a:1/v1,b:2/v1")
    assert redact_url("http://a/v1?key=SECRET1,http://b/v1?api-version=2&token=SECRET2") == (
        "http://a/v1?key=***,http://b/v1?api-version=2&token=***")
