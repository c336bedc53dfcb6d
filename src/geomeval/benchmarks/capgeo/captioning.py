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

from ...engines.images import image_part
from ...engines.prompts import PromptSet, Template, default_set

FIGURE_ONLY = "figure_only"
PROBLEM_VISION_INTENSIVE = "problem_vision_intensive"
PROBLEM_VISION_ONLY = "problem_vision_only"
PROBLEM_WITH_QUESTION = "problem_with_question"
VARIANTS = (FIGURE_ONLY, PROBLEM_VISION_INTENSIVE, PROBLEM_VISION_ONLY, PROBLEM_WITH_QUESTION)

CAPTION_FIGURE_ONLY = """Describe the geometric figure in the image in clear, structured \
mathematical language. Take as much visual information from the figure as you can.

Output the description of the figure and nothing else.

An example of such an output, for another figure: "In trapezoid ABCD, AD is parallel to BC \
and AB = CD. The diagonals AC and BD intersect at point O. E is the midpoint of BC, and \
segment OE is drawn perpendicular to BC. Angle ABC = 60° and BC = 8.\""""

# geomeval's earlier figure-only request (`-T caption_prompt=dimensions`): it names the three
# scored dimensions one by one, which steers what the captioner states (the paper's Fig. 6
# asks only for as much visual information as possible).
CAPTION_FIGURE_DIMENSIONS = """Describe the geometric figure in the image as a formal problem statement, so that \
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

CAPTION_PROBLEM_VISION_INTENSIVE = """From the geometric figure in the image and the text of the \
question below, describe the complete geometry problem in a clear, structured form.

Text of the problem:
{question}

Bring the visual information of the figure and the text of the question together into a \
full description of the problem."""

CAPTION_PROBLEM_VISION_ONLY = """The image holds a geometric figure together with the text of a \
problem. Write that problem, figure included, directly in the form of a geometry problem.

Output the problem alone, and make sure it is complete."""

CAPTION_PROBLEM_WITH_QUESTION = """From the geometric diagram in the image and the text of the \
question below, describe the complete geometry problem in a clear, structured form.

Text of the problem:
{question}

Give the problem statement alone, without analysis or solution steps."""

# geomeval's earlier whole-problem requests (CapGeo `-T prompt_style=geomeval`): each also asks
# to turn the figure into explicit conditions listed by kind, to keep the question and options
# as given, and to give no analysis, steps or answer (the paper asks the last of GeoQA and
# MathVista only).
CAPTION_PROBLEM_VISION_INTENSIVE_GEOMEVAL = """The image is the figure of a geometry problem; part of \
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

CAPTION_PROBLEM_VISION_ONLY_GEOMEVAL = """The image holds a whole geometry problem: its text and \
options, if any, are written in the image above or beside its figure. Write this problem out \
as a geometry problem statement.

Copy the problem's text and options from the image, and turn what the figure shows (its \
points, lines and shapes, how they are placed relative to one another, and every length, \
angle or other value marked on it) into explicit conditions in standard mathematical \
language, so that the problem can be solved from your text alone. Make sure the statement is \
complete: no condition, question or option may be left out.

Reply with the problem statement only: no analysis, no solution steps, no answer."""

CAPTION_PROBLEM_WITH_QUESTION_GEOMEVAL = """The image is the diagram of the geometry problem whose text \
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

# No Chinese prompt is published: the figure-only request's clauses in Chinese, with the same
# example in Chinese.
CAPTION_FIGURE_ONLY_ZH = """请用清晰、有条理的数学语言描述图中的几何图形，尽可能多地从图中获取视觉信息。\
只输出对图形的描述。

下面是另一幅图的输出示例：“在梯形ABCD中，AD平行于BC，AB = CD。对角线AC与BD相交于点O。\
E是BC的中点，线段OE垂直于BC。∠ABC = 60°，BC = 8。”"""

# geomeval's earlier Chinese request (`-T caption_prompt=dimensions`).
CAPTION_FIGURE_DIMENSIONS_ZH = """请把图中的几何图形写成一段规范的题设描述，使看不到图的人也能准确画出它。\
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
_VI = (_FIG6 + "MathVerse Vision Intensive: from the figure and the question text (given), the complete problem "
       "described clearly and in a structured form, the figure's visual information and the text combined "
       "into a full description")
_VO = (_FIG6 + "MathVerse Vision Only: the problem shown in the image, figure included, written directly as a "
       "geometry problem; only the problem, and complete")
_WQ = (_FIG6 + "GeoQA and MathVista: from the diagram and the question text (given), the complete problem "
       "described clearly and in a structured form; only the problem statement, no analysis or solution steps")
_GEOMEVAL = " (geomeval's earlier wording, `-T prompt_style=geomeval`: also lists what to read off the figure, " \
    "keeps the question and options as given, and asks for no analysis, steps or answer)"
# CapGeo's: the captioner restates the whole problem (prompts.TEMPLATES).
PROBLEM_TEMPLATES = (
    Template(TEMPLATE_NAMES[PROBLEM_VISION_INTENSIVE], CAPTION_PROBLEM_VISION_INTENSIVE, ("question",),
             required=("question",), implements=_VI),
    Template(TEMPLATE_NAMES[PROBLEM_VISION_ONLY], CAPTION_PROBLEM_VISION_ONLY, (), implements=_VO),
    Template(TEMPLATE_NAMES[PROBLEM_WITH_QUESTION], CAPTION_PROBLEM_WITH_QUESTION, ("question",),
             required=("question",), implements=_WQ),
)
# The same templates in geomeval's earlier wording (CapGeo's `-T prompt_style=geomeval`).
PROBLEM_TEMPLATES_GEOMEVAL = (
    Template(TEMPLATE_NAMES[PROBLEM_VISION_INTENSIVE], CAPTION_PROBLEM_VISION_INTENSIVE_GEOMEVAL, ("question",),
             required=("question",), implements=_VI + _GEOMEVAL),
    Template(TEMPLATE_NAMES[PROBLEM_VISION_ONLY], CAPTION_PROBLEM_VISION_ONLY_GEOMEVAL, (),
             implements=_VO + _GEOMEVAL),
    Template(TEMPLATE_NAMES[PROBLEM_WITH_QUESTION], CAPTION_PROBLEM_WITH_QUESTION_GEOMEVAL, ("question",),
             required=("question",), implements=_WQ + _GEOMEVAL),
)
_FIGURE = (_FIG6 + "CapGeo-Bench: the figure described in a clear, structured mathematical form, as much visual "
           "information mined from it as possible, only the description output, an example output (geomeval's "
           "own example, for another figure)")
_DIMENSIONS = (" (geomeval's earlier wording, `-T caption_prompt=dimensions`: also lists the elements, spatial "
               "relations and numbers to state, item by item, and asks for a few plain sentences)")
# CapGeo-Bench's: the figure alone, in English and in Chinese (bench.TEMPLATES).
FIGURE_TEMPLATES = (
    Template(TEMPLATE_NAMES[FIGURE_ONLY], CAPTION_FIGURE_ONLY, (), implements=_FIGURE),
    Template("caption_zh", CAPTION_FIGURE_ONLY_ZH, (),
             implements="the same request in Chinese, no published Chinese prompt (capgeo_bench_zh, scored "
                        "against the Chinese captions)"),
)
# The same in geomeval's earlier wording (CapGeo-Bench's `-T caption_prompt=dimensions`).
FIGURE_TEMPLATES_DIMENSIONS = (
    Template(TEMPLATE_NAMES[FIGURE_ONLY], CAPTION_FIGURE_DIMENSIONS, (), implements=_FIGURE + _DIMENSIONS),
    Template("caption_zh", CAPTION_FIGURE_DIMENSIONS_ZH, (),
             implements="the same request in Chinese" + _DIMENSIONS),
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
