"""ME2's prompts, in geomeval's own words: the three tasks and the two judges.

The tasks follow the paper's setup: problem solving sees the problem and its figure;
keypoint identification also sees the answer and a summary of the solution and picks one of
five keypoint sets (or, in the paper's Appendix C ablation, the same without the summary);
explanation sees the problem, figure, answer and the keypoints, and writes
the explanation a teacher would give. Every task ends its answer with a fixed line that the
scorer reads ("The final answer is: …"); the explanation task answers in prose.

The explanation judge implements the published rubric (three Likert criteria, 1–5):
correctness of the reasoning, fidelity to the reference explanation's line of reasoning
(the paper's "reference alignment"), and referencing of the same key visual elements. The
short-answer judge (optional in problem solving) decides whether the stated answer equals
the gold one when units or forms differ.

Every prompt is a named template (`TEMPLATES`), rendered through the run's prompt set, so a
`--prompts` file can replace any of them (the authors' wording of Figures B–E, say).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...images import image_part
from ...judges import likert, reply_object
from ...prompts import PromptSet, Template, default_set
from .features import OPTION_LETTERS

MAX_PROMPT_TEXT = 12_000  # what a judge is shown of a long explanation (its start)
MAX_REASON_CHARS = 500
LIKERT_CRITERIA = ("correctness", "fidelity", "referencing")

_SOLVE = """Solve the math problem below. Its figure is attached.

Problem:
{problem}

Give the final answer only, on one line, in this form:
The final answer is: <answer>
For a multiple-choice problem, <answer> is the letter of the correct option; otherwise it is \
the value, with its unit if it has one."""

_KEYPOINTS = """A teacher explaining a problem draws on its figure: an auxiliary segment, a \
marked angle, a highlighted point or region. Below are a problem (its figure is attached), \
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

# The paper's Appendix C ablation: the same task without the solution summary, so nothing
# anchors which of the problem's possible solutions the keypoints should serve.
_KEYPOINTS_WITHOUT_SUMMARY = """A teacher explaining a problem draws on its figure: an auxiliary \
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

_EXPLAIN = """You are a mathematics teacher. Write the explanation of the problem below for a \
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

_JUDGE_SYSTEM = """You grade explanations of math problems written for students. You are \
strict, consistent and brief, and you reply with one JSON object only."""

_EXPLAIN_JUDGE = """Grade a model's explanation of a math problem (geometry or function \
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

_ANSWER_JUDGE = """Decide whether a student's response to a math problem states a final \
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

_TOPIC = "\nThe problem belongs to the topic {topic}; explain it in that context.\n"

TEMPLATES = (
    Template("solve", _SOLVE, ("problem",), required=("problem",),
             implements="Fig. B (solution recognition): the problem with its figure, the final answer on a fixed "
                        "line (the option letter for a multiple-choice problem)"),
    Template("keypoints", _KEYPOINTS, ("problem", "answer", "summary", "options"),
             required=("problem", "summary", "options"),
             implements="Fig. C (visual keypoint identification): the problem and figure, the correct answer, the "
                        "solution summary that anchors one solution, five candidate keypoint sets A–E, one letter"),
    Template("keypoints_without_summary", _KEYPOINTS_WITHOUT_SUMMARY, ("problem", "answer", "options"),
             required=("problem", "options"),
             implements="Appendix C: the same task with the solution summary withheld (`--mode without_summary`)"),
    Template("explain", _EXPLAIN, ("problem", "answer", "keypoints", "context"), required=("problem", "keypoints"),
             implements="Fig. D (keypoint-based explanation): a teacher's step-by-step explanation of the problem "
                        "and its answer that refers to the figure and the given visual keypoints"),
    Template("explain_topic", _TOPIC, ("topic",), required=("topic",),
             implements="the item's chapter and section, where it has them, as the explanation's context "
                         "(geomeval's addition; `explain`'s `{context}`)"),
    Template("judge_system", _JUDGE_SYSTEM, (),
             implements="the role of the GPT-4o evaluator (Fig. E): a strict, consistent grader replying in JSON"),
    Template("explain_judge", _EXPLAIN_JUDGE, ("problem", "answer", "keypoints", "reference", "candidate"),
             required=("reference", "candidate"),
             implements="Fig. E: Correctness, Fidelity (alignment with the reference's reasoning and intent, "
                        "whatever its surface form) and Referencing (the same key visual elements), each 1–5"),
    Template("answer_judge", _ANSWER_JUDGE, ("problem", "gold", "response"), required=("gold", "response"),
             implements="solution recognition's answer reading (the MathVista protocol; the official code's "
                        "short-answer judge): whether the stated final answer equals the gold one in another unit "
                        "or form; asked only where the rules find them unequal"),
)
_DEFAULTS = default_set("me2", TEMPLATES)


def keypoint_lines(keypoints: Sequence[Mapping[str, Any]]) -> str:
    """The keypoints as a bulleted list, one element a line."""
    lines = []
    for point in keypoints:
        element = str(point.get("element") or "").strip()
        description = str(point.get("description") or "").strip()
        lines.append(f"- {element}: {description}" if element and description else f"- {element or description}")
    return "\n".join(lines) or "- (none listed)"


def options_block(options: Sequence[str]) -> str:
    return "\n".join(f"{letter}. {text}" for letter, text in zip(OPTION_LETTERS, options, strict=False))


def _user(text: str, image: Any) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if image:
        content.append(image_part(image))
    return [{"role": "user", "content": content}]


def solve_text(row: Mapping[str, Any], prompts: PromptSet = _DEFAULTS) -> str:
    return prompts.render("solve", problem=row["problem"].strip())


def keypoints_text(row: Mapping[str, Any], prompts: PromptSet = _DEFAULTS, *, summary: bool = True) -> str:
    """The keypoint-identification prompt; `summary=False` withholds the solution summary
    (the paper's Appendix C ablation of summary anchoring)."""
    fields = {"problem": row["problem"].strip(), "answer": row["answer"].strip(),
              "options": options_block(row["keypoint_options"])}
    if not summary:
        return prompts.render("keypoints_without_summary", **fields)
    return prompts.render("keypoints", summary=row["solution_summary"].strip(), **fields)


def explain_text(row: Mapping[str, Any], prompts: PromptSet = _DEFAULTS) -> str:
    chapter, section = (row.get("chapter") or "").strip(), (row.get("section") or "").strip()
    topic = " / ".join(part for part in (chapter, section) if part)
    return prompts.render(
        "explain",
        problem=row["problem"].strip(),
        answer=row["answer"].strip(),
        keypoints=keypoint_lines(row["visual_keypoints"]),
        context=prompts.render("explain_topic", topic=topic) if topic else "",
    )


TASK_TEXT = {"me2_solve": solve_text, "me2_keypoints": keypoints_text, "me2_explain": explain_text}


def build_messages(
    row: Mapping[str, Any], task: str, *, summary: bool = True, prompts: PromptSet = _DEFAULTS
) -> list[dict[str, Any]]:
    """The chat messages posing `row` for `task`, with the problem figure attached, rendered
    from `prompts` (the run's set); `summary=False` poses `me2_keypoints` without the
    solution summary (Appendix C)."""
    if task == "me2_keypoints" and not summary:
        text = keypoints_text(row, prompts, summary=False)
    else:
        text = TASK_TEXT[task](row, prompts)
    return _user(text, row.get("problem_image"))


# --------------------------------------------------------------------------- judges


def explanation_judge_messages(
    target: Mapping[str, Any], candidate: str, prompts: PromptSet = _DEFAULTS
) -> list[dict[str, Any]]:
    text = prompts.render(
        "explain_judge",
        problem=target["problem"].strip()[:MAX_PROMPT_TEXT],
        answer=target["answer"].strip(),
        keypoints=keypoint_lines(target["keypoints"]),
        reference=target["reference"].strip()[:MAX_PROMPT_TEXT],
        candidate=candidate.strip()[:MAX_PROMPT_TEXT],
    )
    return [{"role": "system", "content": prompts.render("judge_system")}, {"role": "user", "content": text}]


def answer_judge_messages(problem: str, gold: str, response: str, prompts: PromptSet = _DEFAULTS) -> list[dict[str, Any]]:
    text = prompts.render(
        "answer_judge",
        problem=problem.strip()[:MAX_PROMPT_TEXT],
        gold=gold.strip(),
        response=response.strip()[-MAX_PROMPT_TEXT:],  # a final answer is at the end
    )
    return [{"role": "system", "content": prompts.render("judge_system")}, {"role": "user", "content": text}]


def parse_explanation_verdict(text: str) -> dict[str, Any]:
    """{"correctness", "fidelity", "referencing": 1–5, "reason"}; a missing or out-of-range
    rating raises ValueError, which gets the judge one repair retry."""
    data = reply_object(text)
    verdict: dict[str, Any] = {}
    for name in LIKERT_CRITERIA:
        if name not in data:
            raise ValueError(f'field "{name}" is missing')
        verdict[name] = likert(data[name], name)
    verdict["reason"] = str(data.get("reason", ""))[:MAX_REASON_CHARS]
    return verdict


def parse_answer_verdict(text: str) -> dict[str, Any]:
    """{"final_answer": str | None, "equivalent": bool}."""
    data = reply_object(text)
    equivalent = data.get("equivalent")
    if isinstance(equivalent, str) and equivalent.strip().lower() in ("true", "false"):
        equivalent = equivalent.strip().lower() == "true"
    if not isinstance(equivalent, bool):
        raise ValueError('"equivalent" must be true or false')
    final = data.get("final_answer")
    return {"final_answer": None if final is None else str(final)[:300], "equivalent": equivalent}
