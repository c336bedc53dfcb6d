"""Scoring a candidate GeoGebra construction against a reference one by what it builds.

GGBench calls GeoGebra code "machine-verifiable ground truth" but scores it without running it;
this module runs the comparison that claim implies. Both scripts are executed elsewhere (see
`geomeval.geogebra.executor`); here only the resulting `Construction`s meet.

What counts. Reference objects that are defined, visible and geometric (points; lines,
segments, rays, vectors; circles, arcs, sectors; polygons). Hidden objects are auxiliary in
GeoGebra figures, and numbers carry no geometry, so neither counts unless named in `targets`;
`targets` restricts the *scored* objects to those labels, while the whole visible reference
still drives the alignment and supplies relations (those touching at least one target).
Candidate objects must be defined and visible (a hidden answer is no answer); candidate numbers
count whether shown or not. Lists, texts and booleans are ignored. Extra candidate objects cost
nothing: auxiliary construction is normal.

Alignment. A model may put its figure anywhere and at any size unless the problem fixes
coordinates (`fixed_coordinates=True`: compare in place), so the reference is mapped onto the
candidate by the similarity (translation, rotation, uniform scale, optional reflection) that
explains the most of it. Labels are the cheapest evidence, so they come first: a closed-form
Procrustes fit over shared point labels (with and without reflection), then each pair of shared
labels, so that one misplaced point cannot drag the fit. When labels are missing or lie,
correspondences are searched by geometry: up to three well-spread reference base pairs onto
every ordered pair of at most `MAX_SEARCH_POINTS` well-spread candidate points, both
orientations, each hypothesis screened on `SEARCH_SAMPLE` reference points. Identity is always a
contender. A hypothesis that puts every reference point on a candidate point is matched object
by object, and the search stops at one that matches everything (with all the label agreement
the labels allow); otherwise the best few by points are matched in full. The winner matches the
most reference objects; ties go to more label agreement, then identity, then direct over
reflected, then the lower residual. With fewer than two reference points (after taking a
circle's radius or a ray's direction as a stand-in) only translations are tried.

Object checks (weight 1 each). Same label and the same geometry after alignment passes "by
label"; otherwise any unused candidate of a compatible kind within tolerance passes "by
geometry"; otherwise the check fails, keeping a same-labelled candidate of a compatible kind
as the object's stand-in for relation checks, or naming the nearest candidate as a hint.
Compatible kinds: point-point; segment-segment (either endpoint order); line-line, or a ray or
segment on the same carrier (passes, reported as such, since drawing a line as a segment is a
rendering choice); ray-ray; vector-vector (free vectors by components); circle-circle (radius
scales); arc-arc and sector-sector by centre, radius, endpoints and midpoint (a reflection swaps
the endpoints, since it reverses orientation); polygon-polygon by vertex cycle up to rotation
and reversal; number/angle-number/angle by value: angles are invariant (2π - v when reflected),
a plain number may be a ratio, a length or an area (v, v·s or v·s², s the scale). A candidate
object serves one reference object, except that reference objects identical to each other (a
polygon side redrawn as a segment) may share one. Matching is greedy in construction order.

Relation checks (weight 1 each). Relations the reference satisfies, each checked on the
candidate objects its reference objects map to (failing with "object X missing" when one has
no stand-in): a point on a line, segment, ray, circle or arc (a segment's or arc's endpoints
and a ray's start are skipped: they hold by definition); parallels (chained through one member
per distinct carrier of each direction class); perpendiculars (one per pair of perpendicular
direction classes); tangency of a line-like object to a circle-like one, and of two circles
(internal or external); equal lengths among segments (chained within each length class,
identical segments skipped); collinear triples and concyclic quadruples among the first
`MAX_CYCLIC_POINTS` distinct points (constructed points first) that no reference line or
circle already carries (chained from the first two or three points). All are invariant under
similarities, so they give partial credit when alignment cannot place an object: a line through
the right point at the wrong angle keeps "M lies on l" and loses "AB ⊥ l". At most
`MAX_RELATIONS` are kept: those touching a constructed (non-free) object first, then
round-robin across the categories in the order above, each category in construction order.

Tolerances and score. Distances pass within ``tolerance * max(1, D)`` in reference units, D
being the bounding-box diagonal of the reference's points and circle extents (scaled into
candidate units by the alignment); infinite objects are compared at witness points spread over
D, so a small turn counts as the displacement it causes across the figure. Directions pass
within ``tolerance`` (|sin| for parallels, |cos| for perpendiculars); numbers within
``tolerance * max(1, |value|)``. The default 1e-6 suits exact constructions, whose errors are
orders of magnitude smaller; scripts that type rounded coordinates need a looser tolerance.
Failed checks report how far off they were, in reference units (degrees for directions). The
score is the weighted fraction of passed checks; with no qualifying reference objects it is 1.0
when the candidate has no scorable objects either, else 0.0. A candidate whose script did not
fully run is scored on what it built (`Verdict.candidate_ran` says so).

Numbers beyond comparison. An object whose coordinates, radius or value are not finite or
exceed `MAX_COORDINATE` in size counts as undefined (GeoGebra draws neither), and alignments
scaling by more than `MAX_SCALE` or less than its inverse are not considered, so that no
distance computed here overflows: such an object in an answer is simply missing.

All work is bounded (`MAX_OBJECTS` per side, the search and relation caps (in `shapes` and `relations`), a polygon
comparison trying a few cyclic shifts), so a hostile or runaway candidate cannot make scoring
slow: 600 random points take well under a second.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from geomeval.geogebra.construction import Construction
from geomeval.geogebra.relations import (
    _FAMILY_WORD,
    Check,
    _check_relation,
    _derive_relations,
    _Namer,
)
from geomeval.geogebra.shapes import (
    _NUMERIC,
    _anchor,
    _bbox,
    _carrier_key,
    _dedupe_keys,
    _error,
    _extent_points,
    _fit,
    _foot,
    _Frame,
    _Grid,
    _index_candidate,
    _Item,
    _items,
    _num,
    _pair_similarity,
    _raw_keys,
    _Shape,
    _Side,
    _Similarity,
)

# Candidate points tried as images of a reference base pair (ordered pairs: at most 60·59).
MAX_SEARCH_POINTS = 60


# Reference points a search hypothesis is screened on before a full evaluation.
SEARCH_SAMPLE = 8


# Reference base pairs tried in the geometric search.
SEARCH_BASE_PAIRS = 3


# Hypotheses that survive screening; the best few of all hypotheses get full object matching.
SEARCH_KEEP = 10


FULL_MATCH_KEEP = 4


# Object matches (summed over hypotheses) spent on hypotheses that fit every key point.
FULL_MATCH_WORK = 20_000


# Shared labels used for pairwise label hypotheses (at most 20·19/2 pairs).
MAX_LABEL_PAIRS_LABELS = 20


# A failed object's "nearest candidate" hint is only searched in buckets this small.
MAX_NEAREST_SCAN = 300


# What a reference object of each family may match, best first. A reference line accepts a
# candidate ray or segment on the same carrier (a drawing choice), reported as such.
_COMPATIBLE: dict[str, tuple[str, ...]] = {
    "point": ("point",),
    "segment": ("segment",),
    "line": ("line", "ray", "segment"),
    "ray": ("ray",),
    "vector": ("vector",),
    "circle": ("circle",),
    "arc": ("arc",),
    "sector": ("sector",),
    "polygon": ("polygon",),
    "number": ("number", "angle"),
    "angle": ("angle", "number"),
}


_GEOMETRIC = frozenset(_COMPATIBLE) - {"number", "angle"}


@dataclass(frozen=True)
class Verdict:
    """The score and the evidence behind it, so a reader can see why a candidate lost points.

    `mapping` holds every reference object that has a candidate stand-in: the geometric match,
    or, failing one, the same-labelled candidate object of a compatible kind (whose object check
    fails but which relation checks still use).
    """

    score: float
    checks: tuple[Check, ...]
    mapping: dict[str, str]
    transform: str
    candidate_ran: bool

    @property
    def passed(self) -> int:
        return sum(1 for check in self.checks if check.passed)

    def report(self) -> str:
        lines = [f"transform: {self.transform}"]
        if not self.candidate_ran:
            lines.append("candidate script did not run fully; scored what it built")
        for check in self.checks:
            mark = "✓" if check.passed else "✗"
            lines.append(f"{mark} {check.name}: {check.detail}")
        lines.append(f"score {self.score:.2f} ({self.passed}/{len(self.checks)} checks)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "passed": self.passed,
            "total": len(self.checks),
            "checks": [check.to_dict() for check in self.checks],
            "mapping": dict(self.mapping),
            "transform": self.transform,
            "candidate_ran": self.candidate_ran,
        }


@dataclass
class _Match:
    cand: int | None = None
    passed: bool = False
    how: str = ""
    err: float = math.inf


@dataclass
class _Matching:
    frame: _Frame
    matches: list[_Match]
    passed: int = 0
    label_agree: int = 0
    residual: float = 0.0


def _within(err: float, m: _Shape, frame: _Frame, tolerance: float) -> bool:
    limit = tolerance if m.family in _NUMERIC else frame.tol
    return err <= limit


def _match_objects(
    ref: list[_Item], cand: _Side, frame: _Frame, tolerance: float, *, nearest: bool = False
) -> _Matching:
    """Greedy matching in construction order: a candidate object serves one reference object,
    except that reference objects identical to each other (a polygon side drawn again as a
    segment) may share one."""
    mapped = [frame.transform.map_shape(item.shape) for item in ref]
    matches = [_Match() for _ in ref]
    used: dict[int, int] = {}

    def shareable(j: int, i: int) -> bool:
        other = mapped[used[j]]
        return other.family == mapped[i].family and _within(
            _error(mapped[i], other, frame, tolerance), other, frame, tolerance
        )

    # Pass 1: a same-labelled candidate in the right place.
    for i, item in enumerate(ref):
        j = cand.by_label.get(item.label)
        if j is None or cand.items[j].shape.family not in _COMPATIBLE[item.shape.family]:
            continue
        err = _error(mapped[i], cand.items[j].shape, frame, tolerance)
        if _within(err, mapped[i], frame, tolerance) and (j not in used or shareable(j, i)):
            matches[i] = _Match(j, True, "label", err)
            used.setdefault(j, i)
    # Pass 2: any candidate of a compatible family in the right place, unused ones first.
    for i, m in enumerate(mapped):
        if matches[i].passed:
            continue
        for fam in _COMPATIBLE[m.family]:
            best: tuple[bool, float, int] | None = None
            for j in _nearby(cand, fam, m, frame):
                err = _error(m, cand.items[j].shape, frame, tolerance)
                if not _within(err, m, frame, tolerance):
                    continue
                key = (j in used, err, j)
                if (best is None or key < best) and (j not in used or shareable(j, i)):
                    best = key
            if best is not None:
                how = "geometry" if fam == m.family or m.family in _NUMERIC else f"carrier:{fam}"
                matches[i] = _Match(best[2], True, how, best[1])
                used.setdefault(best[2], i)
                break
    # Pass 3: failures keep a same-labelled stand-in (for relations) or a nearest-miss hint.
    for i, item in enumerate(ref):
        if matches[i].passed:
            continue
        j = cand.by_label.get(item.label)
        if (
            j is not None
            and j not in used
            and cand.items[j].shape.family in _COMPATIBLE[item.shape.family]
        ):
            err = _error(mapped[i], cand.items[j].shape, frame, tolerance)
            matches[i] = _Match(j, False, "label", err)
            used[j] = i
        elif nearest:
            matches[i] = _nearest_miss(mapped[i], cand, frame, tolerance)
    result = _Matching(frame, matches)
    for i, match in enumerate(matches):
        if match.passed:
            result.passed += 1
            result.residual += match.err if math.isfinite(match.err) else 0.0
            if cand.items[match.cand or 0].label == ref[i].label:
                result.label_agree += 1
    return result


def _nearby(cand: _Side, fam: str, m: _Shape, frame: _Frame) -> Iterator[int]:
    """Candidates of family `fam` that may lie within tolerance of `m` (a superset).

    Each index key moves no more than the match error allows. A line within tol of another at
    witnesses `size` apart turns by at most ~2·tol/size and shifts its offset from the index
    origin by at most tol·(1 + 2·d/size), d being the origin's distance from the witnesses'
    centre; the query radius has 3x slack on both. Vector components move by at most twice
    the endpoint error."""
    idxs = cand.by_family.get(fam, [])
    radius = frame.tol
    grid: _Grid | None
    if m.family == "line":
        grid = cand.carrier_grids.get(fam)
        anchor: complex | None = _carrier_key(m, cand.origin, cand.span)
        far = abs(cand.origin - _foot(frame.centre, m))
        radius = frame.tol * (3 + 6 * (far + cand.span) / frame.size)
    elif m.family == "vector":
        grid = cand.vector_grid
        anchor = m.pts[1] - m.pts[0]
        radius = 2 * frame.tol
    else:
        grid = cand.grids.get(fam)
        anchor = _anchor(m) if fam == m.family else None
    if grid is None or anchor is None:
        yield from idxs
        return
    for _, j in grid.near(anchor, radius):
        yield j


def _nearest_miss(m: _Shape, cand: _Side, frame: _Frame, tolerance: float) -> _Match:
    """The closest compatible candidate, as a hint in the report (never a match)."""
    best = _Match()
    for fam in _COMPATIBLE[m.family]:
        idxs = cand.by_family.get(fam, [])
        if len(idxs) > MAX_NEAREST_SCAN:
            continue
        for j in idxs:
            err = _error(m, cand.items[j].shape, frame, tolerance)
            if err < best.err:
                best = _Match(j, False, "nearest", err)
    return best


@dataclass
class _KeyScore:
    transform: _Similarity
    hits: int
    label_agree: int
    residual: float
    pairs: list[tuple[complex, complex]] = field(default_factory=list)


def _simplicity(t: _Similarity, tol: float) -> int:
    return 2 if t.is_identity(tol) else (0 if t.reflect else 1)


class _Aligner:
    """Scores similarity hypotheses by how many reference key points land on candidate ones."""

    def __init__(
        self, ref_keys: list[complex], ref_labels: list[frozenset[str]], cand: _Side,
        diameter: float, tolerance: float,
    ) -> None:
        self.ref_keys = ref_keys
        self.ref_labels = ref_labels
        self.cand = cand
        self.diameter = diameter
        self.tolerance = tolerance

    def tol_for(self, t: _Similarity) -> float:
        return self.tolerance * max(1.0, self.diameter * t.scale)

    def score(self, t: _Similarity) -> _KeyScore:
        tol = self.tol_for(t)
        result = _KeyScore(t, 0, 0, 0.0)
        for z, labels in zip(self.ref_keys, self.ref_labels, strict=True):
            w = t(z)
            best: tuple[float, int] | None = None
            for wz, j in self.cand.key_grid.near(w, tol):
                d = abs(wz - w)
                if best is None or d < best[0]:
                    best = (d, j)
            if best is None:
                continue
            result.hits += 1
            result.residual += best[0]
            result.pairs.append((z, self.cand.keys[best[1]]))
            if labels & self.cand.key_labels[best[1]]:
                result.label_agree += 1
        return result

    def rank(self, s: _KeyScore) -> tuple[int, int, int, float]:
        simple = _simplicity(s.transform, self.tol_for(s.transform))
        return (s.hits, s.label_agree, simple, -s.residual)


def _farthest_point_order(points: Sequence[complex], count: int) -> list[int]:
    """Indices of up to `count` well-spread points, starting with an (approximate) diameter."""
    if not points:
        return []
    centre = sum(points) / len(points)
    first = max(range(len(points)), key=lambda i: abs(points[i] - centre))
    chosen = [first]
    dist = [abs(p - points[first]) for p in points]
    while len(chosen) < min(count, len(points)):
        nxt = max(range(len(points)), key=dist.__getitem__)
        if dist[nxt] <= 0:
            break
        chosen.append(nxt)
        for i, p in enumerate(points):
            d = abs(p - points[nxt])
            if d < dist[i]:
                dist[i] = d
    return chosen


def _label_pairs(ref: list[_Item], cand: _Side) -> list[tuple[complex, complex]]:
    out = []
    for item in ref:
        if item.shape.family != "point":
            continue
        j = cand.by_label.get(item.label)
        if j is not None and cand.items[j].shape.family == "point":
            out.append((item.shape.pts[0], cand.items[j].shape.pts[0]))
    return out


class _Search:
    """Hypotheses tried so far. A hypothesis that puts every reference key point on a candidate
    one gets a full object matching (key points say nothing about lines, free vectors or
    numbers, and a symmetric point set fits several ways); the search stops at one that
    matches every object with as much label agreement as the labels allow, or when the full
    matching budget (`FULL_MATCH_WORK` object matches in all) runs out."""

    def __init__(
        self, aligner: _Aligner, ref: list[_Item], cand: _Side, tolerance: float,
        frame_for: Callable[[_Similarity], _Frame],
    ) -> None:
        self.aligner = aligner
        self.ref = ref
        self.cand = cand
        self.tolerance = tolerance
        self.frame_for = frame_for
        self.scored: list[_KeyScore] = []
        self.full: list[_Matching] = []
        self.budget = FULL_MATCH_WORK
        self.max_agree = 0
        for item in ref:
            j = cand.by_label.get(item.label)
            if j is not None and cand.items[j].shape.family in _COMPATIBLE[item.shape.family]:
                self.max_agree += 1

    def consider(self, t: _Similarity | None) -> bool:
        """Score `t`; True when the search can stop."""
        if t is None or not all(
            math.isfinite(v) for v in (t.a.real, t.a.imag, t.b.real, t.b.imag)
        ):
            return False
        key = self.aligner.score(t)
        self.scored.append(key)
        if key.hits < len(self.aligner.ref_keys):
            return False
        if self.budget <= 0:
            return True
        self.budget -= max(1, len(self.ref))
        matching = _match_objects(self.ref, self.cand, self.frame_for(t), self.tolerance)
        self.full.append(matching)
        return matching.passed == len(self.ref) and matching.label_agree >= self.max_agree

    def run(self, tol_ref: float) -> None:
        """Identity, label fits, then the geometric search, stopping as soon as one is perfect."""
        aligner, cand = self.aligner, self.cand
        if self.consider(_Similarity()):
            return
        shared = _label_pairs(self.ref, cand)
        if len(shared) >= 2:
            if self.consider(_fit(shared, False)) or self.consider(_fit(shared, True)):
                return
        elif len(shared) == 1:
            (z, w), = shared
            if self.consider(_Similarity(1 + 0j, w - z, False)):
                return
        refk, candk = aligner.ref_keys, cand.keys
        if len(refk) < 2 or len(candk) < 2:
            # Too few points to fix a rotation and scale: try translations only.
            if len(refk) == 1:
                for w in candk[:MAX_SEARCH_POINTS]:
                    if self.consider(_Similarity(1 + 0j, w - refk[0], False)):
                        return
            return
        screened: list[tuple[int, int, _Similarity]] = []
        counter = 0

        def screen(t: _Similarity, sample: list[complex]) -> int:
            tol = aligner.tol_for(t)
            grid = cand.key_grid
            a, b = t.a, t.b
            if t.reflect:
                return sum(1 for z in sample if grid.has_near(a * z.conjugate() + b, tol))
            return sum(1 for z in sample if grid.has_near(a * z + b, tol))

        def keep(hits: int, t: _Similarity) -> None:
            nonlocal counter
            counter += 1
            item = (hits, -counter, t)
            if len(screened) < SEARCH_KEEP:
                heapq.heappush(screened, item)
            elif item > screened[0]:
                heapq.heapreplace(screened, item)

        # Pairs of shared labels: robust to a few misplaced labelled points.
        label_sample = [z for z, _ in shared[:MAX_LABEL_PAIRS_LABELS]]
        for (z1, w1), (z2, w2) in combinations(shared[:MAX_LABEL_PAIRS_LABELS], 2):
            for reflect in (False, True):
                t = _pair_similarity(z1, z2, w1, w2, reflect)
                if t is not None:
                    keep(screen(t, label_sample), t)
        for _, _, t in sorted(screened, reverse=True)[:3]:
            if self.consider(t):
                return
        screened.clear()
        # Geometric search: well-spread reference base pairs onto ordered candidate pairs.
        order = _farthest_point_order(refk, SEARCH_SAMPLE + 3)
        spread = [refk[i] for i in order]
        bases = [(0, 1), (0, 2), (1, 2)][:SEARCH_BASE_PAIRS]
        cand_pts = [candk[i] for i in _farthest_point_order(candk, MAX_SEARCH_POINTS)]
        for bi, bj in bases:
            if bj >= len(spread) or abs(spread[bi] - spread[bj]) <= tol_ref:
                continue
            r1, r2 = spread[bi], spread[bj]
            sample = [z for k, z in enumerate(spread) if k not in (bi, bj)][:SEARCH_SAMPLE]
            for c1 in cand_pts:
                for c2 in cand_pts:
                    if c1 == c2:
                        continue
                    for reflect in (False, True):
                        t = _pair_similarity(r1, r2, c1, c2, reflect)
                        if t is None:
                            continue
                        hits = screen(t, sample)
                        if hits == len(sample) and self.consider(t):
                            return
                        keep(hits, t)
        for _, _, t in sorted(screened, reverse=True):
            if self.consider(t):
                return


def _refine(aligner: _Aligner, best: _KeyScore) -> _KeyScore | None:
    """Re-fit on all matched key points, so a two-point hypothesis does not carry its noise."""
    if len(best.pairs) < 2:
        return None
    t = _fit(best.pairs, best.transform.reflect)
    return aligner.score(t) if t is not None else None


def _object_check(
    item: _Item, match: _Match, cand: _Side, frame: _Frame, side_labels: dict[str, str]
) -> Check:
    name = f"{_FAMILY_WORD[item.shape.family]} {item.label}"
    scale = frame.transform.scale
    numeric = item.shape.family in _NUMERIC

    def off(err: float) -> str:
        if not math.isfinite(err):
            return "does not correspond"
        if numeric:
            return f"off by {_num(err)} (relative)"
        return f"off by {_num(err / scale)}"

    if match.passed and match.cand is not None:
        other = cand.items[match.cand]
        if match.how == "label":
            detail = f"matched candidate {other.label} (by label)"
        elif match.how.startswith("carrier:"):
            detail = (
                f"matched candidate {other.label} (by geometry; a {match.how[8:]} on the same line)"
            )
        else:
            basis = "value" if numeric else "geometry"
            detail = f"matched candidate {other.label} (by {basis})"
        return Check("object", name, True, detail)
    if match.cand is not None and match.how == "label":
        return Check(
            "object", name, False,
            f"candidate {item.label} has the same label but is {off(match.err)}; no other match",
        )
    detail = "missing"
    if item.label in side_labels:
        detail += f" (candidate {item.label} is a {side_labels[item.label]})"
    elif match.cand is not None and match.how == "nearest" and math.isfinite(match.err):
        detail += f" (nearest candidate {cand.items[match.cand].label} {off(match.err)})"
    return Check("object", name, False, detail)


def verify(
    candidate: Construction,
    reference: Construction,
    *,
    fixed_coordinates: bool = False,
    tolerance: float = 1e-6,
    targets: list[str] | None = None,
) -> Verdict:
    """Compare `candidate` with `reference`; see the module docstring for the rules.

    `targets` restricts scoring to those reference labels (numbers and angles count only when
    named here, and named objects count even when hidden); an unknown label is a ValueError,
    an undefined one is skipped. With no qualifying reference objects the score is 1.0 when the
    candidate has no scorable objects either, else 0.0. Extra candidate objects cost nothing.
    """
    if not (tolerance > 0 and math.isfinite(tolerance)):
        raise ValueError(f"tolerance must be a positive number, got {tolerance!r}")
    if targets is not None:
        unknown = [label for label in targets if label not in reference.objects]
        if unknown:
            raise ValueError(f"targets not in the reference construction: {unknown}")
    ran = candidate.pass_at_1
    # The whole visible reference aligns and gives relations; `scored` are the objects checked.
    wanted = set(targets) if targets is not None else None
    ref = _items(reference, wanted, numbers=False)
    scored = {item.label for item in ref if wanted is None or item.label in wanted}
    cand_items = _items(candidate, None, numbers=True)
    if not scored:
        empty = not any(item.shape.family in _GEOMETRIC for item in cand_items)
        return Verdict(1.0 if empty else 0.0, (), {}, "identity", ran)

    ref_extent = [z for item in ref for z in _extent_points(item.shape)]
    centre, diameter = _bbox(ref_extent)
    tol_ref = tolerance * max(1.0, diameter)
    ref_keys, ref_key_labels = _dedupe_keys(_raw_keys(ref, False), tol_ref)
    degenerate = len(ref_keys) < 2
    if degenerate:
        ref_keys, ref_key_labels = _dedupe_keys(_raw_keys(ref, True), tol_ref)
    cand_extent = [z for item in cand_items for z in _extent_points(item.shape)]
    _, cand_diameter = _bbox(cand_extent)
    cand = _index_candidate(cand_items, degenerate, tolerance * max(1.0, cand_diameter))
    size = diameter if diameter > 0 else 1.0

    aligner = _Aligner(ref_keys, ref_key_labels, cand, diameter, tolerance)

    def frame_for(t: _Similarity) -> _Frame:
        return _Frame(t, aligner.tol_for(t), size * t.scale, t(centre))

    search = _Search(aligner, ref, cand, tolerance, frame_for)
    if fixed_coordinates:
        search.consider(_Similarity())
    else:
        search.run(tol_ref)
        refined = _refine(aligner, max(search.scored, key=aligner.rank))
        if refined is not None:
            search.scored.append(refined)
    # Full object matching decides: every fully matched hypothesis, the best few by key points,
    # and identity.
    pool = list(search.full)
    shortlist: list[_Similarity] = [m.frame.transform for m in pool]
    extra = 0
    for key in sorted(search.scored, key=aligner.rank, reverse=True):
        if extra >= FULL_MATCH_KEEP:
            break
        if not any(_same_transform(key.transform, t, aligner.tol_for(t)) for t in shortlist):
            shortlist.append(key.transform)
            pool.append(_match_objects(ref, cand, frame_for(key.transform), tolerance))
            extra += 1
    if fixed_coordinates or not any(t.is_identity(tol_ref) for t in shortlist):
        pool.append(_match_objects(ref, cand, frame_for(_Similarity()), tolerance))

    def rank(m: _Matching) -> tuple[int, int, int, float]:
        return (m.passed, m.label_agree, _simplicity(m.frame.transform, m.frame.tol), -m.residual)

    best = max(pool, key=rank)
    final = _match_objects(ref, cand, best.frame, tolerance, nearest=True)
    frame = final.frame

    side_labels = {
        item.label: _FAMILY_WORD[cand.items[j].shape.family]
        for item in ref
        if (j := cand.by_label.get(item.label)) is not None
        and cand.items[j].shape.family not in _COMPATIBLE[item.shape.family]
    }
    checks: list[Check] = []
    mapping_idx: dict[str, int] = {}
    for item, match in zip(ref, final.matches, strict=True):
        if item.label in scored:
            checks.append(_object_check(item, match, cand, frame, side_labels))
        if match.cand is not None and match.how != "nearest":
            mapping_idx[item.label] = match.cand
    namer = _Namer(ref, tol_ref)
    for relation in _derive_relations(ref, tol_ref, tolerance, namer, scored):
        checks.append(_check_relation(relation, mapping_idx, cand, frame, tolerance))
    total = sum(check.weight for check in checks)
    score = sum(check.weight for check in checks if check.passed) / total if total else 0.0
    mapping = {label: cand.items[j].label for label, j in mapping_idx.items()}
    return Verdict(score, tuple(checks), mapping, frame.transform.describe(frame.tol), ran)


def _same_transform(s: _Similarity, t: _Similarity, tol: float) -> bool:
    return s.reflect == t.reflect and abs(s.a - t.a) <= 1e-9 * max(1.0, abs(t.a)) and abs(
        s.b - t.b
    ) <= tol
