"""Caption prompts: CapGeo's first stage, a captioner turning a figure into text a reasoner can
work from.

Two caption tasks, as in the paper (its Figure 6):

- **the figure alone** (`figure_only`, CapGeo-Bench): describe everything the figure shows, in
  formal mathematical language, and nothing else; the caption is scored against a reference
  description of the figure;
- **the whole problem** (every reasoning source): read the figure and the question together
  and write the complete problem as one formal statement, the figure's givens turned into
  explicit conditions, without solving it. One wording per kind of source, because the
  figure carries different things: MathVerse Vision Intensive (`problem_vision_intensive`:
  the text holds part of the conditions, the figure the rest), MathVerse Vision Only
  (`problem_vision_only`: the whole problem, question included, is drawn in the image, so the
  captioner gets no text) and GeoQA and MathVista (`problem_with_question`: a diagram beside
  a full question).

Each prompt is a module-level template (`TEMPLATES`, by variant), registered as a named
template (`PROBLEM_TEMPLATES` with CapGeo's, `FIGURE_TEMPLATES` with CapGeo-Bench's) and
rendered only in `caption_text` through the run's prompt set, with `{question}` the problem's
text with its options (`question_text`). The wording is geomeval's own; every clause of the
published prompts is in it.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from ...images import image_part
from ...prompts import PromptSet, Template, default_set

FIGURE_ONLY = "figure_only"
PROBLEM_VISION_INTENSIVE = "problem_vision_intensive"
PROBLEM_VISION_ONLY = "problem_vision_only"
PROBLEM_WITH_QUESTION = "problem_with_question"
VARIANTS = (FIGURE_ONLY, PROBLEM_VISION_INTENSIVE, PROBLEM_VISION_ONLY, PROBLEM_WITH_QUESTION)
# The variants whose caption is the whole problem restated (the reasoning sources').
PROBLEM_VARIANTS = (PROBLEM_VISION_INTENSIVE, PROBLEM_VISION_ONLY, PROBLEM_WITH_QUESTION)

CAPTION_FIGURE_ONLY = """Describe the geometric figure in the image as a formal problem statement, so that \
someone who cannot see it could redraw it exactly. Take from the figure every piece of visual \
information it holds.

State, in standard mathematical language ("In triangle ABC, AB = AC.", "D is the midpoint \
of BC.", "Line l is tangent to circle O at P."):
- every element: points, segments, lines, rays, circles (with their centres), arcs, \
polygons, angles, coordinate axes, solids;
- every spatial relation: points on lines or circles, midpoints, intersections, parallel \
and perpendicular lines, tangency, chords and diameters, medians, altitudes and bisectors, \
inscribed and circumscribed figures;
- every number the figure gives: lengths, angle sizes, ratios, areas, coordinates.
Write only what the figure shows: do not guess hidden values, and do not solve anything.

A description in the expected style, for another figure: "In trapezoid ABCD, AD is parallel \
to BC and AB = CD. The diagonals AC and BD intersect at point O. E is the midpoint of BC, and \
segment OE is drawn perpendicular to BC. Angle ABC = 60° and BC = 8."

Reply with the description of the figure only, as a few plain sentences."""

CAPTION_PROBLEM_VISION_INTENSIVE = """The image is the figure of a geometry problem; part of \
the problem is stated in the text below and the rest is given only by the figure. Write the \
complete problem as one clear, structured geometry problem statement.

Text of the problem:
{question}

Read the figure and turn what it shows (its points, lines and shapes, how they are placed \
relative to one another, and every length, angle or other value marked on it) into explicit \
conditions in standard mathematical language, and merge them with the text into one \
statement, so that the problem can be solved from your text alone. Keep the question and its \
options as the text gives them.

Reply with the problem statement only: no analysis, no solution steps, no answer."""

CAPTION_PROBLEM_VISION_ONLY = """The image holds a whole geometry problem: its text and \
options, if any, are written in the image above or beside its figure. Write this problem out \
as a geometry problem statement.

Copy the problem's text and options from the image, and turn what the figure shows (its \
points, lines and shapes, how they are placed relative to one another, and every length, \
angle or other value marked on it) into explicit conditions in standard mathematical \
language, so that the problem can be solved from your text alone. Make sure the statement is \
complete: no condition, question or option may be left out.

Reply with the problem statement only: no analysis, no solution steps, no answer."""

CAPTION_PROBLEM_WITH_QUESTION = """The image is the diagram of the geometry problem whose text \
is below. Write the complete problem as one clear, structured geometry problem statement.

Text of the problem:
{question}

Turn what the diagram shows (its points, lines and shapes, how they are placed relative to \
one another, and every length, angle or other value marked on it) into explicit conditions in \
standard mathematical language, and merge them with the text into one statement, so that the \
problem can be solved from your text alone. Keep the question and its options as the text \
gives them.

Reply with the problem statement only: no analysis, no solution steps, no answer."""

TEMPLATES = {
    FIGURE_ONLY: CAPTION_FIGURE_ONLY,
    PROBLEM_VISION_INTENSIVE: CAPTION_PROBLEM_VISION_INTENSIVE,
    PROBLEM_VISION_ONLY: CAPTION_PROBLEM_VISION_ONLY,
    PROBLEM_WITH_QUESTION: CAPTION_PROBLEM_WITH_QUESTION,
}

CAPTION_FIGURE_ONLY_ZH = """请把图中的几何图形写成一段规范的题设描述，使看不到图的人也能准确画出它。\
写出所有的元素（点、线段、直线、圆及其圆心、多边形、角、坐标轴、立体图形）、所有的位置关系\
（点在线上或圆上、中点、交点、平行、垂直、相切、弦与直径、中线、高、角平分线、内接与外接）\
以及图中给出的所有数量（长度、角度、比例、面积、坐标）。只写图中所示的内容，不要推测，也不要解题。\
只回复描述本身。"""


# The template name of each variant in its benchmark's prompt set.
TEMPLATE_NAMES = {
    FIGURE_ONLY: "caption",
    PROBLEM_VISION_INTENSIVE: "caption_vision_intensive",
    PROBLEM_VISION_ONLY: "caption_vision_only",
    PROBLEM_WITH_QUESTION: "caption_with_question",
}
_FIG6 = "Fig. 6's captioning prompt for "
# CapGeo's: the captioner restates the whole problem (prompts.TEMPLATES).
PROBLEM_TEMPLATES = (
    Template(TEMPLATE_NAMES[PROBLEM_VISION_INTENSIVE], CAPTION_PROBLEM_VISION_INTENSIVE, ("question",),
             required=("question",),
             implements=_FIG6 + "MathVerse Vision Intensive: the figure read into explicit conditions and merged "
                        "with the question text into one clear, structured problem statement"),
    Template(TEMPLATE_NAMES[PROBLEM_VISION_ONLY], CAPTION_PROBLEM_VISION_ONLY, (),
             implements=_FIG6 + "MathVerse Vision Only: the problem drawn in the image written out as a math "
                        "problem, complete, and nothing else"),
    Template(TEMPLATE_NAMES[PROBLEM_WITH_QUESTION], CAPTION_PROBLEM_WITH_QUESTION, ("question",),
             required=("question",),
             implements=_FIG6 + "GeoQA and MathVista: the diagram and the question text as one clear, structured "
                        "problem statement, without analysis or solution steps"),
)
# CapGeo-Bench's: the figure alone, in English and in Chinese (bench.TEMPLATES).
FIGURE_TEMPLATES = (
    Template(TEMPLATE_NAMES[FIGURE_ONLY], CAPTION_FIGURE_ONLY, (),
             implements=_FIG6 + "CapGeo-Bench: the figure described in clear, structured mathematical form, as "
                        "much visual information as possible, the description only, an example (geomeval's own)"),
    Template("caption_zh", CAPTION_FIGURE_ONLY_ZH, (),
             implements="the same request in Chinese (capgeo_bench_zh, scored against the Chinese captions)"),
)
_DEFAULTS = default_set("capgeo", (*PROBLEM_TEMPLATES, *FIGURE_TEMPLATES))


def question_text(question: str, choices: Sequence[str] = ()) -> str:
    """A problem's text as the captioner reads it: the question with its options lettered
    beneath (the sources' loaders split the options out; the captioner must see them to
    restate the whole problem)."""
    text = question.strip()
    if choices and text:
        text += "\nChoices:\n" + "\n".join(f"{string.ascii_uppercase[i]}. {c}" for i, c in enumerate(choices))
    return text or "(none)"


def caption_text(
    variant: str = FIGURE_ONLY, question: str = "", choices: Sequence[str] = (), prompts: PromptSet = _DEFAULTS
) -> str:
    """The captioner's instruction for `variant`, rendered from `prompts` (the run's set): the
    one place its template is filled."""
    if variant not in TEMPLATES:
        raise ValueError(f"unknown caption variant {variant!r}; variants: {', '.join(VARIANTS)}")
    return prompts.render(TEMPLATE_NAMES[variant], question=question_text(question, choices))


def caption_messages(
    image: Any, variant: str = FIGURE_ONLY, question: str = "", choices: Sequence[str] = (),
    prompts: PromptSet = _DEFAULTS,
) -> list[dict[str, Any]]:
    """The captioner's request for one figure; `question` and `choices` fill the variants that
    show the problem's text (the figure-only and Vision Only ones show none)."""
    text = caption_text(variant, question, choices, prompts)
    return [{"role": "user", "content": [{"type": "text", "text": text}, image_part(image)]}]


def caption_messages_zh(image: Any, prompts: PromptSet = _DEFAULTS) -> list[dict[str, Any]]:
    """The figure-only request in Chinese, for scoring against Chinese reference captions."""
    return [{"role": "user", "content": [{"type": "text", "text": prompts.render("caption_zh")}, image_part(image)]}]
