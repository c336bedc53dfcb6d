"""How long a request may wait for its reply, and when it is sent once more: the pacing
plumbing under `ChatClient` (client.py), behind plain interfaces: a request window that adapts
to the server (`AdaptiveLimit`), the requests in flight to one server (`ServerQueue`,
`LoopState`, `Waiting`), and what the client has seen of the server's speed (`Pace`).

Each request is abandoned at its own timeout while the rest proceed: it times out after
`timeout_s` without its reply, counted from when it was sent or from the latest reply to a
request sent before it (which may have been ahead of it in the server's queue), whichever is
later. A server that works through its queue one request at a time (llama.cpp's) keeps
answering the requests ahead of a waiting one, so prompts waiting in its queue are not
abandoned and sent again; a request that hangs while the server answers the requests sent
after it, or on a server that went quiet, is abandoned `timeout_s` after the last reply to
a request sent before it.

A request that has heard nothing of its reply for much longer than replies take to start
(`hedge_after_s`: 1.5 × the 90th percentile of the recent replies' times to their first byte)
is hedged: sent once more while the first copy keeps waiting; the first reply wins, the other
copies are cancelled. A hedge is a request like any other (reserved on the budget, counted in
`requests_sent`, and in `hedges`), takes one of the request's `max_attempts`, and is never sent
for a request whose reply has started arriving, or while the server streams a reply it waits
behind, or while the server is overloaded (its window narrowed), nor more than
`hedge_cap(concurrency)` at once, nor, for a request with a token limit, before its longest
legal reply could have come at the slowest rate seen (never while no reply has shown that
rate): a long whole reply being computed is not sent twice. A server that hangs a fifth of the requests so costs a
run a fraction of a timeout per hang rather than a timeout (bench/hanging_server.py).

A reply may legally run to the request's token limit (`max_tokens`, a judge's 2,048), and a
long one can take longer than `timeout_s` to compute, unseen where the reply comes whole: a
request that has heard nothing of its reply is given the time its longest legal reply takes at
the slowest generation rate seen in the client's recent replies (completion tokens per second
of its own clock), or at `UNKNOWN_RATE` until a reply has shown it, with a margin, and never
less than `timeout_s` nor more than `MAX_ALLOWANCE_FACTOR` times it (`Pace.allowance_s`,
looked at afresh as replies come in); a reply arriving in pieces may pause `timeout_s` between
two. A reply being computed is so not abandoned and sent again, from the first one on, while a
server that never answers is still given up on after at most `MAX_ALLOWANCE_FACTOR` timeouts
an attempt. The clients of
one server (base URL) share its queue (`ServerQueue`): when the model and the judge are served by
the same server, a reply to the model's requests is progress for the judge's requests sent
after them, which wait behind them."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from typing import Any

import aiohttp

log = logging.getLogger("geomeval")
# A request's silence allowance (`Pace.allowance_s`): its token limit at the slowest rate
# among the last RATE_WINDOW replies of at least RATE_MIN_TOKENS tokens (UNKNOWN_RATE before
# any), times REPLY_MARGIN, between timeout_s and MAX_ALLOWANCE_FACTOR × timeout_s.
RATE_WINDOW = 32
RATE_MIN_TOKENS = 16
# The margin is wide because a CPU server's speed swings with its load: a reply computed while
# other work shares the cores can take twice as long as the slowest one seen (measured under
# pytest-xdist with llama.cpp), and abandoning it costs the whole reply computed again.
REPLY_MARGIN = 3.0
MAX_ALLOWANCE_FACTOR = 8.0
# The generation rate (completion tokens a second) a server is taken to fall to before any of
# its replies has shown its speed: a CPU server under load (issue 44's judge ran at 15.5); with
# the margin, 2,048 tokens are given 384 s.
UNKNOWN_RATE = 16.0
# Hedged requests (`Pace.hedge_after_s`): a request that has heard nothing of its reply
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
# Successes in a row after which a narrowed window widens by one request.
WIDEN_AFTER = 8


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


class ServerQueue:
    """The requests in flight to one server (base URL) on one event loop, from every client
    that uses it: a run whose model and judge share a server (llama.cpp serving both) queues
    the judge's requests behind the model's, so a reply to either is progress for the requests
    sent after it."""

    def __init__(self) -> None:
        # when the endpoint last answered anything (its creation until it first does: a queue
        # made for a request already under way is no sign that the server is alive)
        self.created = self.last_reply = time.monotonic()
        self.waiting: set[Waiting] = set()  # requests sent and not yet answered
        self.sent = 0
        # Streamed replies: those arriving now, when the latest piece of any arrived, whether
        # any was streamed, and whether two ever arrived at once. A server that streams one
        # reply at a time (llama.cpp's) is `serial`: it takes its waiting requests in an order
        # of its own, so a reply it streams is progress for every request that has heard
        # nothing yet, and a reply it finishes starts the wait of each of them afresh.
        self.streaming: set[Waiting] = set()
        self.last_piece = float("-inf")
        self.streamed = False
        self.overlapped = False

    @property
    def serial(self) -> bool:
        return self.streamed and not self.overlapped


# One queue per (event loop, base URL): see `ServerQueue`.
_QUEUES: dict[tuple[int, str], ServerQueue] = {}
_QUEUES_LOCK = threading.Lock()


def queue_for(base_url: str) -> ServerQueue:
    key = (id(asyncio.get_running_loop()), base_url)
    with _QUEUES_LOCK:
        queue = _QUEUES.get(key)
        if queue is None:
            if len(_QUEUES) >= 64:  # loops come and go (a run's, a test's): drop the idle queues
                for stale in [k for k, q in _QUEUES.items() if not q.waiting]:
                    del _QUEUES[stale]
            queue = _QUEUES[key] = ServerQueue()
        return queue


class LoopState:
    """An HTTP session and request window belong to one event loop.

    aiohttp rather than httpx: at 64 requests in flight on two cores httpx's async
    pool spends several times the wall time of the requests themselves.
    """

    def __init__(self, concurrency: int, headers: dict[str, str], name: str, queue: ServerQueue | None = None,
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
        self.queue = queue or ServerQueue()  # shared with the other clients of the same server

    @property
    def last_reply(self) -> float:
        return self.queue.last_reply

    @last_reply.setter
    def last_reply(self, value: float) -> None:
        self.queue.last_reply = value

    @property
    def waiting(self) -> set[Waiting]:
        return self.queue.waiting

    def sent(self) -> Waiting:
        """A request goes out, behind every request sent before it (by any client of the server)."""
        self.queue.sent += 1
        waiting = Waiting(time.monotonic(), self.queue.sent, self.queue)
        self.waiting.add(waiting)
        return waiting

    def answered(self, request: Waiting) -> None:
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

    def quiet_since(self, request: Waiting) -> float:
        """When `request` last saw progress: its send or the latest reply to a request sent
        before it (`since`), the latest byte of its own reply, or, while no request sent after
        it has been answered (a server working through its queue in order), the latest byte
        streamed to a request sent before it, which it waits behind."""
        base = request.since if request.heard is None else max(request.since, request.heard)
        return max(base, self.heard_ahead(request))

    def heard_ahead(self, request: Waiting) -> float:
        """The latest byte streamed to a request sent before `request` and still in flight,
        while no request sent after it has been answered (it may wait behind them in a queue
        the server works through in order), or on a serial server (`ServerQueue.serial`) to any
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

    def __init__(self, *, silent: bool, after_s: float = 0.0) -> None:
        super().__init__("no reply within the timeout")
        self.silent = silent
        self.after_s = after_s  # the silence it was abandoned after


class Waiting:
    """One request in flight: its place in the order requests were sent, and when its own
    timeout started counting (`since`: sent, or the latest reply to a request sent before it,
    which may have been ahead of it in the server's queue); when the latest byte of its reply
    arrived (`heard`), how long the first one took after the send (`first`), and whether a
    request sent after it was answered first (`overtaken`)."""

    __slots__ = ("first", "heard", "order", "overtaken", "queue", "sent_at", "since")

    def __init__(self, sent_at: float, order: int, queue: ServerQueue | None = None) -> None:
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
        """A piece of its streamed reply arrived (`ServerQueue.serial`)."""
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


class Race:
    """The requests one attempt may add as hedges (`spare`) and those it added (`hedges`)."""

    __slots__ = ("hedges", "spare")

    def __init__(self, spare: int) -> None:
        self.spare = spare
        self.hedges = 0


def token_limit(body: dict[str, Any]) -> int | None:
    """The request's token limit (`max_tokens`, or `max_completion_tokens` for a reasoning
    model), or None where it sets none."""
    limit = body.get("max_tokens", body.get("max_completion_tokens"))
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        return None
    return limit


def hedge_cap(concurrency: int) -> int:
    """Hedges one client may have in flight at once."""
    return max(1, concurrency // HEDGE_SHARE)


class Pace:
    """What a client has seen of its server's speed, and the times it allows a request from it:
    the generation rates of its recent replies (completion tokens a second of each reply's own
    clock, `rates`), their times from send to first byte (`first_bytes`), and the hedges in
    flight (`hedging`)."""

    def __init__(self, timeout_s: float, hedge: bool) -> None:
        self.timeout_s = timeout_s
        self.hedge = hedge
        self.rates: deque[float] = deque(maxlen=RATE_WINDOW)
        self.first_bytes: deque[float] = deque(maxlen=HEDGE_WINDOW)
        self.hedging: set[Waiting] = set()

    def replied(self, tokens: int, took: float) -> None:
        """A reply of `tokens` completion tokens took `took` seconds of its own clock: a rate,
        where the reply is long enough to tell one."""
        if tokens >= RATE_MIN_TOKENS and took > 0:
            self.rates.append(tokens / took)

    def allowance_s(self, body: dict[str, Any]) -> float:
        """How long a request may go without its reply: the time its longest legal reply
        (`max_tokens` / `max_completion_tokens`) takes at the slowest recent rate, or at
        `UNKNOWN_RATE` until a reply has shown the server's speed, with a margin, between
        `timeout_s` and `MAX_ALLOWANCE_FACTOR` × `timeout_s`; `timeout_s` without a token limit."""
        limit = token_limit(body)
        if limit is None:
            return self.timeout_s
        needed = limit / self.slowest_rate() * REPLY_MARGIN
        return min(max(self.timeout_s, needed), self.timeout_s * MAX_ALLOWANCE_FACTOR)

    def slowest_rate(self) -> float:
        """Completion tokens a second the server is taken to be able to fall to: the slowest
        of its recent replies, or `UNKNOWN_RATE` before any has shown its speed."""
        return min(self.rates) if self.rates else UNKNOWN_RATE

    def legal_s(self, body: dict[str, Any]) -> float:
        """Seconds the request's longest legal reply takes at the slowest rate seen, without a
        margin: 0 without a token limit, infinite while the server's speed is unknown."""
        limit = token_limit(body)
        if limit is None:
            return 0.0
        return limit / min(self.rates) if self.rates else float("inf")

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

    def hedges_working(self, now: float) -> int:
        """Hedges in flight that may be load on the server: answering, or sent less than
        `hedge_after_s` ago (one silent for longer hung like the request it copied)."""
        after = self.hedge_after_s() or 0.0
        return sum(1 for w in self.hedging if w.heard is not None or now - w.sent_at < after)

    def hedge_at(self, state: LoopState, racing: dict[Any, Waiting], race: Race, limit: float,
                 body: dict[str, Any] | None = None) -> float | None:
        """When the attempt's newest copy is to be hedged, or None (not to be): not before its
        longest legal reply could have been computed at the slowest rate seen (`legal_s`), so a
        long reply being computed is never sent twice, and never while that rate is unknown."""
        if race.hedges >= race.spare or state.semaphore.limit < state.semaphore.ceiling:
            return None
        after = self.hedge_after_s()
        if after is None or any(w.heard is not None for w in racing.values()):
            return None
        after = max(after, self.legal_s(body or {}))
        if after >= limit:
            return None
        newest = max(racing.values(), key=lambda waiting: waiting.order)
        return max(newest.sent_at, state.heard_ahead(newest)) + after
