"""Images as the chat API wants them: data URLs built from the stored bytes."""

from __future__ import annotations

import base64
import io
from typing import Any


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
    url = f"data:{mime_type(data)};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}

