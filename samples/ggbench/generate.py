"""The source of geomeval's embedded GGBench sample: 15 original problems and their figures.

GGBench asks a model to construct a geometric figure with GeoGebra and judges the plan, the
code (does it run, Pass@1) and the figures (after each step, finished, and side by side).
geomeval ships a small sample so the whole pipeline (builder, prompts, engine, scorer) runs
offline and in CI without downloading the benchmark. The problems here are written for
geomeval, not taken from GGBench; only the release *layout* is GGBench's, so the lead's
builder reads this folder exactly as it reads the official download.

`python -m samples.ggbench.generate` (re)writes `src/geomeval/benchmarks/ggbench/sample/`:

- `GGBench_dataset.json`: one record per problem, with the official field names;
- `Q&A_image/{id}_1.png`: the problem figure (the givens only), for problems that have one;
  `{id}_2.png` … `{id}_{n+1}.png`: the figure after each of the n steps, all in the final
  view; `{id}_{n+2}.png`: the finished figure;
- `long_image/{id}.png`: the step figures side by side, as GGBench's process judge sees them.

Every figure is drawn by geomeval's own GeoGebra engine from the reference script stored
below, so the committed files are a pure function of this module (a test regenerates them
and compares bytes). Every reference script runs with every line OK in the engine and in
the real GeoGebra 4.0.34 jar (the cross-check reference), which is why the scripts avoid
commands 4.0 lacks (`ShowAxes`, hex colours). Figures are exactly what the reference script
draws (no axes switched on behind its back), so a candidate drawn by the same engine in the
same view can be compared with them pixel for pixel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from geomeval.geogebra import Construction, render_long_image, render_png, render_steps, run_blocks
from samples.kit import dedented, json_bytes, report, sample_dir, write_files

__all__ = [
    "CATEGORIES",
    "DIFFICULTIES",
    "IMAGE_SIZE",
    "PROBLEMS",
    "QUESTION_TYPES",
    "SAMPLE_DIR",
    "Problem",
    "Step",
    "build_construction",
    "givens_construction",
    "records",
    "reference_script",
    "sample_files",
    "text_answer",
    "write_sample",
]

SAMPLE_DIR = sample_dir("ggbench")
DATASET_FILE = "GGBench_dataset.json"
QA_DIR = "Q&A_image"
LONG_DIR = "long_image"
# Modest panels keep the committed sample small (a few MB) while labels stay legible.
IMAGE_SIZE: tuple[int, int] = (600, 450)

SC = "Straightedge-and-compass construction"
TRANSFORM = "Geometric transformation construction"
ANALYTIC = "Analytic construction"
QUESTION_TYPES = (SC, TRANSFORM, ANALYTIC)
DIFFICULTIES = ("Easy", "Medium", "Hard")

# GGBench's eight skill categories, as its release writes them: "中文 (English)".
CATEGORIES: dict[str, str] = {
    "Basic Constructions": "基础几何作图",
    "Circle Properties & Constructions": "圆的性质与作图",
    "Geometric Transformations": "几何变换",
    "Triangle Properties & Constructions": "三角形性质与作图",
    "Application of Theorems": "几何定理应用",
    "Polygon Properties & Constructions": "多边形性质与作图",
    "Measurement & Ratios": "度量与比例",
    "Locus Construction": "轨迹作图",
}
BASIC, CIRCLE, TRANSFORMS, TRIANGLE, THEOREMS, POLYGON, MEASURE, LOCUS = CATEGORIES



@dataclass(frozen=True)
class Step:
    """One step of a reference solution: what it does, why, and the commands it runs."""

    title: str
    method: str
    code: str


@dataclass(frozen=True)
class Problem:
    """An original construction problem with its reference solution.

    The first step always draws the givens, so a problem with a figure (`figure`) shows
    exactly that step's objects as its question image.
    """

    id: str
    title: str
    question: str
    question_type: str
    difficulty: str
    categories: tuple[str, ...]
    inspection: tuple[str, ...]
    steps: tuple[Step, ...]
    figure: bool = False

    @property
    def blocks(self) -> list[str]:
        """The step blocks, in order, as the engine runs them."""
        return [step.code for step in self.steps]


PROBLEMS: tuple[Problem, ...] = (
    # ------------------------------------------------------ straightedge and compass
    Problem(
        id="1",
        title="Perpendicular Bisector of a Segment",
        question=(
            "As shown in the figure, a segment AB is given. Using only a straightedge and a "
            "compass, construct the perpendicular bisector m of AB and mark the midpoint M "
            "of AB."
        ),
        question_type=SC,
        difficulty="Easy",
        categories=(BASIC,),
        inspection=("Perpendicular Bisector", "Midpoint", "Circle Intersection"),
        figure=True,
        steps=(
            Step(
                "Draw the given segment",
                "Place the endpoints A and B and join them; this is the segment to be bisected.",
                dedented("""
                    A = (0, 0)
                    B = (6, 2)
                    s = Segment(A, B)
                """),
            ),
            Step(
                "Draw two circles with radius AB",
                "With the compass set to the length AB, draw one circle about A and one about "
                "B. Any point on both circles is equally far from A and from B.",
                dedented("""
                    c_A = Circle(A, B)
                    c_B = Circle(B, A)
                    SetColor(c_A, "gray")
                    SetColor(c_B, "gray")
                    SetLineStyle(c_A, 1)
                    SetLineStyle(c_B, 1)
                """),
            ),
            Step(
                "Join the two crossing points",
                "The circles cross at P and Q, both equidistant from A and B. The set of such "
                "points is a line, so the line PQ is the perpendicular bisector.",
                dedented("""
                    P = Intersect(c_A, c_B, 1)
                    Q = Intersect(c_A, c_B, 2)
                    m = Line(P, Q)
                    SetColor(m, "red")
                    SetLineThickness(m, 5)
                    ShowLabel(m, true)
                """),
            ),
            Step(
                "Mark the midpoint",
                "The bisector meets AB at its midpoint M, since M lies on AB and is as far "
                "from A as from B.",
                dedented("""
                    M = Intersect(m, s)
                    SetColor(M, "red")
                """),
            ),
        ),
    ),
    Problem(
        id="2",
        title="Equilateral Triangle on a Given Side",
        question=(
            "Given a segment AB, construct with straightedge and compass an equilateral "
            "triangle ABC that has AB as one of its sides."
        ),
        question_type=SC,
        difficulty="Easy",
        categories=(BASIC, TRIANGLE),
        inspection=("Equilateral Triangle", "Equal Radii", "Circle Intersection"),
        steps=(
            Step(
                "Draw the given side",
                "Fix the two endpoints A and B of the given side.",
                dedented("""
                    A = (1, 1)
                    B = (5, 1)
                    s = Segment(A, B)
                """),
            ),
            Step(
                "Draw a circle about each endpoint",
                "A circle about A through B holds every point at distance AB from A; the "
                "circle about B through A does the same for B.",
                dedented("""
                    k_A = Circle(A, B)
                    k_B = Circle(B, A)
                    SetColor(k_A, "gray")
                    SetColor(k_B, "gray")
                    SetLineStyle(k_A, 1)
                    SetLineStyle(k_B, 1)
                """),
            ),
            Step(
                "Take a crossing point as the third vertex",
                "A point C on both circles has CA = AB and CB = AB, so all three sides of ABC "
                "are equal.",
                dedented("""
                    C = Intersect(k_A, k_B, 1)
                    tri = Polygon(A, B, C)
                    SetColor(tri, "blue")
                    SetFilling(tri, 0.2)
                """),
            ),
        ),
    ),
    Problem(
        id="3",
        title="Dividing a Segment in the Ratio 2 : 3",
        question=(
            "Given a segment AB, use a straightedge and compass to construct the point P on "
            "AB for which AP : PB = 2 : 3."
        ),
        question_type=SC,
        difficulty="Medium",
        categories=(MEASURE, THEOREMS, BASIC),
        inspection=("Intercept Theorem", "Parallel Line", "Equal Divisions", "Ratio 2:3"),
        steps=(
            Step(
                "Draw the segment and an auxiliary ray",
                "Besides AB, draw a ray from A in any other direction; equal lengths will be "
                "laid off along it.",
                dedented("""
                    A = (0, 0)
                    B = (7, 1)
                    s = Segment(A, B)
                    D = (4, 6)
                    r = Ray(A, D)
                    SetColor(r, "gray")
                """),
            ),
            Step(
                "Lay off five equal lengths on the ray",
                "Keeping one compass opening, step from A along the ray five times to get "
                "U_1, …, U_5 with equal gaps (2 + 3 = 5 parts).",
                dedented("""
                    e_1 = Circle(A, 1)
                    U_1 = Intersect(e_1, r, 1)
                    e_2 = Circle(U_1, 1)
                    U_2 = Intersect(e_2, r, 2)
                    e_3 = Circle(U_2, 1)
                    U_3 = Intersect(e_3, r, 2)
                    e_4 = Circle(U_3, 1)
                    U_4 = Intersect(e_4, r, 2)
                    e_5 = Circle(U_4, 1)
                    U_5 = Intersect(e_5, r, 2)
                    SetLineStyle(e_1, 2)
                    SetLineStyle(e_2, 2)
                    SetLineStyle(e_3, 2)
                    SetLineStyle(e_4, 2)
                    SetLineStyle(e_5, 2)
                    SetColor(e_1, "gray")
                    SetColor(e_2, "gray")
                    SetColor(e_3, "gray")
                    SetColor(e_4, "gray")
                    SetColor(e_5, "gray")
                """),
            ),
            Step(
                "Join the last mark to B and draw a parallel",
                "Join U_5 to B, then draw the line through U_2 parallel to U_5B. By the "
                "intercept (Thales) theorem the parallels cut AB in the same ratio as the "
                "ray, 2 : 3.",
                dedented("""
                    j = Segment(U_5, B)
                    p = Line(U_2, j)
                    SetLineStyle(j, 1)
                    SetColor(p, "orange")
                """),
            ),
            Step(
                "Mark the dividing point",
                "The parallel meets AB at the required point P; the quotient AP/PB shows 2/3.",
                dedented("""
                    P = Intersect(p, s)
                    ratio = Distance(A, P) / Distance(P, B)
                    SetColor(P, "red")
                    SetPointSize(P, 6)
                """),
            ),
        ),
    ),
    Problem(
        id="4",
        title="Tangents from an External Point",
        question=(
            "As shown in the figure, circle c has centre O and P is a point outside it. "
            "Construct both tangent lines from P to c, with their points of contact T_1 and "
            "T_2."
        ),
        question_type=SC,
        difficulty="Medium",
        categories=(CIRCLE, THEOREMS),
        inspection=("Tangent Line", "Thales' Theorem", "Circle with Diameter OP", "Right Angle"),
        figure=True,
        steps=(
            Step(
                "Draw the given circle and point",
                "Draw circle c about O and the outside point P.",
                dedented("""
                    O = (0, 0)
                    c = Circle(O, 2)
                    P = (6, 1)
                    ShowLabel(c, true)
                """),
            ),
            Step(
                "Find the midpoint of OP",
                "The contact points will lie on the circle with diameter OP, so first find "
                "the midpoint M of OP.",
                dedented("""
                    h = Segment(O, P)
                    M = Midpoint(O, P)
                    SetLineStyle(h, 1)
                """),
            ),
            Step(
                "Draw the circle on OP as diameter",
                "By Thales' theorem every point T of this circle sees OP at a right angle; "
                "where it meets c, the radius OT is perpendicular to PT, which is exactly "
                "the tangency condition.",
                dedented("""
                    d = Circle(M, O)
                    SetColor(d, "gray")
                    SetLineStyle(d, 1)
                    T_1 = Intersect(c, d, 1)
                    T_2 = Intersect(c, d, 2)
                """),
            ),
            Step(
                "Draw the tangent lines",
                "Join P to each contact point; the radii OT_1 and OT_2 are drawn to show the "
                "right angles.",
                dedented("""
                    t_1 = Line(P, T_1)
                    t_2 = Line(P, T_2)
                    SetColor(t_1, "red")
                    SetColor(t_2, "red")
                    u_1 = Segment(O, T_1)
                    u_2 = Segment(O, T_2)
                    SetLineStyle(u_1, 2)
                    SetLineStyle(u_2, 2)
                """),
            ),
        ),
    ),
    Problem(
        id="5",
        title="Circles of Given Radius through a Point and Tangent to a Line",
        question=(
            "As shown in the figure, line l and a point P at distance 3 from l are given. "
            "Construct every circle of radius 2 that passes through P and touches l. Label "
            "the centres O_1 and O_2."
        ),
        question_type=SC,
        difficulty="Hard",
        categories=(LOCUS, CIRCLE),
        inspection=("Locus of Centres", "Parallel Line at Distance 2", "Circle Tangent to Line"),
        figure=True,
        steps=(
            Step(
                "Draw the given line and point",
                "Line l runs through A and B; P lies 3 units above it.",
                dedented("""
                    A = (0, 0)
                    B = (8, 0)
                    l = Line(A, B)
                    P = (3, 3)
                    ShowLabel(l, true)
                """),
            ),
            Step(
                "First locus: centres at distance 2 from l",
                "A circle of radius 2 touches l exactly when its centre is 2 away from l. On "
                "P's side these centres fill the parallel to l at distance 2: erect a "
                "perpendicular at A, mark N with AN = 2 and draw the parallel through N.",
                dedented("""
                    n = PerpendicularLine(A, l)
                    k = Circle(A, 2)
                    N = Intersect(k, n, 2)
                    g = Line(N, l)
                    SetLineStyle(n, 2)
                    SetLineStyle(k, 2)
                    SetColor(g, "orange")
                    SetLineStyle(g, 1)
                """),
            ),
            Step(
                "Second locus: centres at distance 2 from P",
                "A circle of radius 2 passes through P exactly when its centre is 2 away from "
                "P, that is, on the circle of radius 2 about P.",
                dedented("""
                    k_P = Circle(P, 2)
                    SetColor(k_P, "orange")
                    SetLineStyle(k_P, 1)
                """),
            ),
            Step(
                "Intersect the two loci",
                "The centres satisfy both conditions, so they are the two crossing points of "
                "the loci.",
                dedented("""
                    O_1 = Intersect(g, k_P, 1)
                    O_2 = Intersect(g, k_P, 2)
                """),
            ),
            Step(
                "Draw the circles",
                "Draw the circle of radius 2 about each centre; each passes through P and "
                "touches l at the foot of the perpendicular from its centre.",
                dedented("""
                    s_1 = Circle(O_1, 2)
                    s_2 = Circle(O_2, 2)
                    SetColor(s_1, "red")
                    SetColor(s_2, "blue")
                    SetLineThickness(s_1, 5)
                    SetLineThickness(s_2, 5)
                """),
            ),
        ),
    ),
    # ------------------------------------------------------ geometric transformations
    Problem(
        id="6",
        title="Reflecting a Triangle in a Line",
        question=(
            "As shown in the figure, triangle ABC and a line m are given. Construct the "
            "image A'B'C' of the triangle under reflection in m."
        ),
        question_type=TRANSFORM,
        difficulty="Easy",
        categories=(TRANSFORMS, TRIANGLE),
        inspection=("Line Reflection", "Perpendicular to Mirror", "Congruent Image"),
        figure=True,
        steps=(
            Step(
                "Draw the triangle and the mirror line",
                "Draw triangle ABC and the mirror line m through E and F.",
                dedented("""
                    A = (0, 1)
                    B = (3, 0)
                    C = (1, 4)
                    tri = Polygon(A, B, C)
                    E = (5, -1)
                    F = (6, 4)
                    m = Line(E, F)
                    SetFilling(tri, 0.2)
                    ShowLabel(m, true)
                """),
            ),
            Step(
                "Drop perpendiculars to the mirror",
                "Each vertex and its image lie on one perpendicular to m, at equal distances "
                "on either side.",
                dedented("""
                    p_A = PerpendicularLine(A, m)
                    p_B = PerpendicularLine(B, m)
                    p_C = PerpendicularLine(C, m)
                    SetLineStyle(p_A, 2)
                    SetLineStyle(p_B, 2)
                    SetLineStyle(p_C, 2)
                    SetColor(p_A, "gray")
                    SetColor(p_B, "gray")
                    SetColor(p_C, "gray")
                """),
            ),
            Step(
                "Reflect the vertices",
                "Reflect each vertex in m to get A', B' and C' on the perpendiculars.",
                dedented("""
                    A' = Reflect(A, m)
                    B' = Reflect(B, m)
                    C' = Reflect(C, m)
                """),
            ),
            Step(
                "Join the image triangle",
                "A reflection preserves lengths, so A'B'C' is congruent to ABC with the "
                "opposite orientation.",
                dedented("""
                    img = Polygon(A', B', C')
                    SetColor(img, "red")
                    SetFilling(img, 0.2)
                """),
            ),
        ),
    ),
    Problem(
        id="7",
        title="Translating a Quadrilateral by a Vector",
        question=(
            "Quadrilateral ABCD and a vector u from point P to point Q are given. Construct "
            "the image A'B'C'D' of ABCD under the translation by u."
        ),
        question_type=TRANSFORM,
        difficulty="Easy",
        categories=(TRANSFORMS, POLYGON),
        inspection=("Translation", "Vector", "Parallel Equal Segments", "Congruent Quadrilateral"),
        steps=(
            Step(
                "Draw the quadrilateral and the vector",
                "Draw ABCD and the translation vector u from P to Q.",
                dedented("""
                    A = (0, 0)
                    B = (3, 0)
                    C = (4, 2)
                    D = (1, 3)
                    quad = Polygon(A, B, C, D)
                    P = (0, -2)
                    Q = (5, -1)
                    u = Vector(P, Q)
                    SetFilling(quad, 0.2)
                """),
            ),
            Step(
                "Translate every vertex",
                "Move each vertex by u; the segments from a vertex to its image are all "
                "parallel to u and as long as u.",
                dedented("""
                    A' = Translate(A, u)
                    B' = Translate(B, u)
                    C' = Translate(C, u)
                    D' = Translate(D, u)
                    g_A = Segment(A, A')
                    g_C = Segment(C, C')
                    SetLineStyle(g_A, 1)
                    SetLineStyle(g_C, 1)
                """),
            ),
            Step(
                "Join the image quadrilateral",
                "Join the images in order; a translation keeps lengths, angles and "
                "direction, so A'B'C'D' is a shifted copy of ABCD.",
                dedented("""
                    img = Polygon(A', B', C', D')
                    SetColor(img, "red")
                    SetFilling(img, 0.2)
                """),
            ),
        ),
    ),
    Problem(
        id="8",
        title="Regular Hexagon by Repeated Rotation",
        question=(
            "A circle c with centre O passes through a point A. Using rotations about O, "
            "construct the regular hexagon ABCDEF inscribed in c with one vertex at A."
        ),
        question_type=TRANSFORM,
        difficulty="Medium",
        categories=(TRANSFORMS, POLYGON, CIRCLE),
        inspection=(
            "Rotation by 60°",
            "Regular Hexagon",
            "Inscribed Polygon",
            "Side Equals Radius",
        ),
        steps=(
            Step(
                "Draw the circle and the first vertex",
                "Draw circle c about O through A.",
                dedented("""
                    O = (0, 0)
                    A = (3, 0)
                    c = Circle(O, A)
                """),
            ),
            Step(
                "Rotate the vertex five times by 60°",
                "A regular hexagon's vertices are spaced 360°/6 = 60° apart around the "
                "centre, so each vertex is the previous one rotated by 60° about O.",
                dedented("""
                    B = Rotate(A, 60°, O)
                    C = Rotate(B, 60°, O)
                    D = Rotate(C, 60°, O)
                    E = Rotate(D, 60°, O)
                    F = Rotate(E, 60°, O)
                """),
            ),
            Step(
                "Join the vertices",
                "Join A to F in order to close the hexagon.",
                dedented("""
                    hex = Polygon(A, B, C, D, E, F)
                    SetColor(hex, "red")
                    SetFilling(hex, 0.15)
                """),
            ),
            Step(
                "Check a side against the radius",
                "Triangle OAB is isosceles with a 60° apex, hence equilateral: every side "
                "equals the radius of c.",
                dedented("""
                    r_O = Segment(O, A)
                    r_B = Segment(O, B)
                    SetLineStyle(r_O, 1)
                    SetLineStyle(r_B, 1)
                    side = Distance(A, B)
                    radius = Radius(c)
                """),
            ),
        ),
    ),
    Problem(
        id="9",
        title="Square Inscribed in a Triangle by Enlargement",
        question=(
            "As shown in the figure, triangle ABC is given. Construct a square with one side "
            "on BC, its third vertex on AC and its fourth vertex on AB."
        ),
        question_type=TRANSFORM,
        difficulty="Hard",
        categories=(TRANSFORMS, POLYGON, TRIANGLE),
        inspection=("Homothety", "Dilation from B", "Inscribed Square", "Scale Factor"),
        figure=True,
        steps=(
            Step(
                "Draw the triangle",
                "Draw triangle ABC with base BC. GeoGebra names each side after the opposite "
                "vertex: a = BC, b = CA, c = AB.",
                dedented("""
                    B = (0, 0)
                    C = (8, 0)
                    A = (3, 5)
                    tri = Polygon(A, B, C)
                """),
            ),
            Step(
                "Draw a small square that fits two conditions",
                "Take a point P on AB, drop the perpendicular to BC at Q and build the square "
                "PQRS on QP towards C. It has a side on BC and a vertex on AB but S is not "
                "yet on AC.",
                dedented("""
                    P = Dilate(A, 0.4, B)
                    n = PerpendicularLine(P, a)
                    Q = Intersect(n, a)
                    R = Rotate(P, -90°, Q)
                    S = Rotate(Q, -90°, R)
                    small = Polygon(P, Q, R, S)
                    SetLineStyle(n, 2)
                    SetColor(small, "gray")
                """),
            ),
            Step(
                "Find where the enlargement must reach",
                "Any enlargement centred at B keeps a side on BC and a vertex on AB, so "
                "enlarge until S reaches AC: the ray BS meets AC at S', which fixes the scale "
                "factor k = BS'/BS.",
                dedented("""
                    h = Ray(B, S)
                    S' = Intersect(h, b)
                    k = Distance(B, S') / Distance(B, S)
                    SetLineStyle(h, 1)
                    SetColor(h, "orange")
                """),
            ),
            Step(
                "Enlarge the square from B",
                "Dilate the other vertices by k about B and join the four images: this "
                "square has its side on BC, S' on AC and P' on AB.",
                dedented("""
                    P' = Dilate(P, k, B)
                    Q' = Dilate(Q, k, B)
                    R' = Dilate(R, k, B)
                    sq = Polygon(P', Q', R', S')
                    SetColor(sq, "red")
                    SetFilling(sq, 0.25)
                """),
            ),
        ),
    ),
    Problem(
        id="10",
        title="Segment with Given Midpoint between a Circle and a Line",
        question=(
            "As shown in the figure, circle c (centre O), line l and a point M are given. "
            "Construct every segment XY with X on c, Y on l and midpoint M."
        ),
        question_type=TRANSFORM,
        difficulty="Hard",
        categories=(TRANSFORMS, LOCUS, CIRCLE),
        inspection=("Point Reflection", "Half-Turn of a Circle", "Locus", "Midpoint"),
        figure=True,
        steps=(
            Step(
                "Draw the givens",
                "Draw circle c about O, line l through E and F, and the point M.",
                dedented("""
                    O = (0, 0)
                    c = Circle(O, 2)
                    E = (4, -3)
                    F = (7, 3)
                    l = Line(E, F)
                    M = (3, 0)
                    ShowLabel(c, true)
                    ShowLabel(l, true)
                """),
            ),
            Step(
                "Reflect the circle in M",
                "If M is the midpoint of XY then Y is the image of X under the half-turn "
                "about M. As X runs over c, its image runs over the reflected circle c', so "
                "c' is the locus of possible endpoints Y.",
                dedented("""
                    c' = Reflect(c, M)
                    SetColor(c', "orange")
                    SetLineStyle(c', 1)
                """),
            ),
            Step(
                "Intersect the locus with l",
                "Y must also lie on l, so the possible Y are where c' meets l.",
                dedented("""
                    Y_1 = Intersect(c', l, 1)
                    Y_2 = Intersect(c', l, 2)
                """),
            ),
            Step(
                "Reflect back and draw the segments",
                "Reflecting each Y in M gives its partner X on c; both segments XY have "
                "midpoint M.",
                dedented("""
                    X_1 = Reflect(Y_1, M)
                    X_2 = Reflect(Y_2, M)
                    s_1 = Segment(X_1, Y_1)
                    s_2 = Segment(X_2, Y_2)
                    SetColor(s_1, "red")
                    SetColor(s_2, "blue")
                    SetLineThickness(s_1, 5)
                    SetLineThickness(s_2, 5)
                """),
            ),
        ),
    ),
    # ------------------------------------------------------ analytic constructions
    Problem(
        id="11",
        title="Centroid from the Medians",
        question=(
            "In the coordinate plane, A = (-2, 0), B = (6, 0) and C = (2, 6). Construct the "
            "medians from A and B of triangle ABC, their intersection G, and check that G "
            "divides the median from A in the ratio 2 : 1."
        ),
        question_type=ANALYTIC,
        difficulty="Easy",
        categories=(TRIANGLE, MEASURE),
        inspection=("Midpoints", "Medians", "Centroid G = (2, 2)", "Ratio 2:1"),
        steps=(
            Step(
                "Plot the triangle",
                "Enter the three vertices and join them.",
                dedented("""
                    A = (-2, 0)
                    B = (6, 0)
                    C = (2, 6)
                    tri = Polygon(A, B, C)
                    SetFilling(tri, 0.1)
                """),
            ),
            Step(
                "Midpoints of the opposite sides",
                "The median from a vertex ends at the midpoint of the opposite side: "
                "M_a = (4, 3) on BC and M_b = (0, 3) on CA.",
                dedented("""
                    M_a = Midpoint(B, C)
                    M_b = Midpoint(C, A)
                """),
            ),
            Step(
                "Draw the two medians",
                "Join each vertex to the midpoint opposite it.",
                dedented("""
                    m_a = Segment(A, M_a)
                    m_b = Segment(B, M_b)
                    SetColor(m_a, "blue")
                    SetColor(m_b, "blue")
                """),
            ),
            Step(
                "Intersect and measure",
                "The medians meet at the centroid G = (2, 2), the average of the vertices; "
                "AG/GM_a comes out as 2.",
                dedented("""
                    G = Intersect(m_a, m_b)
                    SetColor(G, "red")
                    SetPointSize(G, 6)
                    q = Distance(A, G) / Distance(G, M_a)
                """),
            ),
        ),
    ),
    Problem(
        id="12",
        title="Circle through Three Given Points",
        question=(
            "Construct the circle through the points A = (2, 1), B = (8, 1) and C = (6, 5), "
            "and give its centre and radius."
        ),
        question_type=ANALYTIC,
        difficulty="Medium",
        categories=(CIRCLE, TRIANGLE),
        inspection=("Perpendicular Bisectors", "Circumcentre (5, 2)", "Radius √10"),
        steps=(
            Step(
                "Plot the three points",
                "Enter A, B and C.",
                dedented("""
                    A = (2, 1)
                    B = (8, 1)
                    C = (6, 5)
                """),
            ),
            Step(
                "Bisect two of the chords",
                "The centre is equally far from A and B, and from B and C, so it lies on the "
                "perpendicular bisectors of AB (the line x = 5) and BC.",
                dedented("""
                    p_1 = PerpendicularBisector(A, B)
                    p_2 = PerpendicularBisector(B, C)
                    SetLineStyle(p_1, 1)
                    SetLineStyle(p_2, 1)
                """),
            ),
            Step(
                "Intersect the bisectors",
                "They meet at the centre O = (5, 2).",
                dedented("""
                    O = Intersect(p_1, p_2)
                    SetColor(O, "red")
                """),
            ),
            Step(
                "Draw the circle",
                "The circle about O through A also passes through B and C; its radius is "
                "OA = √(3² + 1²) = √10 ≈ 3.16.",
                dedented("""
                    k = Circle(O, A)
                    SetColor(k, "red")
                    SetLineThickness(k, 5)
                    r_k = Radius(k)
                """),
            ),
        ),
    ),
    Problem(
        id="13",
        title="Perpendicular from a Point to a Line",
        question=(
            "Line l has the equation y = 2x - 1 and P = (1, 4). Construct the line through "
            "P perpendicular to l, its foot H on l, the distance from P to l, and the circle "
            "about P that touches l."
        ),
        question_type=ANALYTIC,
        difficulty="Medium",
        categories=(BASIC, MEASURE),
        inspection=("Perpendicular Line", "Foot H = (2.2, 3.4)", "Distance 3/√5", "Tangent Circle"),
        steps=(
            Step(
                "Draw the line and the point",
                "Two points of y = 2x - 1, for example (0, -1) and (2, 3), fix l; then plot P.",
                dedented("""
                    A = (0, -1)
                    B = (2, 3)
                    l = Line(A, B)
                    P = (1, 4)
                """),
            ),
            Step(
                "Draw the perpendicular through P",
                "l has slope 2, so the perpendicular through P has slope -1/2.",
                dedented("""
                    p = PerpendicularLine(P, l)
                    SetColor(p, "blue")
                """),
            ),
            Step(
                "Find the foot and the distance",
                "The perpendicular meets l at H = (2.2, 3.4); PH = |2·1 - 4 - 1|/√5 = 3/√5 ≈ "
                "1.34 is the distance from P to l.",
                dedented("""
                    H = Intersect(p, l)
                    h = Segment(P, H)
                    SetColor(h, "red")
                    SetLineThickness(h, 5)
                    dist = Distance(P, l)
                """),
            ),
            Step(
                "Draw the touching circle",
                "The circle about P with radius PH touches l at H, because its radius PH is "
                "perpendicular to l there.",
                dedented("""
                    k = Circle(P, H)
                    SetColor(k, "red")
                """),
            ),
        ),
    ),
    Problem(
        id="14",
        title="Apollonius Circle for the Ratio 2 : 1",
        question=(
            "Let A = (0, 0) and B = (3, 0). Construct the locus of the points X with "
            "XA = 2·XB, and check the ratio at one point T of the locus."
        ),
        question_type=ANALYTIC,
        difficulty="Hard",
        categories=(LOCUS, MEASURE, CIRCLE),
        inspection=(
            "Apollonius Circle",
            "Internal and External Division 2:1",
            "Circle on Diameter DE",
            "Centre (4, 0), Radius 2",
        ),
        steps=(
            Step(
                "Plot the two fixed points",
                "Enter A and B and join them.",
                dedented("""
                    A = (0, 0)
                    B = (3, 0)
                    s = Segment(A, B)
                """),
            ),
            Step(
                "Divide AB internally in the ratio 2 : 1",
                "The point D two thirds of the way from A to B has DA = 2 and DB = 1, so it "
                "belongs to the locus.",
                dedented("""
                    D = Dilate(B, 2/3, A)
                    SetColor(D, "blue")
                """),
            ),
            Step(
                "Divide AB externally in the ratio 2 : 1",
                "Beyond B, the point E with AE = 2·AB = 6 has EA = 6 = 2·EB; it is on the "
                "locus too.",
                dedented("""
                    E = Dilate(B, 2, A)
                    SetColor(E, "blue")
                """),
            ),
            Step(
                "Draw the circle on DE as diameter",
                "By the theorem of Apollonius the locus is the circle with diameter DE: centre "
                "(4, 0), radius 2.",
                dedented("""
                    Z = Midpoint(D, E)
                    k = Circle(Z, D)
                    SetColor(k, "red")
                    SetLineThickness(k, 5)
                """),
            ),
            Step(
                "Check the ratio at a point of the circle",
                "Take T = (5, √3) on the circle; TA/TB comes out as exactly 2.",
                dedented("""
                    T = Rotate(E, 60°, Z)
                    t_A = Segment(T, A)
                    t_B = Segment(T, B)
                    SetLineStyle(t_A, 1)
                    SetLineStyle(t_B, 1)
                    ratio = Distance(T, A) / Distance(T, B)
                """),
            ),
        ),
    ),
    Problem(
        id="15",
        title="Shortest Path via a Line (Heron's Problem)",
        question=(
            "Points A = (1, 3) and B = (7, 2) lie above the x-axis. Construct the point P on "
            "the x-axis that makes AP + PB as small as possible, and find that least length."
        ),
        question_type=ANALYTIC,
        difficulty="Hard",
        categories=(THEOREMS, MEASURE, TRANSFORMS),
        inspection=("Reflection of B", "Collinear A, P, B'", "P = (4.6, 0)", "Minimum √61"),
        steps=(
            Step(
                "Plot the points and the x-axis",
                "Enter A and B, and draw the x-axis as the line through O = (0, 0) and U = (1, 0).",
                dedented("""
                    A = (1, 3)
                    B = (7, 2)
                    O = (0, 0)
                    U = (1, 0)
                    x_0 = Line(O, U)
                """),
            ),
            Step(
                "Reflect B in the x-axis",
                "For every P on the axis, PB = PB' where B' = (7, -2) is the mirror image of "
                "B, so AP + PB = AP + PB'.",
                dedented("""
                    B' = Reflect(B, x_0)
                    v = Segment(B, B')
                    SetLineStyle(v, 2)
                """),
            ),
            Step(
                "Join A to B'",
                "AP + PB' is least when A, P and B' are collinear (the triangle inequality), "
                "so P is where AB' crosses the axis: P = (4.6, 0).",
                dedented("""
                    g = Segment(A, B')
                    SetLineStyle(g, 1)
                    SetColor(g, "gray")
                    P = Intersect(g, x_0)
                    SetColor(P, "red")
                """),
            ),
            Step(
                "Draw the shortest path and measure it",
                "The path A→P→B has length AB' = √(6² + 5²) = √61 ≈ 7.81; any other point "
                "of the axis, such as Q = (3, 0), gives a longer path.",
                dedented("""
                    w_1 = Segment(A, P)
                    w_2 = Segment(P, B)
                    SetColor(w_1, "red")
                    SetColor(w_2, "red")
                    SetLineThickness(w_1, 5)
                    SetLineThickness(w_2, 5)
                    best = Distance(A, P) + Distance(P, B)
                    Q = (3, 0)
                    other = Distance(A, Q) + Distance(Q, B)
                """),
            ),
        ),
    ),
)


# ----------------------------------------------------------------------------- records


def reference_script(problem: Problem) -> str:
    """Every step's commands in order: the script the engine and the jar must run cleanly."""
    return "\n".join(problem.blocks)


def build_construction(problem: Problem) -> Construction:
    """Run the reference steps as blocks (one snapshot per step)."""
    return run_blocks(problem.blocks)


def givens_construction(problem: Problem) -> Construction:
    """Only the first step (the givens): what the problem figure shows."""
    return run_blocks(problem.blocks[:1])


def text_answer(problem: Problem) -> str:
    """The reference solution as GGBench writes it: a titled, explained block per step."""
    return "".join(
        f"#### **Step {number}: {step.title}**\n**Method**:\n{step.method}\n\n"
        f"```geogebra\n{step.code}\n```\n\n"
        for number, step in enumerate(problem.steps, start=1)
    )


def _record(problem: Problem) -> dict[str, str]:
    """One GGBench_dataset.json record, field for field as the official release has it."""
    answer = text_answer(problem)
    final_index = len(problem.steps) + 2
    skills = ",".join(f"{CATEGORIES[name]} ({name})" for name in problem.categories)
    text = (
        f"### **Problem Title ({problem.difficulty})**\n{problem.title}\n\n"
        f"### **Problem Type**\n{problem.question_type}\n\n"
        f"### **Problem Description**\n{problem.question}\n\n"
        f"### **Solution**\n{answer}"
    )
    return {
        "id": problem.id,
        "question": problem.question,
        "question_image": f"/{QA_DIR}/{problem.id}_1.png" if problem.figure else "",
        "text_answer": answer,
        "res_image": f"/{QA_DIR}/{problem.id}_{final_index}.png",
        "complete_image": f"./{LONG_DIR}/{problem.id}.png",
        "difficulty": problem.difficulty,
        "inspection_content": ", ".join(problem.inspection),
        "language": "English",
        "question_type": problem.question_type,
        "modal": "Multimodal" if problem.figure else "Text",
        "skill_classification": skills,
        "text": text,
    }


def records(problems: Sequence[Problem] = PROBLEMS) -> list[dict[str, str]]:
    """The dataset file's records, in id order."""
    return [_record(problem) for problem in problems]


def _problem_images(problem: Problem, size: tuple[int, int]) -> dict[str, bytes]:
    """A problem's PNGs keyed by their path inside the sample folder."""
    construction = build_construction(problem)
    if not construction.pass_at_1:
        failed = [(status.line, status.error) for status in construction.errors]
        raise ValueError(f"problem {problem.id}: reference script fails in the engine: {failed}")
    files: dict[str, bytes] = {}
    if problem.figure:
        files[f"{QA_DIR}/{problem.id}_1.png"] = render_png(givens_construction(problem), size=size)
    steps = render_steps(construction, size=size)
    if len(steps) != len(problem.steps):
        raise ValueError(
            f"problem {problem.id}: {len(steps)} step images for {len(problem.steps)} steps"
        )
    for index, png in enumerate(steps, start=2):
        files[f"{QA_DIR}/{problem.id}_{index}.png"] = png
    files[f"{QA_DIR}/{problem.id}_{len(steps) + 2}.png"] = render_png(construction, size=size)
    files[f"{LONG_DIR}/{problem.id}.png"] = render_long_image(construction, size=size)
    return files


def sample_files(
    problems: Sequence[Problem] = PROBLEMS, *, size: tuple[int, int] = IMAGE_SIZE
) -> dict[str, bytes]:
    """Every file of the sample folder (dataset JSON and PNGs) keyed by relative path."""
    files = {DATASET_FILE: json_bytes(records(problems))}
    for problem in problems:
        files.update(_problem_images(problem, size))
    return files


def write_sample(
    out_dir: Path | str = SAMPLE_DIR,
    problems: Sequence[Problem] = PROBLEMS,
    *,
    size: tuple[int, int] = IMAGE_SIZE,
) -> list[Path]:
    """(Re)write the sample folder; returns the written paths.

    The two image folders are emptied first so a dropped or shortened problem leaves no
    stale PNGs behind for the builder to pick up.
    """
    return write_files(sample_files(problems, size=size), out_dir, (QA_DIR, LONG_DIR))


def main() -> None:
    """Rewrite the committed sample and say how large it is."""
    report(write_sample(), SAMPLE_DIR)


if __name__ == "__main__":
    main()
