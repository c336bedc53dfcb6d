"""Match a candidate caption's keypoints against a reference's: per-dimension recall/precision/F1.

Rules (the CapGeo keypoint-recall protocol, made exact and deterministic):

- two keypoints match when dimension, kind and canonical args are equal and their values
  are equal by value (1e-9 relative; `canonical.values_equal`); matching is one-to-one;
- a vertex-only angle `∠B` on one side is read as `∠XBY` when the other side names exactly
  one angle at vertex B (∠XBY) and its own side names no other angle at B. (Inside one
  caption, `∠B` was already resolved to the interior angle of the one polygon having
  vertex B, see `_engine.Builder._vertex_angles`.);
- an equality `AB = AC` (equal_length / equal_angle) is also matched when the other side
  gives both members the same value (`AB = 5`, `AC = 5`): the equality is stated there by
  implication. Recall counts the reference keypoints matched; precision counts the
  candidate keypoints that are not extra, so this rule can make the two TP counts differ;
- a keypoint that follows from the other side's keypoints (`derive.closure`: a named
  figure's vertices and sides, a median from a midpoint, the centroid from two medians, a
  point on two lines as their intersection...; docs/keypoint_annotation_guide.md) counts
  as stated there, for recall and for precision alike;
- a relation left unmatched is then matched, one-to-one, with a relation of the same kind
  whose arguments differ only where one side leaves an object unnamed: a circle written
  "the circle" (`⊙`) against the one named there (`⊙O`), or a tangency whose point of
  contact one side does not give (`_loosely_same`). Writers name the one circle once and
  then say "the circle"; the fact stated is the same;
- recall = matched / reference keypoints; None when the reference has none in that
  dimension (nothing to recall: neither success nor failure, left out of averages);
  precision = (candidate - extra) / candidate, None for an empty candidate; F1 is their
  harmonic mean, 0 when recall is 0, None when recall is None.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from . import canonical as cn
from ._engine import UNLISTED_TEXT, order_args
from .derive import closure, derivable
from .model import DIMENSIONS, NUMERICAL, RELATION, Keypoint, KeypointSet, to_text

EQUALITIES = {"equal_length": "length", "equal_angle": "angle"}
UNNAMED_CIRCLE = "⊙"  # a circle the caption does not name (model.py)


@dataclass(frozen=True, slots=True)
class DimensionScore:
    """One dimension's outcome, with the keypoints behind it for a readable report."""

    dimension: str
    gt: int
    pred: int
    matched: tuple[Keypoint, ...]  # reference keypoints the candidate states
    missed: tuple[Keypoint, ...]  # reference keypoints the candidate does not state
    extra: tuple[Keypoint, ...]  # candidate keypoints the reference does not state

    @property
    def tp(self) -> int:
        return len(self.matched)

    @property
    def tp_candidate(self) -> int:
        return self.pred - len(self.extra)

    @property
    def recall(self) -> float | None:
        return self.tp / self.gt if self.gt else None

    @property
    def precision(self) -> float | None:
        return self.tp_candidate / self.pred if self.pred else None

    @property
    def f1(self) -> float | None:
        r, p = self.recall, self.precision
        if r is None:
            return None
        if p is None or r == 0 or p == 0:
            return 0.0
        return 2 * r * p / (r + p)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Per-dimension scores of one candidate against one reference."""

    scores: tuple[DimensionScore, ...]

    def __getitem__(self, dimension: str) -> DimensionScore:
        for s in self.scores:
            if s.dimension == dimension:
                return s
        raise KeyError(dimension)

    @property
    def recall(self) -> dict[str, float | None]:
        return {s.dimension: s.recall for s in self.scores}

    @property
    def precision(self) -> dict[str, float | None]:
        return {s.dimension: s.precision for s in self.scores}

    @property
    def f1(self) -> dict[str, float | None]:
        return {s.dimension: s.f1 for s in self.scores}

    @property
    def overall(self) -> DimensionScore:
        """All dimensions pooled (micro): one number for a quick look."""
        return DimensionScore(
            "overall",
            sum(s.gt for s in self.scores),
            sum(s.pred for s in self.scores),
            tuple(k for s in self.scores for k in s.matched),
            tuple(k for s in self.scores for k in s.missed),
            tuple(k for s in self.scores for k in s.extra),
        )

    def to_dict(self) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for s in (*self.scores, self.overall):
            out[s.dimension] = {
                "gt": s.gt, "pred": s.pred, "tp": s.tp, "recall": s.recall, "precision": s.precision,
                "f1": s.f1, "missed": [to_text(k) for k in s.missed], "extra": [to_text(k) for k in s.extra],
            }
        return out

    def report(self) -> str:
        lines = []
        for s in self.scores:
            lines.append(
                f"{s.dimension:9s} recall {_fmt(s.recall)} ({s.tp}/{s.gt})  precision {_fmt(s.precision)} "
                f"({s.tp_candidate}/{s.pred})  F1 {_fmt(s.f1)}"
            )
            lines += [f"    missed: {to_text(k)}" for k in s.missed]
            lines += [f"    extra:  {to_text(k)}" for k in s.extra]
        return "\n".join(lines)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


# --------------------------------------------------------------------------- angle vertices

def _angle_names(keypoints: Iterable[Keypoint]) -> dict[str, set[str]]:
    by_vertex: dict[str, set[str]] = defaultdict(set)
    for kp in keypoints:
        for a in kp.args:
            if a.startswith("∠") and len(cn.point_tokens(a)) == 3:
                vertex = cn.angle_vertex(a)
                if vertex:
                    by_vertex[vertex].add(a)
    return by_vertex


def _has_vertex_angle(keypoints: Iterable[Keypoint]) -> bool:
    return any(a.startswith("∠") and len(cn.point_tokens(a)) == 1 for kp in keypoints for a in kp.args)


def _rewrite_vertex_angles(own: Sequence[Keypoint], other: Sequence[Keypoint]) -> list[Keypoint]:
    if not _has_vertex_angle(own):
        return list(own)
    own_full = _angle_names(own)
    other_full = _angle_names(other)
    mapping: dict[str, str] = {}
    for kp in own:
        for a in kp.args:
            if a.startswith("∠") and a not in mapping:
                tokens = cn.point_tokens(a)
                if len(tokens) == 1 and a == f"∠{tokens[0]}":
                    there = other_full.get(tokens[0], set())
                    if len(there) == 1 and own_full.get(tokens[0], set()) <= there:
                        mapping[a] = next(iter(there))
    if not mapping:
        return list(own)
    out = []
    for kp in own:
        args = tuple(mapping.get(a, a) for a in kp.args)
        out.append(kp if args == kp.args else replace(kp, args=order_args(kp.kind, args)))
    return list(KeypointSet(out))


# --------------------------------------------------------------------------- matching

def _values(keypoints: Iterable[Keypoint]) -> dict[tuple[str, str], list[float]]:
    found: dict[tuple[str, str], list[float]] = defaultdict(list)
    for kp in keypoints:
        if kp.dimension == NUMERICAL and kp.kind in ("length", "angle") and isinstance(kp.value, float):
            found[(kp.kind, kp.args[0])].append(kp.value)
    return found


def _implied(kp: Keypoint, values: dict[tuple[str, str], list[float]]) -> bool:
    quantity = EQUALITIES.get(kp.kind)
    if quantity is None or kp.dimension != NUMERICAL or len(kp.args) != 2:
        return False
    xs, ys = values.get((quantity, kp.args[0]), []), values.get((quantity, kp.args[1]), [])
    return any(cn.close(x, y) for x in xs for y in ys)


_CONTACT = {"external": re.compile(r"externally|tangent externally|outside each other|from outside|外切"),
            "internal": re.compile(r"internally|tangent internally|from inside|内切")}


def _contact(kp: Keypoint) -> str | None:
    """The kind of contact a tangency of two circles is written with (guide: the qualifier is part of the
    keypoint; `tangent` alone covers either, the other qualifier does not)."""
    if kp.kind != "tangent" or not kp.text or not all(a.startswith("⊙") for a in kp.args[:2]):
        return None
    found = [kind for kind, rx in _CONTACT.items() if rx.search(kp.text)]
    return found[0] if len(found) == 1 else None


def _same_value(a: Keypoint, b: Keypoint) -> bool:
    """Values equal by value; ratios as proportions, so a hand-written `AP:BP = 2:3` equals 1:1.5."""
    if a.kind == "tangent":
        ca, cb = _contact(a), _contact(b)
        if ca and cb and ca != cb:
            return False
    if a.kind == "angle_bisector":  # the bisected angle, where both name it in full, must be the same angle
        return not (isinstance(a.value, str) and isinstance(b.value, str) and len(cn.point_tokens(a.value)) == 3
                    and len(cn.point_tokens(b.value)) == 3 and a.value != b.value)
    if a.kind == "ratio" and isinstance(a.value, tuple) and isinstance(b.value, tuple):
        return cn.values_equal(cn.proportion(a.value), cn.proportion(b.value))
    return cn.values_equal(a.value, b.value)


class _Follows:
    """Whether a keypoint follows from one caption's keypoints (`derive.closure`), computed on first use."""

    __slots__ = ("_derived", "_keypoints")

    def __init__(self, keypoints: Sequence[Keypoint]) -> None:
        self._keypoints = keypoints
        self._derived: dict[tuple, list[Keypoint]] | None = None

    def __call__(self, kp: Keypoint) -> bool:
        if not derivable(kp):
            return False
        if self._derived is None:
            self._derived = defaultdict(list)
            for d in closure(self._keypoints):
                self._derived[d.key].append(d)
        return any(_same_value(d, kp) for d in self._derived.get(kp.key, ()))


def _loosely_same(r: Keypoint, c: Keypoint) -> bool:
    """Whether two relations of one kind state the same fact but for an object one side leaves
    unnamed: an unnamed circle against a named one, or a tangency without its point of contact."""
    if r.kind != c.kind or len(r.args) != len(c.args) or r.args == c.args or not _same_value(c, r):
        return False
    for position, (a, b) in enumerate(zip(r.args, c.args, strict=True)):
        if a == b:
            continue
        if UNNAMED_CIRCLE in (a, b) and a.startswith(UNNAMED_CIRCLE) and b.startswith(UNNAMED_CIRCLE):
            continue
        if r.kind == "tangent" and position == 2 and "" in (a, b):
            continue
        return False
    return True


def _match_dimension(dimension: str, cand: list[Keypoint], ref: list[Keypoint], cand_values, ref_values,
                     cand_follows: _Follows, ref_follows: _Follows) -> DimensionScore:
    pool: dict[tuple, list[Keypoint]] = defaultdict(list)
    for kp in cand:
        pool[kp.key].append(kp)
    matched: list[Keypoint] = []
    missed: list[Keypoint] = []
    for r in ref:
        bucket = pool.get(r.key)
        hit = next((i for i, c in enumerate(bucket) if _same_value(c, r)), None) if bucket else None
        if hit is not None:
            bucket.pop(hit)  # type: ignore[union-attr]
            matched.append(r)
        elif _implied(r, cand_values) or cand_follows(r):
            matched.append(r)
        else:
            missed.append(r)
    if dimension == RELATION and missed:
        left = [c for bucket in pool.values() for c in bucket]
        for r in list(missed):
            c = next((c for c in left if _loosely_same(r, c)), None)
            if c is not None:
                left.remove(c)
                pool[c.key].remove(c)
                missed.remove(r)
                matched.append(r)
    extra = [c for bucket in pool.values() for c in bucket if not (_implied(c, ref_values) or ref_follows(c))]
    order = {id(c): i for i, c in enumerate(cand)}
    extra.sort(key=lambda c: order[id(c)])
    return DimensionScore(dimension, len(ref), len(cand), tuple(matched), tuple(missed), tuple(extra))


def match(candidate: KeypointSet | Iterable[Keypoint], reference: KeypointSet | Iterable[Keypoint]) -> MatchResult:
    """Score `candidate` against `reference`, per dimension (see the module docstring for the rules)."""
    cand_all = list(KeypointSet(candidate))
    # a bare name in a denied clause, a plane never written as one: no element of the reference (guide)
    ref_all = [k for k in KeypointSet(reference) if not k.text.startswith(UNLISTED_TEXT)]
    cand_all, ref_all = _rewrite_vertex_angles(cand_all, ref_all), _rewrite_vertex_angles(ref_all, cand_all)
    cand_values, ref_values = _values(cand_all), _values(ref_all)
    cand_follows, ref_follows = _Follows(cand_all), _Follows(ref_all)
    scores = []
    for dimension in DIMENSIONS:
        cand = [k for k in cand_all if k.dimension == dimension]
        ref = [k for k in ref_all if k.dimension == dimension]
        scores.append(_match_dimension(dimension, cand, ref, cand_values, ref_values, cand_follows, ref_follows))
    return MatchResult(tuple(scores))


def summarize(results: Iterable[MatchResult]) -> dict[str, dict[str, float | int | None]]:
    """Corpus scores per dimension: macro means over captions (None recalls left out) and micro totals."""
    results = list(results)
    out: dict[str, dict[str, float | int | None]] = {}
    for dimension in (*DIMENSIONS, "overall"):
        scores = [r.overall if dimension == "overall" else r[dimension] for r in results]
        row: dict[str, float | int | None] = {"captions": len(scores)}
        for name in ("recall", "precision", "f1"):
            values = [getattr(s, name) for s in scores if getattr(s, name) is not None]
            row[name] = sum(values) / len(values) if values else None
            row[f"{name}_n"] = len(values)
        gt, pred = sum(s.gt for s in scores), sum(s.pred for s in scores)
        tp, tpc = sum(s.tp for s in scores), sum(s.tp_candidate for s in scores)
        row.update(gt=gt, pred=pred, tp=tp,
                   micro_recall=tp / gt if gt else None, micro_precision=tpc / pred if pred else None)
        out[dimension] = row
    return out
