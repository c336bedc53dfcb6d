"""A run's request and cost budget: reserved before a request is sent, settled on its reply.

`--budget cost=DOLLARS` and `--budget requests=N` are caps, not thresholds checked after the fact: at any
concurrency a request goes out only once its worst case fits in what is left. Its worst case
is its prompt's estimate (`prompt_tokens_bound`) at the prompt price plus its `max_tokens` at
the completion price. The reply settles the reservation with the tokens the server reported;
a reply with an error status and no usage is released (servers do not bill a refused
request); a request whose cost never came back (timed out, dropped, cancelled as the run
stopped, a 200 without usage) stays charged at its reservation, said apart as `estimated_usd`.
A request that does not fit waits for the requests in flight to settle (they usually cost
less than their worst case) and, once none is in flight and it still does not fit, stops the
run: nothing is in flight when the stop line is written, so it and the totals agree.

What was spent is kept in `budget.json` beside the run, written before a request is sent and
as it settles, so a resumed run (even after `kill -9`) starts from what the earlier
invocations spent: requests in flight at a kill are counted at their worst case. The ledger
also sums, per role, the requests sent and the tokens the server reported over every
invocation (`usage_totals`): results.json and report.md count all of a run's requests.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import math
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import EndpointFailure

LEDGER = "budget.json"
# What the ledger sums per role over a run's invocations beside its requests: the client's counts.
TOKEN_COUNTS = ("prompt_tokens", "completion_tokens")
USAGE_COUNTS = (*TOKEN_COUNTS, "replies_reporting_usage", "truncated", "cache_hits")
# Tokens a chat template may add around each message and the reply (role markers, separators).
TEMPLATE_TOKENS_PER_MESSAGE = 16
# The densest common vision encoder (Qwen2-VL: one token per 28x28 pixels) and its default
# largest image (12,845,056 pixels): an image whose size cannot be read counts as that.
PIXELS_PER_IMAGE_TOKEN = 28 * 28
MAX_IMAGE_TOKENS = 16384
# A request that names no completion limit may run to a long context's end.
UNBOUNDED_COMPLETION_TOKENS = 32768


class BudgetExhausted(EndpointFailure):
    """The run's request or cost budget is spent: it stops like an unusable endpoint (nothing
    counted for unfinished items, what was saved stays saved) and resumes with a larger one."""


def request_cost(prices: dict[str, dict[str, float]], model: str, usage: dict[str, int] | None) -> float | None:
    """Dollars for one reply's tokens at `prices[model]` ({"prompt": $, "completion": $} per
    million tokens); None when the model has no price or the server reported no usage."""
    price = prices.get(model)
    if price is None or not usage:
        return None
    return (usage.get("prompt_tokens", 0) * price.get("prompt", 0.0)
            + usage.get("completion_tokens", 0) * price.get("completion", 0.0)) / 1e6


def _image_size(url: str) -> tuple[int, int] | None:
    """Width and height of a data-URL image, read from its header only (PNG, GIF, JPEG, WebP
    through Pillow where installed); None when they cannot be read."""
    head, _, data = url.partition(",")
    if not head.startswith("data:") or not head.endswith(";base64"):
        return None
    try:
        start = base64.b64decode(data[:32])
    except ValueError:
        return None
    if start.startswith(b"\x89PNG") and len(start) >= 24:
        return int.from_bytes(start[16:20], "big"), int.from_bytes(start[20:24], "big")
    if start[:6] in (b"GIF87a", b"GIF89a"):
        return int.from_bytes(start[6:8], "little"), int.from_bytes(start[8:10], "little")
    try:
        import io

        from PIL import Image

        with Image.open(io.BytesIO(base64.b64decode(data[: 1 << 17]))) as image:
            return image.size
    except Exception:  # no Pillow, a header past the first 96 KB, not an image
        return None


def image_tokens_bound(url: str) -> int:
    size = _image_size(url)
    if size is None:
        return MAX_IMAGE_TOKENS
    return min(MAX_IMAGE_TOKENS, math.ceil(size[0] * size[1] / PIXELS_PER_IMAGE_TOKEN) + 2)


def prompt_tokens_bound(messages: list[dict[str, Any]]) -> int:
    """An upper bound on a request's prompt tokens: a byte-level tokenizer's token covers at
    least one byte of text, plus the chat template's tokens per message, plus each image at
    one token per 28x28 pixels (the densest common encoder's rate), capped at its largest."""
    tokens = TEMPLATE_TOKENS_PER_MESSAGE
    for message in messages:
        tokens += TEMPLATE_TOKENS_PER_MESSAGE
        content = message.get("content")
        parts = content if isinstance(content, list) else [content]
        for part in parts:
            if isinstance(part, str):
                tokens += len(part.encode("utf-8"))
            elif isinstance(part, dict) and part.get("type") == "text":
                tokens += len(str(part.get("text", "")).encode("utf-8"))
            elif isinstance(part, dict):
                url = (part.get("image_url") or {}).get("url", "") if isinstance(part.get("image_url"), dict) else ""
                tokens += image_tokens_bound(url) if isinstance(url, str) else MAX_IMAGE_TOKENS
    return tokens


def completion_tokens_bound(body: dict[str, Any]) -> int:
    for name in ("max_completion_tokens", "max_tokens"):
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return UNBOUNDED_COMPLETION_TOKENS


@dataclass(slots=True)
class Reservation:
    """One request's hold on the budget, from before it is sent until its reply settles it."""

    owner: int  # id() of the client that sent it
    model: str
    cost: float  # its worst case in dollars
    open: bool = True


class RequestBudget:
    """Requests (and, with prices, dollars) the model and judge clients of one run may spend
    together, across the run's invocations (`attach`): reserved before each request is sent
    (`reserve`), settled as its reply arrives (`settle`)."""

    def __init__(self, max_requests: int | None = None, max_cost: float | None = None,
                 prices: dict[str, dict[str, float]] | None = None, max_seconds: float | None = None):
        self.max_requests = max_requests
        self.max_cost = max_cost
        self.prices = prices or {}
        # The run's time: a retry is not scheduled past it (None: no limit).
        self.max_seconds = max_seconds
        self.started = time.monotonic()
        self.requests = 0  # sent by this invocation (reserved ones included)
        self.cost = 0.0  # dollars settled by this invocation
        self.estimated = 0.0  # of `cost`, charged at the worst case: the real cost never came back
        self.requests_before = 0  # sent by earlier invocations of the run (`attach`)
        self.cost_before = 0.0
        self.estimated_before = 0.0
        self.reserved = 0.0  # worst cases of the requests in flight
        self.in_flight = 0
        self.by_owner: dict[int, float] = {}  # dollars charged per client since `attach`
        self.reserved_by_owner: dict[int, float] = {}
        self.roles: dict[int, str] = {}  # the attached run's clients: id() -> "model" / "judge"
        self.role_before: dict[str, float] = {}
        # Requests and tokens per role, every invocation's (`usage_totals`): the earlier ones'
        # from the ledger, this one's counted as requests are sent and replies settle.
        self.clients: dict[str, object] = {}
        self.usage_before: dict[str, dict[str, int]] = {}
        self.requests_by_owner: dict[int, int] = {}
        self.stop: str | None = None  # why the budget stopped the run, once it did
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._ledger: Path | None = None
        self._ledger_base = (0, 0.0, 0.0)
        self._ledger_from = (0, 0.0, 0.0)
        # The ledger's file kept open between writes (`_write_ledger`) and the widest text so far.
        self._ledger_fd: int | None = None
        self._ledger_width = 0

    # -- totals ------------------------------------------------------------------------------

    @property
    def requests_total(self) -> int:
        return self.requests_before + self.requests

    @property
    def spent(self) -> float:
        """Dollars spent by every invocation of the run, settled."""
        return self.cost_before + self.cost

    def spent_by(self, role: str) -> float:
        """Dollars every invocation of the attached run spent on `role`'s requests."""
        return self.role_before.get(role, 0.0) + sum(
            cost for owner, cost in self.by_owner.items() if self.roles.get(owner) == role)

    def summary(self) -> dict[str, Any]:
        """For results.json: the caps and what every invocation spent (the stop line's numbers)."""
        found: dict[str, Any] = {"max_requests": self.max_requests, "max_cost_usd": self.max_cost}
        if self.max_requests is not None:  # what the request cap counts: every invocation's
            found.update(requests_sent=self.requests_total, requests_sent_before=self.requests_before)
        if self.prices:
            found.update(spent_usd=self.spent, spent_before_usd=self.cost_before,
                         estimated_usd=self.estimated_before + self.estimated)
        if self.stop:
            found["stopped"] = self.stop_line()
        return found

    # -- across invocations ------------------------------------------------------------------

    def attach(self, folder: Path, *, resuming: bool, roles: dict[str, object] | None = None) -> None:
        """Keep this run's spending in `folder`'s ledger, per role ("model", "judge": the
        clients in `roles`); a resumed run starts from what the earlier invocations recorded
        there (requests in flight at a kill at their worst case)."""
        path = folder / LEDGER
        base = (0, 0.0, 0.0)
        role_before: dict[str, float] = {}
        usage_before: dict[str, dict[str, int]] = {}
        if resuming and path.is_file():
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                in_flight = float(saved.get("in_flight_usd", 0.0))
                base = (int(saved.get("requests", 0)) + int(saved.get("in_flight_requests", 0)),
                        float(saved.get("spent_usd", 0.0)) + in_flight,
                        float(saved.get("estimated_usd", 0.0)) + in_flight)
                role_before = {str(k): float(v) for k, v in (saved.get("spent_by_role_usd") or {}).items()}
                usage_before = {str(role): {str(k): int(v) for k, v in counts.items()}
                                for role, counts in (saved.get("usage_by_role") or {}).items()}
            except (OSError, ValueError, TypeError, AttributeError):
                from ..core.errors import UsageError

                raise UsageError(f"{path} is unreadable: it holds what this run spent so far; restore it "
                                 "or pass --overwrite to start the run afresh") from None
        with self._lock:
            self.requests_before += base[0]
            self.cost_before += base[1]
            self.estimated_before += base[2]
            self._ledger, self._ledger_base = path, base
            self.roles = {id(client): role for role, client in (roles or {}).items()}
            self.role_before, self.by_owner, self.reserved_by_owner = role_before, {}, {}
            self.clients, self.usage_before, self.requests_by_owner = dict(roles or {}), usage_before, {}
            self._ledger_from = (self.requests, self.cost, self.estimated)
            self._write_ledger(force=True)

    def detach(self) -> None:
        with self._lock:
            self._write_ledger(force=True)
            self._ledger = None
            if self._ledger_fd is not None:
                os.close(self._ledger_fd)
                self._ledger_fd = None

    def _write_ledger(self, force: bool = False) -> None:
        """Called with the lock held: before a request is sent and as it settles (what a kill
        must not lose: totals after `kill -9` and a resume equal the requests sent).

        Attaching and detaching replace the file atomically; in between each write is one
        `pwrite` at offset 0 of the JSON padded with spaces to the widest text so far, so the
        file always holds one whole JSON value (a process killed mid-run cannot stop a write
        to a regular file half-way) and a request costs one system call, not a temporary file
        and a rename (1,000 of those took seconds of a 500-call run's event loop)."""
        if self._ledger is None:
            return
        base, start = self._ledger_base, self._ledger_from
        state = {
            "requests": base[0] + self.requests - start[0] - self.in_flight,
            "spent_usd": base[1] + self.cost - start[1],
            "estimated_usd": base[2] + self.estimated - start[2],
            "in_flight_requests": self.in_flight, "in_flight_usd": self.reserved,
            # settled and (a kill may have billed them) in flight, per role
            "spent_by_role_usd": self._by_role(),
            # requests sent (in flight included) and tokens reported, per role, every invocation's
            "usage_by_role": self._usage_by_role(),
        }
        data = json.dumps(state).encode("utf-8")
        if not force and self._ledger_fd is not None:
            self._ledger_width = max(self._ledger_width, len(data))
            os.pwrite(self._ledger_fd, data.ljust(self._ledger_width) + b"\n", 0)
            return
        if self._ledger_fd is not None:
            os.close(self._ledger_fd)
            self._ledger_fd = None
        fd, tmp = tempfile.mkstemp(prefix=".budget.", dir=self._ledger.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data + b"\n")
            os.replace(tmp, self._ledger)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._ledger_width = len(data)
        self._ledger_fd = os.open(self._ledger, os.O_WRONLY)

    def _usage_by_role(self) -> dict[str, dict[str, int]]:
        """Called with the lock held: every invocation's requests sent (those in flight
        included: a kill leaves them sent) and the counts the clients keep (tokens reported,
        replies cut at the token limit, cache hits), per role."""
        found = {role: dict(counts) for role, counts in self.usage_before.items()}
        for role, client in self.clients.items():
            counts = found.setdefault(role, {})
            sent = self.requests_by_owner.get(id(client), 0)
            counts["requests_sent"] = counts.get("requests_sent", 0) + sent
            for name in USAGE_COUNTS:
                value = getattr(client, "tokens", {}).get(name) if name in TOKEN_COUNTS else getattr(client, name, None)
                if isinstance(value, int):
                    counts[name] = counts.get(name, 0) + value
        return found

    def usage_totals(self, role: str) -> dict[str, int]:
        """`role`'s requests sent and counts (`USAGE_COUNTS`) over every invocation of the run."""
        with self._lock:
            return self._usage_by_role().get(role, {})

    def _by_role(self) -> dict[str, float]:
        found = dict(self.role_before)
        for owners in (self.by_owner, self.reserved_by_owner):
            for owner, cost in owners.items():
                role = self.roles.get(owner, "other")
                found[role] = found.get(role, 0.0) + cost
        return found

    # -- one request -------------------------------------------------------------------------

    def worst_cost(self, model: str, body: dict[str, Any]) -> float:
        price = self.prices.get(model)
        if price is None:
            return 0.0
        return (prompt_tokens_bound(body.get("messages") or []) * price.get("prompt", 0.0)
                + completion_tokens_bound(body) * price.get("completion", 0.0)) / 1e6

    def _refusal(self, cost: float) -> str | None:
        if self.max_requests is not None and self.requests_total >= self.max_requests:
            return (f"the request budget is spent ({self.requests_total} of --budget requests="
                    f"{self.max_requests} sent)")
        if self.max_cost is not None and self.spent + self.reserved + cost > self.max_cost:
            return (f"the cost budget is spent (${self.spent:.4f} of ${self.max_cost:g}, --budget "
                    f"cost={self.max_cost:g}; "
                    f"the next request could cost up to ${cost:.4f})")
        return None

    async def reserve(self, owner: object, model: str, body: dict[str, Any]) -> Reservation:
        """Hold the request's worst case, waiting for requests in flight to settle while it
        does not fit; BudgetExhausted once it does not fit with none in flight."""
        cost = self.worst_cost(model, body)
        while True:
            with self._lock:
                if self.stop is not None:
                    raise BudgetExhausted(self.stop)
                refusal = self._refusal(cost)
                if refusal is None:
                    return self._book(owner, model, cost)
                if self.in_flight == 0:
                    self.stop = refusal
                    self._wake()
                    raise BudgetExhausted(refusal)
                loop = asyncio.get_running_loop()
                woken: asyncio.Future[None] = loop.create_future()
                self._waiters.append((loop, woken))
            await woken

    def try_reserve(self, owner: object, model: str, body: dict[str, Any]) -> Reservation | None:
        """`reserve` for a request that may be left unsent (a hedge): its hold at once, or None
        when it does not fit now; never waits and never stops the run."""
        cost = self.worst_cost(model, body)
        with self._lock:
            if self.stop is not None or self._refusal(cost) is not None:
                return None
            return self._book(owner, model, cost)

    def _book(self, owner: object, model: str, cost: float) -> Reservation:
        """Called with the lock held: hold `cost` for one request of `owner`'s."""
        self.requests += 1
        self.requests_by_owner[id(owner)] = self.requests_by_owner.get(id(owner), 0) + 1
        self.in_flight += 1
        self.reserved += cost
        self.reserved_by_owner[id(owner)] = self.reserved_by_owner.get(id(owner), 0.0) + cost
        self._write_ledger()  # before it is sent: a kill leaves it counted
        return Reservation(id(owner), model, cost)

    def settle(self, held: Reservation, usage: dict[str, int] | None, *, sent: bool = True,
               answered_error: bool = False) -> None:
        """End `held`: charged at `usage` where the server reported it; released when it was
        never sent or the server refused it (`answered_error`) without usage; else (its cost
        never came back) charged at its reservation."""
        with self._lock:
            if not held.open:
                return
            held.open = False
            self.in_flight -= 1
            self.reserved = max(0.0, self.reserved - held.cost) if self.in_flight else 0.0
            left = self.reserved_by_owner.get(held.owner, 0.0) - held.cost
            self.reserved_by_owner[held.owner] = max(0.0, left) if self.in_flight else 0.0
            real = request_cost(self.prices, held.model, usage)
            if real is not None:
                charge = real
            elif not sent or answered_error or held.model not in self.prices:
                charge = 0.0
                if not sent:
                    self.requests -= 1
                    self.requests_by_owner[held.owner] = self.requests_by_owner.get(held.owner, 1) - 1
            else:
                charge = held.cost
                self.estimated += charge
            self.cost += charge
            self.by_owner[held.owner] = self.by_owner.get(held.owner, 0.0) + charge
            self._write_ledger()
            self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for loop, woken in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: its request is gone
                loop.call_soon_threadsafe(_resolve, woken)

    def remaining_s(self) -> float | None:
        """Seconds left of the run's `max_seconds`, or None without one."""
        if self.max_seconds is None:
            return None
        return max(0.0, self.started + self.max_seconds - time.monotonic())

    def stop_line(self) -> str | None:
        """Why the run stopped, with the totals as they stand once nothing is in flight."""
        if self.stop is None:
            return None
        if self.stop.startswith("the request budget"):
            return (f"the request budget is spent ({self.requests_total} of --budget requests="
                    f"{self.max_requests} sent)")
        line = f"the cost budget is spent (${self.spent:.4f} of ${self.max_cost:g}, --budget cost={self.max_cost:g}"
        if self.estimated_before + self.estimated:
            line += (f", ${self.estimated_before + self.estimated:.4f} of it counted at the worst case of "
                     "requests whose usage never came back")
        return line + self.stop[self.stop.index(";"):] if ";" in self.stop else line + ")"


def _resolve(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)
