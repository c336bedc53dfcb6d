"""GeoEval's backward-reasoning problems: mask one given number, state the answer, ask for the number.

The paper turns a forward problem into a backward one by replacing one of its given
numbers with an unknown X, telling the model the forward answer, and asking for X;
the backward answer is the number that was masked. geomeval does the same,
deterministically: the number is picked from the problem's *givens* by a hash of the
seed and the problem text, so a seed reproduces the whole set and different items
mask different positions.

What counts as a given is deliberately narrow: only a plain integer or decimal that
stands on its own (`5`, `2.5`, `60°`, `5 cm`, `50%`, `$AB = 5$`). Not maskable:
- numbers inside a LaTeX group (`\\frac{3}{4}`, `\\text{5}`) or fused with a radical or
  π (`3\\sqrt{2}`, `√2`, `4π`): masking part of an exact form gives an odd equation
  whose "answer" is a coefficient, not a given;
- labels and names: `A1`, `C_1`, `x^2`, `∠1`, `angle 2`, `Figure 3`, `(1)`, a list
  number opening a line, an ordinal (`1st`), a coefficient (`3x`);
- a year (an integer 1900–2099 without a unit), a thousands-grouped number
  (`1,000`), the value given for π (`π = 3.14`), and rounding instructions
  (`2 decimal places`, `the nearest 0.1`).
A degree sign, unit or percent sign stays in place (`60°` → `X°`, `5 cm` → `X cm`).

The unknown is named X unless the problem already uses x or X (a Geometry3K "Find x."
or a point X): then the first free name of Y, Z, K, N, T, so the backward question is
never ambiguous. The official generator also checked that the masked number occurs
in the solution program; geomeval has no such program for every source, so a masked
given may, rarely, not affect the answer.

`make_backward_set` does this for a whole subset (`forward_rows` reads it), keeping the
items that cannot be masked with their reasons; `geomeval geoeval make-backward` writes it.
Only the problem text is masked: a Geometry3K problem whose givens are all in the diagram
("Find A C.") has nothing to mask, where the official set masked the diagram's logic form.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...answers import ChoiceError, parse_choices
from ...core.errors import UsageError

UNKNOWN_NAMES = ("X", "Y", "Z", "K", "N", "T")
# The subsets whose questions are forward ones (the backward subset's are backward already).
FORWARD_TASKS = ("geoeval_2000", "geoeval_aug", "geoeval_hard")
_FORWARD_COLUMNS = ["id", "source", "problem", "rephrased_problem", "answer", "choices"]
MAX_TEXT_CHARS = 20_000
# The backward question appended to the masked forward problem: it states the forward
# problem's known answer, then asks for the masked value (the paper's method, own words).
# Placeholders: {answer} (the forward answer, an option's text rather than its letter) and
# {name} (the unknown standing where the masked number stood).
BACKWARD_QUESTION = (
    " The answer to the question above is known: it is {answer}."
    " Working backwards from that answer, find the value of the unknown {name}."
)

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_UNIT = r"(?:cm|mm|km|dm|m|in|ft|yd|units?|°|%)"
_BEFORE_LABEL = re.compile(r"[A-Za-z_^\\{.\d]$")
# Fused: a letter, subscript, brace or LaTeX command follows at once (3x, 1st, 3\sqrt2, 4\pi),
# or a radical or π after spaces; a unit, a spacing or text command, or \circ is no fusion.
_AFTER_FUSED = re.compile(
    rf"^(?!{_UNIT}(?![A-Za-z]))(?:[A-Za-z_{{]"
    r"|\\(?![,;:! %]|text|mathrm|mbox|rm\b|circ|degree|cdot|times|quad|qquad|right|left)"
    r"|\s*(?:√|π|\\(?:sqrt|pi|frac|dfrac|tfrac)\b))"
)
_AFTER_POWER = re.compile(r"^\^(?!\s*\{?\s*\\circ)")
_NAMING_WORD = re.compile(
    r"(?:∠|\\angle|\bangles?|\bfig(?:ure)?\.?|\bdiagram|\bproblem|\bquestion|\bexample|\bexercise|\bstep"
    r"|\bcase|\bpart|\bchapter|\bsection|\bno\.|#|√|\\sqrt)\s*$",
    re.I,
)
# Rounding instructions: "to 2 decimal places", "3 significant figures", "the nearest 0.1".
_ROUNDING_AFTER = re.compile(
    r"^\s*(?:decimal\s+places?|significant\s+(?:figures?|digits?)|d\.p\.|s\.f\.|dp\b|sf\b)", re.I
)
_ROUNDING_BEFORE = re.compile(r"\bnearest\s*$", re.I)
_PI_VALUE = re.compile(r"(?:π|\\pi|\bpi)\s*(?:=|≈|\\approx|\bas\b|\bis\b|\bto\s+be\b)\s*$", re.I)
# A unit after the number; "in" only when fused ("6in"), since "5 in the figure" is no unit.
_UNIT_AFTER = re.compile(r"^(?:\s*(?:cm|mm|km|dm|m|ft|yd|units?|°|%)|in)(?![A-Za-z])")


@dataclass(frozen=True, slots=True)
class BackwardProblem:
    """A backward problem and how it was made from its forward one."""

    text: str  # the forward text with one given masked, plus the question for the unknown
    answer: str  # the masked number as written ("60", "2.5"): the backward gold answer
    unknown: str  # the unknown's name ("X", or another letter when the text uses x)
    masked: str  # the number and what follows it in place ("60°", "5 cm")
    start: int  # where the masked number started in the forward text
    candidates: int  # how many givens could have been masked
    forward_answer: str


@dataclass(frozen=True, slots=True)
class NotMaskable:
    """Why a forward problem has no backward version."""

    reason: str


def make_backward(problem_text: str, answer: str, *, seed: int | str) -> BackwardProblem | None:
    """The backward version of a forward problem, or None (see `build_backward` for why)."""
    result = build_backward(problem_text, answer, seed=seed)
    return result if isinstance(result, BackwardProblem) else None


def build_backward(
    problem_text: str, answer: str, *, seed: int | str
) -> BackwardProblem | NotMaskable:
    """Mask one given number of `problem_text`, picked by `seed`; or say why none can be."""
    forward_answer = (answer or "").strip()
    if not forward_answer:
        return NotMaskable("the forward answer is empty, so the backward question cannot state it")
    if re.fullmatch(r"\(?[A-Z]\)?\.?", forward_answer):
        return NotMaskable(
            f"the forward answer {forward_answer!r} is an option letter; pass the option's value"
        )
    if len(problem_text) > MAX_TEXT_CHARS:
        return NotMaskable(
            f"the problem has {len(problem_text)} characters (more than {MAX_TEXT_CHARS})"
        )
    name = _free_name(problem_text)
    if name is None:
        return NotMaskable("the problem already uses every candidate name for the unknown")
    spans = maskable_numbers(problem_text)
    if not spans:
        return NotMaskable("the problem states no plain number that could be masked")
    start, end = spans[_pick(seed, problem_text, len(spans))]
    masked = problem_text[start:end]
    text = problem_text[:start] + name + problem_text[end:]
    text = text.rstrip()
    if text and text[-1] not in ".?!。？！":
        text += "."
    text += backward_question(forward_answer, name)
    unit = _UNIT_AFTER.match(problem_text[end:])
    return BackwardProblem(
        text=text,
        answer=masked,
        unknown=name,
        masked=masked + (unit.group(0) if unit else ""),
        start=start,
        candidates=len(spans),
        forward_answer=forward_answer,
    )


def backward_question(forward_answer: str, name: str) -> str:
    """The question appended to a masked problem: the known answer, then the unknown asked for.
    The one place `BACKWARD_QUESTION` is formatted."""
    return BACKWARD_QUESTION.format(answer=forward_answer, name=name)


@dataclass(frozen=True, slots=True)
class BackwardSet:
    """The backward problems made from a set of forward ones, and the items that had none."""

    seed: int | str
    made: list[dict[str, Any]] = field(default_factory=list)  # one JSON-ready dict per item
    not_maskable: list[dict[str, str]] = field(default_factory=list)  # {"id", "reason"}


def make_backward_set(rows: Iterable[Mapping[str, Any]], seed: int | str) -> BackwardSet:
    """Backward versions of forward rows (`id`, `problem`, `answer`, optional `choices` and
    `source`), each through `build_backward` with the same seed, so a seed reproduces the set.

    An option letter as the forward answer is replaced by the option's text first: the
    backward question states the answer, and "the answer is known to be B" says nothing
    once the options are gone. Rows that cannot be masked are kept with the reason, so a
    caller can report them rather than silently making a smaller set.
    """
    result = BackwardSet(seed)
    for row in rows:
        item_id = str(row["id"])
        answer = _forward_value(str(row.get("answer") or ""), row.get("choices"))
        made = build_backward(str(row.get("problem") or ""), answer, seed=seed)
        if isinstance(made, NotMaskable):
            result.not_maskable.append({"id": item_id, "reason": made.reason})
            continue
        result.made.append(
            {
                "id": item_id,
                "source": row.get("source"),
                "backward_problem": made.text,
                "backward_answer": made.answer,
                "masked": made.masked,
                "unknown": made.unknown,
                "forward_answer": made.forward_answer,
                "candidates": made.candidates,
                "seed": seed,
            }
        )
    return result


def forward_rows(data_arg: str | None, task: str, limit: int | None = None) -> list[dict[str, Any]]:
    """A subset's forward problems as `make_backward_set` reads them: id, the question the
    task asks (the rephrased one in geoeval_aug), answer, options and source name.

    `data_arg` is what `geomeval run --data` takes (None: the embedded sample).
    """
    from . import data
    from .prompts import problem_text

    if task not in FORWARD_TASKS:
        hint = " (its questions are backward already)" if task == "geoeval_backward" else ""
        raise UsageError(f"cannot make backward problems from {task!r}{hint}; tasks: {', '.join(FORWARD_TASKS)}")
    if limit is not None and limit < 1:
        raise UsageError(f"limit must be at least 1, got {limit}")
    dataset = data.load(data_arg, config=task).select_columns(_FORWARD_COLUMNS)  # no diagrams decoded
    if limit is not None:
        dataset = dataset.select(range(min(limit, len(dataset))))
    source = dataset.features["source"]
    rows = []
    for row in dataset:
        rows.append(
            {
                "id": row["id"],
                "source": source.int2str(row["source"]) if isinstance(row["source"], int) else row["source"],
                "problem": problem_text(row, task),
                "answer": row["answer"],
                "choices": row["choices"],
            }
        )
    return rows


def _forward_value(answer: str, choices: Any) -> str:
    """The option's text when the forward answer is its letter and the options are known."""
    letter = re.fullmatch(r"\(?([A-Z])\)?\.?", answer.strip())
    if letter is None or not choices:
        return answer
    try:
        options = parse_choices(list(choices))
    except ChoiceError:
        return answer  # `build_backward` then says the answer is an option letter
    return options.get(letter.group(1), answer)


def maskable_numbers(text: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the givens in `text` that may be masked, in order."""
    depths = _brace_depths(text)
    spans = []
    for match in _NUMBER.finditer(text):
        start, end = match.span()
        if depths[start] == 0 and _is_given(text, start, end):
            spans.append((start, end))
    return spans


def _is_given(text: str, start: int, end: int) -> bool:
    before, after = text[max(0, start - 24) : start], text[end : end + 24]
    if _BEFORE_LABEL.search(before):
        return False  # A1, C_1, x^2, \angle1, the 5 of .5
    if _AFTER_FUSED.match(after) or _AFTER_POWER.match(after):
        return False  # 3x, 1st, 3\sqrt{2}, 4π, 2^3 (but 5cm and 60^\circ are givens)
    if _is_grouped_thousands(text, start, end):
        return False  # 1,000: either part of it is ambiguous
    if _NAMING_WORD.search(before) or _PI_VALUE.search(before):
        return False  # ∠1, angle 2, Figure 3, √ 2, π = 3.14
    if _ROUNDING_AFTER.match(after) or _ROUNDING_BEFORE.search(before):
        return False  # "to 2 decimal places", "to the nearest 0.1": how to answer, not a given
    line_head = text[text.rfind("\n", 0, start) + 1 : start]
    if (
        re.fullmatch(r"[ \t]*\(?", line_head)
        and re.match(r"[.)、]", after)
        and "." not in text[start:end]
    ):
        return False  # a list number opening a line: "1. …", "(2) …"
    if before.endswith("(") and after.startswith(")") and "." not in text[start:end]:
        return False  # (1): an enumerator, not a coordinate
    number = text[start:end]
    return not (
        len(number) == 4
        and number.isdigit()
        and 1900 <= int(number) <= 2099
        and not _UNIT_AFTER.match(after)
    )


def _is_grouped_thousands(text: str, start: int, end: int) -> bool:
    number = text[start:end]
    if not number.isdigit():
        return False
    before_group = (
        len(number) == 3 and start >= 2 and text[start - 1] in ",，" and text[start - 2].isdigit()
    )
    after_group = (
        re.match(r"[,，]\d{3}(?![\d.])", text[end : end + 5]) is not None and len(number) <= 3
    )
    return before_group or after_group


def _brace_depths(text: str) -> list[int]:
    """Brace depth before each character (never negative, so a stray "}" does no harm)."""
    depths, depth = [], 0
    for char in text:
        depths.append(depth)
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
    depths.append(depth)
    return depths


def _free_name(text: str) -> str | None:
    """The first unknown name the problem does not use as a symbol in either case."""
    for name in UNKNOWN_NAMES:
        upper = re.search(rf"(?<![a-z]){name}(?![a-z])", text)
        lower = re.search(rf"(?<![A-Za-z\\]){name.lower()}(?![A-Za-z])", text)
        if upper is None and lower is None:
            return name
    return None


def _pick(seed: int | str, text: str, count: int) -> int:
    """A stable index in [0, count): the same seed and text give the same pick on any platform."""
    digest = hashlib.sha256(f"{seed}\x00{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % count
