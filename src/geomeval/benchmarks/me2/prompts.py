"""ME2's prompts, in geomeval's own words: the three tasks and the two judges.

By default (`-T prompt_style=paper`, `-T judge_prompt=paper`) every prompt implements the
clauses of the authors' prompts as their lmms-eval task poses them (utils.py of
github.com/jungyangpark/ME2, the paper's Figures B–E), and nothing else that would change
what the model is asked to output:

- problem solving: a math solver gives only the final answer, on one line, no explanation,
  as "The final Answer is: …";
- keypoint identification: the problem, its answer, the solution summary and the five
  candidate sets as the release writes them; pick the one set that best shows how a teacher
  would guide a student visually, thinking about how it supports the reasoning; a brief
  explanation is allowed, but the reply ends "The final answer is: <letter>" (or, in the
  paper's Appendix C ablation, the same without the summary);
- explanation: the problem, its answer, and what the solution figure adds or highlights;
  a math teacher writes an explanation that helps students, in the context of the
  problem's chapter and section, referring both to the problem figure and to the solution
  figure's additions, returned as a JSON object with `solution_text`;
- the explanation judge sees the teacher's explanation, the model's and the answer, rates
  Correctness, Reference alignment (the paper's Fidelity) and Use of key visual elements
  (Referencing) on 1–5 after thinking aloud, and reports `{"rating": [x, y, z]}`;
- the short-answer judge sees the gold answer and the model's prediction and reports
  `{{Correctness: 1 or 0}}` (equal value, whatever the unit or format) after thinking aloud.

geomeval's earlier prompts are switches: `-T prompt_style=geomeval` (the solving prompt
says what an answer is: the option letter, or the value with its unit; the explanation is
asked for as prose, step by step) and `-T judge_prompt=geomeval` (the judges also see the
problem, and the explanation judge the keypoint list; they reply with named ratings and a
reason in one JSON object, after a grader's system message).

Every prompt is a named template (`templates_for`), rendered through the run's prompt set,
so a `--prompts` file can replace any of them (the authors' exact wording, say).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

from ...engines.images import image_part
from ...engines.judges import likert, reply_object
from ...engines.prompts import PromptSet, Template, default_set
from .features import OPTION_LETTERS

MAX_PROMPT_TEXT = 12_000  # what a judge is shown of a long explanation (its start)
MAX_REASON_CHARS = 500
LIKERT_CRITERIA = ("correctness", "fidelity", "referencing")
PromptStyle = Literal["paper", "geomeval"]
PROMPT_STYLES: tuple[str, ...] = get_args(PromptStyle)
JudgeStyle = Literal["paper", "geomeval"]
JUDGE_STYLES: tuple[str, ...] = get_args(JudgeStyle)

# --------------------------------------------------------------------------- paper (default)

_SOLVE = """You are solving a math problem. Your reply must be the final answer only, on a \
single line: no explanation, no working, no comment.

Problem: {problem}

Format your reply exactly as: The final Answer is: <answer>"""

_KEYPOINTS = """From the options A, B, C, D and E, pick the set of visual elements that best \
shows how a teacher would guide a student visually to understand and solve the problem.

Problem:
{problem}

Answer: {answer}

How the problem is solved:
{summary}

{options}

Following this solution, choose exactly one option (A, B, C, D or E): the one whose visual \
elements would help a student most to understand the problem and how it is solved.

Consider carefully how the elements you choose support the reasoning. You may explain your \
thinking briefly, but your reply must end in this format:
The final answer is: <A, B, C, D or E>
Your reply must end with that line."""

# The paper's Appendix C ablation: the same task without the solution summary.
_KEYPOINTS_WITHOUT_SUMMARY = """From the options A, B, C, D and E, pick the set of visual \
elements that best shows how a teacher would guide a student visually to understand and \
solve the problem.

Problem:
{problem}

Answer: {answer}

{options}

Choose exactly one option (A, B, C, D or E): the one whose visual elements would help a \
student most to understand the problem and how it is solved.

Consider carefully how the elements you choose support the reasoning. You may explain your \
thinking briefly, but your reply must end in this format:
The final answer is: <A, B, C, D or E>
Your reply must end with that line."""

_EXPLAIN = """{problem}

Answer: {answer}

What the solution figure adds to or highlights in the problem figure:
{keypoints}

You are a mathematics teacher who helps students see clearly how to solve problems. From \
the problem text, the problem figure and the list above of the elements the solution \
figure introduces or highlights, write an explanation that teaches students.{context}
Refer both to the parts of the problem figure and to the annotations, highlights and added \
elements of the solution figure, so that students understand better.

Output, as in this example:
{{"solution_text": ""}}"""

_TOPIC = """
The problem belongs to the chapter and section {topic}: explain it in that context."""

_EXPLAIN_JUDGE = """You are rating an explanation an AI model wrote for a math problem that \
involves geometric or graph-based reasoning.

You get two texts: a reference explanation written by a human teacher, and the explanation \
the model wrote. Compare them, and judge how accurately and how well the model's \
explanation captures the key geometric concepts and the reasoning of the reference.

Give three ratings, each on a Likert scale of 1, 2, 3, 4 or 5:
1. Correctness: does the model's reasoning make sense and help solve the problem properly?
2. Reference alignment: does the model follow the same logical reasoning and intent as the \
reference, even where its wording differs?
3. Use of key visual elements: does the model's explanation refer to the same critical \
visual components as the reference (points, lines, angles, shapes, for instance)? Other \
terms are acceptable when they clearly refer to the same element or serve the same purpose.

Report the ratings in exactly this format:
{{"rating": [x, y, z]}}
where x is the correctness rating, y the reference-alignment rating and z the rating for \
the use of visual elements.

Reference explanation (the teacher's):
{reference}

Model's explanation:
{candidate}

Answer: {answer}

Think aloud before you give the ratings."""

_ANSWER_JUDGE = """Decide whether a model's response to a math problem is correct, from the \
ground-truth answer and the model's prediction.

Rate 1 when the numeric value in the model's response equals the ground truth, even if the \
units or the format differ ("13" for "13 meters"); rate 0 otherwise.

Report the rating in exactly this format:
{{{{Correctness: x}}}}
where x is 1 or 0.

Examples:
ground truth 42 meters, prediction 42: Correctness 1
ground truth 4 meter, prediction 4000 mm: Correctness 1
ground truth 20, prediction 25: Correctness 0

Ground-truth answer: {gold}
Model prediction: {response}

Think aloud before you give the rating."""

# --------------------------------------------------------------------------- geomeval (switches)

_SOLVE_GEOMEVAL = """Solve the math problem below. Its figure is attached.

Problem:
{problem}

Give the final answer only, on one line, in this form:
The final answer is: <answer>
For a multiple-choice problem, <answer> is the letter of the correct option; otherwise it is \
the value, with its unit if it has one."""

_KEYPOINTS_GEOMEVAL = """A teacher explaining a problem draws on its figure: an auxiliary \
segment, a marked angle, a highlighted point or region. Below are a problem (its figure is attached), \
its answer, a summary of how it is solved, and five candidate sets of such visual elements, \
labelled A to E. Exactly one set is what a teacher would add to this figure to guide a \
student through this solution.

Problem:
{problem}

Answer: {answer}

How it is solved:
{summary}

Candidate sets of visual elements:
{options}

Choose the set that best supports this solution. You may reason briefly, but end with one \
line in this form:
The final answer is: <letter>"""

_KEYPOINTS_WITHOUT_SUMMARY_GEOMEVAL = """A teacher explaining a problem draws on its figure: an auxiliary \
segment, a marked angle, a highlighted point or region. Below are a problem (its figure is \
attached), its answer, and five candidate sets of such visual elements, labelled A to E. \
Exactly one set is what the teacher added to this figure to guide a student to the answer.

Problem:
{problem}

Answer: {answer}

Candidate sets of visual elements:
{options}

Choose the set that best supports a solution reaching this answer. You may reason briefly, \
but end with one line in this form:
The final answer is: <letter>"""

_EXPLAIN_GEOMEVAL = """You are a mathematics teacher. Write the explanation of the problem below for a \
student, the way you would explain it at the board. The problem's figure is attached; the \
answer is given. To explain the solution, the figure is extended with the visual elements \
listed below (new elements drawn, or existing ones highlighted).

Problem:
{problem}

Answer: {answer}

Visual elements the solution adds to the figure:
{keypoints}
{context}
Explain step by step how to reach the answer. Refer to the figure as you go: name the given \
elements and the added ones where they make a step clear. Answer with the explanation only."""

_TOPIC_GEOMEVAL = "\nThe problem belongs to the topic {topic}; explain it in that context.\n"

_JUDGE_SYSTEM = """You grade explanations of math problems written for students. You are \
strict, consistent and brief, and you reply with one JSON object only."""

_EXPLAIN_JUDGE_GEOMEVAL = """Grade a model's explanation of a math problem (geometry or function \
graphs) against a teacher's reference explanation.

Problem:
{problem}

Answer: {answer}

Visual elements the teacher's solution figure adds or highlights:
{keypoints}

Teacher's reference explanation:
{reference}

Model's explanation:
{candidate}

Rate the model's explanation on three criteria, each a whole number from 1 (very poor) to \
5 (excellent):
- "correctness": the reasoning is mathematically sound and leads to the correct answer.
- "fidelity": it follows the same line of reasoning and intent as the reference \
explanation; different wording or order is fine.
- "referencing": it refers to the same key visual elements as the reference (the points, \
segments, angles, regions or graph features listed above); another name for the same \
element counts.

Reply with this JSON object only:
{{"correctness": <1-5>, "fidelity": <1-5>, "referencing": <1-5>, "reason": "<one or two sentences>"}}"""

_ANSWER_JUDGE_GEOMEVAL = """Decide whether a student's response to a math problem states a final \
answer equal to the reference answer. The same value in another unit or form counts as \
equal (42 and 42 meters; 4 m and 4000 mm; 0.5 and 1/2); a different value does not, and \
neither does a response with no final answer.

Problem:
{problem}

Reference answer: {gold}

Student's response:
{response}

Reply with this JSON object only:
{{"final_answer": "<the student's final answer, or null>", "equivalent": true or false}}"""

_OFFICIAL = "the official lmms-eval task (utils.py)"
_SOLVE_FILLS = dict(fills=("problem",), required=("problem",))
_KEYPOINT_FILLS = dict(fills=("problem", "answer", "summary", "options"), required=("problem", "summary", "options"))
_ABLATION_FILLS = dict(fills=("problem", "answer", "options"), required=("problem", "options"))
_EXPLAIN_FILLS = dict(fills=("problem", "answer", "keypoints", "context"), required=("problem", "keypoints"))
_TOPIC_FILLS = dict(fills=("topic",), required=("topic",))
_EXPLAIN_JUDGE_FILLS = dict(fills=("problem", "answer", "keypoints", "reference", "candidate"),
                            required=("reference", "candidate"))
_ANSWER_JUDGE_FILLS = dict(fills=("problem", "gold", "response"), required=("gold", "response"))

TASK_TEMPLATES = (
    Template("solve", _SOLVE, **_SOLVE_FILLS,  # type: ignore[arg-type]
             implements=f"Fig. B (solution recognition), as {_OFFICIAL} poses it: a math solver; the final answer "
                        "only, on one line, no explanation; the problem; 'The final Answer is: …'"),
    Template("keypoints", _KEYPOINTS, **_KEYPOINT_FILLS,  # type: ignore[arg-type]
             implements="Fig. C (visual keypoint identification): the set of visual elements among A–E that best "
                        "shows how a teacher would guide a student; the problem, its answer, the solution summary, "
                        "the options as the release writes them; one option, thinking about how it supports the "
                        "reasoning; brief reasoning allowed; the reply ends 'The final answer is: <letter>'"),
    Template("keypoints_without_summary", _KEYPOINTS_WITHOUT_SUMMARY, **_ABLATION_FILLS,  # type: ignore[arg-type]
             implements="Appendix C: the same task with the solution summary withheld (`-T mode=without_summary`)"),
    Template("explain", _EXPLAIN, **_EXPLAIN_FILLS,  # type: ignore[arg-type]
             implements="Fig. D (keypoint-based explanation): the problem, its answer, the elements the solution "
                        "figure adds or highlights; a math teacher's explanation that helps students, referring to "
                        "the problem figure and the solution figure's additions; a JSON object with `solution_text`"),
    Template("explain_topic", _TOPIC, **_TOPIC_FILLS,  # type: ignore[arg-type]
             implements="Fig. D: the item's chapter and section as the explanation's context (`explain`'s "
                        "`{context}`; left out where the release gives neither)"),
)
JUDGE_TEMPLATES = (
    Template("explain_judge", _EXPLAIN_JUDGE, **_EXPLAIN_JUDGE_FILLS,  # type: ignore[arg-type]
             implements="Fig. E, as the official judge is asked: the teacher's and the model's explanations and the "
                        "answer; Correctness, Reference alignment (the paper's Fidelity) and Use of key visual "
                        "elements (Referencing), each 1–5; think aloud, then a rating list [x, y, z]"),
    Template("answer_judge", _ANSWER_JUDGE, **_ANSWER_JUDGE_FILLS,  # type: ignore[arg-type]
             implements="solution recognition's short-answer judge, as the official one is asked: the gold answer "
                        "and the prediction; 1 when the values are equal whatever the unit or format, else 0; think "
                        "aloud, then {{Correctness: x}}; asked only where the rules find them unequal"),
)
GEOMEVAL_TASK_TEMPLATES = (
    Template("solve", _SOLVE_GEOMEVAL, **_SOLVE_FILLS,  # type: ignore[arg-type]
             implements="`-T prompt_style=geomeval`: the problem with its figure; the final answer on a fixed line, "
                        "the option letter for a multiple-choice problem, else the value with its unit"),
    Template("keypoints", _KEYPOINTS_GEOMEVAL, **_KEYPOINT_FILLS,  # type: ignore[arg-type]
             implements="`-T prompt_style=geomeval`: Fig. C with the options relabelled A–E, one letter"),
    Template("keypoints_without_summary", _KEYPOINTS_WITHOUT_SUMMARY_GEOMEVAL, **_ABLATION_FILLS,  # type: ignore[arg-type]
             implements="`-T prompt_style=geomeval`: Appendix C (`-T mode=without_summary`)"),
    Template("explain", _EXPLAIN_GEOMEVAL, **_EXPLAIN_FILLS,  # type: ignore[arg-type]
             implements="`-T prompt_style=geomeval`: a step-by-step explanation in prose that refers to the figure "
                        "and the given keypoints"),
    Template("explain_topic", _TOPIC_GEOMEVAL, **_TOPIC_FILLS,  # type: ignore[arg-type]
             implements="`-T prompt_style=geomeval`: the chapter and section as context"),
)
GEOMEVAL_JUDGE_TEMPLATES = (
    Template("judge_system", _JUDGE_SYSTEM, (),
             implements="`-T judge_prompt=geomeval`: a strict, consistent grader replying in JSON"),
    Template("explain_judge", _EXPLAIN_JUDGE_GEOMEVAL, **_EXPLAIN_JUDGE_FILLS,  # type: ignore[arg-type]
             implements="`-T judge_prompt=geomeval`: Fig. E's three criteria with the problem and keypoints shown "
                        "too; named ratings and a reason in JSON"),
    Template("answer_judge", _ANSWER_JUDGE_GEOMEVAL, **_ANSWER_JUDGE_FILLS,  # type: ignore[arg-type]
             implements="`-T judge_prompt=geomeval`: the problem, the gold answer and the whole response; JSON"),
)
TEMPLATES = TASK_TEMPLATES + JUDGE_TEMPLATES


def templates_for(prompt_style: str = "paper", judge_style: str = "paper") -> tuple[Template, ...]:
    """The templates a run renders under its switches: the same names, the switch's texts
    (geomeval's judges add `judge_system`)."""
    tasks = GEOMEVAL_TASK_TEMPLATES if prompt_style == "geomeval" else TASK_TEMPLATES
    judges = GEOMEVAL_JUDGE_TEMPLATES if judge_style == "geomeval" else JUDGE_TEMPLATES
    return tasks + judges


_DEFAULTS = default_set("me2", TEMPLATES)


def keypoint_lines(keypoints: Sequence[Mapping[str, Any]], *, bullets: bool = True) -> str:
    """The keypoints one a line, "element: description" (as the official task lists them
    with `bullets=False`; geomeval's prompts put "- " before each)."""
    mark = "- " if bullets else ""
    lines = []
    for point in keypoints:
        element = str(point.get("element") or "").strip()
        description = str(point.get("description") or "").strip()
        lines.append(f"{mark}{element}: {description}" if element and description else f"{mark}{element or description}")
    return "\n".join(lines) or f"{mark}(none listed)"


def options_block(options: Sequence[str]) -> str:
    """The five options one a line, "A. …" to "E. …" (the release's own option text, split
    into its five options by the build, written back in the form the public release uses)."""
    return "\n".join(f"{letter}. {text}" for letter, text in zip(OPTION_LETTERS, options, strict=False))


def _user(text: str, image: Any) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if image:
        content.append(image_part(image))
    return [{"role": "user", "content": content}]


def solve_text(row: Mapping[str, Any], prompts: PromptSet = _DEFAULTS, style: str = "paper") -> str:
    return prompts.render("solve", problem=row["problem"].strip())


def keypoints_text(row: Mapping[str, Any], prompts: PromptSet = _DEFAULTS, style: str = "paper", *,
                   summary: bool = True) -> str:
    """The keypoint-identification prompt; `summary=False` withholds the solution summary
    (the paper's Appendix C ablation of summary anchoring)."""
    fields = {"problem": row["problem"].strip(), "answer": row["answer"].strip(),
              "options": options_block(row["keypoint_options"])}
    if not summary:
        return prompts.render("keypoints_without_summary", **fields)
    return prompts.render("keypoints", summary=row["solution_summary"].strip(), **fields)


def explain_text(row: Mapping[str, Any], prompts: PromptSet = _DEFAULTS, style: str = "paper") -> str:
    chapter, section = (row.get("chapter") or "").strip(), (row.get("section") or "").strip()
    topic = ("/" if style == "paper" else " / ").join(part for part in (chapter, section) if part)
    return prompts.render(
        "explain",
        problem=row["problem"].strip(),
        answer=row["answer"].strip(),
        keypoints=keypoint_lines(row["visual_keypoints"], bullets=style != "paper"),
        context=prompts.render("explain_topic", topic=topic) if topic else "",
    )


TASK_TEXT = {"me2_solve": solve_text, "me2_keypoints": keypoints_text, "me2_explain": explain_text}


def build_messages(
    row: Mapping[str, Any], task: str, *, summary: bool = True, prompts: PromptSet = _DEFAULTS,
    style: str = "paper",
) -> list[dict[str, Any]]:
    """The chat messages posing `row` for `task`, with the problem figure attached, rendered
    from `prompts` (the run's set) in the run's `prompt_style`; `summary=False` poses
    `me2_keypoints` without the solution summary (Appendix C)."""
    if task == "me2_keypoints" and not summary:
        text = keypoints_text(row, prompts, style, summary=False)
    else:
        text = TASK_TEXT[task](row, prompts, style)
    return _user(text, row.get("problem_image"))


# --------------------------------------------------------------------------- judges


def explanation_judge_messages(
    target: Mapping[str, Any], candidate: str, prompts: PromptSet = _DEFAULTS, style: str = "paper"
) -> list[dict[str, Any]]:
    """The explanation judge's request. The official judge gets one system message holding
    the rubric, the two explanations and the answer (`judge_prompt=paper`); geomeval's a
    grader's system message and the rubric with the problem and keypoints too."""
    text = prompts.render(
        "explain_judge",
        problem=target["problem"].strip()[:MAX_PROMPT_TEXT],
        answer=str(target["answer"]).strip(),
        keypoints=keypoint_lines(target["keypoints"]),
        reference=target["reference"].strip()[:MAX_PROMPT_TEXT],
        candidate=candidate.strip()[:MAX_PROMPT_TEXT],
    )
    if style == "paper":
        return [{"role": "system", "content": text}]
    return [{"role": "system", "content": prompts.render("judge_system")}, {"role": "user", "content": text}]


def answer_judge_messages(problem: str, gold: str, response: str, prompts: PromptSet = _DEFAULTS,
                          style: str = "paper") -> list[dict[str, Any]]:
    """The short-answer judge's request: one user message, as the official judge gets it
    (`judge_prompt=paper`); geomeval's adds a grader's system message."""
    text = prompts.render(
        "answer_judge",
        problem=problem.strip()[:MAX_PROMPT_TEXT],
        gold=gold.strip(),
        response=response.strip()[-MAX_PROMPT_TEXT:],  # a final answer is at the end
    )
    if style == "paper":
        return [{"role": "user", "content": text}]
    return [{"role": "system", "content": prompts.render("judge_system")}, {"role": "user", "content": text}]


_RATING = re.compile(r'\{?\s*"?rating"?\s*:\s*\[([^\[\]]{0,200})\]', re.IGNORECASE)
_CORRECTNESS = re.compile(r"correctness\s*:\s*\**\s*([01])(?![0-9.])", re.IGNORECASE)


def parse_explanation_verdict(text: str) -> dict[str, Any]:
    """{"correctness", "fidelity", "referencing": 1–5, "reason"} from the judge's reply: the
    official format's last `"rating": [x, y, z]` (the thinking before it kept as the reason),
    or geomeval's JSON object of named ratings. A missing or out-of-range rating raises
    ValueError, which gets the judge one repair retry."""
    ratings = list(_RATING.finditer(text))
    if ratings:
        found = ratings[-1]
        values = [part.strip() for part in found.group(1).split(",")]
        if len(values) != len(LIKERT_CRITERIA):
            raise ValueError(f'"rating" must list {len(LIKERT_CRITERIA)} ratings, got {len(values)}')
        verdict: dict[str, Any] = {
            name: likert(_number(value), name) for name, value in zip(LIKERT_CRITERIA, values, strict=True)
        }
        verdict["reason"] = text[: found.start()].strip()[-MAX_REASON_CHARS:]
        return verdict
    data = reply_object(text)
    verdict = {}
    for name in LIKERT_CRITERIA:
        if name not in data:
            raise ValueError(f'field "{name}" is missing (expected {{"rating": [x, y, z]}})')
        verdict[name] = likert(data[name], name)
    verdict["reason"] = str(data.get("reason", ""))[:MAX_REASON_CHARS]
    return verdict


def _number(value: str) -> Any:
    """A rating as written ("4", "4.0"); `likert` decides whether it is one."""
    try:
        number = float(value)
    except ValueError:
        return value
    return int(number) if number.is_integer() else number


def parse_answer_verdict(text: str) -> dict[str, Any]:
    """{"final_answer": str | None, "equivalent": bool}: the official format's last
    `Correctness: 1` or `0`, or geomeval's JSON object."""
    marks = list(_CORRECTNESS.finditer(text))
    if marks:
        return {"final_answer": None, "equivalent": marks[-1].group(1) == "1"}
    data = reply_object(text)
    equivalent = data.get("equivalent")
    if isinstance(equivalent, str) and equivalent.strip().lower() in ("true", "false"):
        equivalent = equivalent.strip().lower() == "true"
    if not isinstance(equivalent, bool):
        raise ValueError('"equivalent" must be true or false (or reply {{Correctness: 1}} or 0)')
    final = data.get("final_answer")
    return {"final_answer": None if final is None else str(final)[:300], "equivalent": equivalent}
