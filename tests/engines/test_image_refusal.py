"""A server that refuses images (a text-only llama.cpp: HTTP 500 "image input is not supported")
is asked once per request, not retried, and the failure says what to do: a vision model or the
benchmark's text-only mode, not load advice. Real HTTP to the in-process chat server."""

from __future__ import annotations

import asyncio

import pytest

from geomeval.engines.client import ChatClient, RetryPolicy
from geomeval.testing.chat_server import ChatServer, Fault

PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
WITH_IMAGE = [{"role": "user", "content": [{"type": "text", "text": "What is ∠B?"},
                                           {"type": "image_url", "image_url": {"url": PNG}}]}]
TEXT_ONLY = [{"role": "user", "content": "What is ∠B?"}]
REFUSALS = [
    (500, '{"error": {"code": 500, "message": "image input is not supported - hint: if this is unexpected, '
          'you may need to provide the mmproj", "type": "server_error"}}'),
    (400, '{"error": {"message": "This model does not support image inputs."}}'),
]


def _ask(server: ChatServer, messages: list[dict]) -> tuple[object, ChatClient]:
    client = ChatClient("m", base_url=server.base_url, retry=RetryPolicy(max_attempts=6, base_delay_s=0.01))

    async def go() -> object:
        try:
            return await client.complete(messages)
        finally:
            await client.aclose()

    return asyncio.run(go()), client


@pytest.mark.parametrize(("status", "body"), REFUSALS)
def test_a_refused_image_is_not_retried_and_the_advice_fits(status: int, body: str) -> None:
    fault = Fault(status=status, body=body, rate=1.0)
    with ChatServer(lambda request: "B", faults=[fault]) as server:
        done, client = _ask(server, WITH_IMAGE)
        assert len(server.requests) == 1 and client.requests_sent == 1
    assert done.text is None  # type: ignore[attr-defined]
    assert "carried an image" in done.error and "text-only mode" in done.error  # type: ignore[attr-defined]
    assert "--concurrency" not in done.error  # type: ignore[attr-defined]


def test_an_ordinary_server_error_is_still_retried() -> None:
    fault = Fault(status=500, on={0}, body='{"error": {"message": "slot unavailable"}}')
    with ChatServer(lambda request: "B", faults=[fault]) as server:
        done, _ = _ask(server, WITH_IMAGE)
        assert len(server.requests) == 2
    assert done.text == "B"  # type: ignore[attr-defined]


def test_the_same_words_without_an_image_sent_are_retried() -> None:
    fault = Fault(status=500, on={0}, body=REFUSALS[0][1])
    with ChatServer(lambda request: "B", faults=[fault]) as server:
        done, _ = _ask(server, TEXT_ONLY)
        assert len(server.requests) == 2
    assert done.text == "B"  # type: ignore[attr-defined]
