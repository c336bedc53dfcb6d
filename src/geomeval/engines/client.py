"""One asyncio client for models and judges on any OpenAI-compatible chat endpoint.

Concurrency is owned here, not by callers, and adapts to the server: each client lets at
most `concurrency` requests be in flight, halves that window when a request times out or
the server says it is overloaded (429, 503; once for the requests sent under the same
window), and widens it again by one after a run of successes, saying so on the `geomeval`
logger.

How long a request may stay silent before it is abandoned or hedged (sent once more while
the first copy waits), and how the window adapts, is pacing.py's (`Pace`, `LoopState`); what
goes over the wire and how a reply is read, whole or streamed, is wire.py's; base URLs are
baseurls.py's.

With GEOMEVAL_STREAM=1 (`ChatClient(stream=True)`) replies are asked for as a stream (`stream:
true`, with usage in the last event), so a reply being computed is seen to progress: a
request's silence counts from the latest byte of its reply too, and, on a server working
through its queue (`ServerQueue.serial`), from the latest piece streamed to a request it waits
behind. A long reply is so never abandoned and sent again, however long it runs; a stream that
stalls is abandoned at its timeout. A server that does not stream answers whole (read as
before); one that refuses the stream or its usage option, or cuts a stream short (no finish
reason: llama-cpp-python's server does so whenever another request waits), is asked for whole
replies from then on. Off by default for that last reason.

Transient trouble (429, 5xx, timeouts, dropped connections, malformed or truncated bodies) is
retried with exponential backoff and jitter. A `Retry-After` (seconds or an HTTP date) is
waited for in full, up to `RetryPolicy.max_retry_after_s` and the run's remaining time
(`RequestBudget.max_seconds`); a request asked to wait longer than that gives up, saying so,
rather than come back early. The semaphore is released while a request waits to retry, so
one slow item never holds a slot it is not using.
Successful completions go to the response cache; failures never do. The API key is
sent in a header only and redacted from every error text.

An endpoint that cannot serve at all (connection refused, unknown host, 401, 403, 404, a
malformed URL) is not an item's failure: retrying it item by item would spend minutes and
then report every item unscored. The client raises `EndpointFailure` with the cause instead,
and keeps raising it at once for every later request (the circuit is open), so the run
stops within seconds, resumably, with the endpoint and what to check.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import aiohttp

from ..core.errors import EndpointFailure
from .background import BackgroundLoop
from .baseurls import (
    DEFAULT_BASE_URL,
    check_base_url,
    model_server,
    openai_key_for,
    split_base_urls,
)
from .budget import BudgetExhausted, RequestBudget, Reservation, request_cost
from .cache import ResponseCache, cache_key
from .pacing import (
    MAX_ALLOWANCE_FACTOR,
    REPLY_MARGIN,
    LoopState,
    Pace,
    Race,
    Unanswered,
    Waiting,
    hedge_cap,
    queue_for,
)
from .wire import (
    IMAGE_REFUSAL_HINT,
    JSON_CONTENT,
    MAX_REPLY_BYTES,
    NO_TEXT,
    ReplyTooLarge,
    StreamCut,
    has_image,
    image_refused,
    json_body,
    parse_retry_after,
    plain_text_messages,
    read_capped,
    read_completion,
    read_stream,
    reply_usage,
)

# Names other modules and tests import from here, whichever module now holds them.
__all__ = [
    "DEFAULT_BASE_URL", "IMAGE_REFUSAL_HINT", "MAX_ALLOWANCE_FACTOR", "REPLY_MARGIN", "BackgroundLoop",
    "BudgetExhausted", "ChatClient", "Completion", "RequestBudget", "RetryPolicy", "check_base_url",
    "json_body", "model_server", "openai_key_for", "parse_retry_after", "split_base_urls",
]

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# Statuses that say the endpoint, key or model name is wrong: no retry helps any item.
FATAL_STATUS = {
    401: "the server refused the API key (check GEOMEVAL_API_KEY / GEOMEVAL_JUDGE_API_KEY)",
    403: "the key is not allowed to use this model or endpoint",
    404: "no such model or path on this server (check the model name and that the base URL ends in /v1)",
}
# A server of several (`split_base_urls`) that refuses connections is set aside this long.
ENDPOINT_REST_S = 30.0
# A refused or unresolvable connection is tried this many times (about a second apart)
# before the endpoint is declared unreachable.
CONNECT_ATTEMPTS = 3
CONNECT_RETRY_DELAY_S = 0.5
log = logging.getLogger("geomeval")


@dataclass(frozen=True, slots=True)
class Completion:
    text: str | None
    error: str | None = None
    cached: bool = False
    attempts: int = 0
    # How the reply ended ("stop", "length" when max_tokens cut it short, ...) and the token
    # counts the server reported; None when it said nothing.
    finish_reason: str | None = None
    usage: dict[str, int] | None = None

    @property
    def info(self) -> dict[str, Any]:
        """finish_reason and usage, as saved with a sample and in the cache."""
        return {k: v for k, v in (("finish_reason", self.finish_reason), ("usage", self.usage)) if v is not None}


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How one request is retried. `deadline_factor` bounds the time a request spends on
    attempts and waits since the endpoint last answered anything to that many timeouts, so a
    server that accepts and never answers costs a bounded time, not `max_attempts` timeouts
    (a wait the server asked for with `Retry-After` is not silence and adds to it; a request
    during whose life the endpoint answered anything is not met by silence and is bounded by
    `max_attempts` alone);
    `max_retry_after_s` is the longest `Retry-After` waited for (longer: the request gives
    up); `breaker_failures` requests in a row that fail for good, with no success between
    them, open the circuit (EndpointFailure)."""

    max_attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 60.0
    deadline_factor: float = 2.5
    breaker_failures: int = 3

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.breaker_failures < 1:
            raise ValueError("breaker_failures must be at least 1")

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Exponential backoff with equal jitter; never shorter than Retry-After (capped: the
        client gives up before waiting past the cap)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        wait = ceiling / 2 + rng.uniform(0, ceiling / 2)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_retry_after_s))
        return wait


class ChatClient:
    """Chat completions for one (endpoint, model, parameters), cached and retried."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        params: dict[str, Any] | None = None,
        concurrency: int = 32,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        cache: ResponseCache | None = None,
        seed: int | None = None,
        stream: bool | None = None,
        hedge: bool = True,
    ):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.model = model
        self.base_url = check_base_url(base_url or DEFAULT_BASE_URL)
        # Several servers of the model (`split_base_urls`): each request goes to the one with
        # the least load for its window (`_pick`); `concurrency` is each server's window.
        self.endpoints = self.base_url.split(",")
        self._resting: dict[int, float] = {}  # endpoint -> when it may be tried again
        self.__api_key = api_key or None
        self.params = dict(params or {})
        self.concurrency = concurrency * len(self.endpoints)
        # What the client has seen of the server's speed, and the times it allows a request
        # (pacing.py): the generation rates and times to first byte of its recent replies.
        self.pace = Pace(timeout_s, hedge)
        self.retry = retry or RetryPolicy()
        self.cache = cache
        self.requests_sent = 0
        self.cache_hits = 0
        # Tokens the server reported for the replies this client received (not cache hits),
        # and replies cut at the token limit: what the run cost and what it lost.
        self.tokens: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0}
        self.replies_reporting_usage = 0
        self.truncated = 0
        self.budget: RequestBudget | None = None  # shared with the run's other clients
        # Replies asked for as a stream of server-sent events (None: where GEOMEVAL_STREAM is 1),
        # so a reply being computed is seen to progress; a server that refuses the stream (or
        # its usage option), or cuts one short, is asked for whole replies from then on. Off by
        # default: llama-cpp-python's server cuts the stream it serves short whenever another
        # request waits (its interrupt_requests), which costs a request sent again.
        self.stream = os.environ.get("GEOMEVAL_STREAM", "0").strip().lower() in ("1", "true", "yes") \
            if stream is None else stream
        self._stream_usage = True
        self._said_no_stream_usage = False
        self.hedges = 0  # hedged requests sent (`Pace.hedge_after_s`)
        self._rng = random.Random(seed)
        self._states: dict[int, list[LoopState]] = {}
        self._lock = threading.Lock()
        self.failure: EndpointFailure | None = None  # set once the endpoint proved unusable
        self._failed_in_a_row = 0  # requests that failed for good since the last success

    @property
    def timeout_s(self) -> float:
        """Seconds a request may go without progress before it is abandoned (at least)."""
        return self.pace.timeout_s

    @timeout_s.setter
    def timeout_s(self, value: float) -> None:
        self.pace.timeout_s = value

    @property
    def hedge(self) -> bool:
        """Whether a request silent for long is hedged (sent once more while it waits)."""
        return self.pace.hedge

    @property
    def rates(self) -> deque[float]:
        """Completion tokens a second of the recent replies, each over its own clock."""
        return self.pace.rates

    @property
    def first_bytes(self) -> deque[float]:
        """Seconds from send to first byte of the recent replies."""
        return self.pace.first_bytes

    def __repr__(self) -> str:  # never shows the key
        return f"ChatClient(model={self.model!r}, base_url={self.base_url!r})"

    def redact(self, text: str) -> str:
        return text.replace(self.__api_key, "***") if self.__api_key else text

    def _state(self, endpoint: int = 0) -> LoopState:
        """The session, window and queue of one server on the running event loop."""
        loop_id = id(asyncio.get_running_loop())
        with self._lock:
            states = self._states.get(loop_id)
            if states is None:
                headers = {"Authorization": f"Bearer {self.__api_key}"} if self.__api_key else {}
                window = self.concurrency // len(self.endpoints)
                states = self._states[loop_id] = [
                    LoopState(window, headers, f"{url} ({self.model})", queue_for(url),
                               self.retry.max_attempts if self.hedge else 1, url=url)
                    for url in self.endpoints
                ]
            return states[endpoint]

    def _pick(self) -> tuple[int, LoopState]:
        """The server the next request goes to: among those not resting, the one whose window
        is least taken (requests assigned to it over its current limit); the first on ties."""
        now = time.monotonic()
        best: tuple[float, int] | None = None
        for index in range(len(self.endpoints)):
            if self._resting.get(index, 0.0) > now:
                continue
            state = self._state(index)
            load = (state.assigned + 1) / state.semaphore.limit
            if best is None or load < best[0]:
                best = (load, index)
        if best is None:  # every server resting: the one back soonest
            index = min(self._resting, key=self._resting.__getitem__)
            return index, self._state(index)
        return best[1], self._state(best[1])

    def _rest(self, endpoint: int, cause: str) -> bool:
        """Set a server that cannot be reached aside for `ENDPOINT_REST_S` while another can
        serve; False when it is the only one (or every other rests too)."""
        now = time.monotonic()
        others = [i for i in range(len(self.endpoints)) if i != endpoint and self._resting.get(i, 0.0) <= now]
        if not others:
            return False
        if self._resting.get(endpoint, 0.0) <= now:
            log.warning("%s set aside for %g s (%s); its requests go to the other %d server%s",
                        self.endpoints[endpoint], ENDPOINT_REST_S, cause, len(others), "s" if len(others) > 1 else "")
        self._resting[endpoint] = now + ENDPOINT_REST_S
        return True

    def key(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        return cache_key(self.base_url, self.model, messages, params)

    def _params(self, temperature: float | None) -> dict[str, Any]:
        """The request's parameters: the client's, with `temperature` in place of its own where
        it sends one (a reasoning model's shape has none and gets none)."""
        if temperature is None or "temperature" not in self.params:
            return self.params
        return {**self.params, "temperature": temperature}

    def forget(self, messages: list[dict[str, Any]], *, temperature: float | None = None) -> None:
        """Drop a cached reply that turned out unusable, so the next run asks again."""
        if self.cache is not None:
            self.cache.delete(self.key(messages, self._params(temperature)))

    def reply_allowance_s(self, body: dict[str, Any]) -> float:
        """How long a request with `body` may go without progress (`Pace.allowance_s`)."""
        return self.pace.allowance_s(body)

    def hedge_after_s(self) -> float | None:
        """How long a request may hear nothing before it is hedged (`Pace.hedge_after_s`)."""
        return self.pace.hedge_after_s()

    def _wire(self, body: dict[str, Any]) -> bytes:
        """The request's bytes: `body`, asking for a stream where the client streams."""
        if self.stream:
            body = {**body, "stream": True}
            if self._stream_usage:
                body["stream_options"] = {"include_usage": True}
        return json_body(body)

    def _unstream(self, raw: bytes) -> bool:
        """Whether a 400 refuses the stream or its usage option; if so, the client asks without
        it from now on and says so once."""
        if not self.stream:
            return False
        try:
            detail = json.loads(raw).get("error") or {}
        except (ValueError, AttributeError):
            return False
        text = (json.dumps(detail) if isinstance(detail, dict) else str(detail)).lower()
        if self._stream_usage and "stream_options" in text:
            self._stream_usage = False
            log.warning("%s refused stream_options; geomeval streams without asking for token usage",
                        self.base_url)
            return True
        if re.search(r"\bstream\b", text):
            self.stream = False
            log.warning("%s refused a streamed reply; geomeval asks for whole replies", self.base_url)
            return True
        return False

    def _fail(self, cause: str, hint: str) -> EndpointFailure:
        """Open the circuit: this and every later request raise the same failure."""
        if self.failure is None:
            self.failure = EndpointFailure(
                f"{self.base_url} (model {self.model!r}) cannot be used: {cause}. {hint}"
            )
        return self.failure

    async def complete(self, messages: list[dict[str, Any]], *, use_cache: bool = True,
                       temperature: float | None = None) -> Completion:
        """One reply; `temperature` replaces the client's own for this request (a judge serving
        a benchmark that declares its judge's, `Benchmark.judge_temperature`)."""
        params = self._params(temperature)
        # The key and the SQLite read stay on the event loop: half a millisecond there, where
        # a hop to a thread and back cost a request ten (the GIL passes back only when the
        # loop next waits), measured with bench/run_fixed_cost.py.
        key = self.key(messages, params) if self.cache is not None else None
        if key is not None and use_cache:
            hit = self.cache.get_entry(key)  # type: ignore[union-attr]
            if hit is not None:
                self.cache_hits += 1
                return Completion(hit[0], cached=True, finish_reason=hit[1].get("finish_reason"),
                                  usage=hit[1].get("usage"))
        if self.failure is not None:
            raise self.failure
        body = {"model": self.model, "messages": plain_text_messages(messages), **params}
        payload = self._wire(body)
        reshaped = 0  # refused parameters are fixed at most four times (max_tokens, temperature, stream)
        error = "no attempt made"
        refused = 0
        started = time.monotonic()
        attempt = 0  # requests sent for this item, hedges included
        while attempt < self.retry.max_attempts:
            attempt += 1
            retry_after: float | None = None
            connect_failed = False
            endpoint, state = self._pick()
            url = f"{state.url}/chat/completions"
            state.assigned += 1
            try:
                async with state.semaphore:
                    if self.failure is not None:  # another request opened the circuit meanwhile
                        raise self.failure
                    held = await self.budget.reserve(self, self.model, body) if self.budget is not None else None
                    self.requests_sent += 1
                    sent_at = time.monotonic()
                    race = Race(spare=self.retry.max_attempts - attempt)
                    try:
                        status, raw, header = await self._post_held(state, url, payload, held, race, body)
                    except TimeoutError as exc:
                        quiet = exc.after_s if isinstance(exc, Unanswered) else self.reply_allowance_s(body)
                        error = f"timed out: no reply to this request for {quiet:.3g}s"
                        retryable = True
                        if isinstance(exc, Unanswered) and not exc.silent:  # alive: it hung alone
                            error += " while the server answered others"
                        else:  # the server answered nothing meanwhile: overloaded, or gone quiet
                            state.semaphore.narrow("a request timed out", sent_at)
                    except ReplyTooLarge as exc:  # the same request would get the same reply
                        error, retryable = str(exc), False
                    except aiohttp.InvalidURL as exc:
                        raise self._fail(f"invalid URL ({self.redact(str(exc))[:200]})", "Check the base URL.") from None
                    except aiohttp.ClientConnectorError as exc:  # refused, unknown host, TLS
                        cause = f"cannot connect ({type(exc).__name__}: {self.redact(str(exc))[:200]})"
                        if len(self.endpoints) > 1 and self._rest(endpoint, cause):
                            attempt -= 1  # never sent: another server takes it at once
                            continue
                        refused += 1
                        if refused >= CONNECT_ATTEMPTS:
                            raise self._fail(
                                cause, "Check that the server is running and that the base URL "
                                "(--base-url / -J base_url=URL, GEOMEVAL_BASE_URL / GEOMEVAL_JUDGE_BASE_URL) "
                                "names its host and port.",
                            ) from None
                        error, retryable, connect_failed = cause, True, True
                    except aiohttp.ClientError as exc:  # reset, dropped, truncated body
                        error = f"connection failed ({type(exc).__name__}: {self.redact(str(exc))[:200]})"
                        retryable = True
                        if isinstance(exc, StreamCut) and self.stream:
                            # llama-cpp-python's server (interrupt_requests, its default) cuts
                            # the stream it serves short whenever another request waits:
                            # whole replies are never cut, so they are asked for from now on.
                            self.stream = False
                            payload = self._wire(body)
                            log.warning("%s ended a streamed reply early (as llama-cpp-python's server does when "
                                        "another request waits); geomeval asks for whole replies", self.base_url)
                    else:
                        state.last_reply = time.monotonic()
                        if status in (429, 503):
                            state.semaphore.narrow(f"the server is overloaded (HTTP {status})", sent_at)
                        if status == 200:
                            text, problem, ending = read_completion(raw)
                            error = problem or NO_TEXT
                            if text is not None:
                                self._failed_in_a_row = 0
                                await state.semaphore.succeeded()
                                done = Completion(text, attempts=attempt + race.hedges, **ending)
                                self._count(done)
                                if key is not None:
                                    self.cache.put(key, text, self.model, done.info)  # type: ignore[union-attr]
                                return done
                            # A malformed body is usually a proxy hiccup; a reply with no text
                            # (a refusal, a tool call) will not change on retry.
                            retryable = not error.startswith(NO_TEXT)
                        else:
                            snippet = raw[:300].decode("utf-8", "replace")
                            error = f"HTTP {status}: {self.redact(snippet)}"
                            if status == 400 and reshaped < 4 and self._unstream(raw):
                                reshaped += 1  # the same request, without the stream it refused
                                payload = self._wire(body)
                                continue
                            if status == 400 and reshaped < 4 and (fixed := self._reshape(raw, body)) is not None:
                                if temperature is not None and "temperature" in fixed:
                                    fixed["temperature"] = temperature
                                body, reshaped = fixed, reshaped + 1  # the same request, in the shape asked for
                                payload = self._wire(body)
                                continue
                            if status in FATAL_STATUS:
                                hint = FATAL_STATUS[status]
                                raise self._fail(error, hint[0].upper() + hint[1:] + ".")
                            retryable = status in RETRY_STATUS and not image_refused(status, raw, body["messages"])
                            retry_after = parse_retry_after(header)
                    finally:
                        attempt += race.hedges
            finally:
                state.assigned -= 1
            if not retryable or attempt >= self.retry.max_attempts:
                break
            left = self.budget.remaining_s() if self.budget is not None else None
            if retry_after is not None and retry_after > self.retry.max_retry_after_s:
                error += (f"; the server asked to retry after {retry_after:g} s, longer than the "
                          f"{self.retry.max_retry_after_s:g} s this client waits")
                break
            wait = (CONNECT_RETRY_DELAY_S * refused if connect_failed  # refused: retried soon
                    else self.retry.delay(attempt, retry_after, self._rng))
            if left is not None and wait > left:
                error += f"; the run's time ends before the retry ({wait:.3g} s away)"
                break
            # The deadline runs from this request's start or the endpoint's last reply, whichever
            # is later: a queue the server works through costs no retries; silence does. A wait
            # the server asked for (Retry-After) is its answer, not silence. An endpoint that has
            # answered anything since this request began is alive: this request hung on its
            # own, and gets its `max_attempts` (an endpoint that dies mid-run is stopped by the
            # circuit breaker, after `breaker_failures` requests fail for good).
            allowance = self.reply_allowance_s(body)  # as the server's speed is now known
            deadline = max(started, state.last_reply) + self.retry.deadline_factor * allowance + (retry_after or 0.0)
            alive = state.last_reply > max(started, state.queue.created)
            if not alive and time.monotonic() + wait + (0 if connect_failed else allowance) > deadline:
                error += f"; gave up at the {self.retry.deadline_factor:g}× timeout deadline"
                break
            await asyncio.sleep(wait)
        summary = f"{error} (after {attempt} attempt{'s' if attempt > 1 else ''})"
        if error.startswith(("HTTP 400", "HTTP 415", "HTTP 422", "HTTP 500")) and has_image(body["messages"]):
            summary += IMAGE_REFUSAL_HINT
        if not retryable:  # the server answered (a 400, a refusal): it is up, the item failed
            self._failed_in_a_row = 0
            return Completion(None, summary, attempts=attempt)
        self._failed_in_a_row += 1
        if self._failed_in_a_row >= self.retry.breaker_failures:
            raise self._fail(
                f"{self._failed_in_a_row} requests in a row failed after retries, none succeeded "
                f"in between (last: {summary})",
                "Check the server's health and load; a smaller --concurrency or a larger --timeout "
                "may help a slow server.",
            )
        return Completion(None, summary, attempts=attempt)

    def _reshape(self, raw: bytes, body: dict[str, Any]) -> dict[str, Any] | None:
        """The body a server that refused one of its parameters asks for, or None.

        Reasoning models (OpenAI's o-series, gpt-5) refuse `max_tokens` (they take
        `max_completion_tokens`) and any temperature but their default. The client adopts
        the shape for every later request and says so once (requests in flight that were
        sent in the old shape are reshaped quietly)."""
        try:
            detail = json.loads(raw).get("error") or {}
        except (ValueError, AttributeError):
            return None
        if not isinstance(detail, dict):
            return None
        param, message = detail.get("param"), str(detail.get("message", ""))
        if param == "max_tokens" and "max_tokens" in body and "max_completion_tokens" in message:
            new_shape = {k: v for k, v in self.params.items() if k != "max_tokens"}
            new_shape["max_completion_tokens"] = body["max_tokens"]
            change = "sends max_completion_tokens instead of max_tokens"
        elif param == "temperature" and "temperature" in body:
            new_shape = {k: v for k, v in self.params.items() if k != "temperature"}
            change = "leaves the temperature at the server's default"
        else:
            return None
        if new_shape != self.params:
            self.params = new_shape
            log.warning("%s refused %r for model %r; geomeval now %s", self.base_url, param, self.model, change)
        return {"model": body["model"], "messages": body["messages"], **self.params}

    def _count(self, done: Completion) -> None:
        if done.finish_reason == "length":
            self.truncated += 1

    async def _post_held(self, state: LoopState, url: str, payload: bytes, held: Reservation | None,
                         race: Race | None = None,
                         body: dict[str, Any] | None = None) -> tuple[int, bytes, str | None]:
        """`_post`, with the generation rate of a long enough reply noted (completion tokens a
        second of its own clock: the tokens the server reported, else the pieces it streamed)."""
        status, raw, header, took, tokens = await self._post(state, url, payload, held, race, body)
        if status == 200:
            self.pace.replied(tokens, took)
        return status, raw, header

    def usage(self, prices: dict[str, dict[str, float]] | None = None) -> dict[str, Any]:
        """Requests, cache hits, tokens and (with a price for this model) dollars, for results.json."""
        found: dict[str, Any] = {
            "model": self.model, "requests_sent": self.requests_sent, "cache_hits": self.cache_hits,
            **self.tokens, "replies_reporting_usage": self.replies_reporting_usage, "truncated": self.truncated,
        }
        if self.hedges:  # of requests_sent: copies of a request that had heard nothing for long
            found["hedges"] = self.hedges
        cost = request_cost(prices or {}, self.model, self.tokens if self.replies_reporting_usage else None)
        if cost is not None:
            found["cost_usd"] = cost
        return found

    async def _post(self, state: LoopState, url: str, payload: bytes, held: Reservation | None = None,
                    race: Race | None = None,
                    body: dict[str, Any] | None = None) -> tuple[int, bytes, str | None, float, int]:
        """One attempt: (status, body, Retry-After, the seconds its reply took on its own clock,
        its completion tokens). `Unanswered` once a copy went without progress for its allowance
        (`Pace.allowance_s` of `body`, looked at afresh as replies show the server's speed, while
        it has heard nothing of its reply; `timeout_s` between the pieces of a reply arriving),
        counted from when it was sent, from the latest reply that may have been ahead of it in
        the server's queue, or from the latest byte of its reply (or, on a server working in
        order, of a reply ahead of it) (`LoopState.quiet_since`), whichever is later; the
        connection is then closed, which a server that checks (llama.cpp's, vLLM) takes as the
        request being abandoned. Other requests go on meanwhile.

        A request that has heard nothing of its reply for much longer than replies usually take
        to start (`hedge_after_s`) is sent once more, up to `race.spare` times in all, while
        the first copies keep waiting: the first reply wins and the others are cancelled (a
        hedge is a request like any other: reserved on the budget, counted in `requests_sent`
        and `hedges`). Never while a byte of its reply has arrived (it is being computed), while
        the server streams a reply it waits behind, nor while the server is overloaded (its
        window narrowed); at most `hedge_cap(concurrency)` hedges are in flight; never before
        its longest legal reply could have come at the slowest rate seen (`Pace.hedge_at`)."""
        race = race or Race(spare=0)
        racing: dict[asyncio.Future[tuple[int, bytes, str | None, dict[str, int] | None, int]], Waiting] = {}
        every: list[asyncio.Future[Any]] = []
        sent: list[Waiting] = []

        def launch(reservation: Reservation | None, hedged: bool) -> None:
            waiting = state.sent()
            task = asyncio.ensure_future(self._exchange(state, url, payload, waiting, reservation, hedged))
            racing[task] = waiting
            every.append(task)
            sent.append(waiting)

        launch(held, False)
        first = sent[0]
        expired = False
        failure: BaseException | None = None
        limit = quiet = self.timeout_s

        def allowed(waiting: Waiting) -> float:
            # The allowance covers a reply computed unseen; one arriving in pieces (a stream)
            # is quiet for `timeout_s` at most between two of them.
            return self.timeout_s if waiting.heard is not None else limit

        try:
            while True:
                now = time.monotonic()
                # looked at afresh: a reply to any request may just have shown the server's speed
                limit = self.pace.allowance_s(body) if body is not None else self.timeout_s
                for task, waiting in list(racing.items()):
                    if now >= state.quiet_since(waiting) + allowed(waiting):
                        del racing[task]  # abandoned at its own timeout; cancelled below
                        state.waiting.discard(waiting)
                        task.cancel()
                        expired, quiet = True, allowed(waiting)
                if not racing:
                    if expired or failure is None:
                        raise Unanswered(silent=state.last_reply <= first.sent_at, after_s=quiet)
                    raise failure
                wake = min(state.quiet_since(waiting) + allowed(waiting) for waiting in racing.values())
                if limit > self.timeout_s:  # the allowance shrinks once the server's speed is known
                    wake = min(wake, now + self.timeout_s / 4)
                hedge_at = self.pace.hedge_at(state, racing, race, limit, body)
                if hedge_at is not None and hedge_at <= now:
                    if self.pace.hedges_working(now) < hedge_cap(self.concurrency):
                        extra = self.budget.try_reserve(self, self.model, body or {}) if self.budget is not None else None
                        if self.budget is not None and extra is None:
                            race.spare = race.hedges  # the budget has no room for one: none for this attempt
                        else:
                            race.hedges += 1
                            self.hedges += 1
                            self.requests_sent += 1
                            launch(extra, True)
                            continue
                    else:  # as many hedges in flight as allowed: look again shortly
                        wake = min(wake, now + max(0.05, (self.hedge_after_s() or limit) / 4))
                elif hedge_at is not None:
                    wake = min(wake, hedge_at)
                elif self.hedge and race.hedges < race.spare and self.hedge_after_s() is None:
                    wake = min(wake, now + limit / 20)  # too few replies yet to know when to hedge: look again
                done, _ = await asyncio.wait(set(racing), timeout=max(0.0, wake - now),
                                             return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    waiting = racing.pop(task)
                    if task.exception() is not None:  # no reply (a connection error): the others may answer
                        failure = task.exception()
                        continue
                    status, raw, header, _usage, tokens = task.result()
                    took = time.monotonic() - waiting.since
                    state.answered(waiting)
                    if status == 200 and waiting.first is not None:
                        self.pace.first_bytes.append(waiting.first)
                    return status, raw, header, took, tokens
        finally:
            for task in every:
                if not task.done():
                    task.cancel()
            for waiting in sent:
                state.waiting.discard(waiting)
            for task in every:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task

    async def _exchange(self, state: LoopState, url: str, payload: bytes, waiting: Waiting,
                        held: Reservation | None, hedged: bool) -> tuple[int, bytes, str | None, dict[str, int] | None, int]:
        """One HTTP request and its reply, read whole or as a stream (each byte progress for
        `waiting`), with the tokens of every reply that reports them counted (a failed or
        retried one's too) and the budget reservation settled however it ends: (status, body,
        Retry-After, usage, completion tokens)."""
        if hedged:
            self.pace.hedging.add(waiting)
        try:
            async with state.http.post(url, data=payload, headers=JSON_CONTENT) as response:
                status = response.status
                if status == 200 and response.content_type == "text/event-stream":
                    raw, pieces = await read_stream(response, MAX_REPLY_BYTES, waiting.hear_stream)
                else:
                    raw, pieces = await read_capped(response, MAX_REPLY_BYTES, waiting.hear), 0
                header = response.headers.get("Retry-After")
        except (aiohttp.InvalidURL, aiohttp.ClientConnectorError):
            if held is not None:  # never sent: nothing to pay
                self.budget.settle(held, None, sent=False)  # type: ignore[union-attr]
            raise
        except BaseException:
            if held is not None:  # sent, its cost never came back: charged at its worst case
                self.budget.settle(held, None)  # type: ignore[union-attr]
            raise
        finally:
            waiting.done()
            if hedged:
                self.pace.hedging.discard(waiting)
        usage = reply_usage(raw)
        if usage:
            self.replies_reporting_usage += 1
            for name in self.tokens:
                self.tokens[name] += usage.get(name, 0)
        elif pieces and self._stream_usage and not self._said_no_stream_usage:
            self._said_no_stream_usage = True
            log.warning("%s reports no token usage in streamed replies: token counts are missing from "
                        "the totals (without GEOMEVAL_STREAM=1 replies come whole and report it)", self.base_url)
        if held is not None:
            self.budget.settle(held, usage, answered_error=status != 200)  # type: ignore[union-attr]
        tokens = usage.get("completion_tokens", pieces) if usage else pieces
        return status, raw, header, usage, tokens

    async def aclose(self) -> None:
        loop_id = id(asyncio.get_running_loop())
        with self._lock:
            states = self._states.pop(loop_id, None)
        for state in states or []:
            await state.http.close()
