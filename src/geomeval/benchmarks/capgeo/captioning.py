"""Caption prompts: a captioner turns a figure into a caption written as a formal problem
statement, so a reasoner can work from text (CapGeo's first stage).

One variant per source, because the figure carries different things: a figure-only prompt
(CapGeo-Bench: the figure alone), MathVerse Vision-Intensive (the question text gives part
of the conditions, the figure the rest), MathVerse Vision-Only (the whole problem, question
included, is drawn in the image) and GeoQA/MathVista (a diagram beside a full question).
The wording is geomeval's own, following the paper's description: describe every element,
every spatial relation and every given number, in standard mathematical language, and never
solve the problem.
"""

from __future__ import annotations

from typing import Any

from ...images import image_part

VARIANTS = ("figure_only", "mathverse_vision_intensive", "mathverse_vision_only", "diagram_with_question")

_CORE = """Describe the geometric figure in the image as a formal problem statement, so that \
someone who cannot see it could redraw it exactly.

State, in standard mathematical language ("In triangle ABC, AB = AC.", "D is the midpoint \
of BC.", "Line l is tangent to circle O at P."):
- every element: points, segments, lines, rays, circles (with their centres), arcs, \
polygons, angles, coordinate axes, solids;
- every spatial relation: points on lines or circles, midpoints, intersections, parallel \
and perpendicular lines, tangency, chords and diameters, medians, altitudes and bisectors, \
inscribed and circumscribed figures;
- every number the figure gives: lengths, angle sizes, ratios, areas, coordinates.
Write only what the figure shows: do not guess hidden values, and do not solve anything."""

_EXTRA = {
    "figure_only": "",
    "mathverse_vision_intensive": (
        "\n\nThe problem's text comes with the figure; conditions it does not state are in the "
        "figure. Describe the figure completely, including what the text may also say.\n\nQuestion:\n{question}"
    ),
    "mathverse_vision_only": (
        "\n\nThe image shows the whole problem: the figure and the question text. Describe the "
        "figure as above, then copy the question written in the image word for word, after "
        "'Question:'."
    ),
    "diagram_with_question": "\n\nThe figure belongs to this question (do not answer it):\n{question}",
}

_CLOSE = "\n\nReply with the description only, as a few plain sentences."


def caption_messages(image: Any, variant: str = "figure_only", question: str = "") -> list[dict[str, Any]]:
    """The captioner's request for one figure; `question` is used by the variants that need it."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown caption variant {variant!r}; variants: {', '.join(VARIANTS)}")
    text = _CORE + _EXTRA[variant].format(question=question.strip() or "(none)") + _CLOSE
    return [{"role": "user", "content": [{"type": "text", "text": text}, image_part(image)]}]


_CAPTION_ZH = """请把图中的几何图形写成一段规范的题设描述，使看不到图的人也能准确画出它。\
写出所有的元素（点、线段、直线、圆及其圆心、多边形、角、坐标轴、立体图形）、所有的位置关系\
（点在线上或圆上、中点、交点、平行、垂直、相切、弦与直径、中线、高、角平分线、内接与外接）\
以及图中给出的所有数量（长度、角度、比例、面积、坐标）。只写图中所示的内容，不要推测，也不要解题。\
只回复描述本身。"""


def caption_messages_zh(image: Any) -> list[dict[str, Any]]:
    """The figure-only request in Chinese, for scoring against Chinese reference captions."""
    return [{"role": "user", "content": [{"type": "text", "text": _CAPTION_ZH}, image_part(image)]}]
