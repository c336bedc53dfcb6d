"""`parse_caption`: one entry point for both languages, with CJK auto-detection."""

from __future__ import annotations

import re

from .model import KeypointSet
from .parse_en import parse_en
from .parse_zh import parse_zh

LANGUAGES = ("auto", "en", "zh")
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[a-z]{2,}")


def detect_language(text: str) -> str:
    """`zh` when (in the first 2,000 characters) CJK ideographs outnumber lower-case English words.

    Point names are capitals and symbols are shared, so the two counts are what separates
    a Chinese caption from an English one quoting a Chinese term.
    """
    head = text[:2000]
    cjk = len(_CJK.findall(head))
    return "zh" if cjk >= 2 and cjk >= len(_WORD.findall(head)) else "en"


def parse_caption(text: str, language: str = "auto") -> KeypointSet:
    """Keypoints of a geometric figure caption, in three dimensions (element, relation, numerical).

    `language`: "en", "zh", or "auto" (the default: Chinese when the text is mostly CJK).
    Deterministic, offline, linear in the input; input past `MAX_CHARS` is ignored.
    """
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    if not isinstance(text, str) or not text.strip():
        return KeypointSet()
    if language == "auto":
        language = detect_language(text)
    return parse_zh(text) if language == "zh" else parse_en(text)
