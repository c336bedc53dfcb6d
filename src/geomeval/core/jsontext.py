"""JSON text of values that hold long strings (figures' data URLs), the exact text `json.dumps`
gives, without the encoder scanning those strings a character at a time.

A long ASCII string with nothing JSON escapes is stood in for by a token while the rest is
encoded, and copied in afterwards: about 0.6 ms a figure saved on the event loop for a
request's body, and as much on the posing thread for the prompt's hash (provenance.py).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

SPLICE_CHARS = 4096
"""Strings this long are copied in as they are when they need no escaping."""
_ESCAPED = (*(chr(code) for code in range(32)), '"', "\\", "\x7f")  # what JSON escapes in ASCII text
# (DEL only where ensure_ascii is on, the default: left out of splicing either way)
_SPLICE_TOKEN = f"geomeval-splice-{uuid.uuid4().hex}-"
"""What stands in for a spliced string while the rest is encoded: random, so no value's own
text holds it, and drawn once (a draw per call cost a system call on the event loop)."""


def dumps_pieces(value: Any, **options: Any) -> list[str]:
    """Pieces whose concatenation is `json.dumps(value, **options)`, long plain strings spliced
    in as they are (options that change how a string is written, such as ensure_ascii, leave
    plain ASCII as it is, so they hold)."""
    token = _SPLICE_TOKEN
    spliced: list[str] = []

    def swap(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: swap(entry) for key, entry in item.items()}
        if isinstance(item, list):
            return [swap(entry) for entry in item]
        if (isinstance(item, str) and len(item) >= SPLICE_CHARS and item.isascii()
                and not any(char in item for char in _ESCAPED)):
            spliced.append(item)
            return f"{token}{len(spliced) - 1}"
        return item

    head, *rest = json.dumps(swap(value), **options).split(f'"{token}')
    pieces = [head]
    for piece in rest:  # '<number>"<what follows>'
        number, _, after = piece.partition('"')
        pieces += ['"', spliced[int(number)], '"', after]
    return pieces
