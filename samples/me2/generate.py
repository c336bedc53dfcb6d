"""The source of geomeval's embedded ME2 sample: 15 original problems and their figures.

ME2 pairs each problem with a teacher's solution whose figure is the problem figure plus the
visual keypoints the teacher draws: an auxiliary segment, a marked right angle, a highlighted
intersection. geomeval ships a small sample so the whole pipeline (reader, prompts, the
keypoint options, the scorer) runs offline and in CI without the benchmark. The problems are
written for geomeval, not taken from ME2; only the record layout is ME2's.

`python -m samples.me2.generate` (re)writes `src/geomeval/benchmarks/me2/sample/`:

- `ME2.jsonl`: one record per problem with the official field names, the image paths, and
  the keypoint-identification options made by `options.make_options` (seed 0, MiniLM);
- `problem_image/{id}.png`: the problem figure, drawn from the problem script;
- `solution_image/{id}.png`: the solution figure, drawn from the solution script, which is
  the problem script followed by the keypoint commands.

Both figures of a problem are drawn in one view, fitted to the solution figure (or the
script's ZoomIn), so the solution image is the problem image with only the keypoints added.
The keypoint commands create new objects and style only those, never the problem's own.
Nine problems are geometry and six are function graphs (drawn as fine polylines, since the
engine has no function objects); several come in deliberate pairs (two altitude problems,
two chord/tangent right angles, two parabola-line intersections, two triangles bounded by
lines and an axis) so that the "nearest by" distractors have real neighbours to find.
Everything written is a pure function of this module (a test regenerates it byte for byte).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geomeval.benchmarks.me2.features import QUESTION_ANSWER_TYPES
from geomeval.benchmarks.me2.options import (
    RECORDS_FILE,
    Embedder,
    MiniLMEmbedder,
    apply_options,
    dumps_jsonl,
    make_options,
    release_pool,
)
from geomeval.geogebra import Construction, render_png, run_script
from geomeval.geogebra.render import fit_window
from samples.kit import dedented, report, sample_dir, write_files

__all__ = [
    "IMAGE_SIZE",
    "OPTIONS_SEED",
    "PROBLEMS",
    "PROBLEM_DIR",
    "SAMPLE_DIR",
    "SOLUTION_DIR",
    "Problem",
    "base_records",
    "figure_window",
    "image_files",
    "problem_construction",
    "records_text",
    "sample_files",
    "sample_records",
    "solution_construction",
    "write_sample",
]

SAMPLE_DIR = sample_dir("me2")
PROBLEM_DIR = "problem_image"
SOLUTION_DIR = "solution_image"
# Modest panels keep the committed sample well under 2 MB while labels stay legible.
IMAGE_SIZE: tuple[int, int] = (480, 360)
OPTIONS_SEED = 0



def _curve(label: str, expression: str, start: float, end: float, step: float = 0.05) -> str:
    """A function graph as short segments: `expression` is in `{x}`, drawn for start ≤ x ≤ end.

    The engine has no function objects (`f(x) = …` does not parse), so a polyline of
    Sequence-made segments stands in; at 0.05 it is smooth at the sample's size.
    """
    here = expression.format(x="t")
    there = expression.format(x=f"(t + {step:g})")
    last = round(end - step, 9)
    return f"{label} = Sequence(Segment((t, {here}), (t + {step:g}, {there})), t, {start:g}, {last:g}, {step:g})"


@dataclass(frozen=True)
class Problem:
    """One original ME2-style problem: texts, keypoints, and the two GeoGebra scripts."""

    id: str
    question_answer_type: str
    chapter_title: str
    section_title: str
    problem_text: str
    answer_text: str
    solution_text: str
    summary_solution_text: str
    visual_key_points: tuple[tuple[str, str], ...]
    problem_script: str
    keypoint_script: str

    @property
    def solution_script(self) -> str:
        """The problem script with the keypoint commands after it."""
        return f"{self.problem_script}\n{self.keypoint_script}"

    def keypoints(self) -> list[dict[str, str]]:
        return [
            {"element": element, "description": text} for element, text in self.visual_key_points
        ]


HIGHLIGHT = "red"

PROBLEMS: tuple[Problem, ...] = (
    # ------------------------------------------------------------------ geometry
    Problem(
        id="me2-s01",
        question_answer_type="geometry_short",
        chapter_title="Triangles",
        section_title="Isosceles triangles",
        problem_text="In triangle ABC, AB = AC = 5 and BC = 6. Find the area of triangle ABC.",
        answer_text="12",
        solution_text=(
            "Because AB = AC, the triangle is isosceles, and the altitude AH drawn from the apex "
            "A meets the base BC at its midpoint H, so BH = HC = 3. The right angle marked at H "
            "makes triangle ABH a right triangle with hypotenuse AB = 5, and the Pythagorean "
            "theorem gives AH = √(5² − 3²) = 4. The area is ½ · BC · AH = ½ · 6 · 4 = 12."
        ),
        summary_solution_text=(
            "Draw the altitude AH to the base; it bisects BC, so AH = 4 by the Pythagorean "
            "theorem and the area is ½ · 6 · 4 = 12."
        ),
        visual_key_points=(
            (
                "segment AH",
                "the altitude from A to BC; in the isosceles triangle it meets BC at its midpoint H",
            ),
            ("right angle AHC", "marked at H, making ABH a right triangle with legs 3 and AH"),
        ),
        problem_script=dedented("""
            B = (0, 0)
            C = (6, 0)
            A = (3, 4)
            tri = Polygon(A, B, C)
        """),
        keypoint_script=dedented(f"""
            H = Midpoint(B, C)
            h = Segment(A, H)
            SetColor(h, "{HIGHLIGHT}")
            SetLineThickness(h, 8)
            right_H = Angle(C, H, A)
            SetColor(right_H, "{HIGHLIGHT}")
            SetColor(H, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s02",
        question_answer_type="geometry_choice",
        chapter_title="Triangles",
        section_title="Area and altitudes",
        problem_text=(
            "In triangle ABC, AB = 10, BC = 12, and the distance from A to the line BC is 8. "
            "What is the distance from C to the line AB?\n"
            "(A) 8\n(B) 8.4\n(C) 9\n(D) 9.6\n(E) 10"
        ),
        answer_text="D",
        solution_text=(
            "The two altitudes give the area of the same triangle in two ways. With base BC and "
            "the altitude AD from A, the area is ½ · 12 · 8 = 48. The distance from C to the "
            "line AB is the altitude CE, perpendicular to AB. With base AB and altitude CE, "
            "½ · 10 · CE = 48, so CE = 9.6. The answer is (D)."
        ),
        summary_solution_text=(
            "Compute the area with base BC and altitude AD, then set it equal to ½ · AB · CE "
            "to get CE = 9.6."
        ),
        visual_key_points=(
            ("segment AD", "the altitude from A to BC, of length 8, giving the area ½ · 12 · 8"),
            ("segment CE", "the altitude from C to AB: the distance asked for"),
            ("right angles at D and E", "marked where the two altitudes meet their bases"),
        ),
        problem_script=dedented("""
            B = (0, 0)
            C = (12, 0)
            A = (6, 8)
            tri = Polygon(A, B, C)
        """),
        keypoint_script=dedented(f"""
            D = Intersect(PerpendicularLine(A, a), a)
            E = Intersect(PerpendicularLine(C, c), c)
            h_A = Segment(A, D)
            h_C = Segment(C, E)
            SetColor(h_A, "{HIGHLIGHT}")
            SetColor(h_C, "{HIGHLIGHT}")
            SetLineThickness(h_A, 8)
            SetLineThickness(h_C, 8)
            right_D = Angle(C, D, A)
            right_E = Angle(B, E, C)
            SetColor(right_D, "{HIGHLIGHT}")
            SetColor(right_E, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s03",
        question_answer_type="geometry_short",
        chapter_title="Circles",
        section_title="Inscribed angles",
        problem_text=(
            "AB is a diameter of a circle with centre O and radius 5. Point C lies on the circle "
            "with AC = 6. Find BC."
        ),
        answer_text="8",
        solution_text=(
            "Because AB is a diameter, the inscribed angle ACB stands on a semicircle and is a "
            "right angle, marked at C. Drawing the diameter AB shows triangle ACB as a right "
            "triangle whose hypotenuse is AB = 2 · 5 = 10. By the Pythagorean theorem, "
            "BC = √(10² − 6²) = √64 = 8."
        ),
        summary_solution_text=(
            "The angle ACB inscribed in the semicircle is a right angle, so BC = √(10² − 6²) = 8."
        ),
        visual_key_points=(
            ("segment AB", "the diameter, drawn as the hypotenuse of triangle ACB"),
            ("right angle ACB", "an angle inscribed in a semicircle is a right angle, marked at C"),
        ),
        problem_script=dedented("""
            O = (0, 0)
            k = Circle(O, 5)
            A = (-5, 0)
            B = (5, 0)
            C = (-1.4, 4.8)
            s_AC = Segment(A, C)
            s_BC = Segment(B, C)
        """),
        keypoint_script=dedented(f"""
            d = Segment(A, B)
            SetColor(d, "{HIGHLIGHT}")
            SetLineThickness(d, 8)
            right_C = Angle(A, C, B)
            SetColor(right_C, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s04",
        question_answer_type="geometry_choice",
        chapter_title="Circles",
        section_title="Tangent lines",
        problem_text=(
            "The line PA touches the circle with centre O at A. The radius of the circle is 3 "
            "and PO = 5. How long is the tangent segment PA?\n"
            "(A) 3\n(B) 4\n(C) 5\n(D) √34\n(E) 8"
        ),
        answer_text="B",
        solution_text=(
            "Join O to the point of tangency A. The radius OA is perpendicular to the tangent "
            "line at A, so triangle OAP has a right angle at A, with hypotenuse PO = 5 and leg "
            "OA = 3. Then PA = √(5² − 3²) = 4, which is option (B)."
        ),
        summary_solution_text=(
            "The radius OA is perpendicular to the tangent at A, so PA = √(5² − 3²) = 4."
        ),
        visual_key_points=(
            ("segment OA", "the radius drawn to the point of tangency A"),
            ("right angle OAP", "a tangent is perpendicular to the radius at the point of contact"),
        ),
        problem_script=dedented("""
            O = (0, 0)
            k = Circle(O, 3)
            A = (0, 3)
            P = (4, 3)
            tangent = Line(A, P)
            s_PO = Segment(P, O)
        """),
        keypoint_script=dedented(f"""
            r = Segment(O, A)
            SetColor(r, "{HIGHLIGHT}")
            SetLineThickness(r, 8)
            right_A = Angle(O, A, P)
            SetColor(right_A, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s05",
        question_answer_type="geometry_short",
        chapter_title="Quadrilaterals",
        section_title="Trapezoids",
        problem_text=(
            "In the isosceles trapezoid ABCD, AB ∥ DC, AB = 10, DC = 4 and AD = BC = 5. Find the "
            "area of the trapezoid."
        ),
        answer_text="28",
        solution_text=(
            "Drop the heights DE and CF from the top vertices to the base AB. They cut the "
            "trapezoid into the rectangle DEFC, with EF = DC = 4, and two congruent right "
            "triangles, so AE = FB = (10 − 4) / 2 = 3. In the right triangle AED the hypotenuse "
            "is AD = 5 and AE = 3, so the height is DE = 4. The area is ½ · (10 + 4) · 4 = 28."
        ),
        summary_solution_text=(
            "Dropping the heights from D and C leaves right triangles with legs 3 and 4, so the "
            "height is 4 and the area is ½ · (10 + 4) · 4 = 28."
        ),
        visual_key_points=(
            ("segments DE and CF", "the heights dropped from D and C to the base AB"),
            ("right angles at E and F", "marked: AED and BFC are right triangles with AE = FB = 3"),
        ),
        problem_script=dedented("""
            A = (0, 0)
            B = (10, 0)
            C = (7, 4)
            D = (3, 4)
            trap = Polygon(A, B, C, D)
        """),
        keypoint_script=dedented(f"""
            base = Line(A, B)
            SetVisibleInView(base, 1, false)
            E = Intersect(PerpendicularLine(D, base), base)
            F = Intersect(PerpendicularLine(C, base), base)
            h_D = Segment(D, E)
            h_C = Segment(C, F)
            SetColor(h_D, "{HIGHLIGHT}")
            SetColor(h_C, "{HIGHLIGHT}")
            SetLineThickness(h_D, 8)
            SetLineThickness(h_C, 8)
            right_E = Angle(D, E, A)
            right_F = Angle(B, F, C)
            SetColor(right_E, "{HIGHLIGHT}")
            SetColor(right_F, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s06",
        question_answer_type="geometry_choice",
        chapter_title="Lines and angles",
        section_title="Parallel lines",
        problem_text=(
            "The lines AB and CD are parallel, and the point E lies between them. If "
            "∠ABE = 40° and ∠CDE = 30°, what is ∠BED?\n"
            "(A) 60°\n(B) 70°\n(C) 80°\n(D) 110°\n(E) 140°"
        ),
        answer_text="B",
        solution_text=(
            "Draw the auxiliary line EF through E parallel to AB; it is then parallel to CD as "
            "well, and it splits ∠BED into two parts. Since EF ∥ AB, the alternate angles "
            "∠BEF and ∠ABE are equal, so ∠BEF = 40°. Since EF ∥ CD, ∠FED = ∠CDE = 30°. "
            "Therefore ∠BED = 40° + 30° = 70°, option (B)."
        ),
        summary_solution_text=(
            "A line through E parallel to AB splits ∠BED into alternate angles of 40° and 30°, "
            "so ∠BED = 70°."
        ),
        visual_key_points=(
            ("line EF", "the auxiliary line through E parallel to AB and CD"),
            ("angles ∠BEF and ∠FED", "marked: alternate angles equal to ∠ABE = 40° and ∠CDE = 30°"),
        ),
        problem_script=dedented("""
            E = (0, 0)
            B = Rotate((3, 0), 40°, E)
            A = B + (-4, 0)
            D = Rotate((3, 0), -30°, E)
            C = D + (-4, 0)
            l = Line(A, B)
            m = Line(C, D)
            s_BE = Segment(B, E)
            s_DE = Segment(D, E)
            angle_B = Angle(A, B, E)
            angle_D = Angle(E, D, C)
        """),
        keypoint_script=dedented(f"""
            n = Line(E, l)
            SetColor(n, "{HIGHLIGHT}")
            SetLineStyle(n, 1)
            F = E + (3, 0)
            SetColor(F, "{HIGHLIGHT}")
            angle_BEF = Angle(F, E, B)
            angle_FED = Angle(D, E, F)
            SetColor(angle_BEF, "{HIGHLIGHT}")
            SetColor(angle_FED, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s07",
        question_answer_type="geometry_short",
        chapter_title="Quadrilaterals",
        section_title="Squares and area",
        problem_text=(
            "ABCD is a square with side 6, and E is the midpoint of side BC. Find the area of "
            "triangle AED."
        ),
        answer_text="18",
        solution_text=(
            "Take AD as the base of triangle AED. The height from E is the perpendicular "
            "segment EF to AD; it runs parallel to AB, so it is as long as a side of the "
            "square, EF = 6. The base AD is also 6, so the area is ½ · 6 · 6 = 18, half of "
            "the square."
        ),
        summary_solution_text=(
            "With AD as the base, the height EF from E equals the side of the square, so the "
            "area is ½ · 6 · 6 = 18."
        ),
        visual_key_points=(
            ("segment EF", "the height of triangle AED from E to its base AD, as long as AB"),
            ("right angle EFD", "marked where the height meets AD"),
        ),
        problem_script=dedented("""
            A = (0, 0)
            B = (6, 0)
            C = (6, 6)
            D = (0, 6)
            square = Polygon(A, B, C, D)
            E = Midpoint(B, C)
            tri = Polygon(A, E, D)
        """),
        keypoint_script=dedented(f"""
            F = Midpoint(A, D)
            h = Segment(E, F)
            SetColor(h, "{HIGHLIGHT}")
            SetLineThickness(h, 8)
            right_F = Angle(E, F, D)
            SetColor(right_F, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s08",
        question_answer_type="geometry_choice",
        chapter_title="Triangles",
        section_title="Similar triangles",
        problem_text=(
            "In triangle ABC, the points D and E lie on AB and AC with DE ∥ BC. If AD = 4, "
            "DB = 2 and BC = 9, what is DE?\n"
            "(A) 4.5\n(B) 5\n(C) 6\n(D) 6.75\n(E) 7.5"
        ),
        answer_text="C",
        solution_text=(
            "Because DE ∥ BC, the corresponding angles ∠ADE and ∠ABC are equal, and the two "
            "triangles share the angle at A, so the shaded triangle ADE is similar to triangle "
            "ABC. The ratio of similarity is AD : AB = 4 : (4 + 2) = 2 : 3. Hence "
            "DE = (2/3) · BC = (2/3) · 9 = 6, option (C)."
        ),
        summary_solution_text=(
            "Triangle ADE is similar to triangle ABC with ratio AD : AB = 2 : 3, so "
            "DE = (2/3) · 9 = 6."
        ),
        visual_key_points=(
            ("triangle ADE", "shaded: similar to triangle ABC because DE ∥ BC"),
            ("angles ∠ADE and ∠ABC", "marked as equal corresponding angles"),
        ),
        problem_script=dedented("""
            B = (0, 0)
            C = (9, 0)
            A = (3.6, 4.8)
            tri = Polygon(A, B, C)
            D = Dilate(B, 2/3, A)
            E = Dilate(C, 2/3, A)
            de = Segment(D, E)
        """),
        keypoint_script=dedented(f"""
            small = Polygon(A, D, E)
            SetColor(small, "{HIGHLIGHT}")
            SetFilling(small, 0.3)
            angle_D = Angle(E, D, A)
            angle_B = Angle(C, B, A)
            SetColor(angle_D, "{HIGHLIGHT}")
            SetColor(angle_B, "{HIGHLIGHT}")
            ShowLabel(angle_D, false)
            ShowLabel(angle_B, false)
        """),
    ),
    Problem(
        id="me2-s09",
        question_answer_type="geometry_short",
        chapter_title="Circles",
        section_title="Chords",
        problem_text=(
            "A chord AB of a circle with centre O and radius 13 has length 24. How far is the "
            "chord from O?"
        ),
        answer_text="5",
        solution_text=(
            "Drop the perpendicular OM from the centre to the chord. A perpendicular from the "
            "centre bisects the chord, so AM = 24 / 2 = 12. Drawing the radius OA = 13 "
            "completes the right triangle OMA, with the right angle marked at M. Hence "
            "OM = √(13² − 12²) = √25 = 5."
        ),
        summary_solution_text=(
            "The perpendicular OM from the centre bisects the chord, so with the radius OA = 13 "
            "and AM = 12 the distance is OM = √(169 − 144) = 5."
        ),
        visual_key_points=(
            ("segment OM", "the perpendicular from the centre to the chord; it bisects AB"),
            ("segment OA", "the radius to an endpoint of the chord, hypotenuse of triangle OMA"),
            ("right angle OMB", "marked at M, the midpoint of the chord"),
        ),
        problem_script=dedented("""
            O = (0, 0)
            k = Circle(O, 13)
            A = (-12, -5)
            B = (12, -5)
            chord = Segment(A, B)
        """),
        keypoint_script=dedented(f"""
            M = Midpoint(A, B)
            d = Segment(O, M)
            r = Segment(O, A)
            SetColor(d, "{HIGHLIGHT}")
            SetColor(r, "{HIGHLIGHT}")
            SetLineThickness(d, 8)
            SetLineThickness(r, 8)
            right_M = Angle(B, M, O)
            SetColor(right_M, "{HIGHLIGHT}")
        """),
    ),
    # ------------------------------------------------------------------ graphs
    Problem(
        id="me2-s10",
        question_answer_type="graph_short",
        chapter_title="Quadratic functions",
        section_title="Intersections of graphs",
        problem_text=(
            "The parabola y = x² − 2x − 3 and the line y = x + 1 meet at the points P and Q. "
            "The vertex of the parabola is V. Find the area of triangle PQV."
        ),
        answer_text="15",
        solution_text=(
            "Solving x² − 2x − 3 = x + 1 gives x² − 3x − 4 = 0, so x = −1 or x = 4: the "
            "intersection points are P(−1, 0) and Q(4, 5). Completing the square, "
            "y = (x − 1)² − 4, so the vertex is V(1, −4). Draw the vertical segment from V up "
            "to the line, meeting it at W(1, 2); VW = 6 splits triangle PQV into two triangles "
            "on the common base VW, whose heights add up to the horizontal distance from P to "
            "Q, 4 − (−1) = 5. So the area is ½ · 6 · 5 = 15."
        ),
        summary_solution_text=(
            "Find P(−1, 0), Q(4, 5) and the vertex V(1, −4); the vertical segment VW = 6 splits "
            "the triangle, so its area is ½ · 6 · 5 = 15."
        ),
        visual_key_points=(
            ("point V(1, −4)", "the vertex of the parabola, highlighted"),
            ("triangle PQV", "shaded: the triangle whose area is asked for"),
            ("segment VW", "the vertical segment from V to the line at W(1, 2), of length 6"),
        ),
        problem_script="\n".join(
            (
                "ShowAxes(true)",
                "ZoomIn(-5, -5, 9.4, 5.8)",
                _curve("f", "{x}^2 - 2*{x} - 3", -2.5, 4.5),
                'SetColor(f, "blue")',
                "g = Line((0, 1), (1, 2))",
                'text_f = Text("y = x² − 2x − 3", (4.3, -3))',
                'text_g = Text("y = x + 1", (5.6, 3.8))',
                "P = (-1, 0)",
                "Q = (4, 5)",
            )
        ),
        keypoint_script=dedented(f"""
            V = (1, -4)
            SetColor(V, "{HIGHLIGHT}")
            PQV = Polygon(P, Q, V)
            SetColor(PQV, "{HIGHLIGHT}")
            SetFilling(PQV, 0.25)
            W = (1, 2)
            VW = Segment(V, W)
            SetColor(VW, "{HIGHLIGHT}")
            SetLineStyle(VW, 1)
            SetLineThickness(VW, 7)
        """),
    ),
    Problem(
        id="me2-s11",
        question_answer_type="graph_choice",
        chapter_title="Quadratic functions",
        section_title="Intersections of graphs",
        problem_text=(
            "How many points do the parabola y = x² − 4x + 5 and the line y = 2x − 4 have in "
            "common?\n(A) 0\n(B) 1\n(C) 2\n(D) 3\n(E) infinitely many"
        ),
        answer_text="B",
        solution_text=(
            "Setting x² − 4x + 5 = 2x − 4 gives x² − 6x + 9 = 0, that is (x − 3)² = 0. The "
            "equation has the single double root x = 3, so the line meets the parabola only at "
            "T(3, 2), where y = 2 · 3 − 4 = 2. In the figure the highlighted point T is where "
            "the line just touches the parabola without crossing it: the line is tangent "
            "there. So there is exactly one common point, option (B)."
        ),
        summary_solution_text=(
            "x² − 4x + 5 = 2x − 4 becomes (x − 3)² = 0, a double root, so the line touches the "
            "parabola at the single point T(3, 2)."
        ),
        visual_key_points=(
            ("point T(3, 2)", "the only common point, where the line touches the parabola"),
            ("segment from T to (3, 0)", "dashed, marking the double root x = 3 on the x-axis"),
        ),
        problem_script="\n".join(
            (
                "ShowAxes(true)",
                "ZoomIn(-3.5, -3, 6.5, 4.5)",
                _curve("f", "{x}^2 - 4*{x} + 5", -0.6, 4.6),
                'SetColor(f, "blue")',
                "g = Line((2, 0), (3, 2))",
                'text_f = Text("y = x² − 4x + 5", (-3.4, 3.6))',
                'text_g = Text("y = 2x − 4", (4.2, 2.4))',
            )
        ),
        keypoint_script=dedented(f"""
            T = (3, 2)
            SetColor(T, "{HIGHLIGHT}")
            SetPointSize(T, 7)
            root = Segment(T, (3, 0))
            SetColor(root, "{HIGHLIGHT}")
            SetLineStyle(root, 1)
        """),
    ),
    Problem(
        id="me2-s12",
        question_answer_type="graph_short",
        chapter_title="Linear functions",
        section_title="Intercepts and area",
        problem_text=(
            "The line y = −(3/4)x + 6 crosses the x-axis at A and the y-axis at B. Find the "
            "area of triangle AOB, where O is the origin."
        ),
        answer_text="24",
        solution_text=(
            "Put y = 0: −(3/4)x + 6 = 0 gives x = 8, so A(8, 0). Put x = 0: y = 6, so B(0, 6). "
            "The shaded triangle AOB has its right angle at the origin, and its legs lie on "
            "the axes: OA = 8 and OB = 6. Its area is ½ · 8 · 6 = 24."
        ),
        summary_solution_text=(
            "The intercepts are A(8, 0) and B(0, 6), so the right triangle AOB has legs 8 and 6 "
            "and area 24."
        ),
        visual_key_points=(
            ("points A(8, 0) and B(0, 6)", "the intercepts of the line, highlighted on the axes"),
            ("triangle AOB", "shaded right triangle with legs OA = 8 and OB = 6 on the axes"),
        ),
        problem_script=dedented("""
            ShowAxes(true)
            ZoomIn(-2, -1.5, 10, 7.5)
            g = Line((0, 6), (4, 3))
            text_g = Text("y = −(3/4)x + 6", (4.6, 4.2))
        """),
        keypoint_script=dedented(f"""
            A = (8, 0)
            B = (0, 6)
            O = (0, 0)
            SetColor(A, "{HIGHLIGHT}")
            SetColor(B, "{HIGHLIGHT}")
            AOB = Polygon(A, O, B)
            SetColor(AOB, "{HIGHLIGHT}")
            SetFilling(AOB, 0.25)
        """),
    ),
    Problem(
        id="me2-s13",
        question_answer_type="graph_choice",
        chapter_title="Linear functions",
        section_title="Intercepts and area",
        problem_text=(
            "The lines y = x + 2 and y = −2x + 8 meet at P. What is the area of the triangle "
            "bounded by the two lines and the x-axis?\n"
            "(A) 12\n(B) 15\n(C) 18\n(D) 24\n(E) 30"
        ),
        answer_text="A",
        solution_text=(
            "Solving x + 2 = −2x + 8 gives x = 2, so P(2, 4). The line y = x + 2 meets the "
            "x-axis at M(−2, 0) and y = −2x + 8 meets it at N(4, 0). The bounded region is the "
            "shaded triangle MNP with base MN = 4 − (−2) = 6 on the x-axis. Its height is the "
            "vertical segment PH from P down to H(2, 0), PH = 4. The area is ½ · 6 · 4 = 12, "
            "option (A)."
        ),
        summary_solution_text=(
            "P(2, 4) and the x-intercepts M(−2, 0) and N(4, 0) give a triangle with base 6 and "
            "height 4, so its area is 12."
        ),
        visual_key_points=(
            ("points M(−2, 0) and N(4, 0)", "the x-intercepts of the two lines, ends of the base"),
            ("segment PH", "the height from P(2, 4) down to the x-axis, of length 4"),
            ("triangle MNP", "shaded: the region bounded by the two lines and the x-axis"),
        ),
        problem_script=dedented("""
            ShowAxes(true)
            ZoomIn(-4, -1.5, 6, 6)
            g = Line((0, 2), (1, 3))
            h = Line((0, 8), (4, 0))
            P = (2, 4)
            text_g = Text("y = x + 2", (-1.2, 4.5))
            text_h = Text("y = −2x + 8", (3.3, 2.8))
        """),
        keypoint_script=dedented(f"""
            M = (-2, 0)
            N = (4, 0)
            SetColor(M, "{HIGHLIGHT}")
            SetColor(N, "{HIGHLIGHT}")
            MNP = Polygon(M, N, P)
            SetColor(MNP, "{HIGHLIGHT}")
            SetFilling(MNP, 0.25)
            H = (2, 0)
            PH = Segment(P, H)
            SetColor(PH, "{HIGHLIGHT}")
            SetLineStyle(PH, 1)
            SetLineThickness(PH, 7)
        """),
    ),
    Problem(
        id="me2-s14",
        question_answer_type="graph_short",
        chapter_title="Quadratic functions",
        section_title="Vertex and axis of symmetry",
        problem_text="What is the greatest value of y = −x² + 6x − 5?",
        answer_text="4",
        solution_text=(
            "The parabola opens downward, so its greatest value is at the vertex. Its "
            "x-intercepts solve −x² + 6x − 5 = 0, that is x = 1 and x = 5; the axis of "
            "symmetry, the dashed line x = 3, lies halfway between them. On the axis "
            "y = −9 + 18 − 5 = 4, so the vertex is V(3, 4), the highest point of the graph. "
            "The greatest value is 4."
        ),
        summary_solution_text=(
            "The axis of symmetry x = 3 lies midway between the roots 1 and 5, and the vertex "
            "V(3, 4) gives the greatest value 4."
        ),
        visual_key_points=(
            ("line x = 3", "the axis of symmetry, dashed, halfway between the x-intercepts"),
            ("point V(3, 4)", "the vertex, the highest point of the graph"),
            ("points (1, 0) and (5, 0)", "the x-intercepts, symmetric about the axis"),
        ),
        problem_script="\n".join(
            (
                "ShowAxes(true)",
                "ZoomIn(-1.5, -3, 8.5, 4.5)",
                _curve("f", "-{x}^2 + 6*{x} - 5", 0.4, 5.6),
                'SetColor(f, "blue")',
                'text_f = Text("y = −x² + 6x − 5", (5, 2.5))',
            )
        ),
        keypoint_script=dedented(f"""
            axis = Line((3, 0), (3, 1))
            SetColor(axis, "{HIGHLIGHT}")
            SetLineStyle(axis, 1)
            V = (3, 4)
            SetColor(V, "{HIGHLIGHT}")
            R_1 = (1, 0)
            R_2 = (5, 0)
            SetColor(R_1, "{HIGHLIGHT}")
            SetColor(R_2, "{HIGHLIGHT}")
        """),
    ),
    Problem(
        id="me2-s15",
        question_answer_type="graph_choice",
        chapter_title="Linear functions",
        section_title="Parallel and perpendicular lines",
        problem_text=(
            "Which line passes through the point P(2, 3) and is perpendicular to the line "
            "y = 2x + 1?\n"
            "(A) y = 2x − 1\n(B) y = −2x + 7\n(C) y = −x/2 + 4\n(D) y = x/2 + 2\n(E) y = −x/2 + 2"
        ),
        answer_text="C",
        solution_text=(
            "The slope triangle drawn on y = 2x + 1 has run 1 and rise 2, so the slope is 2. "
            "Perpendicular lines have slopes whose product is −1, so the required line has "
            "slope −1/2. Through P(2, 3): y − 3 = −(1/2)(x − 2), that is y = −x/2 + 4. The "
            "drawn line meets the given one at a right angle at Q(1.2, 3.4). Option (C)."
        ),
        summary_solution_text=(
            "The given line has slope 2 (rise 2 over run 1), so the perpendicular through P has "
            "slope −1/2: y = −x/2 + 4."
        ),
        visual_key_points=(
            ("slope triangle on y = 2x + 1", "run 1 and rise 2 drawn from (0, 1), showing slope 2"),
            ("line through P", "the perpendicular with slope −1/2, y = −x/2 + 4"),
            ("right angle at Q(1.2, 3.4)", "marked where the two lines cross"),
        ),
        problem_script=dedented("""
            ShowAxes(true)
            ZoomIn(-3, -1.5, 7, 6)
            G = (0, 1)
            SetVisibleInView(G, 1, false)
            g = Line(G, (1, 3))
            P = (2, 3)
            text_g = Text("y = 2x + 1", (-2.6, -0.6))
        """),
        keypoint_script=dedented(f"""
            run = Segment(G, (1, 1))
            rise = Segment((1, 1), (1, 3))
            SetColor(run, "{HIGHLIGHT}")
            SetColor(rise, "{HIGHLIGHT}")
            SetLineStyle(run, 1)
            SetLineStyle(rise, 1)
            p = PerpendicularLine(P, g)
            SetColor(p, "{HIGHLIGHT}")
            SetLineThickness(p, 7)
            Q = Intersect(p, g)
            right_Q = Angle(G, Q, P)
            SetColor(right_Q, "{HIGHLIGHT}")
        """),
    ),
)


# ----------------------------------------------------------------------------- figures


def _run(problem: Problem, script: str, which: str) -> Construction:
    construction = run_script(script)
    if not construction.pass_at_1:
        failed = [(status.line, status.source, status.error) for status in construction.errors]
        raise ValueError(f"problem {problem.id}: the {which} script fails in the engine: {failed}")
    return construction


def problem_construction(problem: Problem) -> Construction:
    """The problem script run in the engine; a failing line is a ValueError."""
    return _run(problem, problem.problem_script, "problem")


def solution_construction(problem: Problem) -> Construction:
    """The solution script (problem script + keypoints) run in the engine."""
    return _run(problem, problem.solution_script, "solution")


def figure_window(
    problem: Problem, size: tuple[int, int] = IMAGE_SIZE
) -> tuple[float, float, float, float]:
    """The one view both figures use: the solution's, so every keypoint is in frame and the
    problem's objects sit at the same pixels in both images."""
    return fit_window(solution_construction(problem), size=size)


def image_files(
    problems: Sequence[Problem] = PROBLEMS, *, size: tuple[int, int] = IMAGE_SIZE
) -> dict[str, bytes]:
    """Both PNGs of every problem, keyed by their path inside the sample folder."""
    files: dict[str, bytes] = {}
    for problem in problems:
        window = figure_window(problem, size)
        files[f"{PROBLEM_DIR}/{problem.id}.png"] = render_png(
            problem_construction(problem), size=size, window=window
        )
        files[f"{SOLUTION_DIR}/{problem.id}.png"] = render_png(
            solution_construction(problem), size=size, window=window
        )
    return files


# ----------------------------------------------------------------------------- records


def base_records(problems: Sequence[Problem] = PROBLEMS) -> list[dict[str, Any]]:
    """The release records without the options fields, in the release's key order."""
    ids = [problem.id for problem in problems]
    if len(set(ids)) != len(ids):
        raise ValueError("sample problem ids must be unique")
    records = []
    for problem in problems:
        if problem.question_answer_type not in QUESTION_ANSWER_TYPES:
            raise ValueError(f"problem {problem.id}: unknown type {problem.question_answer_type!r}")
        records.append(
            {
                "id": problem.id,
                "problem_text": problem.problem_text,
                "problem_image": f"{PROBLEM_DIR}/{problem.id}.png",
                "answer_text": problem.answer_text,
                "solution_text": problem.solution_text,
                "solution_image": f"{SOLUTION_DIR}/{problem.id}.png",
                "summary_solution_text": problem.summary_solution_text,
                "visual_key_points": problem.keypoints(),
                "chapter_title": problem.chapter_title,
                "section_title": problem.section_title,
                "question_answer_type": problem.question_answer_type,
            }
        )
    return records


def sample_records(
    problems: Sequence[Problem] = PROBLEMS,
    *,
    embedder: Embedder | None = None,
    seed: int = OPTIONS_SEED,
) -> list[dict[str, Any]]:
    """The records with their keypoint options, made exactly as `make-options` makes them
    for a release (MiniLM unless another embedder is given)."""
    records = base_records(problems)
    pool = release_pool(records)
    options = make_options(pool, seed=seed, embedder=embedder or MiniLMEmbedder())
    return apply_options(records, pool, options)


def records_text(
    problems: Sequence[Problem] = PROBLEMS, *, embedder: Embedder | None = None
) -> str:
    """ME2.jsonl's contents."""
    return dumps_jsonl(sample_records(problems, embedder=embedder))


def sample_files(
    problems: Sequence[Problem] = PROBLEMS,
    *,
    size: tuple[int, int] = IMAGE_SIZE,
    embedder: Embedder | None = None,
) -> dict[str, bytes]:
    """Every file of the sample folder keyed by relative path."""
    files = {RECORDS_FILE: records_text(problems, embedder=embedder).encode("utf-8")}
    files.update(image_files(problems, size=size))
    return files


def write_sample(
    out_dir: Path | str = SAMPLE_DIR,
    problems: Sequence[Problem] = PROBLEMS,
    *,
    size: tuple[int, int] = IMAGE_SIZE,
    embedder: Embedder | None = None,
) -> list[Path]:
    """(Re)write the sample folder; the image folders are emptied first so a dropped problem
    leaves no stale figure behind."""
    return write_files(
        sample_files(problems, size=size, embedder=embedder), out_dir, (PROBLEM_DIR, SOLUTION_DIR)
    )


def main() -> None:
    """Rewrite the committed sample and say how large it is."""
    report(write_sample(), SAMPLE_DIR)


if __name__ == "__main__":
    main()
