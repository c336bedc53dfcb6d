"""The source of geomeval's embedded CapGeo and CapGeo-Bench samples: original items and figures.

CapGeo studies caption-assisted geometric reasoning: a model first writes a caption of the
figure (or is given one) and then solves the problem, and CapGeo-Bench scores such captions
against the keypoints of a reference caption (elements, spatial relations, numerical
relations). Its reasoning problems come from MathVista, MathVerse and GeoQA. geomeval ships a
small sample of each part so the builders, prompts and scorers run offline and in CI without
downloading anything. Every problem, caption and figure here is written for geomeval (none is
copied from those benchmarks); only the record *layouts* are the public ones, so a builder
reads these folders exactly as it reads the official files.

`python -m samples.capgeo.generate` (re)writes, in the checkout's `src/geomeval/benchmarks/`
(both benchmarks' figures are drawn by the one engine below, so one generator writes both):

- `capgeo_bench/sample/captions.json` + `images/cb_XX.png`: 12 CapGeo-Bench figures
  (5 plane, 4 analytic with axes, 3 solids drawn as oblique projections with hidden edges
  dashed), each with a reference caption in English and, for half of them, in Chinese;
- `capgeo/sources/mathvista/testmini.json` + `images/<pid>.png`: MathVista's dict keyed by pid
  (4 geometry problems and 1 non-geometry record a loader must filter out);
- `capgeo/sources/mathverse/testmini.json` + `images_version_1-4/`, `images_version_6/`: MathVerse's
  list, each of 4 problems in its Vision Intensive and Vision Only versions (the latter's
  image carries the problem text above the figure);
- `capgeo/sources/geoqa/test.jsonl` + `images/<id>.png`: 4 GeoQA-style multiple-choice problems;
- `capgeo/sources/captions/geomeval-reference__<source>__<variant>.jsonl`: a reference caption of
  every reasoning problem (16), stored as a caption store, so CapGeo's caption modes (and
  its lmms-eval tasks) run offline. As captioning.py's problem prompts ask, each restates the
  whole problem: what its figure shows, in formal style, then the question with its options
  (for Vision Only, the question drawn in its image).

Every figure is drawn by geomeval's own GeoGebra engine from a script held below, so the
committed files are a pure function of this module (a test regenerates them and compares
bytes). Each drawing also carries *checks*: boolean GeoGebra expressions (for solids,
relations between the 3D points the projection is made from) that must hold of the drawn
construction. They are how "everything a caption states is true of the figure" and "every
answer is right" are kept honest: a test evaluates them, not a reader's eye.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath
from PIL import Image, ImageDraw, ImageFont

from geomeval.benchmarks.capgeo.captions_store import REFERENCE_CAPTIONER, CaptionStore
from geomeval.benchmarks.capgeo.sources import SAMPLE_CAPTIONS, SOURCES
from geomeval.geogebra import Construction, render_png, run_script
from geomeval.geogebra.objects import GeoBoolean, GeoPoint
from geomeval.geogebra.render import fit_window
from samples.kit import BENCHMARKS_DIR, dedented, json_bytes, report, sample_dir, write_files

__all__ = [
    "BENCH_DIR",
    "BENCH_FIGURES",
    "BENCH_SIZE",
    "CAPGEO_DIR",
    "CLASSES",
    "GEOQA_PROBLEMS",
    "MATHVERSE_PROBLEMS",
    "MATHVISTA_ITEMS",
    "REASONING_SIZE",
    "SOURCES_DIR",
    "BenchFigure",
    "Drawing",
    "GeoQAProblem",
    "Label",
    "MathVerseProblem",
    "MathVistaItem",
    "Solid",
    "bench_records",
    "build_construction",
    "caption_files",
    "failed_checks",
    "geoqa_records",
    "mathverse_records",
    "mathvista_records",
    "reference_captions",
    "sample_files",
    "vision_only_caption",
    "write_sample",
]

CAPGEO_DIR = BENCHMARKS_DIR / "capgeo"
BENCH_DIR = sample_dir("capgeo_bench")
SOURCES_DIR = CAPGEO_DIR / "sources"
# Folders write_sample owns (under the benchmarks folder): emptied before writing so a dropped
# item leaves nothing stale.
OWNED_DIRS = ("capgeo_bench/sample", "capgeo/sources")
# Small panels keep the whole capgeo folder well under 2.5 MB while labels stay legible.
BENCH_SIZE: tuple[int, int] = (560, 420)
REASONING_SIZE: tuple[int, int] = (480, 360)
CLASSES = ("plane", "analytic", "solid")
SOURCE = "geomeval-original"

# Label text is placed by us (the engine's own point labels always sit up and to the right,
# often on top of a side): the renderer draws texts at 14 px in DejaVu Sans, anchored at their
# bottom-left corner, whose bottom edge is the font's descent below the baseline.
LABEL_FONT_PX = 14.0
LABEL_DESCENT_PX = 3.3
LABEL_CAP_HALF_PX = 5.1
LABEL_HALF_HEIGHT_PX = 7.0  # parentheses reach a little past the capitals
COMPASS = {
    "e": 0.0,
    "ne": 45.0,
    "n": 90.0,
    "nw": 135.0,
    "w": 180.0,
    "sw": 225.0,
    "s": 270.0,
    "se": 315.0,
}
SUBSCRIPT_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# Fitted views are widened a little so labels outside the outermost points stay in frame.
FIT_WIDEN = 1.12



def _num(value: float) -> str:
    """A coordinate as scripts write it: at most 6 decimals, no trailing zeros."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def display_name(label: str) -> str:
    """How a point's name is printed in a figure: `A_1` as A₁ (textbook subscripts)."""
    head, _, sub = label.partition("_")
    return head + sub.strip("{}").translate(SUBSCRIPT_DIGITS) if sub else head


# ----------------------------------------------------------------------------- drawings


@dataclass(frozen=True)
class Label:
    """A text placed next to something in a figure.

    `at` is a point's name, `"A-B"` (the midpoint of two points, for a length) or `"x,y"`;
    `toward` is a compass word or an angle in degrees: the side of the anchor the text goes to.
    """

    text: str
    at: str
    toward: str = "ne"
    gap: float = 7.0


def points(spec: str) -> tuple[Label, ...]:
    """Point labels from a compact spec, `"A:n B:sw C_1:30"` (the name is the text)."""
    labels = []
    for item in spec.split():
        name, _, toward = item.partition(":")
        labels.append(Label(display_name(name), name, toward or "ne"))
    return tuple(labels)


def pairs(spec: str) -> tuple[tuple[str, str], ...]:
    """Point pairs (edges) from a compact spec, `"A-B B_1-C_1"`."""
    return tuple((p, q) for p, q in (item.split("-") for item in spec.split()))


@dataclass(frozen=True)
class Drawing:
    """A figure: the GeoGebra script that draws it, how it is styled and labelled, its checks.

    `script` builds the geometry; every point is then drawn small and black with its engine
    label hidden, `style` runs after that (so it can restyle anything), and `labels` are
    placed as texts. `checks` are boolean GeoGebra expressions that must hold.
    """

    script: str
    labels: tuple[Label, ...] = ()
    style: str = ""
    window: tuple[float, float, float, float] | None = None
    axes: bool = False
    checks: tuple[str, ...] = ()
    solid_checks: tuple[tuple[Any, ...], ...] = ()
    solid_points: tuple[tuple[str, tuple[float, float, float]], ...] = ()


@dataclass(frozen=True)
class Solid:
    """A solid given by 3D points, drawn as a parallel (oblique) projection.

    `depth` is where the receding (y) axis goes on paper: `(dx, dy)` per unit of depth; the
    textbook cabinet drawing is half-length at 45°. Hidden edges are listed apart and
    dashed. `checks` are 3D relations between the named points (see `_solid_failures`):
    the paper figure cannot show lengths or right angles in space, the 3D model can.
    """

    points: tuple[tuple[str, tuple[float, float, float]], ...]
    edges: tuple[tuple[str, str], ...]
    hidden: tuple[tuple[str, str], ...]
    labels: tuple[Label, ...]
    dots: tuple[str, ...] = ()
    depth: tuple[float, float] = (0.5 * math.cos(math.pi / 4), 0.5 * math.sin(math.pi / 4))
    extra: str = ""
    checks: tuple[tuple[Any, ...], ...] = ()

    def project(self, xyz: tuple[float, float, float]) -> tuple[float, float]:
        """A 3D point on paper: width stays, height stays, depth recedes along `depth`."""
        x, y, z = xyz
        return x + self.depth[0] * y, z + self.depth[1] * y

    def drawing(self) -> Drawing:
        """The 2D drawing: projected points (hidden unless dotted), solid and dashed edges."""
        lines = [
            f"{name} = ({_num(px)}, {_num(py)})"
            for name, xyz in self.points
            for px, py in [self.project(xyz)]
        ]
        style = []
        for index, (p, q) in enumerate(self.edges, start=1):
            lines.append(f"e{index} = Segment({p}, {q})")
        for index, (p, q) in enumerate(self.hidden, start=1):
            lines.append(f"h{index} = Segment({p}, {q})")
            style.append(f"SetLineStyle(h{index}, 1)")
        for name, _xyz in self.points:
            if name not in self.dots:
                style.append(f"SetVisibleInView({name}, 1, false)")
        script = "\n".join(lines) + ("\n" + self.extra if self.extra else "")
        return Drawing(
            script=script,
            labels=self.labels,
            style="\n".join(style),
            solid_checks=self.checks,
            solid_points=self.points,
        )


def _arc(name: str, rx: float, ry: float, start: float, end: float, pieces: int) -> str:
    """An ellipse arc (x = rx cos t, y = ry sin t, t in degrees) as a list of segments.

    The engine has no ellipse command; a projected circle is drawn as a fine polyline.
    """
    step = (end - start) / pieces
    t0 = f"({_num(start)} + k * {_num(step)})°"
    t1 = f"({_num(start)} + (k + 1) * {_num(step)})°"
    return (
        f"{name} = Sequence(Segment(({_num(rx)} cos({t0}), {_num(ry)} sin({t0})), "
        f"({_num(rx)} cos({t1}), {_num(ry)} sin({t1}))), k, 0, {pieces - 1})"
    )


# ------------------------------------------------------------------------- CapGeo-Bench


@dataclass(frozen=True)
class BenchFigure:
    """A CapGeo-Bench figure with its reference caption(s)."""

    id: str
    cls: str
    difficulty: int
    caption_en: str
    caption_zh: str | None
    drawing: Drawing


SQRT3 = math.sqrt(3)
SQ2 = math.sqrt(2)

CUBE_EDGES = "A-B B-C C-D D-A A-A_1 B-B_1 C-C_1 D-D_1 A_1-B_1 B_1-C_1 C_1-D_1 D_1-A_1"
CUBE = Solid(
    points=(
        ("A", (0, 0, 0)),
        ("B", (2, 0, 0)),
        ("C", (2, 2, 0)),
        ("D", (0, 2, 0)),
        ("A_1", (0, 0, 2)),
        ("B_1", (2, 0, 2)),
        ("C_1", (2, 2, 2)),
        ("D_1", (0, 2, 2)),
    ),
    edges=pairs("A-B B-C A-A_1 B-B_1 C-C_1 A_1-B_1 B_1-C_1 C_1-D_1 D_1-A_1 B_1-D_1"),
    hidden=pairs("A-D D-C D-D_1 B-D_1"),
    labels=points("A:sw B:s C:se D:150 A_1:w B_1:-20 C_1:ne D_1:n"),
    checks=(
        *(("length", p, q, 2.0) for p, q in pairs(CUBE_EDGES)),
        ("perp", "A", "B", "A", "D"),
        ("perp", "A", "B", "A", "A_1"),
        ("perp", "A", "D", "A", "A_1"),
        ("perp", "B", "B_1", "B_1", "D_1"),
        ("length", "B_1", "D_1", 2 * SQ2),
        ("length", "B", "D_1", 2 * SQRT3),
    ),
)

PYRAMID = Solid(
    points=(
        ("A", (-2, -2, 0)),
        ("B", (2, -2, 0)),
        ("C", (2, 2, 0)),
        ("D", (-2, 2, 0)),
        ("P", (0, 0, 3)),
        ("O", (0, 0, 0)),
        ("E", (1, 1, 1.5)),
    ),
    edges=pairs("A-B B-C P-A P-B P-C"),
    hidden=pairs("C-D D-A P-D A-C B-D P-O O-E"),
    labels=points("P:n A:w B:s C:e D:140 O:s E:40"),
    dots=("O", "E"),
    checks=(
        *(("length", p, q, 4.0) for p, q in pairs("A-B B-C C-D D-A")),
        ("perp", "A", "B", "A", "D"),
        ("perp", "B", "C", "B", "A"),
        ("mid", "O", "A", "C"),
        ("mid", "O", "B", "D"),
        ("perp", "P", "O", "A", "C"),
        ("perp", "P", "O", "B", "D"),
        ("length", "P", "O", 3.0),
        ("mid", "E", "P", "C"),
        ("parallel", "O", "E", "A", "P"),
        *(("length", "P", q, math.sqrt(17)) for q in "ABCD"),
    ),
)

# The cone's depth axis goes straight up at 0.4 (base circle -> axis-aligned ellipse, as
# textbooks draw cones); seen from the front and above, the outline touches the base
# ellipse where sin t = 0.2 and the base points with sin t > 0.2 are hidden.
CONE_DEPTH = 0.4
CONE_R, CONE_H = 2.0, 4.0


def _cone_outline_angle() -> float:
    """The base angle t (degrees) where the cone's outline generator touches the base ellipse.

    From the apex (0, h) the tangent to x = r cos t, y = d r sin t satisfies h sin t / (d r)
    = 1, so sin t = d r / h.
    """
    return math.degrees(math.asin(CONE_DEPTH * CONE_R / CONE_H))


_T = _cone_outline_angle()
_TX = CONE_R * math.cos(math.radians(_T))
_TY = CONE_DEPTH * CONE_R * math.sin(math.radians(_T))
CONE = Solid(
    points=(
        ("P", (0, 0, CONE_H)),
        ("O", (0, 0, 0)),
        ("A", (-SQ2, -SQ2, 0)),
        ("B", (SQ2, SQ2, 0)),
        ("C", (SQ2, -SQ2, 0)),
    ),
    edges=pairs("P-A P-C"),
    hidden=pairs("P-B P-O A-B O-C A-C"),
    labels=points("P:n O:s A:w B:s C:e"),
    dots=("O",),
    depth=(0.0, CONE_DEPTH),
    extra="\n".join(
        [
            f"g1 = Segment(P, ({_num(_TX)}, {_num(_TY)}))",
            f"g2 = Segment(P, ({_num(-_TX)}, {_num(_TY)}))",
            _arc("front", CONE_R, CONE_DEPTH * CONE_R, 180 - _T, 360 + _T, 48),
            _arc("back", CONE_R, CONE_DEPTH * CONE_R, _T, 180 - _T, 36),
            "SetLineStyle(back, 1)",
        ]
    ),
    checks=(
        ("length", "P", "O", CONE_H),
        ("perp", "P", "O", "A", "B"),
        ("perp", "P", "O", "O", "C"),
        ("mid", "O", "A", "B"),
        ("length", "O", "A", CONE_R),
        ("length", "O", "C", CONE_R),
        ("perp", "O", "C", "A", "B"),
        ("length", "P", "A", 2 * math.sqrt(5)),
        ("length", "P", "B", 2 * math.sqrt(5)),
        ("length", "P", "C", 2 * math.sqrt(5)),
        ("length", "A", "C", 2 * SQ2),
    ),
)

BENCH_FIGURES: tuple[BenchFigure, ...] = (
    # ------------------------------------------------------------------------ plane
    BenchFigure(
        id="cb_01",
        cls="plane",
        difficulty=1,
        caption_en=(
            "In triangle ABC, AB = AC = 5 and BC = 6. D is the midpoint of BC, and segment AD "
            "is drawn. AD ⊥ BC at D, and AD = 4."
        ),
        caption_zh="在△ABC中，AB=AC=5，BC=6，D是BC的中点，连接AD，AD⊥BC于点D，AD=4。",
        drawing=Drawing(
            script=dedented("""
                A = (0, 4)
                B = (-3, 0)
                C = (3, 0)
                D = Midpoint(B, C)
                sBC = Segment(B, C)
                sCA = Segment(C, A)
                sAB = Segment(A, B)
                sAD = Segment(A, D)
                rD = Angle(C, D, A)
            """),
            style="ShowLabel(rD, false)",
            labels=(
                *points("A:n B:sw C:se D:s"),
                Label("5", "A-B", "nw"),
                Label("5", "A-C", "ne"),
            ),
            checks=(
                "Distance(A, B) == 5",
                "Distance(A, C) == 5",
                "Distance(B, C) == 6",
                "Distance(B, D) == Distance(D, C)",
                "Distance(D, sBC) == 0",
                "Angle(C, D, A) == 90°",
                "Distance(A, D) == 4",
            ),
        ),
    ),
    BenchFigure(
        id="cb_02",
        cls="plane",
        difficulty=2,
        caption_en=(
            "Circle O has radius 3 and AB is a diameter. C is a point on circle O with "
            "∠CAB = 30°, and chords AC and BC are drawn. ∠ACB = 90° and BC = 3."
        ),
        caption_zh="⊙O的半径为3，AB是⊙O的直径，点C在⊙O上，∠CAB=30°，连接AC、BC，∠ACB=90°，BC=3。",
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, 3)
                A = (-3, 0)
                B = (3, 0)
                C = Rotate(B, 60°, O)
                sAB = Segment(A, B)
                sAC = Segment(A, C)
                sBC = Segment(B, C)
                aA = Angle(B, A, C)
                rC = Angle(A, C, B)
            """),
            style="ShowLabel(rC, false)",
            labels=points("O:s A:w B:e C:ne"),
            checks=(
                "Distance(O, A) == 3",
                "Distance(O, B) == 3",
                "Distance(O, C) == 3",
                "Distance(Midpoint(A, B), O) == 0",
                "Angle(B, A, C) == 30°",
                "Angle(A, C, B) == 90°",
                "Distance(B, C) == 3",
            ),
        ),
    ),
    BenchFigure(
        id="cb_03",
        cls="plane",
        difficulty=3,
        caption_en=(
            "Circle O has radius 2, and point P lies outside circle O with OP = 4. Line PA is "
            "tangent to circle O at A, and radius OA is drawn, so OA ⊥ PA. Segment OP "
            "intersects circle O at B, and ∠APO = 30°."
        ),
        caption_zh=None,
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, 2)
                P = (4, 0)
                A = (1, sqrt(3))
                t = Line(P, A)
                B = Intersect(c, Segment(O, P))
                sOA = Segment(O, A)
                sOP = Segment(O, P)
                rA = Angle(O, A, P)
                aP = Angle(A, P, O)
            """),
            style="ShowLabel(rA, false)",
            labels=points("O:s A:60 B:-60 P:se"),
            checks=(
                "Distance(O, A) == 2",
                "Distance(O, P) == 4",
                "Distance(O, t) == 2",
                "Distance(A, t) == 0",
                "Angle(O, A, P) == 90°",
                "Distance(O, B) == 2",
                "Distance(B, sOP) == 0",
                "Angle(A, P, O) == 30°",
            ),
        ),
    ),
    BenchFigure(
        id="cb_04",
        cls="plane",
        difficulty=2,
        caption_en=(
            "In parallelogram ABCD, AB = 6, AD = 4 and ∠DAB = 60°. The diagonals AC and BD "
            "intersect at point O, so O is the midpoint of both AC and BD."
        ),
        caption_zh="在▱ABCD中，AB=6，AD=4，∠DAB=60°，对角线AC与BD相交于点O，O是AC和BD的中点。",
        drawing=Drawing(
            script=dedented("""
                A = (0, 0)
                B = (6, 0)
                D = (2, 2sqrt(3))
                C = Translate(D, Vector(A, B))
                sAB = Segment(A, B)
                sBC = Segment(B, C)
                sCD = Segment(C, D)
                sDA = Segment(D, A)
                sAC = Segment(A, C)
                sBD = Segment(B, D)
                O = Intersect(sAC, sBD)
                aA = Angle(B, A, D)
            """),
            labels=(
                *points("A:sw B:se C:ne D:nw O:s"),
                Label("6", "A-B", "s"),
                Label("4", "A-D", "nw"),
            ),
            checks=(
                "Distance(A, B) == 6",
                "Distance(A, D) == 4",
                "Distance(C, D) == 6",
                "Distance(B, C) == 4",
                "Angle(B, A, D) == 60°",
                "Distance(A, O) == Distance(O, C)",
                "Distance(B, O) == Distance(O, D)",
            ),
        ),
    ),
    BenchFigure(
        id="cb_05",
        cls="plane",
        difficulty=4,
        caption_en=(
            "In right triangle ABC, ∠ACB = 90°, AC = 6 and BC = 8, so the hypotenuse AB = 10. "
            "CD ⊥ AB at D, so CD is the altitude to the hypotenuse, and CD = 4.8. "
            "AD = 3.6 and BD = 6.4. Circle I is the incircle of triangle ABC: it is tangent to "
            "AB, BC and CA, and its radius is 2."
        ),
        caption_zh=None,
        drawing=Drawing(
            script=dedented("""
                C = (0, 0)
                A = (0, 6)
                B = (8, 0)
                sAB = Segment(A, B)
                sBC = Segment(B, C)
                sCA = Segment(C, A)
                k = PerpendicularLine(C, sAB)
                D = Intersect(k, sAB)
                sCD = Segment(C, D)
                ic = Incircle(A, B, C)
                I = Center(ic)
                rC = Angle(B, C, A)
                rD = Angle(C, D, B)
            """),
            style=dedented("""
                SetVisibleInView(k, 1, false)
                ShowLabel(rC, false)
                ShowLabel(rD, false)
                SetColor(ic, "#1565C0")
            """),
            labels=points("C:sw A:nw B:se D:ne I:-20"),
            checks=(
                "Distance(A, C) == 6",
                "Distance(B, C) == 8",
                "Distance(A, B) == 10",
                "Angle(B, C, A) == 90°",
                "Angle(C, D, B) == 90°",
                "Distance(D, sAB) == 0",
                "Distance(C, D) == 4.8",
                "Distance(A, D) == 3.6",
                "Distance(B, D) == 6.4",
                "Radius(ic) == 2",
                "Distance(I, sAB) == 2",
                "Distance(I, sBC) == 2",
                "Distance(I, sCA) == 2",
            ),
        ),
    ),
    # --------------------------------------------------------------------- analytic
    BenchFigure(
        id="cb_06",
        cls="analytic",
        difficulty=1,
        caption_en=(
            "In the coordinate plane, the coordinates of A, B and C are (1, 1), (5, 1) and "
            "(3, 4). Triangle ABC is drawn; side AB is parallel to the x-axis and AB = 4. "
            "AC = BC = √13, and the area of triangle ABC is 6."
        ),
        caption_zh="在平面直角坐标系中，A(1,1)，B(5,1)，C(3,4)，AB∥x轴，AB=4，AC=BC=√13，△ABC的面积为6。",
        drawing=Drawing(
            script=dedented("""
                A = (1, 1)
                B = (5, 1)
                C = (3, 4)
                tri = Polygon(A, B, C)
            """),
            axes=True,
            window=(-1.5, -1.25, 7.5, 5.5),
            labels=(
                Label("A(1, 1)", "A", "sw"),
                Label("B(5, 1)", "B", "se"),
                Label("C(3, 4)", "C", "n"),
            ),
            checks=(
                "Distance(A, B) == 4",
                "y(A) == y(B)",
                "Distance(A, C) == sqrt(13)",
                "Distance(B, C) == sqrt(13)",
                "Area(tri) == 6",
            ),
        ),
    ),
    BenchFigure(
        id="cb_07",
        cls="analytic",
        difficulty=2,
        caption_en=(
            "In the coordinate plane, line l: y = 2x + 4 intersects the x-axis at A(-2, 0) "
            "and the y-axis at B(0, 4). O is the origin, and M(-1, 2) is the midpoint of AB. "
            "The area of triangle AOB is 4."
        ),
        caption_zh=None,
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                A = (-2, 0)
                B = (0, 4)
                l = Line(A, B)
                M = Midpoint(A, B)
                tri = Polygon(A, O, B)
            """),
            axes=True,
            window=(-4.4, -1.3, 3.6, 4.7),
            labels=(
                Label("A(-2, 0)", "A", "nw"),
                Label("B(0, 4)", "B", "e"),
                Label("M(-1, 2)", "M", "nw"),
                Label("O", "O", "se"),
                Label("l", "0.3,4.35", "e"),
            ),
            checks=(
                "Slope(l) == 2",
                "Distance((0, 4), l) == 0",
                "Distance(M, (-1, 2)) == 0",
                "Distance(A, M) == Distance(M, B)",
                "Area(tri) == 4",
            ),
        ),
    ),
    BenchFigure(
        id="cb_08",
        cls="analytic",
        difficulty=3,
        caption_en=(
            "In the coordinate plane, circle C has centre C(2, 1) and radius √5. Circle C "
            "passes through the origin O and intersects the x-axis again at A(4, 0) and the "
            "y-axis again at B(0, 2). Segment AB is a diameter of circle C, and ∠AOB = 90°."
        ),
        caption_zh=(
            "在平面直角坐标系中，⊙C的圆心为C(2,1)，半径为√5，⊙C经过原点O，与x轴的另一个交点为A(4,0)，"
            "与y轴的另一个交点为B(0,2)，AB是⊙C的直径，∠AOB=90°。"
        ),
        drawing=Drawing(
            script=dedented("""
                C = (2, 1)
                c = Circle(C, sqrt(5))
                O = (0, 0)
                A = (4, 0)
                B = (0, 2)
                d = Segment(A, B)
            """),
            axes=True,
            window=(-1.5, -1.75, 5.5, 3.5),
            labels=(
                Label("C(2, 1)", "C", "60"),
                Label("A(4, 0)", "A", "-40", gap=8.0),
                Label("B(0, 2)", "B", "130", gap=9.0),
                Label("O", "O", "-30", gap=8.0),
            ),
            checks=(
                "Distance(C, O) == sqrt(5)",
                "Distance(C, A) == sqrt(5)",
                "Distance(C, B) == sqrt(5)",
                "Distance(Midpoint(A, B), C) == 0",
                "Angle(A, O, B) == 90°",
            ),
        ),
    ),
    BenchFigure(
        id="cb_09",
        cls="analytic",
        difficulty=4,
        caption_en=(
            "In the coordinate plane, circle O is centred at the origin with radius √5, and "
            "P(1, 2) is a point on circle O. Line l is tangent to circle O at P, so OP ⊥ l; "
            "the equation of l is x + 2y = 5. Line l intersects the x-axis at Q(5, 0) and the "
            "y-axis at R(0, 2.5). The area of triangle OQR is 6.25."
        ),
        caption_zh=None,
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, sqrt(5))
                P = (1, 2)
                sOP = Segment(O, P)
                l = PerpendicularLine(P, sOP)
                Q = (5, 0)
                R = (0, 2.5)
                tri = Polygon(O, Q, R)
                rP = Angle(O, P, Q)
            """),
            style="ShowLabel(rP, false)",
            axes=True,
            window=(-3.0, -3.0, 6.5, 4.125),
            labels=(
                Label("P(1, 2)", "P", "60"),
                Label("Q(5, 0)", "Q", "ne"),
                Label("R(0, 2.5)", "R", "w"),
                Label("O", "O", "se"),
                Label("l", "3.6,0.7", "ne"),
            ),
            checks=(
                "Distance(O, P) == sqrt(5)",
                "Distance(O, l) == sqrt(5)",
                "Angle(O, P, Q) == 90°",
                "Distance(Q, l) == 0",
                "Distance(R, l) == 0",
                "Distance((3, 1), l) == 0",
                "Area(tri) == 6.25",
            ),
        ),
    ),
    # ------------------------------------------------------------------------ solid
    BenchFigure(
        id="cb_10",
        cls="solid",
        difficulty=1,
        caption_en=(
            "The cube ABCD-A1B1C1D1 has edge length 2. B1D1 is a diagonal of the top face "
            "A1B1C1D1, and BD1 is a space diagonal of the cube. BB1 ⊥ B1D1, B1D1 = 2√2 and "
            "BD1 = 2√3."
        ),
        caption_zh=(
            "正方体ABCD-A1B1C1D1的棱长为2，B1D1是上底面A1B1C1D1的对角线，BD1是正方体的体对角线，"
            "BB1⊥B1D1，B1D1=2√2，BD1=2√3。"
        ),
        drawing=CUBE.drawing(),
    ),
    BenchFigure(
        id="cb_11",
        cls="solid",
        difficulty=3,
        caption_en=(
            "In the square pyramid P-ABCD, the base ABCD is a square with side length 4, and "
            "its diagonals AC and BD intersect at O. PO ⊥ plane ABCD and PO = 3, so "
            "PA = PB = PC = PD = √17. E is the midpoint of the lateral edge PC, and segment OE "
            "is drawn; OE ∥ PA."
        ),
        caption_zh=(
            "在正四棱锥P-ABCD中，底面ABCD是边长为4的正方形，对角线AC与BD相交于点O，PO⊥平面ABCD，PO=3，"
            "PA=PB=PC=PD=√17，E是侧棱PC的中点，连接OE，OE∥PA。"
        ),
        drawing=PYRAMID.drawing(),
    ),
    BenchFigure(
        id="cb_12",
        cls="solid",
        difficulty=4,
        caption_en=(
            "A cone has apex P and a base circle with centre O and radius 2; its height PO = 4 "
            "and PO ⊥ the base. AB is a diameter of the base circle, and C is a point on the "
            "base circle with OC ⊥ AB. Segments PA, PB and PC lie on the lateral surface, and "
            "PA = PB = PC = 2√5. Chord AC is drawn, and AC = 2√2."
        ),
        caption_zh=None,
        drawing=CONE.drawing(),
    ),
)


# ---------------------------------------------------------------------------- MathVista


@dataclass(frozen=True)
class MathVistaItem:
    """A MathVista testmini-style record; `answer` is the choice text for multiple choice."""

    pid: str
    question: str
    choices: tuple[str, ...] | None
    answer: str
    answer_type: str
    drawing: Drawing
    precision: float | None = None
    unit: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # What the figure shows (geometry items only), in formal style, never what only the
    # question says; the reference caption adds the question (`problem_caption`).
    caption: str = ""


GEOMETRY_METADATA: dict[str, Any] = {
    "split": "testmini",
    "language": "english",
    "source": SOURCE,
    "category": "math-targeted-vqa",
    "task": "geometry problem solving",
    "context": "geometry diagram",
    "grade": "high school",
    "skills": ["geometry reasoning", "algebraic reasoning"],
}

MATHVISTA_ITEMS: tuple[MathVistaItem, ...] = (
    MathVistaItem(
        pid="1",
        question=(
            "As shown in the figure, AB is a diameter of circle O and point C lies on the "
            "circle. If ∠ABC = 34°, what is the measure of ∠CAB?"
        ),
        choices=("34°", "46°", "56°", "66°"),
        answer="56°",
        answer_type="text",
        caption=(
            "Circle O is drawn, and AB is a diameter of circle O: A and B lie on the circle and O "
            "is the midpoint of AB. C is a point on circle O, and chords AC and BC are drawn. "
            "∠ABC = 34°."
        ),
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, 3)
                A = (-3, 0)
                B = (3, 0)
                C = Rotate(B, 112°, O)
                sAB = Segment(A, B)
                sAC = Segment(A, C)
                sBC = Segment(B, C)
                aB = Angle(C, B, A)
            """),
            labels=points("O:s A:w B:e C:nw"),
            checks=(
                "Distance(O, C) == 3",
                "Angle(C, B, A) == 34°",
                "Angle(B, A, C) == 56°",
            ),
        ),
    ),
    MathVistaItem(
        pid="2",
        question=(
            "In right triangle ABC shown in the figure, ∠C = 90°, AC = 5 and BC = 12. "
            "Find the length of AB."
        ),
        choices=None,
        answer="13",
        answer_type="integer",
        caption="In right triangle ABC, ∠ACB = 90°, AC = 5 and BC = 12.",
        drawing=Drawing(
            script=dedented("""
                C = (0, 0)
                A = (0, 5)
                B = (12, 0)
                sAB = Segment(A, B)
                sBC = Segment(B, C)
                sCA = Segment(C, A)
                rC = Angle(B, C, A)
            """),
            style="ShowLabel(rC, false)",
            labels=(
                *points("A:nw B:se C:sw"),
                Label("5", "A-C", "w"),
                Label("12", "B-C", "s"),
            ),
            checks=(
                "Angle(B, C, A) == 90°",
                "Distance(A, C) == 5",
                "Distance(B, C) == 12",
                "Distance(A, B) == 13",
            ),
        ),
    ),
    MathVistaItem(
        pid="3",
        question=(
            "Circle O in the figure has radius 3, and the shaded sector AOB has a central "
            "angle of 80°. Find the area of the shaded sector. Round your answer to two "
            "decimal places."
        ),
        choices=None,
        answer="6.28",
        answer_type="float",
        caption=(
            "A and B are points on circle O, and radius OA = 3. Radii OA and OB bound sector AOB, "
            "which is shaded, and its central angle ∠AOB = 80°."
        ),
        precision=2.0,
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, 3)
                A = Rotate((3, 0), 10°, O)
                B = Rotate((3, 0), 90°, O)
                sec = CircularSector(O, A, B)
                aO = Angle(A, O, B)
            """),
            style=dedented("""
                SetColor(sec, "gray")
                SetFilling(sec, 0.35)
            """),
            labels=(*points("O:sw A:e B:n"), Label("3", "O-A", "s")),
            checks=(
                "Distance(O, A) == 3",
                "Angle(A, O, B) == 80°",
                "Area(sec) == 2pi",
                "abs(Area(sec) - 6.28) < 0.005",
            ),
        ),
    ),
    MathVistaItem(
        pid="4",
        question=(
            "In the figure, line a is parallel to line b, and line c intersects both. If "
            "∠1 = 48°, what is the measure of ∠2?"
        ),
        choices=("42°", "48°", "132°", "138°"),
        answer="132°",
        answer_type="text",
        caption=(
            "Lines a and b are horizontal, with line b above line a, so a ∥ b. Line c crosses "
            "line a and line b. ∠1 is the angle at the intersection of lines a and c, between "
            "line a to the right of the intersection and line c above it. ∠2 is the angle at "
            "the intersection of lines b and c, between line c below the intersection and "
            "line b to the right of it."
        ),
        drawing=Drawing(
            script=dedented("""
                E = (0, 0)
                F = (3 / tan(48°), 3)
                a = Line(E, (1, 0))
                b = Line(F, (0, 3))
                c = Line(E, F)
                X = (2, 0)
                Y = F + (2, 0)
                one = Angle(X, E, F)
                two = Angle(E, F, Y)
            """),
            style=dedented("""
                SetCaption(one, "1")
                SetLabelMode(one, 3)
                SetCaption(two, "2")
                SetLabelMode(two, 3)
                SetVisibleInView(X, 1, false)
                SetVisibleInView(Y, 1, false)
            """),
            window=(-3.0, -1.5, 5.0, 4.5),
            labels=(
                Label("a", "-2.6,0", "n"),
                Label("b", "-2.6,3", "n"),
                Label("c", "4.3,4.1", "w"),
            ),
            checks=(
                "Slope(a) == 0",
                "Slope(b) == 0",
                "Angle(X, E, F) == 48°",
                "Angle(E, F, Y) == 132°",
            ),
        ),
    ),
    MathVistaItem(
        pid="5",
        question="How many red points are shown in the figure?",
        choices=None,
        answer="3",
        answer_type="integer",
        drawing=Drawing(
            script=dedented("""
                P1 = (0, 0)
                P2 = (2, 1.5)
                P3 = (4, 0.5)
                P4 = (1, 3)
                P5 = (3, 3.5)
                P6 = (5, 2.5)
                P7 = (5.5, 0)
            """),
            style=dedented("""
                SetColor(P1, "red")
                SetColor(P3, "red")
                SetColor(P5, "red")
                SetColor(P2, "#1565C0")
                SetColor(P4, "#1565C0")
                SetColor(P6, "#1565C0")
                SetColor(P7, "#1565C0")
                SetPointSize(P1, 7)
                SetPointSize(P2, 7)
                SetPointSize(P3, 7)
                SetPointSize(P4, 7)
                SetPointSize(P5, 7)
                SetPointSize(P6, 7)
                SetPointSize(P7, 7)
            """),
        ),
        metadata={
            "category": "general-vqa",
            "task": "figure question answering",
            "context": "abstract scene",
            "grade": "elementary school",
            "skills": ["arithmetic reasoning"],
        },
    ),
)


# ---------------------------------------------------------------------------- MathVerse


@dataclass(frozen=True)
class MathVerseProblem:
    """A MathVerse-style problem, written out in two versions.

    `question_full` is the whole problem (MathVerse's question_for_eval); `question_vi` is
    the Vision Intensive wording, which leaves the measurements the figure shows to the
    figure. Choices, when given, are appended to both in MathVerse's "Choices:" layout.
    """

    index: str
    subfield: str
    question_full: str
    question_vi: str
    choices: tuple[str, ...] | None
    answer: str
    drawing: Drawing
    # What the figure shows; each version's reference caption adds its question (`problem_caption`).
    caption: str


MATHVERSE_PROBLEMS: tuple[MathVerseProblem, ...] = (
    MathVerseProblem(
        index="1",
        subfield="Angle",
        caption=(
            "In triangle ABC, ∠BAC = 50° and ∠ABC = 65°. Point D lies on the extension of BC "
            "beyond C, so B, C and D are collinear with C between B and D. ∠ACD, the exterior "
            "angle at C, is marked with a question mark."
        ),
        question_full=(
            "As shown in the figure, in triangle ABC, ∠A = 50° and ∠B = 65°, and point D lies "
            "on the extension of BC beyond C. Find the measure of ∠ACD."
        ),
        question_vi=(
            "As shown in the figure, point D lies on the extension of BC beyond C. Find the "
            "measure of ∠ACD."
        ),
        choices=("105°", "115°", "125°", "130°"),
        answer="B",
        drawing=Drawing(
            script=dedented("""
                B = (0, 0)
                C = (4, 0)
                A = (2, 2tan(65°))
                D = (6.5, 0)
                sAB = Segment(A, B)
                sAC = Segment(A, C)
                sBD = Segment(B, D)
                aA = Angle(B, A, C)
                aB = Angle(C, B, A)
                aC = Angle(D, C, A)
            """),
            style=dedented("""
                SetCaption(aC, "?")
                SetLabelMode(aC, 3)
                SetColor(aC, "#C62828")
            """),
            labels=points("A:n B:sw C:s D:se"),
            checks=(
                "Angle(B, A, C) == 50°",
                "Angle(C, B, A) == 65°",
                "Angle(D, C, A) == 115°",
            ),
        ),
    ),
    MathVerseProblem(
        index="2",
        subfield="Length",
        caption=(
            "AB is a chord of circle O. C is a point on AB with OC ⊥ AB at C, and radius OA is "
            "drawn. AB = 8 and OC = 3."
        ),
        question_full=(
            "As shown in the figure, AB is a chord of circle O with AB = 8, and OC ⊥ AB at C "
            "with OC = 3. Find the radius of circle O."
        ),
        question_vi="As shown in the figure, OC ⊥ AB at C. Find the radius of circle O.",
        choices=None,
        answer="5",
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, 5)
                A = (-4, -3)
                B = (4, -3)
                C = Midpoint(A, B)
                sAB = Segment(A, B)
                sOC = Segment(O, C)
                sOA = Segment(O, A)
                rC = Angle(B, C, O)
            """),
            style="ShowLabel(rC, false)",
            labels=(
                *points("O:n A:sw B:se C:s"),
                Label("AB = 8", "-2,-3", "s"),
                Label("3", "O-C", "e"),
            ),
            checks=(
                "Distance(A, B) == 8",
                "Distance(O, C) == 3",
                "Angle(B, C, O) == 90°",
                "Distance(O, A) == 5",
                "Radius(c) == 5",
            ),
        ),
    ),
    MathVerseProblem(
        index="3",
        subfield="Area",
        caption=(
            "ABCD is a trapezoid with AD ∥ BC, AD the upper base and BC the lower base. E is a "
            "point on BC, and the dashed segment AE is drawn with AE ⊥ BC at E. AD = 4, BC = 10 "
            "and AE = 5."
        ),
        question_full=(
            "As shown in the figure, in trapezoid ABCD, AD ∥ BC, AD = 4 and BC = 10. AE ⊥ BC "
            "at E and AE = 5. Find the area of trapezoid ABCD."
        ),
        question_vi=(
            "As shown in the figure, ABCD is a trapezoid with AD ∥ BC, and AE ⊥ BC at E. Find "
            "the area of trapezoid ABCD."
        ),
        choices=None,
        answer="35",
        drawing=Drawing(
            script=dedented("""
                B = (0, 0)
                C = (10, 0)
                A = (2, 5)
                D = (6, 5)
                trap = Polygon(A, B, C, D)
                E = (2, 0)
                sAE = Segment(A, E)
                rE = Angle(C, E, A)
            """),
            style=dedented("""
                SetLineStyle(sAE, 1)
                ShowLabel(rE, false)
            """),
            labels=(
                *points("A:nw B:sw C:se D:ne E:s"),
                Label("4", "A-D", "n"),
                Label("10", "7.5,0", "s"),
                Label("5", "A-E", "e"),
            ),
            checks=(
                "Distance(A, D) == 4",
                "Distance(B, C) == 10",
                "Distance(A, E) == 5",
                "y(A) == y(D)",
                "Angle(C, E, A) == 90°",
                "Area(trap) == 35",
            ),
        ),
    ),
    MathVerseProblem(
        index="4",
        subfield="Angle",
        caption=(
            "A, B and C are points on circle O. Radii OA and OB and chords CA and CB are drawn. "
            "∠AOB = 100°, and ∠ACB is marked with a question mark."
        ),
        question_full=(
            "As shown in the figure, A, B and C are points on circle O, and ∠AOB = 100°. "
            "Find the measure of ∠ACB."
        ),
        question_vi=(
            "As shown in the figure, A, B and C are points on circle O. Find the measure of ∠ACB."
        ),
        choices=("40°", "45°", "50°", "100°"),
        answer="C",
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, 3)
                A = Rotate((3, 0), 220°, O)
                B = Rotate((3, 0), 320°, O)
                C = (0, 3)
                sOA = Segment(O, A)
                sOB = Segment(O, B)
                sCA = Segment(C, A)
                sCB = Segment(C, B)
                aO = Angle(A, O, B)
                aC = Angle(A, C, B)
            """),
            style=dedented("""
                SetCaption(aC, "?")
                SetLabelMode(aC, 3)
                SetColor(aC, "#C62828")
            """),
            labels=points("O:e A:sw B:se C:n"),
            checks=(
                "Distance(O, A) == 3",
                "Distance(O, B) == 3",
                "Distance(O, C) == 3",
                "Angle(A, O, B) == 100°",
                "Angle(A, C, B) == 50°",
            ),
        ),
    ),
)


# -------------------------------------------------------------------------------- GeoQA


@dataclass(frozen=True)
class GeoQAProblem:
    """A GeoQA-style multiple-choice problem; `label` indexes the right choice."""

    id: int
    subject: str
    choices: tuple[str, ...]
    label: int
    drawing: Drawing
    caption: str  # what the figure shows; the reference caption adds the question (`problem_caption`)


_GEOQA_A = (1.5, math.sqrt(25 - 1.5**2))
GEOQA_PROBLEMS: tuple[GeoQAProblem, ...] = (
    GeoQAProblem(
        id=1,
        subject=(
            "As shown in the figure, in triangle ABC, points D and E lie on AB and AC "
            "respectively, and DE ∥ BC. If AD = 2, DB = 3 and DE = 4, then the length of BC "
            "is ()"
        ),
        choices=("8", "10", "12", "15"),
        label=1,
        caption=(
            "In triangle ABC, D is a point on side AB and E is a point on side AC. Segment DE is "
            "drawn parallel to BC, so DE ∥ BC."
        ),
        drawing=Drawing(
            script=dedented(f"""
                B = (0, 0)
                C = (10, 0)
                A = ({_num(_GEOQA_A[0])}, sqrt(25 - 1.5^2))
                D = Dilate(B, 2 / 5, A)
                E = Dilate(C, 2 / 5, A)
                sAB = Segment(A, B)
                sBC = Segment(B, C)
                sCA = Segment(C, A)
                sDE = Segment(D, E)
            """),
            labels=points("A:n B:sw C:se D:w E:ne"),
            checks=(
                "Distance(A, D) == 2",
                "Distance(D, B) == 3",
                "Distance(D, E) == 4",
                "Distance(B, C) == 10",
                "Slope(Line(D, E)) == Slope(Line(B, C))",
            ),
        ),
    ),
    GeoQAProblem(
        id=2,
        subject=(
            "As shown in the figure, the diagonals AC and BD of rhombus ABCD intersect at "
            "point O. If AC = 6 and BD = 8, then the side length AB is ()"
        ),
        choices=("5", "6", "7", "10"),
        label=0,
        caption=(
            "Quadrilateral ABCD has A on the left, B at the bottom, C on the right and D at the "
            "top. Its diagonals AC and BD are drawn and intersect at point O, with AC ⊥ BD at O."
        ),
        drawing=Drawing(
            script=dedented("""
                A = (-3, 0)
                B = (0, -4)
                C = (3, 0)
                D = (0, 4)
                rh = Polygon(A, B, C, D)
                sAC = Segment(A, C)
                sBD = Segment(B, D)
                O = Intersect(sAC, sBD)
                rO = Angle(C, O, D)
            """),
            style="ShowLabel(rO, false)",
            labels=points("A:w B:s C:e D:n O:-45"),
            checks=(
                "Distance(A, C) == 6",
                "Distance(B, D) == 8",
                "Distance(A, B) == 5",
                "Distance(B, C) == 5",
                "Distance(C, D) == 5",
                "Distance(D, A) == 5",
            ),
        ),
    ),
    GeoQAProblem(
        id=3,
        subject=(
            "As shown in the figure, A and B are points on circle O with radius 2, and the "
            "central angle ∠AOB = 120°. Then the length of chord AB is ()"
        ),
        choices=("√3", "2", "2√3", "4"),
        label=2,
        caption=(
            "A and B are points on circle O. Radii OA and OB and chord AB are drawn, and "
            "∠AOB = 120°."
        ),
        drawing=Drawing(
            script=dedented("""
                O = (0, 0)
                c = Circle(O, 2)
                A = Rotate((2, 0), 210°, O)
                B = Rotate((2, 0), 330°, O)
                sOA = Segment(O, A)
                sOB = Segment(O, B)
                sAB = Segment(A, B)
                aO = Angle(A, O, B)
            """),
            labels=points("O:n A:sw B:se"),
            checks=(
                "Distance(O, A) == 2",
                "Angle(A, O, B) == 120°",
                "Distance(A, B) == 2sqrt(3)",
            ),
        ),
    ),
    GeoQAProblem(
        id=4,
        subject=(
            "As shown in the figure, in triangle ABC, ∠B = 70° and ∠C = 30°, and AD bisects "
            "∠BAC and meets BC at D. Then ∠ADC equals ()"
        ),
        choices=("90°", "100°", "105°", "110°"),
        label=3,
        caption=(
            "In triangle ABC, ∠ABC = 70° and ∠ACB = 30°. D is a point on side BC, and segment "
            "AD is drawn."
        ),
        drawing=Drawing(
            script=dedented("""
                B = (0, 0)
                C = (6, 0)
                A = Intersect(Ray(B, Rotate(C, 70°, B)), Ray(C, Rotate(B, -30°, C)))
                sAB = Segment(A, B)
                sBC = Segment(B, C)
                sCA = Segment(C, A)
                bis = AngleBisector(B, A, C)
                D = Intersect(bis, sBC)
                sAD = Segment(A, D)
                aB = Angle(C, B, A)
                aC = Angle(A, C, B)
            """),
            style="SetVisibleInView(bis, 1, false)",
            labels=points("A:n B:sw C:se D:s"),
            checks=(
                "Angle(C, B, A) == 70°",
                "Angle(A, C, B) == 30°",
                "Angle(B, A, D) == Angle(D, A, C)",
                "Angle(C, D, A) == 110°",
            ),
        ),
    ),
)


# ------------------------------------------------------------------------------ drawing


def _base(drawing: Drawing) -> Construction:
    """The geometry alone; a line that fails here is a bug in this module."""
    construction = run_script(drawing.script)
    if not construction.pass_at_1:
        failed = [(status.line, status.source, status.error) for status in construction.errors]
        raise ValueError(f"figure script fails in the engine: {failed}")
    return construction


def _view(drawing: Drawing, base: Construction, size: tuple[int, int]) -> tuple[float, ...]:
    """The drawing's window, else the engine's fitted one widened to leave room for labels."""
    if drawing.window is not None:
        return drawing.window
    xmin, ymin, xmax, ymax = fit_window(base, size=size)
    cx, cy = (xmin + xmax) / 2, (ymin + ymax) / 2
    hw, hh = (xmax - xmin) / 2 * FIT_WIDEN, (ymax - ymin) / 2 * FIT_WIDEN
    return (cx - hw, cy - hh, cx + hw, cy + hh)


@lru_cache(maxsize=256)
def _glyph_span(text: str) -> tuple[float, float]:
    """Left and right ink edges of `text` (px) from its anchor, as the renderer sets it."""
    path = TextPath((0, 0), text, size=LABEL_FONT_PX, prop=FontProperties(family="DejaVu Sans"))
    extents = path.get_extents()
    return float(extents.x0), float(extents.x1)


def _anchor(label: Label, base: Construction) -> tuple[float, float]:
    """The world point a label is placed next to."""
    if "," in label.at:
        x, y = (float(v) for v in label.at.split(","))
        return x, y
    names = label.at.split("-")
    xy = []
    for name in names:
        geo = base.objects.get(name)
        if not isinstance(geo, GeoPoint):
            raise ValueError(f"label {label.text!r}: {name!r} is not a point of the figure")
        xy.append(geo.xy)
    return sum(p[0] for p in xy) / len(xy), sum(p[1] for p in xy) / len(xy)


def _label_line(
    label: Label, base: Construction, window: Sequence[float], size: Sequence[int]
) -> str:
    """A `Text(...)` command that centres the label `gap` px off its anchor, toward its side.

    The text's ink box (width from the glyphs, height about the capitals') is placed so its
    side or corner facing the anchor is `gap` px away, so long labels ("A(-2, 0)") keep off
    the point as well as short ones.
    """
    xmin, ymin, xmax, ymax = window
    sx, sy = size[0] / (xmax - xmin), size[1] / (ymax - ymin)
    angle = math.radians(COMPASS[label.toward] if label.toward in COMPASS else float(label.toward))
    left, right = _glyph_span(label.text)
    half_w = (right - left) / 2
    cos_a, sin_a = math.cos(angle), math.sin(angle)
    # Straight east: the box's left side `gap` off the anchor; north-east: its bottom-left
    # corner `gap` off along the diagonal; in between, a blend (components scaled by √2).
    cx = label.gap * cos_a + half_w * max(-1.0, min(1.0, cos_a * math.sqrt(2)))
    cy = label.gap * sin_a + LABEL_HALF_HEIGHT_PX * max(-1.0, min(1.0, sin_a * math.sqrt(2)))
    px, py = cx - (left + right) / 2, cy - LABEL_DESCENT_PX - LABEL_CAP_HALF_PX
    ax, ay = _anchor(label, base)
    text = label.text.replace('"', "'")
    return f'Text("{text}", ({_num(ax + px / sx)}, {_num(ay + py / sy)}))'


def full_script(drawing: Drawing, size: tuple[int, int]) -> str:
    """The whole script the figure is drawn from: geometry, styling, view and label texts."""
    base = _base(drawing)
    window = _view(drawing, base, size)
    lines = [drawing.script]
    for name, geo in base.objects.items():
        if isinstance(geo, GeoPoint):
            lines += [f'SetColor({name}, "black")', f"SetPointSize({name}, 3)"]
            lines.append(f"ShowLabel({name}, false)")
    if drawing.style:
        lines.append(drawing.style)
    lines.append("ZoomIn(" + ", ".join(_num(v) for v in window) + ")")
    if drawing.axes:
        lines.append("ShowAxes(true)")
    lines += [_label_line(label, base, window, size) for label in drawing.labels]
    return "\n".join(lines)


def build_construction(drawing: Drawing, size: tuple[int, int]) -> Construction:
    """The finished figure's construction (every line must run)."""
    construction = run_script(full_script(drawing, size))
    if not construction.pass_at_1:
        failed = [(status.line, status.source, status.error) for status in construction.errors]
        raise ValueError(f"figure fails in the engine: {failed}")
    return construction


def _solid_failures(drawing: Drawing) -> list[str]:
    """The 3D checks of a solid that do not hold: ("length", P, Q, value), ("perp", P, Q,
    R, S) for PQ ⊥ RS, ("parallel", P, Q, R, S) and ("mid", M, P, Q)."""
    xyz = dict(drawing.solid_points)

    def vec(p: str, q: str) -> tuple[float, ...]:
        return tuple(b - a for a, b in zip(xyz[p], xyz[q], strict=True))

    failures = []
    for check in drawing.solid_checks:
        kind, *names = check
        if kind == "length":
            p, q, value = names
            ok = math.isclose(math.dist(xyz[p], xyz[q]), value, abs_tol=1e-9)
        elif kind in ("perp", "parallel"):
            u, v = vec(*names[:2]), vec(*names[2:])
            if kind == "perp":
                ok = abs(sum(a * b for a, b in zip(u, v, strict=True))) < 1e-9
            else:
                cross = (
                    u[1] * v[2] - u[2] * v[1],
                    u[2] * v[0] - u[0] * v[2],
                    u[0] * v[1] - u[1] * v[0],
                )
                ok = max(map(abs, cross)) < 1e-9
        elif kind == "mid":
            m, p, q = names
            middle = tuple((a + b) / 2 for a, b in zip(xyz[p], xyz[q], strict=True))
            ok = math.dist(xyz[m], middle) < 1e-9
        else:
            raise ValueError(f"unknown solid check {check!r}")
        if not ok:
            failures.append(repr(check))
    return failures


def failed_checks(drawing: Drawing) -> list[str]:
    """The drawing's checks that do not hold (an empty list when the figure is right)."""
    failures = _solid_failures(drawing)
    if not drawing.checks:
        return failures
    names = [f"check{index}" for index in range(1, len(drawing.checks) + 1)]
    script = (
        drawing.script
        + "\n"
        + "\n".join(f"{name} = {expr}" for name, expr in zip(names, drawing.checks, strict=True))
    )
    construction = run_script(script)
    for name, expr in zip(names, drawing.checks, strict=True):
        geo = construction.objects.get(name)
        if not (isinstance(geo, GeoBoolean) and geo.value):
            failures.append(expr)
    return failures


def figure_png(drawing: Drawing, size: tuple[int, int]) -> bytes:
    """The figure as PNG bytes; refuses a drawing whose checks fail."""
    failures = failed_checks(drawing)
    if failures:
        raise ValueError(f"figure checks fail: {failures}")
    return render_png(build_construction(drawing, size), size=size)


# ----------------------------------------------------------------- text into an image

TEXT_FONT_PX = 16
TEXT_MARGIN = 12
TEXT_LEADING = 5


def _font() -> ImageFont.FreeTypeFont:
    """DejaVu Sans from matplotlib's own data: present wherever the renderer runs."""
    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    return ImageFont.truetype(str(path), TEXT_FONT_PX)


def _wrap(text: str, font: ImageFont.FreeTypeFont, width: float) -> list[str]:
    """Greedy word wrap by measured width; the text's own line breaks are kept."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and font.getlength(candidate) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def text_above(figure: bytes, text: str) -> bytes:
    """The figure with `text` set above it: a Vision Only image carries its own question."""
    font = _font()
    with Image.open(io.BytesIO(figure)) as opened:
        picture = opened.convert("RGB")
    lines = _wrap(text, font, picture.width - 2 * TEXT_MARGIN)
    ascent, descent = font.getmetrics()
    line_height = ascent + descent + TEXT_LEADING
    band = 2 * TEXT_MARGIN + line_height * len(lines)
    canvas = Image.new("RGB", (picture.width, band + picture.height), "white")
    draw = ImageDraw.Draw(canvas)
    for row, line in enumerate(lines):
        draw.text((TEXT_MARGIN, TEXT_MARGIN + row * line_height), line, fill="black", font=font)
    canvas.paste(picture, (0, band))
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=True)
    return out.getvalue()


# ---------------------------------------------------------------------------- records


def bench_records(figures: Sequence[BenchFigure] = BENCH_FIGURES) -> list[dict[str, Any]]:
    """captions.json: one record per CapGeo-Bench figure, in id order."""
    return [
        {
            "id": figure.id,
            "image": f"images/{figure.id}.png",
            "caption_en": figure.caption_en,
            "caption_zh": figure.caption_zh,
            "class": figure.cls,
            "difficulty": figure.difficulty,
            "source": SOURCE,
        }
        for figure in figures
    ]


def mathvista_records(
    items: Sequence[MathVistaItem] = MATHVISTA_ITEMS,
) -> dict[str, dict[str, Any]]:
    """testmini.json as MathVista publishes it: a dict keyed by pid."""
    records: dict[str, dict[str, Any]] = {}
    for item in items:
        records[item.pid] = {
            "question": item.question,
            "image": f"images/{item.pid}.png",
            "choices": list(item.choices) if item.choices is not None else None,
            "unit": item.unit,
            "precision": item.precision,
            "answer": item.answer,
            "question_type": "multi_choice" if item.choices is not None else "free_form",
            "answer_type": item.answer_type,
            "pid": item.pid,
            "metadata": {**GEOMETRY_METADATA, **item.metadata},
        }
    return records


def _with_choices(question: str, choices: Sequence[str] | None) -> str:
    """MathVerse's layout for choices inside the question text."""
    if choices is None:
        return question
    letters = "ABCDEFGH"
    return (
        question
        + "\nChoices:\n"
        + "\n".join(f"{letter}:{choice}" for letter, choice in zip(letters, choices, strict=False))
    )


def _mathverse_prompts(problem: MathVerseProblem, question: str) -> tuple[str, str]:
    """(query_wo, query_cot): a direct-answer and a reasoning prompt, in our own words."""
    if problem.choices is not None:
        ask = "give the letter of the correct option (A, B, C or D)"
    else:
        ask = "give the final answer as a number"
    if question:
        tail = f"\nQuestion: {question}"
        where = "Use the figure to answer the question below"
    else:
        tail = ""
        where = "The problem, with any choices, is written in the figure. Solve it"
    return (
        f"{where}; {ask} and nothing else.{tail}",
        f"{where}. Think it through step by step, then {ask} at the end.{tail}",
    )


def mathverse_records(
    problems: Sequence[MathVerseProblem] = MATHVERSE_PROBLEMS,
) -> list[dict[str, Any]]:
    """testmini.json as MathVerse publishes it: a list, each problem in two versions."""
    records = []
    sample = 0
    for problem in problems:
        full = _with_choices(problem.question_full, problem.choices)
        for version, question, image in (
            (
                "Vision Intensive",
                _with_choices(problem.question_vi, problem.choices),
                f"images_version_1-4/image_{problem.index}.png",
            ),
            ("Vision Only", "", f"images_version_6/image_{problem.index}.png"),
        ):
            sample += 1
            query_wo, query_cot = _mathverse_prompts(problem, question)
            records.append(
                {
                    "sample_index": str(sample),
                    "problem_index": problem.index,
                    "problem_version": version,
                    "question": question,
                    "image": image,
                    "answer": problem.answer,
                    "question_type": "multi-choice" if problem.choices else "free-form",
                    "metadata": {
                        "split": "testmini",
                        "source": SOURCE,
                        "subject": "Plane Geometry",
                        "subfield": problem.subfield,
                    },
                    "query_wo": query_wo,
                    "query_cot": query_cot,
                    "question_for_eval": full,
                }
            )
    return records


def geoqa_records(problems: Sequence[GeoQAProblem] = GEOQA_PROBLEMS) -> list[dict[str, Any]]:
    """test.jsonl's objects, in id order."""
    return [
        {
            "id": problem.id,
            "subject": problem.subject,
            "choices": list(problem.choices),
            "label": problem.label,
            "answer": problem.choices[problem.label],
            "image": f"images/{problem.id}.png",
        }
        for problem in problems
    ]


def problem_caption(figure: str, question: str, choices: Sequence[str] | None) -> str:
    """A reference caption of a reasoning problem, the whole problem restated as
    captioning.py's problem prompts ask: the figure's conditions, then the question with its
    options after "Question:"."""
    return f"{figure}\n\nQuestion: {_with_choices(question, choices)}"


def vision_only_caption(problem: MathVerseProblem) -> str:
    """A Vision Only problem's caption: the figure's, then the problem drawn above it, copied
    word for word."""
    return problem_caption(problem.caption, problem.question_full, problem.choices)


def reference_captions() -> dict[str, list[dict[str, Any]]]:
    """Each source's reference caption entries, keyed by source name, in item order.

    Entries have the caption store's own shape ({id, captioner, caption, error}), keyed by
    the id `sources.load_source` gives the item: MathVista's pid, MathVerse's sample_index
    (each version its own id), GeoQA's id.
    """

    def entry(item_id: str, caption: str) -> dict[str, Any]:
        return {"id": item_id, "captioner": REFERENCE_CAPTIONER, "caption": caption, "error": None}

    problems = {problem.index: problem for problem in MATHVERSE_PROBLEMS}
    verse: dict[str, list[dict[str, Any]]] = {"mathverse_vision_intensive": [], "mathverse_vision_only": []}
    for record in mathverse_records():
        problem = problems[record["problem_index"]]
        if record["problem_version"] == "Vision Only":
            verse["mathverse_vision_only"].append(entry(record["sample_index"], vision_only_caption(problem)))
        else:
            verse["mathverse_vision_intensive"].append(
                entry(record["sample_index"], problem_caption(problem.caption, problem.question_vi, problem.choices))
            )
    return {
        "mathvista_geometry": [
            entry(item.pid, problem_caption(item.caption, item.question, item.choices))
            for item in MATHVISTA_ITEMS
            if item.caption
        ],
        **verse,
        "geoqa": [
            entry(str(problem.id), problem_caption(problem.caption, problem.subject, problem.choices))
            for problem in GEOQA_PROBLEMS
        ],
    }


def caption_files() -> dict[str, bytes]:
    """`sources/captions/<captioner>__<source>__<variant>.jsonl`: one caption store per source."""
    files: dict[str, bytes] = {}
    for name, entries in reference_captions().items():
        source = SOURCES[name]
        store = CaptionStore(Path("sources") / SAMPLE_CAPTIONS, REFERENCE_CAPTIONER, name, source.variant)
        lines = [json.dumps(entry, ensure_ascii=False) + "\n" for entry in entries]
        files[store.path.as_posix()] = "".join(lines).encode("utf-8")
    return files


def sample_files() -> dict[str, bytes]:
    """Every file of both sample folders, keyed by path relative to the benchmarks folder."""
    files: dict[str, bytes] = {"capgeo_bench/sample/captions.json": json_bytes(bench_records())}
    for figure in BENCH_FIGURES:
        files[f"capgeo_bench/sample/images/{figure.id}.png"] = figure_png(figure.drawing, BENCH_SIZE)

    vista = "capgeo/sources/mathvista"
    files[f"{vista}/testmini.json"] = json_bytes(mathvista_records())
    for item in MATHVISTA_ITEMS:
        files[f"{vista}/images/{item.pid}.png"] = figure_png(item.drawing, REASONING_SIZE)

    verse = "capgeo/sources/mathverse"
    files[f"{verse}/testmini.json"] = json_bytes(mathverse_records())
    for problem in MATHVERSE_PROBLEMS:
        png = figure_png(problem.drawing, REASONING_SIZE)
        full = _with_choices(problem.question_full, problem.choices)
        files[f"{verse}/images_version_1-4/image_{problem.index}.png"] = png
        files[f"{verse}/images_version_6/image_{problem.index}.png"] = text_above(png, full)

    geoqa = "capgeo/sources/geoqa"
    lines = [json.dumps(record, ensure_ascii=False) + "\n" for record in geoqa_records()]
    files[f"{geoqa}/test.jsonl"] = "".join(lines).encode("utf-8")
    for geoqa_problem in GEOQA_PROBLEMS:
        files[f"{geoqa}/images/{geoqa_problem.id}.png"] = figure_png(
            geoqa_problem.drawing, REASONING_SIZE
        )
    files.update({f"capgeo/{path}": data for path, data in caption_files().items()})
    return files


def write_sample(out_dir: Path | str = BENCHMARKS_DIR) -> list[Path]:
    """(Re)write `capgeo_bench/sample/` and `capgeo/sources/` under `out_dir`; returns the
    written paths.

    Both folders are emptied first so a dropped item leaves no stale file behind for a
    builder to pick up; nothing else in `out_dir` (the benchmarks' packages) is touched.
    """
    return write_files(sample_files(), out_dir, OWNED_DIRS)


def main() -> None:
    """Rewrite the committed samples and say how large they are."""
    report(write_sample(), BENCHMARKS_DIR)


if __name__ == "__main__":
    main()
