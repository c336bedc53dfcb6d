"""What goes over the wire to an OpenAI-compatible chat endpoint and what comes back, with no
policy: the request's bytes (`json_body`, `plain_text_messages`), a reply read whole or as a
stream of server-sent events within a size cap (`read_capped`, `read_stream`), the completion,
finish reason and token usage it holds (`read_completion`, `reply_usage`), a `Retry-After`
header (`parse_retry_after`), and whether a server error refuses the request's image
(`image_refused`). The client (client.py) decides what to retry."""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Callable
from typing import Any

import aiohttp

from ..core.jsontext import dumps_pieces

NO_TEXT = "completion content is not text"
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
# A reply body larger than this is refused unread (a model's answer is a few KB; a judge's
# less): memory stays bounded whatever a server sends.
MAX_REPLY_BYTES = 8 * 1024 * 1024


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
    return status in IMAGE_STATUSES and has_image(messages) and bool(
        _IMAGE_REFUSED.search(raw[:2000].decode("utf-8", "replace")))


def has_image(messages: list[dict[str, Any]]) -> bool:
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


async def read_capped(response: aiohttp.ClientResponse, cap: int,
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


async def read_stream(response: aiohttp.ClientResponse, cap: int, heard: Callable[[], None]) -> tuple[bytes, int]:
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


def read_completion(raw: bytes) -> tuple[str | None, str | None, dict[str, Any]]:
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


def reply_usage(raw: bytes) -> dict[str, int] | None:
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
