"""GGBench prompts, written for geomeval: the construction tasks and the judge rubrics.

The defaults (`TEMPLATES`, `-T prompt_style=paper`) implement each published prompt's clauses
and ask for the published output: the code track's steps with construction, principle and
code, the image track's drawing steps, a bare numeral from VLM-T's and VLM-I-Res's judges and
the official four "Name: n" lines from the process judge (the authors' wording can be
supplied with `--prompts`). `-T prompt_style=geomeval` sends geomeval's earlier wording
(`GEOMEVAL_TEMPLATES`), described clause by clause below, which adds to the published
prompts: judges reply in JSON with a reason, and the code track's blocks must each run after
the ones before, one command per line:

* the code track (the paper's Fig. 17): build the construction in GeoGebra, keep every
  auxiliary trace of a ruler-and-compass construction, give each step's construction, its
  geometric principle and its code; the code rules (GeoGebra syntax with capitalised
  commands and no underscores, `Point({x, y})` and `Vector((x, y))` / `Vector(P, Q)`,
  auxiliary objects kept, one coordinate system, no comments or blank lines, nothing
  animated). geomeval adds one thing the engine needs: one fenced block per step, so each
  step's figure can be drawn for the process judge;
* the image track (Fig. 18): draw what the problem asks, keep ruler-and-compass traces, and
  write only the drawing steps, each leading to its picture, without code or effects;
* VLM-T (Fig. 13 and the official text-step prompt): the problem, the reference steps with
  their code (code only corroborates) and the model's whole answer; completeness of the
  chain, the key constructions, geometric principles, equivalent methods accepted; 1–5;
* the process judge (Figs. 15–16 and the official mid-process prompt): the problem and the
  long image of the step figures (with the model's step texts, which the official long
  image shows above each figure); Step Accuracy, Process Consistency and Problem-Solution
  Accuracy, each with its mandatory clauses. It never sees the reference solution;
* VLM-I-Res (Fig. 14): the reference image and the model's final image only; element
  completeness, topology and constraints, tolerance of style and similarity transforms,
  geometry over perceptual similarity; 1–5.

The rubrics' boundary rules that need no judgment are applied in code (scoring.py): a
missing or unusable image is 1, a long image of a single figure caps Process Consistency
at 1, an answer with no text is 1 for VLM-T.
"""

from __future__ import annotations

import re
from typing import Any

from ...engines.images import image_part
from ...engines.judges import likert, reply_object
from ...engines.prompts import PromptSet, Template

_CODE_TASK = """Carry out the geometric construction the problem below asks for, in GeoGebra.{figure_note}

Problem:
{problem}

If the problem asks for a ruler-and-compass construction, keep every auxiliary trace (arcs, \
helper circles and lines) in the figure. Work step by step; for each step give:
- Construction: what the step draws;
- Principle: the geometric reason it is correct;
- Code: the step's GeoGebra commands in a fenced block (```geogebra ... ```), one command \
per line. Every block must run after the blocks before it.

Rules for the code:
1. Write GeoGebra syntax exactly: command names capitalised, no underscores in names.
2. Write points as Point({{x, y}}) and vectors as Vector((x, y)) or Vector(P, Q).
3. Keep every auxiliary object in the final figure; hide or delete none.
4. Use one coordinate system; write no comments and no blank lines inside a block.
5. Draw a static figure only: no animation, sliders that move, or scripting.

For example (abridged):
Step 1. Construction: the given side AB. Principle: the data of the problem.
```geogebra
A = Point({{0, 0}})
B = Point({{4, 0}})
s = Segment(A, B)
```
Step 2. Construction: the perpendicular to AB at A, the circle about A through B, and D where \
they meet. Principle: then AD is perpendicular to AB and as long as it.
```geogebra
p = PerpendicularLine(A, s)
c = Circle(A, B)
D = Intersect(p, c, 1)
```"""

_IMAGE_TASK = """Draw the figure the problem below asks for.{figure_note}

Problem:
{problem}

If the problem asks for a ruler-and-compass construction, keep the traces of the \
construction (arcs, helper circles and lines) in the drawing. Output only the drawing steps:
1. Describe each step clearly and follow the order of the construction.
2. Write no code of any kind.
3. Each step's description leads to the picture drawn for that step; draw the figure as it \
stands after each step, ending with the finished figure.
4. Keep the steps short and clear, with no animation or decorative effects."""

_FIGURE_NOTE = " The problem's figure is attached."

_SYSTEM = "You are a strict, impartial grader of geometric constructions."

_TEXT_PROMPT = """Grade the written construction steps of a model's answer to a geometric \
construction problem.

## Problem
{problem}

## Reference answer (standard steps; its code only corroborates them, the steps decide)
{reference}

## Model's answer (its steps; any code only corroborates them)
{answer}

## Criteria
1. Chain of reasoning: the construction order is clear, no step is skipped, and what each \
step depends on is explicit.
2. Steps: the answer covers the key constructions the problem needs (perpendiculars, \
parallels, angle bisectors, circles and auxiliary circles, tangent points and tangents, \
named intersection points, stated relations, …).
3. Geometric principles: every step obeys them (collinearity, concyclicity, equality, \
proportion, perpendicularity, parallelism, tangency, …).
4. Against the reference: a different, equivalent construction path is as good, provided \
its final objects satisfy the problem's constraints.

## Scores
5 = complete, rigorous steps with every key construction, equivalent to the reference, no \
geometric error.
4 = correct overall; small differences or omissions that affect neither reproducing the \
construction nor its conclusion.
3 = most key points covered, but a critical step is missing or there are clear errors that \
could be fixed.
2 = many logical errors, or it strays from what the problem asks; the chain does not hold \
together.
1 = seriously wrong, full of errors, or impossible to reproduce.

Reply with one JSON object and nothing else: {{"score": <1-5>, "reason": "<one sentence>"}}"""

_PROCESS_PROMPT = """Grade how a model carried out a geometric construction, from the long \
image attached: its figure after each step, left to right, each panel titled "Step k". The \
model's text for each step is given below (the instruction each panel should show).

## Problem
{problem}

## The model's steps (text)
{answer}

Score three things separately, each from 1 to 5.

### step_accuracy: does each step's figure match its text exactly?
Check names of points and lines, that every element the step names is there, positions and \
segment endpoints, and that nothing extra is drawn.
5 = figure and text agree completely (names, relations, how many of each), nothing extra or \
missing.
4 = mostly agree; only a very slight visual deviation that does not hinder understanding \
(e.g. a correctly named label a little off its point).
3 = the main structure is right but there is more than one small error (confused names, \
auxiliary points in the wrong place).
2 = text and figure are hard to match one to one: critical naming or connection errors, or \
missing elements.
1 = the structure is wrong, the naming chaotic, the figure unrelated to the text, or wrong \
throughout.
Mandatory: if wrong or missing names make the target point or line impossible to identify \
uniquely, give at most 1. If the text joins two particular points but the drawn endpoints \
match neither in position nor in name, give 1. A label merely not in the best place but \
still identifiable from context may get 2.

### process_consistency: does each step build on the previous step's figure?
5 = every step keeps the previous figure whole and adds a correct, complete construction.
4 = mostly coherent; small lapses in what is carried over, or naming drift.
3 = the link between steps roughly holds, but key construction marks are missing, steps \
are skipped, or the order is wrong.
2 = most constructions are not carried over, or the work continues on a wrong structure; \
the chain is unclear.
1 = the steps look like unrelated drawings; no evolution is visible; the chain is broken.
Mandatory: a long image with a single figure gets at most 1; if intermediate figures are \
missing or replaced by error messages, give 1.

### problem_solution_accuracy: does the final figure solve the problem?
Judge only from what is visible and checkable in the figures, never from the text.
5 = the problem is fully solved; every required property is constructed and visibly \
confirmed.
4 = correct in substance; small visual or labelling flaws that do not change the result; the \
key relations are still visible.
3 = the core idea holds, but some required relations cannot be seen or checked in the \
figure.
2 = only partly solves the problem: major constraints left out, or a visibly wrong relation.
1 = invalid, incomplete or unrecognisable; no usable geometry (an error message, an empty \
canvas, a placeholder, text only).
Mandatory: a figure that fails to show geometry gets 1; if correctness cannot be checked \
visually (missing marks, centre or labels), give at most 2; any score above 2 needs visual \
evidence.

Reply with one JSON object and nothing else:
{{"step_accuracy": <1-5>, "process_consistency": <1-5>, "problem_solution_accuracy": <1-5>, \
"reason": "<one sentence, in English>"}}"""

_RESULT_PROMPT = """Grade how consistent a model's final figure is with the reference figure \
of a geometric construction. The first image is the reference answer; the second is the \
model's final figure.

## Criteria
1. Elements: the key geometric elements are all there (points, segments, circles and \
auxiliary circles, tangent points, tangents, labels and marks, …).
2. Topology and constraints: relative positions and relations (perpendicular, parallel, \
tangent, concyclic, collinear, angle and length ratios, …) are right.
3. Tolerance: line width, colour and font do not matter, nor do translation, rotation, \
uniform scaling or reflection of the whole figure, unless the problem forbids them.
4. Overall: geometric correctness comes first; looking alike counts for nothing when the \
geometry disagrees.

## Scores
5 = elements, topology and constraints agree closely.
4 = agree in substance; only slight deviations of position or style.
3 = mostly agree; the elements are complete but there are several small errors.
2 = agree only in part: key elements missing or obvious constraint errors.
1 = contradicts the problem's intent, lacks key elements (circles, auxiliary circles, \
tangent points, tangents, …), or the image is unusable.
A missing, corrupted or unreadable image, or text without an image, gets 1.

Reply with one JSON object and nothing else: {{"score": <1-5>, "reason": "<one sentence>"}}"""

_NONE = "(not given)"


def task_messages(row: dict[str, Any], *, track: str, prompts: PromptSet) -> list[dict[str, Any]]:
    """The chat messages that pose an item; `track` is "code" or "image"."""
    image = row.get("problem_image")
    text = prompts.render("code_task" if track == "code" else "image_task",
                          problem=row["problem"].strip(), figure_note=prompts.render("figure_note") if image else "")
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if image:
        content.append(image_part(image))
    return [{"role": "user", "content": content}]


def _reference_steps(target: dict[str, Any]) -> str:
    steps = target.get("steps") or []
    lines = []
    for number, step in enumerate(steps, 1):
        text = (step.get("text") or "").strip()
        code = (step.get("code") or "").strip()
        lines.append(f"Step {number}: {text}" + (f"\n```geogebra\n{code}\n```" if code else ""))
    return "\n".join(lines) or _NONE


GEOMEVAL_TEMPLATES = (
    Template("code_task", _CODE_TASK, ("problem", "figure_note"), required=("problem",),
             implements="Fig. 17: the GeoGebra construction with each step's construction, principle and code; "
                        "ruler-and-compass traces kept; the five code rules; an abridged example (geomeval's own). "
                        "Added: one fenced block per step (the step figures need it)"),
    Template("image_task", _IMAGE_TASK, ("problem", "figure_note"), required=("problem",),
             implements="Fig. 18: the drawing with its traces kept; only the drawing steps, clear, no code, each "
                        "leading to its picture, no effects"),
    Template("figure_note", _FIGURE_NOTE, (),
             implements="the problem's figure, attached when the item has one (Fig. 17: 'the given topic and image')"),
    Template("judge_system", _SYSTEM, (), implements="the judge's role"),
    Template("text_judge", _TEXT_PROMPT, ("problem", "reference", "answer"), required=("answer",),
             implements="VLM-T (Fig. 13, the official text-step prompt): the four criteria and the 1–5 rubric"),
    Template("process_judge", _PROCESS_PROMPT, ("problem", "answer"), required=("problem",),
             implements="VLM-I-Mid (Figs. 15–16, the official mid-process prompt): Step Accuracy, Process "
                        "Consistency and Problem-Solution Accuracy with their rubrics and mandatory clauses; "
                        "no reference solution"),
    Template("result_judge", _RESULT_PROMPT, (),
             implements="VLM-I-Res (Fig. 14): the four criteria, the 1–5 rubric and the boundary rules; "
                        "the two images only"),
)

# ------------------------------------------------------------------------- the paper's defaults
# Each implements its published prompt's clauses and nothing more; the output each asks for is
# the published one (a numeral; the process judge's four lines). geomeval's earlier wording
# (`-T prompt_style=geomeval`, GEOMEVAL_TEMPLATES above) asks the judges for JSON with a
# reason and the code track for self-contained blocks, one command per line.

_PAPER_CODE_TASK = """Carry out the construction the problem below asks for, in GeoGebra.{figure_note}

Problem:
{problem}

If the problem asks for a ruler-and-compass construction, keep every auxiliary trace. Give \
the drawing instructions step by step, with the geometric principles and executable \
GeoGebra code.

Rules for the code:
1. Write GeoGebra syntax exactly: command names capitalised, no underscores.
2. Write points as Point({{x, y}}) and vectors as Vector((x, y)) or Vector(P, Q).
3. Keep every auxiliary object in the final figure.
4. Use one coordinate system; write no comments and no blank lines.
5. Draw a static figure only, with no animation.

Example (abridged): each step has a Construction, a Principle and a GeoGebra Code part.
Step 1. Construction: the given side AB. Principle: the data of the problem.
```geogebra
A = Point({{0, 0}})
B = Point({{4, 0}})
s = Segment(A, B)
```
Step 2. Construction: the perpendicular to AB at A, the circle about A through B, and D where \
they meet. Principle: then AD is perpendicular to AB and as long as it.
```geogebra
p = PerpendicularLine(A, s)
c = Circle(A, B)
D = Intersect(p, c, 1)
```
..."""

_PAPER_IMAGE_TASK = """Make the drawing the problem below asks for.{figure_note}

Problem:
{problem}

If the problem asks for a ruler-and-compass construction, keep its traces in the drawing. \
Output only the drawing steps.

Rules for the steps:
1. Follow the order of the drawing and explain each step clearly.
2. Give only the step descriptions, with no code.
3. Describe the drawing process so that each description leads to the image that goes with it.
4. Keep the steps clear and short, with no dynamic effects and no code.

Example (abridged), for the incircle of a triangle ABC:
1. Draw the bisector of angle BAC.
2. Draw the bisector of angle ABC.
Principle: where two angle bisectors meet is equally far from the three sides, so it is the \
centre of the incircle."""

_PAPER_TEXT_PROMPT = """You evaluate the written construction steps of a geometric \
multimodal construction.

Input: the problem; the reference answer (its standard steps, with code that only \
corroborates them: the steps decide); the model's answer (its steps, any code only \
corroborating them).

Criteria:
1. Completeness of the chain: the construction order is clear, no step is skipped, and \
what each step depends on is explicit.
2. Accuracy of the steps: the key constructions the problem needs are there \
(perpendiculars, parallels, angle bisectors, circles and auxiliary circles, tangent points \
and tangents, named intersections, marked relations, …).
3. Geometric principles: every step obeys them (collinearity, concyclicity, equality, \
proportion, perpendicularity, parallelism, tangency, …).
4. Against the reference: an equivalent construction path is accepted as long as its final \
objects and constraints meet the problem.

Scores (1–5):
5 = complete, rigorous steps with every key construction, the same as or equivalent to the \
reference, no geometric error.
4 = correct overall; small differences or omissions that affect neither reproducing the \
construction nor its conclusion.
3 = most key points covered, but a critical step is missing or there are clear errors that \
could be fixed.
2 = many logical errors, or it strays from what the problem asks; the chain does not hold.
1 = seriously wrong, full of errors, or impossible to reproduce.

Answer with one digit from 1 to 5 and nothing else: no words, punctuation or spaces.

Problem:
{problem}

Reference answer:
{reference}

Model's answer:
{answer}"""

_PAPER_PROCESS_PROMPT = """You judge, strictly and objectively, how a model carried out a \
geometric construction, from the long image attached: its figure after each step, left to \
right, each panel titled "Step k". The model's text for each step is given below (the \
instruction each panel should show). Consider the problem and the long image together.

## Problem
{problem}

## The model's steps (text)
{answer}

Score three things separately, each from 1 to 5.

### Step Accuracy: does each step's figure match its text exactly?
Check that names of points and lines are identical, that every element the step names is \
there, positions and segment endpoints, and that nothing extra is drawn.
5 = figure and text agree completely (names, relations, how many of each), nothing extra or \
missing.
4 = mostly agree; only a very slight visual deviation that does not hinder understanding \
(e.g. a correctly named label a little off its point).
3 = the main structure is right but there is more than one small error (confused names, \
auxiliary points in the wrong place).
2 = text and figure are hard to match one to one: critical naming or connection errors, or \
missing elements.
1 = the structure is wrong, the naming chaotic, the figure unrelated to the text, or wrong \
throughout.
Mandatory: if wrong or missing names make the target point or line impossible to identify \
uniquely, give at most 1. If the text joins two particular points but the drawn endpoints \
match neither in position nor in name, give 1. A label merely not in the best place but \
still identifiable from context may get 2.

### Process Consistency: does each step build on the previous step's figure?
5 = every step keeps the previous figure whole and adds a correct, complete construction.
4 = mostly coherent; small lapses in what is carried over, or naming drift.
3 = the link between steps roughly holds, but key construction marks are missing, steps \
are skipped, or the order is wrong.
2 = most constructions are not carried over, or the work continues on a wrong structure; \
the chain is unclear.
1 = the steps look like unrelated drawings; no evolution is visible; the chain is broken.
Mandatory: a long image with a single figure gets at most 1; if intermediate figures are \
missing or replaced by error messages, give 1.

### Problem-Solution Accuracy: does the final construction solve the problem?
Judge only from what is visible and checkable in the figures, never from the text.
5 = the problem is fully solved; every required property is constructed and visibly \
confirmed.
4 = correct in substance; small visual or labelling flaws that do not change the result; the \
key relations are still visible.
3 = the core idea holds, but some required relations cannot be seen or checked in the \
figure.
2 = only partly solves the problem: major constraints left out, or a visibly wrong relation.
1 = invalid, incomplete or unrecognisable; no usable geometry (an error message, an empty \
canvas, a placeholder, text only).
Mandatory: a figure that fails to show geometry gets 1; if correctness cannot be checked \
visually (missing marks, centre or labels), give at most 2; any score above 2 needs visual \
evidence.

Output exactly these four lines and nothing else; write the rationale in English:
Step Accuracy: <1-5>
Process Consistency: <1-5>
Problem-Solution Accuracy: <1-5>
Rationale: <one line>"""

_PAPER_RESULT_PROMPT = """You evaluate how consistent a model's final figure is with the \
reference figure of a geometric construction. The first image is the reference answer; the \
second is the model's final figure.

Criteria:
1. Elements: the key geometric elements the problem needs are all there (points, segments, \
circles and auxiliary circles, tangent points, tangents, labels and marks, …).
2. Topology and constraints: relative positions and relations (perpendicular, parallel, \
tangent, concyclic, collinear, angle and length ratios, …) are right.
3. Tolerance: line width, colour and font do not matter, nor do translation, rotation, \
uniform scaling or reflection of the whole figure, unless the problem forbids them.
4. Overall: geometric topology and constraints come first; perceptual likeness is only a \
hint, and where the two disagree the geometry decides.

Scores (1–5):
5 = elements, topology and constraints agree closely.
4 = agree in substance; only slight deviations of position or style.
3 = mostly agree; the elements are complete but there are several small errors.
2 = agree only in part: key elements missing or obvious constraint errors.
1 = contradicts the problem's intent, lacks key elements (circles, auxiliary circles, \
tangent points, tangents, …), or the image is unusable.
A missing, corrupted or unreadable image, or text without an image, gets 1.

Answer with one digit from 1 to 5 and nothing else: no words, punctuation or spaces."""

_PAPER_SYSTEM = "You are an impartial evaluator of geometric constructions."

TEMPLATES = (
    Template("code_task", _PAPER_CODE_TASK, ("problem", "figure_note"), required=("problem",),
             implements="Fig. 17: the construction in GeoGebra from the topic and its image; ruler-and-compass "
                        "traces kept; step-by-step instructions, principles and executable code; the five code "
                        "rules; an abridged example whose steps have Construction, Principle and GeoGebra Code "
                        "parts (geomeval's own example)"),
    Template("image_task", _PAPER_IMAGE_TASK, ("problem", "figure_note"), required=("problem",),
             implements="Fig. 18: the drawing the topic asks for, ruler-and-compass traces kept, only the drawing "
                        "steps; its four rules; an abridged example (geomeval's own)"),
    Template("figure_note", _FIGURE_NOTE, (),
             implements="the problem's figure, attached when the item has one (Fig. 17: 'the given topic and image')"),
    Template("judge_system", _PAPER_SYSTEM, (), implements="the judge's role (each official judge prompt names one)"),
    Template("text_judge", _PAPER_TEXT_PROMPT, ("problem", "reference", "answer"), required=("answer",),
             implements="VLM-T (Fig. 13, the official text-step prompt): its inputs, four criteria, the 1–5 rubric "
                        "and its output, a single numeral"),
    Template("process_judge", _PAPER_PROCESS_PROMPT, ("problem", "answer"), required=("problem",),
             implements="VLM-I-Mid (Figs. 15–16, the official mid-process prompt): Step Accuracy, Process "
                        "Consistency and Problem-Solution Accuracy with their rubrics and mandatory clauses, no "
                        "reference solution; its output, three 'Name: n' lines and an English rationale"),
    Template("result_judge", _PAPER_RESULT_PROMPT, (),
             implements="VLM-I-Res (Fig. 14): the two images only; the four criteria, the 1–5 rubric, the "
                        "boundary rules and its output, a single numeral"),
)
PROMPT_STYLES: dict[str, tuple[Template, ...]] = {"paper": TEMPLATES, "geomeval": GEOMEVAL_TEMPLATES}

# The model's answer as a judge reads it: long answers are cut (judges have context limits).
MAX_ANSWER_CHARS = 12_000


def _answer(response: str) -> str:
    text = response.strip()
    if len(text) > MAX_ANSWER_CHARS:
        text = text[:MAX_ANSWER_CHARS] + "\n[… the rest of the answer is cut]"
    return text or "(the model wrote nothing)"


def _messages(text: str, images: list[Any], prompts: PromptSet) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [image_part(image) for image in images]
    return [{"role": "system", "content": prompts.render("judge_system")}, {"role": "user", "content": content}]


def text_judge_messages(target: dict[str, Any], response: str, prompts: PromptSet) -> list[dict[str, Any]]:
    """VLM-T: the model's answer against the reference steps and code."""
    text = prompts.render("text_judge", problem=(target.get("problem") or _NONE).strip(),
                          reference=_reference_steps(target), answer=_answer(response))
    return _messages(text, [], prompts)


def process_judge_messages(target: dict[str, Any], response: str, long_image: bytes, prompts: PromptSet) -> list[dict[str, Any]]:
    """VLM-I-Mid and Problem-Solution Accuracy: the problem, the model's steps and its long image."""
    text = prompts.render("process_judge", problem=(target.get("problem") or _NONE).strip(), answer=_answer(response))
    return _messages(text, [long_image], prompts)


def result_judge_messages(reference_image: bytes, final_image: bytes, prompts: PromptSet) -> list[dict[str, Any]]:
    """VLM-I-Res: the reference figure and the model's final figure, nothing else."""
    return _messages(prompts.render("result_judge"), [reference_image, final_image], prompts)


# ------------------------------------------------------------------------- reading verdicts

PROCESS_CRITERIA = ("step_accuracy", "process_consistency", "problem_solution_accuracy")
# The authors' prompts ask for a bare numeral (VLM-T, VLM-I-Res) or "Name: n" lines (the
# process judge); geomeval's ask for JSON. Both are read, so an authors' prompt file works.
_BARE_SCORE = re.compile(r"^\W{0,3}([1-5])\W{0,3}$")
_PROCESS_LINE = re.compile(
    r"^\W{0,4}(step accuracy|process consistency|problem[- ]solution accuracy|rationale)\W{0,4}\s*[:：]\s*(.{0,500})$",
    re.I | re.M,
)


def parse_score(text: str) -> dict[str, Any]:
    """VLM-T and VLM-I-Res verdicts: {"score": 1–5, "reason": ...}, or a bare numeral."""
    bare = _BARE_SCORE.match(text.strip()[:20])
    if bare:
        return {"score": int(bare.group(1)), "reason": ""}
    data = reply_object(text)
    if "score" not in data:
        raise ValueError('field "score" is missing')
    return {"score": likert(data["score"], "score"), "reason": str(data.get("reason", ""))[:500]}


def parse_process(text: str) -> dict[str, Any]:
    """The process verdict: the three 1–5 criteria and a reason (JSON, or "Name: n" lines)."""
    lines = {m.group(1).lower().replace("-", " "): m.group(2).strip() for m in _PROCESS_LINE.finditer(text[:20_000])}
    if len(lines) >= 3:
        data: dict[str, Any] = {
            "step_accuracy": lines.get("step accuracy"),
            "process_consistency": lines.get("process consistency"),
            "problem_solution_accuracy": lines.get("problem solution accuracy"),
            "reason": lines.get("rationale", ""),
        }
        if any(data[name] is None for name in PROCESS_CRITERIA):
            raise ValueError("a criterion line is missing")
    else:
        data = reply_object(text)
    verdict: dict[str, Any] = {}
    for name in PROCESS_CRITERIA:
        if name not in data:
            raise ValueError(f'field "{name}" is missing')
        verdict[name] = likert(data[name], name)
    verdict["reason"] = str(data.get("reason", ""))[:500]
    return verdict
