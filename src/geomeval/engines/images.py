"""Images as the chat API wants them: data URLs built from the stored bytes.

Each figure is encoded once, and its text carries the SHA-256 of the bytes it stands for
(`Digested`): the response cache keys a request by its images' bytes, and the prompt's figure,
the record's copy of it and the judge's request would otherwise each encode, decode or hash
the same 100 KB again (about 0.3 to 0.5 ms each on a slow core, on the run's busy threads).
"""

from __future__ import annotations

import base64
import hashlib
import io
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

RECENT = 8
"""Figures whose base64 text is remembered by the identity of their bytes: the item being posed
(its prompt and its record encode the same figure), never a run's all."""
_recent: OrderedDict[int, tuple[bytes, Digested]] = OrderedDict()
_recent_lock = threading.Lock()


class Digested(str):
    """Text (base64, or a data URL) that knows `digest`, "sha256:<hex>" of the bytes it encodes.
    It is a plain `str` to everything else: JSON, comparisons, records."""

    digest: str


def _digested(text: str, digest: str) -> Digested:
    out = Digested(text)
    out.digest = digest
    return out


def bytes_digest(data: bytes) -> str:
    """The digest the response cache keys an image by."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def base64_of(data: bytes) -> Digested:
    """`data` as base64 text with its digest; the last RECENT figures are encoded once (bytes
    only: a mutable buffer could change under the same identity)."""
    if type(data) is not bytes:
        return _digested(base64.b64encode(data).decode("ascii"), bytes_digest(data))
    with _recent_lock:
        found = _recent.get(id(data))
        if found is not None and found[0] is data:
            _recent.move_to_end(id(data))
            return found[1]
    text = _digested(base64.b64encode(data).decode("ascii"), bytes_digest(data))
    with _recent_lock:
        _recent[id(data)] = (data, text)  # the bytes held too, so their id is not reused meanwhile
        while len(_recent) > RECENT:
            _recent.popitem(last=False)
    return text


def image_bytes(image: Any) -> bytes:
    """Bytes of an image given as {bytes, path}, raw bytes, or a PIL image (saved as PNG)."""
    if isinstance(image, dict) and image.get("bytes"):
        return image["bytes"]
    if isinstance(image, (bytes, bytearray)):
        return bytes(image)
    if hasattr(image, "save"):
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()
    raise TypeError(f"not an image: {type(image).__name__}")


def mime_type(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    return "application/octet-stream"


def image_part(image: Any) -> dict[str, Any]:
    data = image_bytes(image)
    text = base64_of(data)
    return _part(_digested(f"data:{mime_type(data)};base64,{text}", text.digest))


def base64_image_part(encoded: str) -> dict[str, Any]:
    """The image part for a figure held as base64 text (a record's saved figure), sent as it is
    rather than decoded and encoded again. Text this process encoded (`base64_of`) is known
    good; other text (read back from a file) is decoded once, to check it and hash its bytes.
    Raises ValueError when it is not base64."""
    if isinstance(encoded, Digested):
        digest, head = encoded.digest, base64.b64decode(encoded[:16])
    else:
        data = base64.b64decode(encoded, validate=True)  # binascii.Error is a ValueError
        digest, head = bytes_digest(data), data[:16]
    return _part(_digested(f"data:{mime_type(head)};base64,{encoded}", digest))


def _part(url: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url}}


MAX_IMAGE_BYTES = 20 * 1024 * 1024
"""Bytes an image file of a release may have (`read_bounded_image`)."""

MAX_IMAGE_PIXELS = 50_000_000
"""Pixels a release or a model's drawing may have: larger ones are refused by their header,
before decoding (a 17 KB PNG can declare 12000×12000 and cost 1.5 GB decoded)."""


def read_bounded_image(path: Path, max_bytes: int = MAX_IMAGE_BYTES) -> bytes:
    """An image file's bytes, or a ValueError saying why not ("is larger than …", "has …
    pixels", "does not decode: …"): the size is checked on disk before reading, the pixel
    count from the header before decoding."""
    if path.stat().st_size > max_bytes:
        raise ValueError(f"is larger than {max_bytes} bytes")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    problem = image_problem(data) if len(data) <= max_bytes else f"is larger than {max_bytes} bytes"
    if problem:
        raise ValueError(problem)
    return data


def image_problem(data: bytes, max_pixels: int = MAX_IMAGE_PIXELS) -> str | None:
    """Why `data` is not a usable image ("does not decode: …", "has … pixels"), or None.
    The pixel count is read from the header, before any decoding."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as opened:
            width, height = opened.size
            if width * height > max_pixels:
                return f"has {width}×{height} pixels, over the limit of {max_pixels}"
            opened.verify()
    except Exception as exc:
        return f"does not decode: {exc}"
    return None
