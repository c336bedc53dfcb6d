"""GeoLaux's step-level judge: the rubric prompts, and reading verdicts.

By default the judge is the official one (the authors' evaluate_score.py with
score_cal_prompt.txt / score_pro_prompt.txt), in geomeval's words: it is shown the
problem's figure, the problem (its options appended), for a calculation the correct numeric
answer, the reference solution and the student's answer as the student wrote it, and it
decides the steps itself: it marks each step 1 or 0 *on its own* (a step that correctly
reasons from an earlier wrong result is still correct) and judges the final answer (a
calculation) or the conclusion reached (a proof), replying {"Step_by_step_evaluation":
[...], "Final_judgment": 0/1}, "null" for the steps of a solution that gives none. The
number of marks it returns is n in PCS and PQS.

`-T steps=geomeval` (a switch, not the paper's) splits the solution into numbered steps
itself (`segment_steps`) and has the judge mark exactly those, with geomeval's English
rubric (`step_judge`). For solutions with a wrong step, a second question classifies
*every* wrong step, as the official script does, as a figure-comprehension, knowledge,
calculation or logical-reasoning error: by default the official question
(analyze_error.txt, `error_type_judge`) in geomeval's Chinese, replying {"Error_analysis",
"Error_type": [a type or N/A per step]}; under `-T steps=geomeval` geomeval's English one
(`error_judge`). Prompts are registered as named templates
(`JUDGE_TEMPLATES`, part of GeoLaux's `TEMPLATES`), so a `--prompts` file can replace them;
the judging functions render whatever set the run uses.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from ...answers import parse_choices
from ...engines.judges import reply_object
from ...engines.prompts import PromptSet, Template, default_set
from .process_metrics import ERROR_TYPES

Figure = dict[str, Any] | None
"""The figure for the judge as an image part (`scoring.judge_figure`: the record's saved
figure, `images.base64_image_part`), or None for a text-only question."""

MAX_STEPS = 64
MAX_STEP_CHARS = 4000
MAX_SCAN_CHARS = 200_000

# A numbered step opens a line: "Step 3:", "3.", "3)", "(3)", "第3步", "步骤3".
_STEP_OPENER = re.compile(
    r"^[ \t>*#-]{0,8}(?:\*\*)?(?:step[ \t]{0,3}(\d{1,3})|第[ \t]{0,2}(\d{1,3})[ \t]{0,2}步|步骤[ \t]{0,2}(\d{1,3})"
    r"|\(?(\d{1,3})[.)、:：](?!\d))",
    re.IGNORECASE | re.MULTILINE,
)
_LEADING_NUMBER = re.compile(r"^\s{0,8}(?:step\s{0,3}\d{1,3}\s{0,3}[:.：]?|\(?\d{1,3}[.)、:：](?!\d))\s{0,8}", re.IGNORECASE)


def segment_steps(response: str, json_steps: list[Any] | None) -> list[str]:
    """The numbered steps a solution gave: its JSON "steps", else its numbered lines, else paragraphs."""
    if json_steps:
        return [_trim(_LEADING_NUMBER.sub("", str(step), count=1)) for step in json_steps[:MAX_STEPS] if str(step).strip()]
    text = response[:MAX_SCAN_CHARS]
    numbered = _numbered_steps(text)
    if numbered:
        return numbered
    paragraphs = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    return [_trim(p) for p in paragraphs[:MAX_STEPS]]


def _numbered_steps(text: str) -> list[str]:
    """Split at line-initial step numbers that count up from 1; [] when the text is not numbered so."""
    starts: list[int] = []
    expected = 1
    for match in _STEP_OPENER.finditer(text):
        number = int(next(g for g in match.groups() if g is not None))
        if number == expected:
            starts.append(match.start())
            expected += 1
            if len(starts) > MAX_STEPS:
                break
    if len(starts) < 2:
        return []
    bounds = [*starts[:MAX_STEPS], len(text)] if len(starts) <= MAX_STEPS else [*starts[:MAX_STEPS], starts[MAX_STEPS]]
    steps = []
    for begin, end in itertools.pairwise(bounds):
        chunk = _LEADING_NUMBER.sub("", text[begin:end].strip().lstrip(">*#- ").removeprefix("**"), count=1)
        steps.append(_trim(chunk))
    return steps


def _trim(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_STEP_CHARS else text[:MAX_STEP_CHARS] + " […]"


_SYSTEM = "You grade geometry solutions step by step, strictly and fairly. You reply with JSON only."

_STEP_PROMPT = """Grade a student's solution to a geometry problem, using the reference solution.

## Problem
{problem}{options}{figure_note}

## Reference
Answer: {answer}
Solution:
{solution}

## Student's solution ({count})
{steps}

Student's final answer: {final}

## How to grade
- Mark every student step 1 (correct) or 0 (wrong), judging each step on its own: a \
step is correct when what it states is true and follows validly from the facts it \
uses. If a step correctly works on a result that an earlier step got wrong, it is \
still correct; only the step that made the mistake is marked 0.
- A step is wrong when it misreads the figure or the givens, uses a false or \
misapplied theorem or formula, miscalculates, or asserts something that does not \
follow.
- The student may take a different route from the reference. A valid different route \
is correct; use the reference to check facts and values, not to demand its steps.
- final_answer_correct is 1 when the student's final answer agrees with the reference \
answer (equivalent forms, e.g. 2√3 and √12, count as agreeing; for a proof, when the \
student establishes the required conclusion), otherwise 0.

Reply with exactly one JSON object and nothing else, with one entry per student step, \
in order:
{{"steps": [{{"step": 1, "correct": 1, "reason": "<a short reason>"}}], "final_answer_correct": 1}}"""

_FIGURE_NOTE = "\n\nThe problem's figure is attached."

_ERROR_PROMPT = """A student's solution to a geometry problem has been graded step by step, and some \
steps were marked wrong. For every wrong step, find the root cause of the mistake, not its \
surface symptom, and classify it.

## Problem
{problem}{options}{figure_note}

## Reference
Answer: {answer}
Solution:
{solution}

## Student's solution
{steps}

## Grades (1 correct, 0 wrong)
{grades}

## Categories
- figure_comprehension: the figure's points, lines, circles or relations are misread \
(e.g. which angles are equal, which points are collinear).
- knowledge: the figure is understood, but the theorem, formula or property used is \
false or misremembered, or the wrong one is chosen for the situation.
- calculation: the figure is understood and the right knowledge is chosen and applied, \
but substituting values or computing goes wrong, including a wrong unit conversion.
- logical_reasoning: the step's conclusion does not follow from its reasons: a claim \
made by intuition without grounds, an outside or false assumption brought in, or \
incoherent, confused text.

Two cases are easily confused. A formula misused because the figure was misread (e.g. a \
right-triangle theorem applied to three collinear points) is figure_comprehension: the \
figure is the root cause. Taking something as given because the drawing looks so (e.g. \
an angle taken as right because it looks right) is logical_reasoning: a fact the problem \
does not state was assumed. Not every knowledge or reasoning mistake is figure_comprehension.

Reply with exactly one JSON object and nothing else, with one entry for each wrong step \
({wrong}), in order:
{{"errors": [{{"step": <the step number>, "error_type": "<one of: figure_comprehension, \
knowledge, calculation, logical_reasoning>", "reason": "<the root cause, briefly>"}}]}}"""

# The official judge's two rubrics, in geomeval's Chinese (the official prompts are Chinese).
_JUDGE_HEAD = """你是一位数学老师。下面会给你一道题目{figure_note}、参考答案和一位学生的解答。请参照参考答案的步骤评估学生的解答，任务分两部分：
1. 逐步评估：仔细检查学生的解答，判断学生的每一步是否正确，只按这一步本身是否正确打分：如果这一步用到了前面步骤得出的错误结论，但这一步本身的计算、推理和几何知识的运用没有错，仍算正确。正确打1分，错误打0分。
"""
_JUDGE_FORMAT = """请按下面的JSON格式回复，包含两个键："Step_by_step_evaluation"和"Final_judgment"。"Step_by_step_evaluation"是表示每一步是否正确的列表，例如[1,0,…]；"Final_judgment"填1或0。格式为：
{{
    "Step_by_step_evaluation": [x,x,x,x],
    "Final_judgment": 1
}}
"""
_CALC_JUDGE = _JUDGE_HEAD + """2. 答案正确性判断：判断学生最终得到的答案是不是题目给出的正确答案。
""" + _JUDGE_FORMAT + """特殊情况：如果学生没有给出解答，而是一条报错（例如"error_code500"），或者尝试了若干步之后没能得出最终答案，学生解答的JSON里没有"short_answer"键，就直接判错，不必分析错误类型；但仍按JSON格式回复："Final_judgment"为0，其他键的值都写字符串"null"。
下面是题目和学生的解答，请评估：
题目：{problem}{options}
正确的数值答案：{answer}
参考解答过程：
{solution}
学生解答：
{student}"""
_PROOF_JUDGE = _JUDGE_HEAD + """2. 结论正确性判断：只看学生最后推出的结论是不是题目要求证明的结论。
""" + _JUDGE_FORMAT + """特殊情况：如果学生没有给出解答，而是一条报错（例如"error_code500"），就直接判错，不必分析错误类型；但仍按JSON格式回复："Final_judgment"为0，其他键的值都写字符串"null"。
下面是题目和学生的解答，请评估：
题目：{problem}{options}
参考解答过程：
{solution}
学生解答：
{student}"""
_JUDGE_FIGURE_ZH = "及其对应的图"

# The official error-type question (evaluate_error_type.py with analyze_error.txt), in geomeval's Chinese.
_ERROR_TYPE_JUDGE = """你是一位数学老师，要找出学生出错的原因并准确归类错误类型。下面会给你一道题目{figure_note}、参考答案和一个大模型给出的错误解答，并且会明确告诉你它哪几步做错了。请参照参考答案，把这个大模型当作你的学生，为了帮助他学好几何，认真分析他的解答出错的原因，并准确归类错误类型。任务分两部分：
1. 错误原因分析：对每一个打了0分的步骤，判断它为什么错，详细说明错误原因，要找出根本原因。
2. 错误类型判断：根据分析出的原因，把每个错误归入下面四种错误类型之一：图形理解错误、知识点错误、计算错误、逻辑推理错误；在回复的对应位置依次写出每一个步骤的错误类型，没有错的步骤写N/A。四种错误类型的含义如下：
【图形理解错误】：没有正确读出图形中点、线、圆等几何基元的信息，例如把角的关系、三点共线的关系认错了。
【知识点错误】：点线关系理解正确，但用错了知识：所用的公式、定理或性质本身是错的，或者选错了公式、定理或性质。
【计算错误】：点线关系理解正确，知识点也选对、用对了，但代入数值计算时算错了，或者单位换算错了。
【逻辑推理错误】：推理过程有逻辑错误，例如这一步的"因为"推不出"所以"，因果关系不成立；凭直觉下结论而没有依据；引入了题目以外的无关信息或错误的假设来得出结论；或者前言不搭后语、逻辑混乱、答非所问。
请找根本原因，不要停在表面原因。下面两种情况容易混淆，请注意：
一、有的步骤表面上是公式用错了，根本原因却是把图形认错了，用错了图中的基元，点、线、圆的位置关系混乱。例如对共线的三个点套用直角三角形的定理，根本原因是图形理解错误。
二、但不能把知识点错误和推理错误都归为图形理解错误。例如某一步因为图上的角看起来像直角，就认定它是直角，这属于逻辑推理错误，因为这是凭对图形的印象臆断了题目没有给出的条件。
请按下面的JSON格式回复，包含两个键："Error_analysis"和"Error_type"。"Error_analysis"写出每个错误步骤的出错原因，并说明为什么把它归入这种错误类型；"Error_type"是一个列表，长度等于步骤总数，依次写出每一步的错误类型，没有错的步骤写N/A。格式为：
{{
    "Error_analysis": "",
    "Error_type": [x,x,x,x]
}}
特殊情况：如果学生没有给出解答，而是一条报错（例如"error_code500"），或者尝试了若干步之后没能得出最终答案，学生解答的JSON里没有"short_answer"键，就不必分析错误，直接回复{{"Error_analysis": "null", "Error_type": "null"}}。
下面是要分析的题目和学生的解答：
题目：{problem}{options}{answer}
参考解答过程：
{solution}
学生解答：
{student}
每一步的正确性：{marks}
请分析错误步骤的错误原因和错误类型。"""
_ERROR_TYPE_ANSWER = "\n正确的数值答案：{answer}"
# The four categories as the official question names them, and geomeval's names for them.
ERROR_TYPE_NAMES_ZH = {"图形理解错误": "figure_comprehension", "知识点错误": "knowledge", "计算错误": "calculation",
                       "逻辑推理错误": "logical_reasoning"}

JUDGE_TEMPLATES = (
    Template(
        "calc_judge", _CALC_JUDGE, ("figure_note", "problem", "options", "answer", "solution", "student"),
        required=("problem", "student"),
        implements="the official calculation judge (score_cal_prompt): a math teacher grading against the reference "
                   "solution's steps; every step 1 or 0 on its own (a step built on an earlier wrong result but "
                   "itself right is 1); whether the final answer is the given correct one; the reply "
                   "{\"Step_by_step_evaluation\": [...], \"Final_judgment\": 0/1}; no solution, an error, no final "
                   "answer or no \"short_answer\": wrong, the other keys \"null\"; then the problem with its options, "
                   "the correct numeric answer, the reference solution and the student's answer as written",
    ),
    Template(
        "proof_judge", _PROOF_JUDGE, ("figure_note", "problem", "options", "solution", "student"),
        required=("problem", "student"),
        implements="the official proving judge (score_pro_prompt): the same, judging whether the conclusion the "
                   "student finally reaches is the one to be proved; only no solution (an error) is wrong outright",
    ),
    Template(
        "error_type_judge", _ERROR_TYPE_JUDGE,
        ("figure_note", "problem", "options", "answer", "solution", "student", "marks"),
        required=("student", "marks"),
        implements="the official error-type question (analyze_error): a math teacher finding why a model's "
                   "wrong solution went wrong, told which steps were marked 0, comparing with the reference; the "
                   "root cause of every step marked 0, in detail; each classified as figure comprehension, "
                   "knowledge, calculation or logical reasoning (defined as the official rubric defines them), "
                   "N/A for a step without error; the root cause, not the surface one, with the two confusable "
                   "cases (a misused formula rooted in a misread figure; a fact assumed because the drawing "
                   "looks so); the reply {\"Error_analysis\": ..., \"Error_type\": [one per step]}; no solution, "
                   "an error or no \"short_answer\": both \"null\"; then the problem with its options, for a "
                   "calculation the correct numeric answer, the reference solution, the student's answer as "
                   "written and the list of step marks. Not offered: the official clause letting the judge name "
                   "a category of its own (the card's \"error categories\" row)",
    ),
    Template("error_type_answer", _ERROR_TYPE_ANSWER, ("answer",), required=("answer",),
             implements="the correct numeric answer, added for a calculation to the error-type question (the "
                        "official script means to; its type check never matches, a bug geomeval fixes)"),
    Template("judge_figure", _JUDGE_FIGURE_ZH, (),
             implements="the problem's figure, named in the official judge's role sentence (left out when the "
                        "judge is text-only)"),
    Template("judge_system", _SYSTEM, (),
             implements="geomeval's own system line for its English judge questions (`error_judge`, and "
                        "`step_judge` under -T steps=geomeval): a strict grader replying in JSON; the official "
                        "judge has no system line"),
    Template(
        "step_judge", _STEP_PROMPT,
        ("problem", "options", "figure_note", "answer", "solution", "count", "steps", "final"),
        required=("problem", "steps"),
        implements="-T steps=geomeval only (not the paper's): geomeval's English rubric marking the steps "
                   "geomeval numbered, every step 1 or 0 on its own (a correct step built on an earlier wrong "
                   "result stays 1; a valid other route is correct), and a 1/0 mark for the final answer",
    ),
    Template(
        "error_judge", _ERROR_PROMPT,
        ("problem", "options", "figure_note", "answer", "solution", "steps", "grades", "wrong"),
        required=("steps", "grades"),
        implements="-T steps=geomeval only (not the official wording): geomeval's English error question "
                   "for the steps geomeval numbered: the root cause of every wrong step classified as figure "
                   "comprehension, knowledge, calculation or logical reasoning (figure misreading told apart "
                   "from an assumption the problem does not state), one JSON entry per wrong step",
    ),
    Template("judge_figure_note", _FIGURE_NOTE, (),
             implements="the problem's figure, shown to geomeval's English judge questions (`step_judge`, "
                        "`error_judge`) as the paper's scorer sees it"),
)
_DEFAULTS = default_set("geolaux", JUDGE_TEMPLATES)


def _numbered(steps: list[str]) -> str:
    return "\n".join(f"Step {i}: {step}" for i, step in enumerate(steps, 1)) or "(no steps given)"


def _options(target: dict[str, Any]) -> str:
    options = parse_choices(target.get("choices") or [])
    return "\n\nOptions:\n" + "\n".join(f"{k}. {v}" for k, v in options.items()) if options else ""


def _answer(target: dict[str, Any]) -> str:
    answer, unit = target.get("answer"), target.get("unit")
    if answer is None:
        return "a proof (see the reference solution for the conclusion)"
    return answer + (f" ({unit})" if unit else "")


def _with_figure(prompt: str, figure: Figure, prompts: PromptSet) -> list[dict[str, Any]]:
    """The judge's conversation: the prompt, and the figure after it when there is one (a
    text-only request stays a plain string, which every server takes)."""
    content: str | list[dict[str, Any]] = prompt
    if figure is not None:
        content = [{"type": "text", "text": prompt}, figure]
    return [{"role": "system", "content": prompts.render("judge_system")}, {"role": "user", "content": content}]


def step_judge_messages(
    target: dict[str, Any], problem: str, steps: list[str], final: str | None, figure: Figure = None,
    prompts: PromptSet = _DEFAULTS,
) -> list[dict[str, Any]]:
    """The question that marks every step and the final answer; `prompts` is the run's set."""
    prompt = prompts.render(
        "step_judge",
        problem=problem.strip(),
        options=_options(target),
        figure_note=prompts.render("judge_figure_note") if figure is not None else "",
        answer=_answer(target),
        solution=(target.get("solution") or "").strip() or "(none given)",
        count=f"{len(steps)} numbered step{'s' if len(steps) != 1 else ''}" if steps else "no steps",
        steps=_numbered(steps),
        final=final if final else "(none stated)",
    )
    return _with_figure(prompt, figure, prompts)


def official_judge_messages(
    target: dict[str, Any], problem: str, student: str, kind: str, figure: Figure = None, language: str = "zh",
    prompts: PromptSet = _DEFAULTS,
) -> list[dict[str, Any]]:
    """The official judge's question: one user message, the figure before the text as the
    official script sends it; `student` is the answer as the model wrote it."""
    from .prompts import options_text

    values: dict[str, Any] = {
        "figure_note": prompts.render("judge_figure") if figure is not None else "",
        "problem": problem.strip(),
        "options": options_text(list(target.get("choices") or ()), language, prompts),
        "solution": (target.get("solution") or "").strip(),
        "student": student.strip(),
    }
    if kind == "proving":
        prompt = prompts.render("proof_judge", **values)
    else:
        prompt = prompts.render("calc_judge", **values, answer=target.get("answer") or "")  # no unit, as official
    content: str | list[dict[str, Any]] = prompt
    if figure is not None:
        content = [figure, {"type": "text", "text": prompt}]
    return [{"role": "user", "content": content}]


MAX_JUDGED_STEPS = 200  # a longer list of marks is a runaway reply, not a solution's steps


def parse_official_judgment(text: str) -> dict[str, Any]:
    """The official judge's reply: {"Step_by_step_evaluation": [0/1, ...] or "null",
    "Final_judgment": 0/1}, read as the official three_metrics.py reads it ("null": no steps)."""
    data = reply_object(text)
    if "Final_judgment" not in data:
        raise ValueError('field "Final_judgment" is missing')
    final = _binary(data["Final_judgment"], '"Final_judgment"')
    if "Step_by_step_evaluation" not in data:
        raise ValueError('field "Step_by_step_evaluation" is missing')
    raw_steps = data["Step_by_step_evaluation"]
    if raw_steps is None or (isinstance(raw_steps, str) and raw_steps.strip().lower() in ("null", "none", "")):
        raw_steps = []
    if not isinstance(raw_steps, list):
        raise ValueError('"Step_by_step_evaluation" must be a list of 0/1 marks, or "null"')
    if len(raw_steps) > MAX_JUDGED_STEPS:
        raise ValueError(f'"Step_by_step_evaluation" has {len(raw_steps)} marks; at most {MAX_JUDGED_STEPS} are read')
    marks = [_binary(mark, f"step {index}") for index, mark in enumerate(raw_steps, 1)]
    return {"marks": marks, "final_answer_correct": final}


def wrong_steps(marks: list[int]) -> list[int]:
    """The 1-based numbers of the steps judged wrong (at most MAX_STEPS, as segmentation)."""
    return [index for index, mark in enumerate(marks[:MAX_STEPS], 1) if not mark]


def error_type_messages(
    target: dict[str, Any], problem: str, steps: list[str] | str, marks: list[int], figure: Figure = None,
    prompts: PromptSet = _DEFAULTS,
) -> list[dict[str, Any]]:
    """The question that classifies every wrong step of a graded solution at once: `steps`
    are geomeval's numbered steps, or (the default) the answer as written, whose steps the
    judge numbered when it graded them."""
    wrong = wrong_steps(marks)
    prompt = prompts.render(
        "error_judge",
        problem=problem.strip(),
        options=_options(target),
        figure_note=prompts.render("judge_figure_note") if figure is not None else "",
        answer=_answer(target),
        solution=(target.get("solution") or "").strip() or "(none given)",
        steps=steps.strip() if isinstance(steps, str) else _numbered(steps),
        grades="\n".join(f"Step {i}: {m}" for i, m in enumerate(marks, 1)) or "(no steps)",
        wrong=f"step{'s' if len(wrong) != 1 else ''} {', '.join(map(str, wrong))}",
    )
    return _with_figure(prompt, figure, prompts)


def official_error_messages(
    target: dict[str, Any], problem: str, student: str, marks: list[int], kind: str, figure: Figure = None,
    language: str = "zh", prompts: PromptSet = _DEFAULTS,
) -> list[dict[str, Any]]:
    """The official error-type question (asked only when a mark is 0): one user message, the
    figure before the text; the problem with its options, for a calculation the correct
    numeric answer, the reference solution, the answer as written and the list of marks."""
    from .prompts import options_text

    answer = target.get("answer")
    prompt = prompts.render(
        "error_type_judge",
        figure_note=prompts.render("judge_figure") if figure is not None else "",
        problem=problem.strip(),
        options=options_text(list(target.get("choices") or ()), language, prompts),
        answer=prompts.render("error_type_answer", answer=answer) if kind != "proving" and answer else "",
        solution=(target.get("solution") or "").strip(),
        student=student.strip(),
        marks="[" + ", ".join(str(m) for m in marks) + "]",  # as the official script prints the list
    )
    content: str | list[dict[str, Any]] = prompt
    if figure is not None:
        content = [figure, {"type": "text", "text": prompt}]
    return [{"role": "user", "content": content}]


def _official_class(value: Any) -> str | None:
    """A category as the official reply names it (its Chinese name, 【】 or quotes optional, or
    geomeval's English name); None for N/A; a ValueError for anything else, a category of the
    judge's own ("！…") included."""
    name = str(value if value is not None else "").strip().strip("【】[]\"'“”‘’ ").strip()
    if name.lower() in _NOT_AN_ERROR or name in ("无", "正确"):
        return None
    if name in ERROR_TYPE_NAMES_ZH:
        return ERROR_TYPE_NAMES_ZH[name]
    try:
        return _error_class(name)
    except ValueError:
        raise ValueError(f'"Error_type" entries must be one of {", ".join(ERROR_TYPE_NAMES_ZH)} or N/A, '
                         f"got {name[:40]!r}") from None


NO_SOLUTION_TO_ANALYSE = 'the error-type judge found no solution to analyse ("Error_type": "null")'


def parse_official_error_types(text: str, marks: list[int]) -> dict[str, Any]:
    """The official error-type reply: {"Error_analysis": "...", "Error_type": [one per step]},
    N/A for a step marked 1. Returns {"types", "reasons"} aligned with the steps marked 0
    (the analysis, one text, as every step's reason), or types None when the judge replied
    "null" (no solution to analyse). A list as long as the wrong steps, N/A left out, is
    read in their order; any other length is an error naming both counts."""
    data = reply_object(text)
    if "Error_type" not in data:
        raise ValueError('field "Error_type" is missing')
    raw = data["Error_type"]
    analysis = str(data.get("Error_analysis") or "")[:2000]
    wrong = wrong_steps(marks)
    if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("null", "none", "")):
        return {"types": None, "reasons": None, "analysis": analysis}
    if isinstance(raw, str) and len(wrong) == 1:
        raw = [raw]
    if not isinstance(raw, list):
        raise ValueError('"Error_type" must be a list with a type or N/A for every step')
    if len(raw) > MAX_JUDGED_STEPS:
        raise ValueError(f'"Error_type" has {len(raw)} entries; at most {MAX_JUDGED_STEPS} are read')
    classes = [_official_class(entry) for entry in raw]
    if len(classes) == len(marks):
        types = [classes[step - 1] for step in wrong]
        missing = [step for step, kind in zip(wrong, types, strict=True) if kind is None]
        if missing:
            raise ValueError(f"step{'s' if len(missing) > 1 else ''} {missing} marked 0 but typed N/A")
    else:
        named: list[str | None] = [kind for kind in classes if kind is not None]
        if len(named) != len(wrong):
            raise ValueError(f'"Error_type" has {len(raw)} entries for {len(marks)} steps '
                             f"({len(wrong)} marked 0)")
        types = named
    return {"types": types, "reasons": [analysis] * len(wrong), "analysis": analysis}


def _binary(value: Any, where: str) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    if isinstance(value, str) and value.strip().lower() in ("0", "1", "true", "false"):
        return 1 if value.strip().lower() in ("1", "true") else 0
    raise ValueError(f"{where} must be 0 or 1, got {str(value)[:40]!r}")


def parse_step_judgment(text: str, n_steps: int) -> dict[str, Any]:
    """The judge's marks, checked: one 0/1 per student step in order, plus the final answer."""
    data = reply_object(text)
    if "final_answer_correct" not in data:
        raise ValueError('field "final_answer_correct" is missing')
    final = _binary(data["final_answer_correct"], '"final_answer_correct"')
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list):
        raise ValueError('field "steps" must be a list')
    if len(raw_steps) != n_steps:
        raise ValueError(f'"steps" has {len(raw_steps)} entries but the student gave {n_steps} steps')
    marks, reasons = [], []
    for index, entry in enumerate(raw_steps, 1):
        if isinstance(entry, dict):
            if "step" in entry and str(entry["step"]).strip() != str(index):
                raise ValueError(f'entry {index} of "steps" is numbered {str(entry["step"])[:10]!r}')
            if "correct" not in entry:
                raise ValueError(f'entry {index} of "steps" has no "correct"')
            marks.append(_binary(entry["correct"], f'step {index} "correct"'))
            reasons.append(str(entry.get("reason", ""))[:500])
        else:
            marks.append(_binary(entry, f"step {index}"))
            reasons.append("")
    return {"marks": marks, "reasons": reasons, "final_answer_correct": final}


def _error_class(value: Any) -> str:
    name = str(value if value is not None else "").strip().lower().replace(" ", "_").replace("-", "_")
    if name not in ERROR_TYPES:
        raise ValueError(f'"error_type" must be one of {", ".join(ERROR_TYPES)}, got {name[:40]!r}')
    return name


def parse_error_type(text: str) -> dict[str, str]:
    """One classified step: {"error_type", "reason"}."""
    data = reply_object(text)
    return {"error_type": _error_class(data.get("error_type")), "reason": str(data.get("reason", ""))[:500]}


_NOT_AN_ERROR = ("", "n/a", "na", "none", "null", "correct")


def parse_error_types(text: str, wrong: list[int]) -> dict[str, Any]:
    """The class of every wrong step, checked: exactly the steps in `wrong`, each once.

    Entries for steps graded right are allowed only as "N/A" (the official reply lists every
    step) and are dropped. Returns {"types": [...], "reasons": [...]} aligned with `wrong`."""
    data = reply_object(text)
    entries = data.get("errors")
    if not isinstance(entries, list):
        raise ValueError('field "errors" must be a list')
    if len(entries) > 2 * MAX_STEPS:
        raise ValueError(f'"errors" has {len(entries)} entries; the solution has at most {MAX_STEPS} steps')
    found: dict[int, tuple[str, str]] = {}
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or "step" not in entry:
            raise ValueError(f'entry {number} of "errors" must be an object with "step" and "error_type"')
        try:
            step = int(str(entry["step"]).strip())
        except ValueError:
            raise ValueError(f'entry {number} of "errors" has step {str(entry["step"])[:10]!r}') from None
        if step not in wrong:
            if str(entry.get("error_type") or "").strip().lower() in _NOT_AN_ERROR:
                continue
            raise ValueError(f"step {step} was not graded wrong; classify only steps {wrong}")
        if step in found:
            raise ValueError(f"step {step} is classified twice")
        found[step] = (_error_class(entry.get("error_type")), str(entry.get("reason", ""))[:500])
    missing = [step for step in wrong if step not in found]
    if missing:
        raise ValueError(f"no error_type for wrong step{'s' if len(missing) > 1 else ''} {missing}")
    return {"types": [found[s][0] for s in wrong], "reasons": [found[s][1] for s in wrong]}
