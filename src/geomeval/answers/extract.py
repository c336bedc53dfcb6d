"""Find the final answer in a model's free-text response.

Sources are tried from most to least explicit: a JSON object's `short_answer`,
`<answer>…</answer>`, the last `\\boxed{…}`, a closing phrase ("the answer is …",
"故答案为 …"), a last line that is only an option letter, and finally a response
that is itself short. A long response with none of these yields no answer rather
than a guess, so a number inside the reasoning is never taken for the answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .choices import echoes_inline, echoes_options, is_bare_letter, read_option_letter

MAX_RESPONSE_CHARS = 100_000
MAX_JSON_CHARS = 50_000
SHORT_RESPONSE_CHARS = 60
_JSON_KEYS = ("short_answer", "final_answer", "answer")
MAX_BLOCKS = 50
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
_PHRASE = re.compile(
    r"(?:final\s+answer|the\s+answer|answer)\s*(?:is|:|：|=)\s*[:：]?"
    r"|(?:故答案为|答案为|答案是|答案：|答案:|答：|答:|故选|所以选|应选)\s*[:：]?",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)|。|\n|;|；")
# Where a reason begins after the answer ("B, because …", "70°, since …", "C，因为…"): the
# answer ends there. A bare comma does not end it ("2, 3" is a two-part answer).
_CLAUSE = re.compile(
    r"\s*[,，]?\s*[\(（]?\s*\b(?:because|since|as|so|which|given|due\s+to|hence|thus|therefore|where)\b"
    r"|\s*[,，]\s*(?:因为|由于|所以|故|即)",
    re.I,
)
_LATEX_COMMAND_BACKSLASH = re.compile(r"(?<!\\)\\(?=[A-Za-z]{2,})")


@dataclass(frozen=True, slots=True)
class Extracted:
    """An extracted final answer (None when the response states none) and where it came from."""

    answer: str | None
    method: str
    data: dict[str, Any] | None = None  # the JSON object the response carried, if any


def extract_final_answer(response: str | None, *, letters: str | None = None) -> Extracted:
    """Return the final answer stated in `response`.

    `letters` are the item's option letters (e.g. "ABCD"); they let a closing line such
    as "(C)" count as an answer.
    """
    if response is None:
        return Extracted(None, "none")
    text = response.strip()
    if len(text) > MAX_RESPONSE_CHARS:
        text = text[-MAX_RESPONSE_CHARS:]
    if not text:
        return Extracted(None, "none")
    data = parse_json_object(text) if "{" in text else None
    found = _answer_in_json(data) if data is not None else None
    if found is not None and found.strip():
        return Extracted(_clean(found), "json", data)
    for method, finder in (
        ("answer-tag", _from_answer_tag),
        ("boxed", _from_boxed),
        ("phrase", _from_phrase),
    ):
        found = finder(text)
        if found is not None and found.strip():
            return Extracted(_clean(found), method, data)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    last_line = lines[-1]
    # Only a line that is a letter alone: "C. 10" closing a response is the option list
    # echoed back, not a choice.
    if letters and is_bare_letter(last_line) and read_option_letter(last_line, letters):
        return Extracted(_clean(last_line), "option-line", data)
    if len(text) <= SHORT_RESPONSE_CHARS and "\n" not in text:
        clause = _CLAUSE.search(text)
        head = text[: clause.start()] if clause and clause.start() > 0 else text
        if letters and head != text and is_bare_letter(head.rstrip(",，")):
            return Extracted(_clean(head), "whole-response", data)  # "C, since …": the letter
        return Extracted(_clean(text), "whole-response", data)
    return Extracted(None, "none", data)


def parse_json_object(text: str) -> dict | None:
    """Parse the JSON object a response carries (fenced or bare), tolerating raw LaTeX."""
    candidates = [block.removeprefix("json").removeprefix("JSON") for block in _blocks(text, "```", "```")]
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last and last - first <= MAX_JSON_CHARS:
        candidates.append(text[first : last + 1])
    for candidate in reversed(candidates):
        candidate = candidate.strip()
        if not candidate.startswith("{"):
            continue
        for attempt in (_LATEX_COMMAND_BACKSLASH.sub(r"\\\\", candidate), candidate):
            try:
                value = json.loads(attempt)
            except (json.JSONDecodeError, RecursionError):
                continue
            if isinstance(value, dict):
                return value
    return None


def _answer_in_json(obj: dict[str, Any]) -> str | None:
    for key in _JSON_KEYS:
        if key in obj and obj[key] is not None:
            value = obj[key]
            if isinstance(value, list):
                return ", ".join(str(v) for v in value[:20])
            return str(value)
    return None


def _blocks(text: str, opening: str, closing: str) -> list[str]:
    """Contents between `opening` and the next `closing`, found by linear scans (no regex)."""
    found: list[str] = []
    position = 0
    while len(found) < MAX_BLOCKS:
        start = text.find(opening, position)
        if start < 0:
            break
        end = text.find(closing, start + len(opening))
        if end < 0:
            break
        found.append(text[start + len(opening) : end])
        position = end + len(closing)
    return found


def _from_answer_tag(text: str) -> str | None:
    matches = _blocks(text.replace("<ANSWER>", "<answer>").replace("</ANSWER>", "</answer>"), "<answer>", "</answer>")
    if not matches:
        return None
    inner = matches[-1]
    return _from_boxed(inner) or inner


def _from_boxed(text: str) -> str | None:
    starts = [m.end() for m in _BOXED.finditer(text)]
    if not starts:
        return None
    start = starts[-1]
    depth = 1
    for i in range(start, min(len(text), start + 2000)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return None


def _from_phrase(text: str) -> str | None:
    matches = list(_PHRASE.finditer(text))
    if not matches:
        return None
    tail = text[matches[-1].end() :].lstrip()
    if echoes_options([line.strip() for line in tail[:2000].splitlines()[:30] if line.strip()]):
        return None  # "The answer is:" followed by the option list: no choice stated
    if echoes_inline(tail[:2000].split("\n", 1)[0]):
        return None  # "The answer is (A) 8 (B) 8.4 …": the list on one line, no choice either
    end = _SENTENCE_END.search(tail)
    answer = tail[: end.start()] if end else tail[:300]
    clause = _CLAUSE.search(answer)
    return answer[: clause.start()] if clause and clause.start() > 0 else answer


def _clean(answer: str) -> str:
    answer = answer.strip().strip("*_`").strip()
    if answer.startswith("$") and answer.endswith("$"):
        answer = answer.strip("$").strip()
    return answer.rstrip("。.，,；;").strip()
