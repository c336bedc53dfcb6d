"""One asyncio client for models and judges on any OpenAI-compatible chat endpoint.

Concurrency is owned here, not by callers, and adapts to the server: each client lets at
most `concurrency` requests be in flight, halves that window when a request times out or
the server says it is overloaded (429, 503; once for the requests sent under the same
window), and widens it again by one after a run of successes, saying so on the `geomeval`
logger.

Each request is abandoned at its own timeout while the rest proceed: it times out after
`timeout_s` without its reply, counted from when it was sent or from the latest reply to a
request sent before it (which may have been ahead of it in the server's queue), whichever is
later. A server that works through its queue one request at a time (llama.cpp's) keeps
answering the requests ahead of a waiting one, so prompts waiting in its queue are not
abandoned and sent again; a request that hangs while the server answers the requests sent
after it, or on a server that went quiet, is abandoned `timeout_s` after the last reply to
a request sent before it.

With GEOMEVAL_STREAM=1 (`ChatClient(stream=True)`) replies are asked for as a stream (`stream:
true`, with usage in the last event), so a reply being computed is seen to progress: a
request's silence counts from the latest byte of its reply too, and, on a server working
through its queue (`_Queue.serial`), from the latest piece streamed to a request it waits
behind. A long reply is so never abandoned and sent again, however long it runs; a stream that
stalls is abandoned at its timeout. A server that does not stream answers whole (read as
before); one that refuses the stream or its usage option, or cuts a stream short (no finish
reason: llama-cpp-python's server does so whenever another request waits), is asked for whole
replies from then on. Off by default for that last reason.

A request that has heard nothing of its reply for much longer than replies take to start
(`hedge_after_s`: 1.5 × the 90th percentile of the recent replies' times to their first byte)
is hedged: sent once more while the first copy keeps waiting; the first reply wins, the other
copies are cancelled. A hedge is a request like any other (reserved on the budget, counted in
`requests_sent`, and in `hedges`), takes one of the request's `max_attempts`, and is never sent
for a request whose reply has started arriving, or while the server streams a reply it waits
behind, or while the server is overloaded (its window narrowed), nor more than
`hedge_cap(concurrency)` at once. A server that hangs a fifth of the requests so costs a
run a fraction of a timeout per hang rather than a timeout (bench/hanging_server.py).

A reply may legally run to the request's token limit (`max_tokens`, a judge's 2,048), and a
long one can take longer than `timeout_s` to compute: a request is then given the time its
longest legal reply takes at the slowest generation rate seen in the client's recent replies
(completion tokens per second of its own clock), with a margin, and never less than
`timeout_s` nor more than `MAX_ALLOWANCE_FACTOR` times it (`reply_allowance_s`). A reply being
computed is so not abandoned and sent again once the server's speed is known. The clients of
one server (base URL) share its queue (`_Queue`): when the model and the judge are served by
the same server, a reply to the model's requests is progress for the judge's requests sent
after them, which wait behind them.

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
import concurrent.futures
import contextlib
import email.utils
import json
import logging
import os
import random
import re
import threading
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp

from .budget import BudgetExhausted as BudgetExhausted  # re-exported: callers import it from here
from .budget import RequestBudget, Reservation, request_cost
from .cache import ResponseCache, cache_key
from .errors import EndpointFailure, UsageError
from .jsontext import dumps_pieces

DEFAULT_BASE_URL = "https://api.openai.com/v1"
NO_TEXT = "completion content is not text"
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# Statuses that say the endpoint, key or model name is wrong: no retry helps any item.
FATAL_STATUS = {
    401: "the server refused the API key (check GEOMEVAL_API_KEY / GEOMEVAL_JUDGE_API_KEY)",
    403: "the key is not allowed to use this model or endpoint",
    404: "no such model or path on this server (check the model name and that the base URL ends in /v1)",
}
# Said with a server error to a request that carried an image: a text-only server (llama.cpp
# without a vision projector) answers those with 400 or 500, and the benchmark then needs a
# vision model or its text-only mode.
IMAGE_REFUSAL_HINT = (
    "; this request carried an image, which a text-only server refuses: use a vision model, or "
    "the benchmark's text-only mode where its paper has one (README, 'Text-only models')"
)
# A server error that says the request's image is refused ("image input is not supported",
# llama.cpp without --mmproj; "model does not support images"): no retry changes that.
_IMAGE_REFUSED = re.compile(
    r"(?:image|vision|multimodal|mmproj)[^\n]{0,80}?(?:not\s+supported|unsupported|not\s+enabled|not\s+available)"
    r"|(?:not\s+support|doesn't\s+support|does\s+not\s+support|cannot\s+(?:process|handle|accept))[^\n]{0,40}?"
    r"(?:image|vision|multimodal)",
    re.I,
)
IMAGE_STATUSES = (400, 415, 422, 500)
# A request's silence allowance (`ChatClient.reply_allowance_s`): its token limit at the
# slowest rate among the last RATE_WINDOW replies of at least RATE_MIN_TOKENS tokens, times
# REPLY_MARGIN, between timeout_s and MAX_ALLOWANCE_FACTOR × timeout_s.
RATE_WINDOW = 32
RATE_MIN_TOKENS = 16
REPLY_MARGIN = 1.5
MAX_ALLOWANCE_FACTOR = 8.0
# Hedged requests (`ChatClient.hedge_after_s`): a request that has heard nothing of its reply
# for HEDGE_FACTOR times the HEDGE_QUANTILE of the last HEDGE_WINDOW replies' times from send to
# first byte, and at least HEDGE_FLOOR × timeout_s, after its send is sent once more,
# once HEDGE_MIN_SAMPLES replies are known; at most concurrency // HEDGE_SHARE (at least one)
# hedges are in flight per client.
HEDGE_FACTOR = 1.5
HEDGE_QUANTILE = 0.9
HEDGE_WINDOW = 64
HEDGE_MIN_SAMPLES = 8
HEDGE_FLOOR = 0.02
HEDGE_SHARE = 4
# A reply body larger than this is refused unread (a model's answer is a few KB; a judge's
# less): memory stays bounded whatever a server sends.
MAX_REPLY_BYTES = 8 * 1024 * 1024
# A server of several (`split_base_urls`) that refuses connections is set aside this long.
ENDPOINT_REST_S = 30.0
# A refused or unresolvable connection is tried this many times (about a second apart)
# before the endpoint is declared unreachable.
CONNECT_ATTEMPTS = 3
CONNECT_RETRY_DELAY_S = 0.5
T = TypeVar("T")
log = logging.getLogger("geomeval")
# Successes in a row after which a narrowed window widens by one request.
WIDEN_AFTER = 8


def model_server(flag: str | None) -> str:
    """The model's server as geomeval resolves it: the --base-url given, else
    GEOMEVAL_BASE_URL, else OpenAI's; checked and without a trailing slash. GEOMEVAL_API_KEY
    is given for this server and goes to no other."""
    return check_base_url(flag or os.environ.get("GEOMEVAL_BASE_URL") or DEFAULT_BASE_URL)


def openai_key_for(url: str) -> str | None:
    """OPENAI_API_KEY, for OpenAI's own server (or the one OPENAI_BASE_URL names) only: the
    documented fallback when GEOMEVAL_API_KEY / GEOMEVAL_JUDGE_API_KEY give no key."""
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        return None
    try:
        home = check_base_url(os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL, what="OPENAI_BASE_URL")
    except ValueError:
        return None
    return key if check_base_url(url) == home else None


def check_base_url(url: str, *, what: str = "base URL") -> str:
    """`url` without a trailing slash, or ValueError saying what a base URL must look like.
    Several servers of the same model are given comma-separated (`split_base_urls`): each is
    checked, and they come back joined by commas."""
    if "," in url:
        return ",".join(check_base_url(part, what=what) for part in split_base_urls(url))
    text = url.strip()
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"{what} {url!r} is not an http(s) URL: write it in full, e.g. http://127.0.0.1:8000/v1"
        )
    if parts.username is not None or parts.password is not None:
        # never echo it: the user part may be a key
        raise UsageError(
            f"{what} for {parts.hostname} carries credentials (user:key@): give the key in "
            "GEOMEVAL_API_KEY or GEOMEVAL_JUDGE_API_KEY instead, so it is sent in a header only "
            "and never written into run.json or logs"
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise UsageError(f"{what} {url!r} has an invalid port") from None
    return text.rstrip("/")


def split_base_urls(url: str) -> list[str]:
    """The servers a base URL names: one, or several separated by commas (no empty one, no
    server twice)."""
    parts = [part.strip() for part in url.split(",")]
    if not all(parts):
        raise UsageError(f"base URL {url!r} has an empty entry: separate servers with single commas")
    if len(set(parts)) != len(parts):
        raise UsageError(f"base URL {url!r} names a server twice")
    return parts


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


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()[:64]
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class AdaptiveLimit:
    """At most `limit` holders at once, `limit` moving between 1 and `ceiling` (AIMD): halved
    on `narrow()`, widened by one after `WIDEN_AFTER` `succeeded()` calls in a row. Like TCP's
    one reduction per window, trouble met by a request sent before the last narrowing (it
    went out under the wider window, which that narrowing already answered) narrows no
    further: twenty requests hung at once halve the window once, not down to one."""

    def __init__(self, ceiling: int, name: str) -> None:
        self.ceiling = self.limit = ceiling
        self.name = name
        self.held = 0
        self._streak = 0
        self._narrowed_at = float("-inf")
        self._changed = asyncio.Condition()

    async def __aenter__(self) -> AdaptiveLimit:
        async with self._changed:
            await self._changed.wait_for(lambda: self.held < self.limit)
            self.held += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        async with self._changed:
            self.held -= 1
            self._changed.notify_all()

    def narrow(self, why: str, sent_at: float | None = None) -> None:
        """Halve the window for trouble met by a request sent at `sent_at` (monotonic; None:
        now), unless it was sent before the last narrowing."""
        self._streak = 0
        if sent_at is not None and sent_at < self._narrowed_at:
            return
        if self.limit > 1:
            self._narrowed_at = time.monotonic()
            before, self.limit = self.limit, max(1, self.limit // 2)
            log.warning("%s: %s; requests in flight %d -> %d", self.name, why, before, self.limit)

    async def succeeded(self) -> None:
        if self.limit >= self.ceiling:
            return
        self._streak += 1
        if self._streak >= WIDEN_AFTER:
            self._streak = 0
            async with self._changed:
                self.limit += 1
                self._changed.notify_all()


class _Queue:
    """The requests in flight to one server (base URL) on one event loop, from every client
    that uses it: a run whose model and judge share a server (llama.cpp serving both) queues
    the judge's requests behind the model's, so a reply to either is progress for the requests
    sent after it."""

    def __init__(self) -> None:
        # when the endpoint last answered anything (its creation until it first does: a queue
        # made for a request already under way is no sign that the server is alive)
        self.created = self.last_reply = time.monotonic()
        self.waiting: set[_Waiting] = set()  # requests sent and not yet answered
        self.sent = 0
        # Streamed replies: those arriving now, when the latest piece of any arrived, whether
        # any was streamed, and whether two ever arrived at once. A server that streams one
        # reply at a time (llama.cpp's) is `serial`: it takes its waiting requests in an order
        # of its own, so a reply it streams is progress for every request that has heard
        # nothing yet, and a reply it finishes starts the wait of each of them afresh.
        self.streaming: set[_Waiting] = set()
        self.last_piece = float("-inf")
        self.streamed = False
        self.overlapped = False

    @property
    def serial(self) -> bool:
        return self.streamed and not self.overlapped


# One queue per (event loop, base URL): see `_Queue`.
_QUEUES: dict[tuple[int, str], _Queue] = {}
_QUEUES_LOCK = threading.Lock()


def _queue_for(base_url: str) -> _Queue:
    key = (id(asyncio.get_running_loop()), base_url)
    with _QUEUES_LOCK:
        queue = _QUEUES.get(key)
        if queue is None:
            if len(_QUEUES) >= 64:  # loops come and go (a run's, a test's): drop the idle queues
                for stale in [k for k, q in _QUEUES.items() if not q.waiting]:
                    del _QUEUES[stale]
            queue = _QUEUES[key] = _Queue()
        return queue


class _LoopState:
    """An HTTP session and request window belong to one event loop.

    aiohttp rather than httpx: at 64 requests in flight on two cores httpx's async
    pool spends several times the wall time of the requests themselves.
    """

    def __init__(self, concurrency: int, headers: dict[str, str], name: str, queue: _Queue | None = None,
                 copies: int = 1, url: str = ""):
        self.url = url  # the server's base URL
        self.assigned = 0  # requests that chose this server and have not finished with it
        # Each request in the window may have `copies` in flight (hedges: `ChatClient._post`),
        # each on a connection of its own: a copy that hangs holds its connection.
        self.http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=concurrency * copies),
            timeout=aiohttp.ClientTimeout(total=None),  # see ChatClient._post: quiet, not total
            headers=headers,
        )
        self.semaphore = AdaptiveLimit(concurrency, name)
        self.queue = queue or _Queue()  # shared with the other clients of the same server

    @property
    def last_reply(self) -> float:
        return self.queue.last_reply

    @last_reply.setter
    def last_reply(self, value: float) -> None:
        self.queue.last_reply = value

    @property
    def waiting(self) -> set[_Waiting]:
        return self.queue.waiting

    def sent(self) -> _Waiting:
        """A request goes out, behind every request sent before it (by any client of the server)."""
        self.queue.sent += 1
        waiting = _Waiting(time.monotonic(), self.queue.sent, self.queue)
        self.waiting.add(waiting)
        return waiting

    def answered(self, request: _Waiting) -> None:
        """The endpoint replied to `request`: a request sent after it, still waiting, may have
        been queued behind it, so its own timeout counts from now; one sent before it has been
        overtaken (the server does not work through its queue in order)."""
        now = self.last_reply = time.monotonic()
        self.waiting.discard(request)
        serial = self.queue.serial
        for other in self.waiting:
            if other.order > request.order or (serial and other.heard is None):
                other.since = now
            else:
                other.overtaken = True

    def quiet_since(self, request: _Waiting) -> float:
        """When `request` last saw progress: its send or the latest reply to a request sent
        before it (`since`), the latest byte of its own reply, or, while no request sent after
        it has been answered (a server working through its queue in order), the latest byte
        streamed to a request sent before it, which it waits behind."""
        base = request.since if request.heard is None else max(request.since, request.heard)
        return max(base, self.heard_ahead(request))

    def heard_ahead(self, request: _Waiting) -> float:
        """The latest byte streamed to a request sent before `request` and still in flight,
        while no request sent after it has been answered (it may wait behind them in a queue
        the server works through in order), or on a serial server (`_Queue.serial`) to any
        request while `request` has heard nothing; -inf otherwise."""
        latest = float("-inf")
        if self.queue.serial and request.heard is None:
            return self.queue.last_piece
        if not request.overtaken:
            for other in self.queue.waiting:
                if other.order < request.order and other.heard is not None and other.heard > latest:
                    latest = other.heard
        return latest


class Unanswered(TimeoutError):
    """A request's own timeout passed without its reply. `silent`: the endpoint answered
    nothing at all since it was sent (overloaded or gone quiet: the window narrows); else it
    hung alone while the server kept answering others, which narrowing would not help."""

    def __init__(self, *, silent: bool) -> None:
        super().__init__("no reply within the timeout")
        self.silent = silent


class _Waiting:
    """One request in flight: its place in the order requests were sent, and when its own
    timeout started counting (`since`: sent, or the latest reply to a request sent before it,
    which may have been ahead of it in the server's queue); when the latest byte of its reply
    arrived (`heard`), how long the first one took after the send (`first`), and whether a
    request sent after it was answered first (`overtaken`)."""

    __slots__ = ("first", "heard", "order", "overtaken", "queue", "sent_at", "since")

    def __init__(self, sent_at: float, order: int, queue: _Queue | None = None) -> None:
        self.sent_at = self.since = sent_at
        self.order = order
        self.queue = queue
        self.heard: float | None = None
        self.first: float | None = None
        self.overtaken = False

    def hear(self) -> None:
        """A byte of its reply arrived: the server is working on it."""
        now = self.heard = time.monotonic()
        if self.first is None:
            self.first = now - self.sent_at

    def hear_stream(self) -> None:
        """A piece of its streamed reply arrived (`_Queue.serial`)."""
        queue = self.queue
        if queue is not None:
            if self.heard is None:
                if queue.streaming:
                    queue.overlapped = True
                queue.streaming.add(self)
                queue.streamed = True
            queue.last_piece = time.monotonic()
        self.hear()

    def done(self) -> None:
        """Its reply ended (or it was given up)."""
        if self.queue is not None:
            self.queue.streaming.discard(self)


class _Race:
    """The requests one attempt may add as hedges (`spare`) and those it added (`hedges`)."""

    __slots__ = ("hedges", "spare")

    def __init__(self, spare: int) -> None:
        self.spare = spare
        self.hedges = 0


def hedge_cap(concurrency: int) -> int:
    """Hedges one client may have in flight at once."""
    return max(1, concurrency // HEDGE_SHARE)


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
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.cache = cache
        self.requests_sent = 0
        self.cache_hits = 0
        # Tokens the server reported for the replies this client received (not cache hits),
        # and replies cut at the token limit: what the run cost and what it lost.
        self.tokens: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0}
        self.replies_reporting_usage = 0
        self.truncated = 0
        # Completion tokens per second of the recent replies, each over its own clock (from its
        # send or the last reply to a request sent before it): what a long reply will take.
        self.rates: deque[float] = deque(maxlen=RATE_WINDOW)
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
        # Hedged requests: seconds from send to first byte of the recent replies, the hedges
        # sent and those in flight.
        self.hedge = hedge
        self.first_bytes: deque[float] = deque(maxlen=HEDGE_WINDOW)
        self.hedges = 0
        self._hedging: set[_Waiting] = set()  # hedges in flight
        self._rng = random.Random(seed)
        self._states: dict[int, list[_LoopState]] = {}
        self._lock = threading.Lock()
        self.failure: EndpointFailure | None = None  # set once the endpoint proved unusable
        self._failed_in_a_row = 0  # requests that failed for good since the last success

    def __repr__(self) -> str:  # never shows the key
        return f"ChatClient(model={self.model!r}, base_url={self.base_url!r})"

    def redact(self, text: str) -> str:
        return text.replace(self.__api_key, "***") if self.__api_key else text

    def _state(self, endpoint: int = 0) -> _LoopState:
        """The session, window and queue of one server on the running event loop."""
        loop_id = id(asyncio.get_running_loop())
        with self._lock:
            states = self._states.get(loop_id)
            if states is None:
                headers = {"Authorization": f"Bearer {self.__api_key}"} if self.__api_key else {}
                window = self.concurrency // len(self.endpoints)
                states = self._states[loop_id] = [
                    _LoopState(window, headers, f"{url} ({self.model})", _queue_for(url),
                               self.retry.max_attempts if self.hedge else 1, url=url)
                    for url in self.endpoints
                ]
            return states[endpoint]

    def _pick(self) -> tuple[int, _LoopState]:
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
        """How long a request may go without its reply: `timeout_s`, or, once the server's
        speed is known, the time its longest legal reply (`max_tokens` /
        `max_completion_tokens`) takes at the slowest recent rate, with a margin, capped at
        `MAX_ALLOWANCE_FACTOR` × `timeout_s`."""
        limit = body.get("max_tokens", body.get("max_completion_tokens"))
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0 or not self.rates:
            return self.timeout_s
        needed = limit / min(self.rates) * REPLY_MARGIN
        return min(max(self.timeout_s, needed), self.timeout_s * MAX_ALLOWANCE_FACTOR)

    def hedge_after_s(self) -> float | None:
        """How long after its send a request may hear nothing of its reply before it is sent
        once more: `HEDGE_FACTOR` × the `HEDGE_QUANTILE` of the recent replies' times from their
        send to their first byte (the whole reply's time where the server does not stream; a
        queue's wait included), at least `HEDGE_FLOOR` × `timeout_s`; None (no hedging) until
        `HEDGE_MIN_SAMPLES` replies are known."""
        if not self.hedge or len(self.first_bytes) < HEDGE_MIN_SAMPLES:
            return None
        ordered = sorted(self.first_bytes)
        typical = ordered[min(len(ordered) - 1, int(HEDGE_QUANTILE * len(ordered)))]
        return max(HEDGE_FACTOR * typical, HEDGE_FLOOR * self.timeout_s)

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
        allowance = self.reply_allowance_s(body)
        budget = self.retry.deadline_factor * allowance
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
                    race = _Race(spare=self.retry.max_attempts - attempt)
                    try:
                        status, raw, header = await self._post_held(state, url, payload, held, allowance, race, body)
                    except TimeoutError as exc:
                        error = f"timed out: no reply to this request for {allowance:.3g}s"
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
                            text, problem, ending = _read_completion(raw)
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
            deadline = max(started, state.last_reply) + budget + (retry_after or 0.0)
            alive = state.last_reply > max(started, state.queue.created)
            if not alive and time.monotonic() + wait + (0 if connect_failed else allowance) > deadline:
                error += f"; gave up at the {self.retry.deadline_factor:g}× timeout deadline"
                break
            await asyncio.sleep(wait)
        summary = f"{error} (after {attempt} attempt{'s' if attempt > 1 else ''})"
        if error.startswith(("HTTP 400", "HTTP 415", "HTTP 422", "HTTP 500")) and _has_image(body["messages"]):
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

    async def _post_held(self, state: _LoopState, url: str, payload: bytes, held: Reservation | None,
                         allowance: float | None = None, race: _Race | None = None,
                         body: dict[str, Any] | None = None) -> tuple[int, bytes, str | None]:
        """`_post`, with the generation rate of a long enough reply noted (completion tokens a
        second of its own clock: the tokens the server reported, else the pieces it streamed)."""
        status, raw, header, took, tokens = await self._post(state, url, payload, held, allowance, race, body)
        if status == 200 and tokens >= RATE_MIN_TOKENS and took > 0:
            self.rates.append(tokens / took)
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

    async def _post(self, state: _LoopState, url: str, payload: bytes, held: Reservation | None = None,
                    allowance: float | None = None, race: _Race | None = None,
                    body: dict[str, Any] | None = None) -> tuple[int, bytes, str | None, float, int]:
        """One attempt: (status, body, Retry-After, the seconds its reply took on its own clock,
        its completion tokens). TimeoutError once `allowance` (default `timeout_s`) passed
        without progress, counted from when it was sent, from the latest reply that may have
        been ahead of it in the server's queue, or from the latest byte of its reply (or, on a
        server working in order, of a reply ahead of it) (`_LoopState.quiet_since`), whichever
        is later; the connection is then closed, which a server that checks (llama.cpp's, vLLM)
        takes as the request being abandoned. Other requests go on meanwhile.

        A request that has heard nothing of its reply for much longer than replies usually take
        to start (`hedge_after_s`) is sent once more, up to `race.spare` times in all, while
        the first copies keep waiting: the first reply wins and the others are cancelled (a
        hedge is a request like any other: reserved on the budget, counted in `requests_sent`
        and `hedges`). Never while a byte of its reply has arrived (it is being computed), while
        the server streams a reply it waits behind, nor while the server is overloaded (its
        window narrowed); at most `hedge_cap(concurrency)` hedges are in flight."""
        limit = self.timeout_s if allowance is None else allowance
        race = race or _Race(spare=0)
        racing: dict[asyncio.Future[tuple[int, bytes, str | None, dict[str, int] | None, int]], _Waiting] = {}
        every: list[asyncio.Future[Any]] = []
        sent: list[_Waiting] = []

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
        try:
            while True:
                now = time.monotonic()
                for task, waiting in list(racing.items()):
                    if now >= state.quiet_since(waiting) + limit:
                        del racing[task]  # abandoned at its own timeout; cancelled below
                        state.waiting.discard(waiting)
                        task.cancel()
                        expired = True
                if not racing:
                    if expired or failure is None:
                        raise Unanswered(silent=state.last_reply <= first.sent_at)
                    raise failure
                wake = min(state.quiet_since(waiting) for waiting in racing.values()) + limit
                hedge_at = self._hedge_at(state, racing, race, limit)
                if hedge_at is not None and hedge_at <= now:
                    if self._hedges_working(now) < hedge_cap(self.concurrency):
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
                        self.first_bytes.append(waiting.first)
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

    def _hedges_working(self, now: float) -> int:
        """Hedges in flight that may be load on the server: answering, or sent less than
        `hedge_after_s` ago (one silent for longer hung like the request it copied)."""
        after = self.hedge_after_s() or 0.0
        return sum(1 for w in self._hedging if w.heard is not None or now - w.sent_at < after)

    def _hedge_at(self, state: _LoopState, racing: dict[Any, _Waiting], race: _Race, limit: float) -> float | None:
        """When the attempt's newest copy is to be hedged, or None (not to be)."""
        if race.hedges >= race.spare or state.semaphore.limit < state.semaphore.ceiling:
            return None
        after = self.hedge_after_s()
        if after is None or after >= limit or any(w.heard is not None for w in racing.values()):
            return None
        newest = max(racing.values(), key=lambda waiting: waiting.order)
        return max(newest.sent_at, state.heard_ahead(newest)) + after

    async def _exchange(self, state: _LoopState, url: str, payload: bytes, waiting: _Waiting,
                        held: Reservation | None, hedged: bool) -> tuple[int, bytes, str | None, dict[str, int] | None, int]:
        """One HTTP request and its reply, read whole or as a stream (each byte progress for
        `waiting`), with the tokens of every reply that reports them counted (a failed or
        retried one's too) and the budget reservation settled however it ends: (status, body,
        Retry-After, usage, completion tokens)."""
        if hedged:
            self._hedging.add(waiting)
        try:
            async with state.http.post(url, data=payload, headers=JSON_CONTENT) as response:
                status = response.status
                if status == 200 and response.content_type == "text/event-stream":
                    raw, pieces = await _read_stream(response, MAX_REPLY_BYTES, waiting.hear_stream)
                else:
                    raw, pieces = await _read_capped(response, MAX_REPLY_BYTES, waiting.hear), 0
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
                self._hedging.discard(waiting)
        usage = _reply_usage(raw)
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


def json_body(body: dict[str, Any]) -> bytes:
    """`body` as JSON, the bytes `json.dumps` gives (what aiohttp's `json=` sends), encoded once
    per request rather than once per attempt, figures spliced in rather than scanned (jsontext.py)."""
    return "".join(dumps_pieces(body)).encode("utf-8")


def plain_text_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as sent: a content list made only of text parts becomes one plain string.

    Prompts are built as content parts so an image can sit beside the text, but servers such
    as llama.cpp's answer HTTP 500 to list content; a message without an image loses nothing
    as a string, and every OpenAI-compatible server accepts that form."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and content and all(
            isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
            for part in content
        ):
            message = {**message, "content": "\n\n".join(part["text"] for part in content)}
        out.append(message)
    return out


def image_refused(status: int, raw: bytes, messages: list[dict[str, Any]]) -> bool:
    """Whether a server error refuses the image the request carried (a text-only server):
    the same request would be refused again, so it is not retried."""
    return status in IMAGE_STATUSES and _has_image(messages) and bool(
        _IMAGE_REFUSED.search(raw[:2000].decode("utf-8", "replace")))


def _has_image(messages: list[dict[str, Any]]) -> bool:
    return any(
        isinstance(part, dict) and part.get("type") != "text"
        for message in messages if isinstance(message.get("content"), list)
        for part in message["content"]
    )


JSON_CONTENT = {"Content-Type": "application/json"}


class StreamCut(aiohttp.ClientPayloadError):
    """A streamed reply that ended without its finish reason: not the whole reply."""


class ReplyTooLarge(Exception):
    """A reply body over the client's cap; read no further."""


async def _read_capped(response: aiohttp.ClientResponse, cap: int,
                       heard: Callable[[], None] | None = None) -> bytes:
    """The body, or ReplyTooLarge as soon as it (or its declared length) passes `cap` bytes;
    `heard` is called as each piece arrives."""
    declared = response.content_length
    if declared is not None and declared > cap:
        raise ReplyTooLarge(f"reply of {declared} bytes refused (over {cap} bytes)")
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.content.iter_chunked(1 << 16):
        if heard is not None:
            heard()
        total += len(chunk)
        if total > cap:
            raise ReplyTooLarge(f"reply over {cap} bytes refused")
        chunks.append(chunk)
    return b"".join(chunks)


async def _read_stream(response: aiohttp.ClientResponse, cap: int, heard: Callable[[], None]) -> tuple[bytes, int]:
    """A streamed chat completion (server-sent events, `stream: true`) assembled into the body a
    whole reply has (its text, finish_reason and, where the last event reports it, usage), and
    the number of text pieces it came in; `heard` is called as each piece arrives. A stream
    that ends before its last event, or reports an error, is a failed exchange
    (aiohttp.ClientPayloadError: retried like a dropped connection)."""
    parts: list[str] = []
    texts = 0
    finish: str | None = None
    usage: Any = None
    ended = False
    total = 0
    pending = bytearray()
    async for data in response.content.iter_any():
        heard()
        total += len(data)
        if total > cap:
            raise ReplyTooLarge(f"reply over {cap} bytes refused")
        pending += data
        *lines, rest = bytes(pending).split(b"\n")
        pending = bytearray(rest)
        for line in lines:
            line = line.strip()
            if not line.startswith(b"data:"):
                continue  # comments (": ping"), event names, blank separators
            item = line[5:].strip()
            if item == b"[DONE]":
                ended = True
                continue
            try:
                event = json.loads(item)
            except ValueError:
                raise aiohttp.ClientPayloadError(f"malformed event in the reply stream: {item[:200]!r}") from None
            if not isinstance(event, dict):
                continue
            if event.get("error"):
                raise aiohttp.ClientPayloadError(f"the server reported an error mid-stream: {item[:300]!r}")
            if isinstance(event.get("usage"), dict):
                usage = event["usage"]
            choices = event.get("choices")
            choice = next((c for c in choices if isinstance(c, dict) and c.get("index", 0) == 0), None) \
                if isinstance(choices, list) else None
            if choice is None:
                continue
            delta = choice.get("delta")
            text = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(text, str):
                parts.append(text)
                texts += 1
            if isinstance(choice.get("finish_reason"), str):
                finish = choice["finish_reason"]
    if finish is None:  # llama-cpp-python ends a stream early ([DONE]) when another request waits
        raise StreamCut("the server ended the streamed reply before its end (no finish_reason)"
                        if ended else "the reply stream ended before its last event")
    message = {"role": "assistant", "content": "".join(parts) if texts else None}
    payload: dict[str, Any] = {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    if usage is not None:
        payload["usage"] = usage
    return json.dumps(payload).encode("utf-8"), texts


def _read_completion(raw: bytes) -> tuple[str | None, str | None, dict[str, Any]]:
    """(text, error, {"finish_reason", "usage"}) of a chat completion body."""
    try:
        payload = json.loads(raw)
        choice = payload["choices"][0]
        content = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        snippet = raw[:200].decode("utf-8", "replace")
        return None, f"malformed completion ({type(exc).__name__}): {snippet!r}", {}
    ending = {"finish_reason": _finish_reason(choice), "usage": _usage(payload)}
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        return None, f"{NO_TEXT} ({type(content).__name__})", ending
    return content, None, ending


def _finish_reason(choice: Any) -> str | None:
    reason = choice.get("finish_reason") if isinstance(choice, dict) else None
    return reason[:40] if isinstance(reason, str) else None


def _reply_usage(raw: bytes) -> dict[str, int] | None:
    """The token counts a reply body reports, whatever its status; None when it reports none."""
    if b'"usage"' not in raw:
        return None
    try:
        return _usage(json.loads(raw))
    except ValueError:
        return None


def _usage(payload: Any) -> dict[str, int] | None:
    """The reply's token counts (prompt, completion, total; reasoning where reported)."""
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return None
    out = {k: v for k in ("prompt_tokens", "completion_tokens", "total_tokens")
           if isinstance(v := usage.get(k), int) and not isinstance(v, bool) and v >= 0}
    details = usage.get("completion_tokens_details")
    if isinstance(details, dict) and isinstance(r := details.get("reasoning_tokens"), int) and not isinstance(r, bool):
        out["reasoning_tokens"] = r
    return out or None


class BackgroundLoop:
    """An event loop on a daemon thread, for synchronous callers (lmms-eval's hooks)."""

    _instance: BackgroundLoop | None = None
    _guard = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="geomeval-loop")
        self._thread.start()

    @classmethod
    def shared(cls) -> BackgroundLoop:
        with cls._guard:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start `coro` on the loop and return at once (its result is awaited later)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)
