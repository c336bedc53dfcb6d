"""`parse_caption`: one entry point for both languages, with CJK auto-detection."""

from __future__ import annotations

import re
from dataclasses import replace

from ._engine import UNLISTED_TEXT
from ._normalize import common
from .canonical import point_tokens
from .model import ELEMENT, KeypointSet
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

    `language`: "en", "zh", or "auto" (the default: Chinese when the text is mostly CJK; a caption
    with both Chinese and English clauses is read by both parsers and the keypoints united).
    Deterministic, offline, linear in the input; input past `MAX_CHARS` is ignored.
    """
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    if not isinstance(text, str) or not text.strip():
        return KeypointSet()
    if language == "auto":
        if _is_mixed(text):  # each parser reads its own language's clauses; the union is the caption's
            return _unwritten_planes(text, KeypointSet([*parse_zh(text), *parse_en(_ZH_TYPE_WORDS.sub(
                _en_word, _ZH_LIST.sub(lambda m: ", " if m.group(0) == "、" else "", text)))]))
        language = detect_language(text)
    return _unwritten_planes(text, parse_zh(text) if language == "zh" else parse_en(text))


_WRITTEN_PLANE = re.compile(r"(?i:plane|平面)\s?((?:[A-Z]\d{0,2}'{0,2}){3,8})")


def _unwritten_planes(text: str, keypoints: KeypointSet) -> KeypointSet:
    """A plane the caption never writes as one (`PD ⊥ 底面ABCD`, `PA ⊥ base ABCD`, `PA ⊥ ABCD` in a
    solid: its relation is to the plane) is no element of a reference (guide, settled after h5):
    marked like a name in a denied clause, which `match` drops from the reference side."""
    planes = [k for k in keypoints if k.dimension == ELEMENT and k.kind == "plane"]
    if not planes:
        return keypoints
    written = {frozenset(point_tokens(m.group(1))) for m in _WRITTEN_PLANE.finditer(common(text))}
    return KeypointSet([replace(k, text=UNLISTED_TEXT + k.text) if k in planes and frozenset(point_tokens(k.args[0])) not in written
                        else k for k in keypoints])


_ZH_LIST = re.compile(r"(?<=[A-Z0-9'])、|(?<=[A-Z0-9'])(?:两|三|四)(?:个)?点(?= )")  # `C、D两点 lie on …`: C, D lie on …
_EN_WORD = re.compile(r"(?<![A-Za-z])[A-Za-z][a-z]+")
_EN_FUNCTION_WORD = re.compile(r"(?i)(?<![A-Za-z])(?:is|are|the|of|and|at|on|with|lies|meets?|drawn|in|to|has|have|an?|from|by|its"
                                r"|where|which|that|through|bisects|touches|intersects?|perpendicular|parallel|midpoint|tangent)(?![A-Za-z])")


_ZH_TYPE = {"直线": "line", "线段": "segment", "射线": "ray", "三角形": "triangle", "正方形": "square", "矩形": "rectangle",
            "长方形": "rectangle", "平行四边形": "parallelogram", "菱形": "rhombus", "梯形": "trapezoid", "四边形": "quadrilateral",
            "点": "point", "圆": "circle"}
_ZH_TYPE_WORDS = re.compile("(直线|线段|射线|三角形|正方形|矩形|长方形|平行四边形|菱形|梯形|四边形|(?<![中交切顶垂端原])点|(?<![外内切心])圆)"
                            " ?(?=[A-Za-z])")


def _en_word(m: re.Match[str]) -> str:
    """A Chinese type word before a name, in English, for the English reading of a mixed caption."""
    return f" {_ZH_TYPE[m.group(1)]} "


def _is_mixed(text: str) -> bool:
    """Chinese and English clauses in one caption (`E是CD的中点, and BE is drawn`): in the first
    2,000 characters, at least two CJK ideographs, two English words and one of them a
    function word or a relation word (so `AB=5cm，BC=3cm` stays Chinese only)."""
    head = text[:2000]
    return (len(_CJK.findall(head)) >= 2 and len(_EN_WORD.findall(head)) >= 2
            and _EN_FUNCTION_WORD.search(head) is not None)
