"""Keypoint data types: one canonical, hashable fact a geometric caption states.

Why frozen tuples of strings: matching two captions is then set arithmetic on keys
(fast, deterministic, easy to explain in a report); everything notational (AB vs BA,
triangle ABC vs BCA) has already been removed by `canonical` before a keypoint exists.

Reference strings inside `args` are the same everywhere (elements, relations, numbers):

- point `A`, `A1`, `A'`; segment or line through two points `AB` (points sorted);
- named line `ℓl`; axis `x-axis`; circle `⊙O` (`⊙` alone: an unnamed circle);
- polygon `ABCD` (smallest rotation/reflection); angle `∠ABC` (ends sorted, vertex in
  the middle), `∠B` (vertex only), `∠1` (a numbered angle); arc `⌒AB`, `⌒ACB`;
- plane `plane ABC` / `plane α`; solid `cube ABCD-A1B1C1D1`, `cylinder` (unnamed).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

ELEMENT = "element"
RELATION = "relation"
NUMERICAL = "numerical"
DIMENSIONS: tuple[str, ...] = (ELEMENT, RELATION, NUMERICAL)

Value = float | tuple[float, ...] | str | None


@dataclass(frozen=True, slots=True)
class Keypoint:
    """One fact: `dimension` (element / relation / numerical), `kind`, canonical `args`, `value`.

    `value` is a float (lengths, areas; angles in degrees), a tuple of floats (coordinates,
    ratios scaled so the first part is 1), a short string (a shape property such as
    "isosceles", an equation's normalised text) or None. `text` is the caption span the
    keypoint came from, kept for reports only: it takes no part in equality or hashing.
    """

    dimension: str
    kind: str
    args: tuple[str, ...] = ()
    value: Value = None
    text: str = field(default="", compare=False, hash=False)

    @property
    def key(self) -> tuple[str, str, tuple[str, ...]]:
        """What must be equal for two keypoints to match; values are then compared by value."""
        return (self.dimension, self.kind, self.args)

    def to_dict(self) -> dict[str, Any]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"dimension": self.dimension, "kind": self.kind, "args": list(self.args), "value": value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Keypoint:
        value = data.get("value")
        if isinstance(value, list):
            value = tuple(float(v) for v in value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            value = float(value)
        return cls(data["dimension"], data["kind"], tuple(data.get("args", ())), value)

    def __str__(self) -> str:
        return to_text(self)


class KeypointSet:
    """The keypoints of one caption, deduplicated, in first-seen order, with per-dimension views."""

    __slots__ = ("_items",)

    def __init__(self, keypoints: Iterable[Keypoint] = ()) -> None:
        self._items: tuple[Keypoint, ...] = tuple(dict.fromkeys(keypoints))

    def __iter__(self) -> Iterator[Keypoint]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeypointSet) and set(self._items) == set(other._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items))

    def __repr__(self) -> str:
        return f"KeypointSet([{', '.join(to_text(k) for k in self._items)}])"

    def dimension(self, name: str) -> tuple[Keypoint, ...]:
        if name not in DIMENSIONS:
            raise ValueError(f"unknown dimension {name!r}; expected one of {DIMENSIONS}")
        return tuple(k for k in self._items if k.dimension == name)

    @property
    def elements(self) -> tuple[Keypoint, ...]:
        return self.dimension(ELEMENT)

    @property
    def relations(self) -> tuple[Keypoint, ...]:
        return self.dimension(RELATION)

    @property
    def numerical(self) -> tuple[Keypoint, ...]:
        return self.dimension(NUMERICAL)

    def texts(self) -> list[str]:
        return [to_text(k) for k in self._items]

    def to_list(self) -> list[dict[str, Any]]:
        return [k.to_dict() for k in self._items]

    @classmethod
    def from_list(cls, data: Iterable[dict[str, Any]]) -> KeypointSet:
        return cls(Keypoint.from_dict(d) for d in data)


# --------------------------------------------------------------------------- readable text

_SQRT_BASES = (2, 3, 5, 6, 7, 10, 11, 13, 14, 15)


def format_number(value: float) -> str:
    """Short exact-looking text for a float: `5`, `2.5`, `2√3`, `√2/2`-style values as `k√n`."""
    if not math.isfinite(value):
        return str(value)
    rounded = round(value)
    if abs(value - rounded) <= 1e-9 * max(1.0, abs(value)):
        return str(int(rounded))
    for base in _SQRT_BASES:
        for denominator in (1, 2, 3, 4, 6):
            k = value * denominator / math.sqrt(base)
            kr = round(k)
            if kr and abs(k - kr) <= 1e-9 * max(1.0, abs(k)):
                head = "" if kr == 1 else "-" if kr == -1 else str(kr)
                tail = "" if denominator == 1 else f"/{denominator}"
                return f"{head}√{base}{tail}"
    return f"{value:.6g}"


def _fmt_value(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        return ", ".join(format_number(v) for v in value)
    return format_number(value)


def _whole_parts(parts: tuple[float, ...]) -> tuple[float, ...]:
    """1:0.5 -> 2:1 for display, when the parts are small fractions of each other."""
    fractions = [Fraction(p).limit_denominator(12) for p in parts]
    if any(not math.isclose(float(f), p, rel_tol=1e-9) for f, p in zip(fractions, parts, strict=True)):
        return parts
    scale = math.lcm(*(f.denominator for f in fractions))
    return tuple(float(f * scale) for f in fractions)


_RELATION_SYMBOLS = {"parallel": " ∥ ", "perpendicular": " ⊥ ", "congruent": " ≅ ", "similar": " ∼ "}


def to_text(kp: Keypoint) -> str:
    """One readable line per keypoint, for reports: `triangle ABC`, `AB ∥ CD`, `∠ABC = 60°`."""
    args = kp.args
    if kp.dimension == ELEMENT:
        name = " ".join(args)
        return name if name.startswith(kp.kind) else f"{kp.kind} {name}".strip()
    if kp.dimension == RELATION:
        if kp.kind in _RELATION_SYMBOLS and len(args) == 2:
            return _RELATION_SYMBOLS[kp.kind].join(args)
        if kp.kind == "property":
            return f"{args[0]} is {kp.value}"
        if kp.kind == "intersect":
            return f"{' ∩ '.join(args[:-1])} at {args[-1] or '?'}"
        if kp.kind == "tangent":
            at = f" at {args[-1]}" if args[-1] else ""
            return f"{args[0]} tangent to {args[1]}{at}"
        if kp.kind in ("median", "altitude", "angle_bisector", "diagonal"):
            role = kp.kind.replace("_", " ")
            return f"{args[0]} is {'an' if role[0] in 'aeiou' else 'a'} {role}"
        if len(args) == 2 and kp.kind not in ("collinear", "concentric"):
            return f"{args[0]} {kp.kind.replace('_', ' ')} {args[1]}"
        return f"{kp.kind.replace('_', ' ')}({', '.join(args)})"
    # numerical
    if kp.kind == "length":
        return f"{args[0]} = {_fmt_value(kp.value)}"
    if kp.kind == "angle":
        return f"{args[0]} = {_fmt_value(kp.value)}°"
    if kp.kind == "coordinate":
        return f"{args[0]}({_fmt_value(kp.value)})"
    if kp.kind == "ratio" and isinstance(kp.value, tuple):
        return f"{':'.join(args)} = {':'.join(format_number(v) for v in _whole_parts(kp.value))}"
    if kp.kind in ("equal_length", "equal_angle"):
        return " = ".join(args)
    if kp.kind == "equation":
        return str(kp.value)
    target = f" of {args[0]}" if args and args[0] else ""
    return f"{kp.kind.replace('_', ' ')}{target} = {_fmt_value(kp.value)}"
