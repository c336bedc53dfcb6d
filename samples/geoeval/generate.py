"""The source of geomeval's embedded GeoEval sample: 22 original records over the four subsets.

GeoEval poses geometry problems from seven public datasets (GeoEval-2000), their backward
versions (a given value masked as x, the forward answer stated), their GPT-rephrased
versions (GeoEval-aug), and a hard set of solid and analytic problems (GeoEval-hard).
geomeval ships a small sample so the builder, loaders and scorers run offline and in CI
without the download. The problems are written for geomeval, in the style of each source
dataset; only the release *layout* is GeoEval's, so the builder reads this folder exactly as
it reads the official files.

`python -m samples.geoeval.generate` (re)writes `src/geomeval/benchmarks/geoeval/sample/`:

- `select.json` (geoeval_2000), `backward_reasoning_select.json` (geoeval_backward),
  `solid.json` (geoeval_hard): the official file names; `geoeval_aug.json` (geoeval_aug),
  whose official name the GeoEval code never gives. Each is a JSON object keyed by problem
  id, records field for field as the release has them.
- `images/{id}.png`: each diagram, drawn by geomeval's GeoGebra engine from the script
  stored below, so the committed files are a pure function of this module (a test
  regenerates them and compares bytes).

Backward and aug records derive from main records the way the official generator does: a
deep copy keeping the id, with the backward question (one given value replaced by x, "The
correct answer is …" appended) or the rephrased text added.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geomeval.geogebra import render_png, run_script
from samples.kit import dedented, json_bytes, report, sample_dir, write_files

__all__ = [
    "BACKWARD",
    "FILES",
    "HARD",
    "IMAGE_DIR",
    "IMAGE_SIZE",
    "MAIN",
    "REPHRASED",
    "SAMPLE_DIR",
    "Backward",
    "Problem",
    "Rephrased",
    "records",
    "sample_files",
    "write_sample",
]

SAMPLE_DIR = sample_dir("geoeval")
IMAGE_DIR = "images"
FILES = {
    "geoeval_2000": "select.json",
    "geoeval_backward": "backward_reasoning_select.json",
    "geoeval_aug": "geoeval_aug.json",
    "geoeval_hard": "solid.json",
}
# Small panels keep the committed sample light while labels stay legible.
IMAGE_SIZE: tuple[int, int] = (480, 360)
BACKWARD_QUESTION = " The correct answer is {answer}. Now please answer what is the value of x?"



@dataclass(frozen=True)
class Problem:
    """One original problem, with the fields a GeoEval record carries.

    `figure` is the GeoGebra script of its diagram (None: text only); `structure` and
    `semantic` are its diagram description in PGPS9K's clause style (None: no description).
    """

    id: str
    dataset_name: str | None
    text: str
    answer: str | int | float
    choices: tuple[str, ...] | None = None
    figure: str | None = None
    structure: tuple[str, ...] | None = None
    semantic: tuple[str, ...] | None = None
    knowledge_point: tuple[str, ...] | str | None = None
    formal_knowledge_point: tuple[str, ...] | None = None
    geometry_shape: str | None = None
    solution: dict[str, Any] | None = None


@dataclass(frozen=True)
class Backward:
    """A backward version of a main problem, as the official generator makes it.

    Geometry3K and PGPS9K problems mask a number of a semantic clause (`semantic` is the
    masked list) and keep their text; UniGeo problems mask a number of the text itself
    (`masked_text`). `answer` is the masked token as written, punctuation included.
    """

    id: str
    answer: str
    semantic: tuple[str, ...] | None = None
    masked_text: str | None = None


@dataclass(frozen=True)
class Rephrased:
    """An aug version of a main problem: its rephrased text (`text.aug_problem`)."""

    id: str
    text: str


RIGHT_TRIANGLE = dedented("""
    B = (0, 0)
    A = (0, 6)
    C = (8, 0)
    a = Segment(A, B)
    b = Segment(B, C)
    c = Segment(A, C)
    r = Angle(C, B, A)
    ShowLabel(r, false)
    SetCaption(a, "6")
    SetCaption(b, "8")
    SetLabelMode(a, 3)
    SetLabelMode(b, 3)
    ShowLabel(a, true)
    ShowLabel(b, true)
""")

CHORD = dedented("""
    O = (0, 0)
    k = Circle(O, 5)
    A = (-4, -3)
    B = (4, -3)
    M = (0, -3)
    ab = Segment(A, B)
    om = Segment(O, M)
    oa = Segment(O, A)
    r = Angle(B, M, O)
    ShowLabel(r, false)
""")

PARALLELS = dedented("""
    A = (-1, 3)
    B = (8, 3)
    C = (-1, 0)
    D = (8, 0)
    ab = Segment(A, B)
    cd = Segment(C, D)
    F = (2, 0)
    E = (2 + 3 / tan(50°), 3)
    G = (2 + 4.5 / tan(50°), 4.5)
    H = (2 - 1.5 / tan(50°), -1.5)
    t = Segment(H, G)
    SetVisibleInView(G, 1, false)
    SetVisibleInView(H, 1, false)
    a1 = Angle(B, E, G)
    a2 = Angle(E, F, C)
    SetCaption(a1, "1")
    SetCaption(a2, "2")
    SetLabelMode(a1, 3)
    SetLabelMode(a2, 3)
""")

CONE = dedented("""
    O = (0, 0)
    A = (-3, 0)
    B = (3, 0)
    P = (0, 5)
    e = Sequence((3cos(t), sin(t)), t, 0, 2pi, pi / 36)
    base = Polygon(e)
    SetVisibleInView(e, 1, false)
    SetFilling(base, 0)
    SetColor(base, "black")
    pa = Segment(P, A)
    pb = Segment(P, B)
    h = Segment(P, O)
    ob = Segment(O, B)
    SetLineStyle(h, 1)
    SetLineStyle(ob, 1)
    SetCaption(pb, "5")
    SetCaption(ob, "3")
    SetLabelMode(pb, 3)
    SetLabelMode(ob, 3)
    ShowLabel(pb, true)
    ShowLabel(ob, true)
""")

PARALLELOGRAM = dedented("""
    A = (0, 0)
    B = (10, 0)
    C = (13, 4)
    D = (3, 4)
    p = Polygon(A, B, C, D)
    SetFilling(p, 0)
    SetColor(p, "black")
    E = (3, 0)
    de = Segment(D, E)
    SetLineStyle(de, 1)
    r = Angle(B, E, D)
    ShowLabel(r, false)
    ab = Segment(A, B)
    SetCaption(ab, "10")
    SetCaption(de, "4")
    SetLabelMode(ab, 3)
    SetLabelMode(de, 3)
    ShowLabel(ab, true)
    ShowLabel(de, true)
""")

MIDLINE = dedented("""
    A = (2, 5)
    B = (0, 0)
    C = (7, 0)
    t = Polygon(A, B, C)
    SetFilling(t, 0)
    SetColor(t, "black")
    D = Midpoint(A, B)
    E = Midpoint(A, C)
    de = Segment(D, E)
""")

CUBE = dedented("""
    A = (0, 0)
    B = (4, 0)
    C = (6.4, 1)
    D = (2.4, 1)
    E = (0, 4)
    F = (4, 4)
    G = (6.4, 5)
    H = (2.4, 5)
    ab = Segment(A, B)
    bc = Segment(B, C)
    cd = Segment(C, D)
    da = Segment(D, A)
    ef = Segment(E, F)
    fg = Segment(F, G)
    gh = Segment(G, H)
    he = Segment(H, E)
    ae = Segment(A, E)
    bf = Segment(B, F)
    cg = Segment(C, G)
    dh = Segment(D, H)
    SetLineStyle(cd, 1)
    SetLineStyle(da, 1)
    SetLineStyle(dh, 1)
    ag = Segment(A, G)
    SetColor(ag, "red")
    SetLineStyle(ag, 1)
    SetCaption(ab, "2")
    SetLabelMode(ab, 3)
    ShowLabel(ab, true)
""")

CYLINDER = dedented("""
    O = (0, 0)
    Q = (0, 5)
    B = (2, 0)
    e = Sequence((2cos(t), 0.6sin(t)), t, 0, 2pi, pi / 36)
    f = Sequence((2cos(t), 5 + 0.6sin(t)), t, 0, 2pi, pi / 36)
    bottom = Polygon(e)
    top = Polygon(f)
    SetVisibleInView(e, 1, false)
    SetVisibleInView(f, 1, false)
    SetFilling(bottom, 0)
    SetFilling(top, 0)
    SetColor(bottom, "black")
    SetColor(top, "black")
    l = Segment((-2, 0), (-2, 5))
    m = Segment((2, 0), (2, 5))
    axis = Segment(O, Q)
    ob = Segment(O, B)
    SetLineStyle(axis, 1)
    SetLineStyle(ob, 1)
    SetCaption(ob, "2")
    SetCaption(axis, "5")
    SetLabelMode(ob, 3)
    SetLabelMode(axis, 3)
    ShowLabel(ob, true)
    ShowLabel(axis, true)
""")

TANGENT = dedented("""
    ShowAxes(true)
    ShowGrid(true)
    M = (2, 1)
    P = (3, 3)
    k = Circle(M, P)
    t = Tangent(P, k)
    mp = Segment(M, P)
    SetLineStyle(mp, 1)
    ShowLabel(k, false)
    ShowLabel(t, false)
""")

MAIN: tuple[Problem, ...] = (
    Problem(
        id="101",
        dataset_name="Geometry3K",
        text="Find A C.",
        answer="10",
        choices=("6", "8", "10", "14"),
        figure=RIGHT_TRIANGLE,
        structure=("line A B", "line B C", "line A C"),
        semantic=("A B = 6", "B C = 8", "A B \\perp B C"),
        knowledge_point=("Pythagorean theorem",),
        formal_knowledge_point=("Triangle", "Length"),
        geometry_shape="Triangle",
        solution={"program": "Gougu_Theorem N0 N1 V0", "equation": None, "cot": None},
    ),
    Problem(
        id="102",
        dataset_name="PGPS9K",
        text="Find A B.",
        answer=8.0,
        figure=CHORD,
        structure=("line A M B", "line O M", "line O A", "\\odot O lieson A B"),
        semantic=("O A = 5", "O M = 3", "O M \\perp A B"),
        knowledge_point=("perpendicular from the centre bisects a chord", "Pythagorean theorem"),
        formal_knowledge_point=("Circle", "Length"),
        geometry_shape="Circle",
        solution={"program": "Gougu_Theorem N1 V0 N0 Double V0 V1", "equation": None, "cot": None},
    ),
    Problem(
        id="103",
        dataset_name="UniGeo",
        text=(
            "As shown in the figure, A B ∥ C D, the line through E and F meets A B at E and "
            "C D at F, ∠1 = 50°, then the degree of ∠2 is ()"
        ),
        answer=130.0,
        choices=("40", "50", "130", "140"),
        figure=PARALLELS,
        knowledge_point="parallel lines and co-interior angles",
        formal_knowledge_point=("Angle", "Line"),
        geometry_shape="Line",
        solution={"program": "g_minus C_0 N_0", "equation": None, "cot": None},
    ),
    Problem(
        id="104",
        dataset_name="GeoQA+",
        text=(
            "As shown in the figure, the radius of the base of the cone is 3 and its slant "
            "height is 5, then the lateral area of the cone is ()"
        ),
        answer="15π",
        choices=("12π", "15π", "24π", "30π"),
        figure=CONE,
        knowledge_point=("lateral area of a cone",),
        formal_knowledge_point=("Cone", "Area"),
        geometry_shape="Cone",
    ),
    Problem(
        id="105",
        dataset_name="GeometryQA",
        text="the perimeter of a square garden is 36 meters . what is the area of the garden in square meters ?",
        answer=81,
        knowledge_point=("perimeter of a square", "area of a square"),
        formal_knowledge_point=("Quad", "Area"),
        geometry_shape="Quad",
        solution={"program": None, "equation": "x=(36/4)*(36/4)", "cot": None},
    ),
    Problem(
        id="106",
        dataset_name="MATH-Geometry",
        text=(
            "A circle has its center at $(1, -2)$ and passes through the point $(4, 2)$. What "
            "is the area of the circle? Express your answer in terms of $\\pi$."
        ),
        answer="25\\pi",
        knowledge_point=("distance between two points", "area of a circle"),
        formal_knowledge_point=("Circle", "Area"),
        geometry_shape="Circle",
        solution={
            "program": None,
            "equation": None,
            "cot": "The radius is $\\sqrt{3^2 + 4^2} = 5$, so the area is $25\\pi$.",
        },
    ),
    Problem(
        id="107",
        dataset_name="MathQA",
        text="the volume of a cube is 64 cc . find its total surface area .",
        answer=96.0,
        choices=("a ) 64", "b ) 96", "c ) 128", "d ) 144", "e ) 192"),
        knowledge_point=("volume of a cube", "surface area of a cube"),
        formal_knowledge_point=("Cube", "Area"),
        geometry_shape="Cube",
        solution={"program": "volume_cube_edge(n0)|surface_cube(#0)", "equation": None, "cot": None},
    ),
    Problem(
        id="108",
        dataset_name="Geometry3K",
        text="Find the area of the parallelogram.",
        answer="40",
        choices=("20", "28", "40", "56"),
        figure=PARALLELOGRAM,
        structure=("line A E B", "line B C", "line C D", "line D A", "line D E"),
        semantic=("A B = 10", "D E = 4", "D E \\perp A B"),
        knowledge_point=("area of a parallelogram",),
        formal_knowledge_point=("Quad", "Area"),
        geometry_shape="Quad",
        solution={"program": "Parallelogram_Area N0 N1 V0", "equation": None, "cot": None},
    ),
    Problem(
        id="109",
        dataset_name="MATH-Geometry",
        text="What are the coordinates of the midpoint of the segment with endpoints $(2, 5)$ and $(8, -1)$?",
        answer="(5, 2)",
        knowledge_point=("midpoint formula",),
        formal_knowledge_point=("Line",),
        geometry_shape="Line",
        solution={
            "program": None,
            "equation": None,
            "cot": "The midpoint is $\\left(\\frac{2+8}{2}, \\frac{5-1}{2}\\right) = (5, 2)$.",
        },
    ),
    Problem(
        id="110",
        dataset_name="UniGeo",
        text=(
            "As shown in the figure, in △ A B C, D and E are the midpoints of A B and A C "
            "respectively. If D E = 4 then B C = ()"
        ),
        answer=8.0,
        choices=("2", "4", "6", "8"),
        figure=MIDLINE,
        knowledge_point=("midline of a triangle",),
        formal_knowledge_point=("Triangle", "Length"),
        geometry_shape="Triangle",
        solution={"program": "g_double N_0", "equation": None, "cot": None},
    ),
)

BACKWARD: tuple[Backward, ...] = (
    Backward(id="101", answer="6", semantic=("A B = x", "B C = 8", "A B \\perp B C")),
    Backward(id="102", answer="3", semantic=("O A = 5", "O M = x", "O M \\perp A B")),
    Backward(
        id="103",
        answer="50°,",
        masked_text=(
            "As shown in the figure, A B ∥ C D, the line through E and F meets A B at E and "
            "C D at F, ∠1 = x°, then the degree of ∠2 is ()"
        ),
    ),
    Backward(
        id="110",
        answer="4",
        masked_text=(
            "As shown in the figure, in △ A B C, D and E are the midpoints of A B and A C "
            "respectively. If D E = x then B C = ()"
        ),
    ),
)

REPHRASED: tuple[Rephrased, ...] = (
    Rephrased(
        id="101",
        text="In the figure, A B is perpendicular to B C, A B = 6 and B C = 8. How long is A C?",
    ),
    Rephrased(
        id="103",
        text=(
            "In the figure, line A B is parallel to line C D, and a line crosses them at E and "
            "F. If ∠1 measures 50°, how many degrees does ∠2 measure?"
        ),
    ),
    Rephrased(
        id="105",
        text="A square garden has a perimeter of 36 meters. How many square meters does the garden cover?",
    ),
    Rephrased(
        id="107",
        text="A cube has a volume of 64 cubic centimeters. What is the total area of its six faces?",
    ),
)

HARD: tuple[Problem, ...] = (
    Problem(
        id="201",
        dataset_name=None,
        text=(
            "In the cube A B C D - E F G H shown in the figure, each edge has length 2. "
            "Find the length of the space diagonal A G."
        ),
        answer="C",
        choices=("2", "2√2", "2√3", "4"),
        figure=CUBE,
        knowledge_point=("space diagonal of a cube",),
        formal_knowledge_point=("Cube", "Length"),
        geometry_shape="Cube",
    ),
    Problem(
        id="202",
        dataset_name=None,
        text="The cylinder in the figure has base radius 2 and height 5. Find its volume.",
        answer="A",
        choices=("20π", "10π", "40π", "25π"),
        figure=CYLINDER,
        knowledge_point=("volume of a cylinder",),
        formal_knowledge_point=("Cylinder",),
        geometry_shape="Cylinder",
    ),
    Problem(
        id="203",
        dataset_name=None,
        text=(
            "Line l passes through A (0, 2) and B (4, 0), and line m is y = x. Find the "
            "coordinates of the intersection point P of l and m."
        ),
        answer="(4/3, 4/3)",
        structure=("line A P B", "line O P"),
        semantic=("A = (0, 2)", "B = (4, 0)", "O = (0, 0)", "m: y = x"),
        knowledge_point=("equation of a line", "intersection of two lines"),
        formal_knowledge_point=("Line",),
        geometry_shape="Line",
    ),
    Problem(
        id="204",
        dataset_name=None,
        text=(
            "As shown in the figure, circle C has its center at M (2, 1) and passes through "
            "P (3, 3). Find the equation of the tangent line to circle C at P."
        ),
        answer="x + 2y - 9 = 0",
        figure=TANGENT,
        knowledge_point=("tangent line to a circle", "coordinate geometry"),
        formal_knowledge_point=("Circle", "Line"),
        geometry_shape="Circle",
    ),
)


def _record(problem: Problem) -> dict[str, Any]:
    """One release record, field for field as GeoEval's select.json has it."""
    description = None
    if problem.structure is not None or problem.semantic is not None:
        description = {"structure": list(problem.structure or ()), "semantic": list(problem.semantic or ())}
    knowledge = problem.knowledge_point
    return {
        "dataset_name": problem.dataset_name,
        "text": {"Num_Exp": problem.text},
        "diagram_name": f"{problem.id}.png" if problem.figure else None,
        "diagram_description": description,
        "choice_list": list(problem.choices) if problem.choices is not None else None,
        "answer_value": problem.answer,
        "knowledge_point": list(knowledge) if isinstance(knowledge, tuple) else knowledge,
        "formal_knowledge_point": list(problem.formal_knowledge_point) if problem.formal_knowledge_point else None,
        "geometry_shape": problem.geometry_shape,
        "solution": copy.deepcopy(problem.solution),
    }


def _backward_record(main: dict[str, Any], backward: Backward) -> dict[str, Any]:
    """A main record with its backward question, as create_backward_reasoning_data.py adds it."""
    record = copy.deepcopy(main)
    question = BACKWARD_QUESTION.format(answer=main["answer_value"])
    if backward.semantic is not None:  # Geometry3K, PGPS9K: the number is masked in a clause
        record["diagram_description"]["backward_semantic"] = list(backward.semantic)
        record["backward_text"] = main["text"]["Num_Exp"] + question
    else:  # UniGeo: the number is masked in the text
        record["backward_text"] = f"{backward.masked_text}.{question}"
    record["backward_answer_value"] = backward.answer
    return record


def records() -> dict[str, dict[str, dict[str, Any]]]:
    """Every subset file's contents: {config: {id: record}}."""
    main = {problem.id: _record(problem) for problem in MAIN}
    rephrased = {}
    for item in REPHRASED:
        record = copy.deepcopy(main[item.id])
        record["text"]["aug_problem"] = item.text
        rephrased[item.id] = record
    return {
        "geoeval_2000": main,
        "geoeval_backward": {item.id: _backward_record(main[item.id], item) for item in BACKWARD},
        "geoeval_aug": rephrased,
        "geoeval_hard": {problem.id: _record(problem) for problem in HARD},
    }


def diagram(problem: Problem, size: tuple[int, int] = IMAGE_SIZE) -> bytes:
    """A problem's diagram as PNG bytes, drawn by the engine from its script."""
    if problem.figure is None:
        raise ValueError(f"problem {problem.id} has no figure")
    construction = run_script(problem.figure)
    if not construction.pass_at_1:
        failed = [(status.line, status.error) for status in construction.errors]
        raise ValueError(f"problem {problem.id}: figure script fails in the engine: {failed}")
    return render_png(construction, size=size)


def sample_files(
    problems: Sequence[Problem] = MAIN + HARD, *, size: tuple[int, int] = IMAGE_SIZE
) -> dict[str, bytes]:
    """Every file of the sample folder (subset JSON files and diagrams) by relative path."""
    files = {
        FILES[config]: json_bytes(data, indent=2)
        for config, data in records().items()
    }
    for problem in problems:
        if problem.figure is not None:
            files[f"{IMAGE_DIR}/{problem.id}.png"] = diagram(problem, size)
    return files


def write_sample(out_dir: Path | str = SAMPLE_DIR, *, size: tuple[int, int] = IMAGE_SIZE) -> list[Path]:
    """(Re)write the sample folder; returns the written paths. The diagram folder is emptied
    first so a dropped problem leaves no stale image behind."""
    return write_files(sample_files(size=size), out_dir, (IMAGE_DIR,))


def main() -> None:
    """Rewrite the committed sample and say how large it is."""
    report(write_sample(), SAMPLE_DIR)


if __name__ == "__main__":
    main()
