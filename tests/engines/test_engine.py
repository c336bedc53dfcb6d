"""The model/judge client over real loopback HTTP: retries, Retry-After, timeouts, cache, keys."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path

import pytest

from geomeval.core.errors import EndpointFailure
from geomeval.engines.cache import ResponseCache, cache_key
from geomeval.engines.client import ChatClient, RetryPolicy, parse_retry_after
from geomeval.engines.judges import Judge, parse_judge_spec
from geomeval.testing.chat_server import ChatServer, Fault, prompt_text

FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05)
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]


def echo(request: dict) -> str:
    return "answer to " + prompt_text(request)


def complete(client: ChatClient, messages: list[dict] = MESSAGES):
    async def go():
        try:
            return await client.complete(messages)
        finally:
            await client.aclose()

    return asyncio.run(go())


def client_for(server: ChatServer, **kwargs) -> ChatClient:
    kwargs.setdefault("retry", FAST)
    return ChatClient("m", base_url=server.base_url, params={"temperature": 0.0}, **kwargs)


@pytest.mark.parametrize(
    "fault",
    [
        Fault(on={0}, status=500),
        Fault(on={0}, status=503),
        Fault(on={0}, kind="malformed"),
        Fault(on={0}, kind="truncated"),
        Fault(on={0}, kind="drop"),
    ],
    ids=["500", "503", "malformed-json", "truncated-body", "dropped-connection"],
)
def test_transient_faults_are_retried(fault: Fault) -> None:
    with ChatServer(echo, faults=[fault]) as server:
        result = complete(client_for(server))
    assert result.text == "answer to What is 2 + 2?"
    assert result.attempts == 2 and len(server.requests) == 2


def test_hung_request_times_out_and_is_retried() -> None:
    with ChatServer(echo, faults=[Fault(on={0}, kind="hang", hang_s=30)]) as server:
        started = time.perf_counter()
        result = complete(client_for(server, timeout_s=0.5))
    assert result.text is not None and result.attempts == 2
    assert 0.5 <= time.perf_counter() - started < 5


def test_retry_after_is_honoured() -> None:
    fault = Fault(on={0}, status=429, headers={"Retry-After": "1"})
    with ChatServer(echo, faults=[fault]) as server:
        started = time.perf_counter()
        result = complete(client_for(server))
        elapsed = time.perf_counter() - started
    assert result.text is not None
    assert elapsed >= 1.0  # the backoff alone would have waited ~10 ms


def test_retry_after_forms() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("garbage") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: no wait
    delay = RetryPolicy(base_delay_s=0.5, max_delay_s=30).delay(1, 7.0, __import__("random").Random(0))
    assert delay == 7.0


def test_client_errors_are_not_retried_and_say_why() -> None:
    with ChatServer(echo, faults=[Fault(on=set(range(10)), status=400, body='{"error": "bad model"}')]) as server:
        result = complete(client_for(server))
    assert result.text is None and len(server.requests) == 1
    assert "HTTP 400" in result.error and "bad model" in result.error


def test_gives_up_after_max_attempts_with_the_last_error() -> None:
    with ChatServer(echo, faults=[Fault(on=set(range(10)), status=502)]) as server:
        result = complete(client_for(server, retry=RetryPolicy(max_attempts=3, base_delay_s=0.01)))
    assert result.text is None and len(server.requests) == 3
    assert "HTTP 502" in result.error and "after 3 attempts" in result.error


def test_concurrency_is_bounded_by_the_client() -> None:
    async def go(client: ChatClient) -> list:
        try:
            return await asyncio.gather(*(client.complete([{"role": "user", "content": f"q{i}"}]) for i in range(24)))
        finally:
            await client.aclose()

    with ChatServer(echo, latency_s=0.1) as server:
        results = asyncio.run(go(client_for(server, concurrency=4)))
    assert all(r.text for r in results)
    assert server.max_in_flight == 4


def test_api_key_is_sent_but_never_written(tmp_path: Path) -> None:
    key = "sk-test-SECRET-123"
    fault = Fault(on={0}, status=401, body=f'{{"error": "invalid key {key}"}}')
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with ChatServer(echo, faults=[fault]) as server:
        client = client_for(server, api_key=key, cache=cache)
        with pytest.raises(EndpointFailure) as failed:  # a refused key fails the endpoint
            complete(client)
        ok = complete(client_for(server, api_key=key, cache=cache), [{"role": "user", "content": "again"}])
    assert server.headers[0]["Authorization"] == f"Bearer {key}"
    assert key not in str(failed.value) and "***" in str(failed.value) and "HTTP 401" in str(failed.value)
    assert ok.text and key not in repr(client)
    cache.close()
    for path in tmp_path.iterdir():
        assert key.encode() not in path.read_bytes()


def test_cache_answers_repeats_and_never_stores_failures(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with ChatServer(echo, faults=[Fault(on={0}, status=400)]) as server:
        client = client_for(server, cache=cache)
        assert complete(client).text is None
        assert len(cache) == 0  # the failure was not cached
        first = complete(client)
        second = complete(client)
    assert first.text == second.text and second.cached and not first.cached
    assert len(server.requests) == 2
    # Another process (a new cache object on the same file) sees the answer too.
    assert ResponseCache(tmp_path / "cache.sqlite").get(client.key(MESSAGES, client.params)) == first.text


def test_cache_key_hashes_images_and_covers_params() -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(200))

    def with_image(url: str) -> list[dict]:
        return [{"role": "user", "content": [{"type": "text", "text": "q"}, {"type": "image_url", "image_url": {"url": url}}]}]

    encoded = base64.b64encode(png).decode()
    a = cache_key("http://x/v1", "m", with_image(f"data:image/png;base64,{encoded}"), {"temperature": 0})
    b = cache_key("http://x/v1/", "m", with_image(f"data:image/png;base64,{encoded}"), {"temperature": 0})
    other_bytes = base64.b64encode(png + b"!").decode()
    assert a == b
    assert a != cache_key("http://x/v1", "m", with_image(f"data:image/png;base64,{other_bytes}"), {"temperature": 0})
    assert a != cache_key("http://x/v1", "m", with_image(f"data:image/png;base64,{encoded}"), {"temperature": 0.7})
    assert a != cache_key("http://y/v1", "m", with_image(f"data:image/png;base64,{encoded}"), {"temperature": 0})
    assert a != cache_key("http://x/v1", "m2", with_image(f"data:image/png;base64,{encoded}"), {"temperature": 0})


def _parse_number(text: str) -> int:
    value = json.loads(text)["n"]
    if not isinstance(value, int):
        raise ValueError('"n" must be an integer')
    return value


def test_judge_repairs_a_malformed_answer_once_at_temperature_zero() -> None:
    replies = iter(['{"n": "four"}', '{"n": 4}'])
    with ChatServer(lambda request: next(replies)) as server:
        judge = parse_judge_spec("openai:j", base_url=server.base_url)
        answer = asyncio.run(_ask(judge))
    assert answer.value == 4 and answer.repaired
    assert [r["temperature"] for r in server.requests] == [0.0, 0.0]
    repair = server.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"n": "four"}'}
    assert '"n" must be an integer' in repair[-1]["content"]


def test_judge_gives_up_after_one_repair_and_forgets_the_replies(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ChatServer(lambda request: "not json at all") as server:
        judge = parse_judge_spec("openai:j", base_url=server.base_url, cache=cache)
        answer = asyncio.run(_ask(judge))
    assert answer.value is None and "after one repair retry" in answer.error
    assert len(server.requests) == 2
    assert len(cache) == 0  # a rerun asks afresh instead of replaying unusable replies


async def _ask(judge: Judge):
    try:
        return await judge.ask([{"role": "user", "content": "How many sides has a square?"}], _parse_number)
    finally:
        await judge.aclose()


def test_judge_spec_reads_geomeval_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOMEVAL_JUDGE_MODEL", "judge-x")
    monkeypatch.setenv("GEOMEVAL_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://elsewhere/v1")  # other tools' variables are ignored
    judge = parse_judge_spec(None)
    assert judge.spec == "openai:judge-x"
    assert judge.client is not None and judge.client.base_url == "http://127.0.0.1:9/v1"
    assert judge.client.params["temperature"] == 0.0
    monkeypatch.delenv("GEOMEVAL_JUDGE_MODEL")
    assert parse_judge_spec(None).offline


def test_text_only_messages_go_as_plain_strings_and_images_keep_their_parts() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    text_only = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]},
    ]
    with_image = [{"role": "user", "content": [{"type": "text", "text": "look"}, image]}]
    with ChatServer(echo) as server:
        client = client_for(server)
        assert complete(client, text_only).text
        assert complete(client_for(server), with_image).text
        sent = [request["messages"] for request in server.requests]
    assert sent[0] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "first\n\nsecond"}]
    assert sent[1] == with_image


def test_a_request_body_is_the_json_dumps_bytes_with_long_strings_spliced_in() -> None:
    from geomeval.core.jsontext import SPLICE_CHARS
    from geomeval.engines.client import json_body

    figure = "data:image/png;base64," + base64.b64encode(bytes(range(256)) * 64).decode()
    long_plain = "x" * SPLICE_CHARS
    needs_escaping = ['a "quoted" ' * 500, "line\n" * 1000, "back\\slash" * 500, "é" * SPLICE_CHARS,
                      "\x01" + "y" * SPLICE_CHARS, "\x7f" + "w" * SPLICE_CHARS]
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": t} for t in needs_escaping]
             + [{"type": "image_url", "image_url": {"url": figure}}, {"type": "text", "text": long_plain}]},
            {"role": "assistant", "content": figure},  # the same figure twice
        ],
        "temperature": 0, "max_tokens": 16, "stop": ["</answer>", "x" * (SPLICE_CHARS - 1)],
    }
    assert json_body(body) == json.dumps(body).encode("utf-8")
    assert json.loads(json_body(body)) == body
