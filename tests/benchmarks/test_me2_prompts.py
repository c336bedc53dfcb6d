"""ME2's default prompts implement the published clauses and add no output instruction.

The clauses are those of the prompts the authors' lmms-eval task sends (utils.py of
github.com/jungyangpark/ME2: `doc_to_text` for the three tasks, the explanation judge's
rubric and the short-answer judge's prompt; the paper's Figures B–E), listed here by their
meaning, each as the words geomeval's template must carry for it. Every sentence of a
default template that tells the model how to reply must be one of the published output
clauses; the inputs each prompt shows must be the official ones, no more.
"""

from __future__ import annotations

import re

import pytest

from geomeval.benchmarks.me2.benchmark import ME2
from geomeval.benchmarks.me2.prompts import (
    GEOMEVAL_JUDGE_TEMPLATES,
    GEOMEVAL_TASK_TEMPLATES,
    TEMPLATES,
)
from geomeval.engines.prompts import placeholders

# (what the published prompt asks, a pattern the template must match for it)
CLAUSES: dict[str, list[tuple[str, str]]] = {
    "solve": [
        ("the model is a math solver", r"solving a math problem"),
        ("its task is only to give the final answer", r"final answer only"),
        ("on one line", r"single line"),
        ("no explanation, steps or clarification", r"no explanation, no working, no comment"),
        ("the problem text", r"Problem: \{problem\}"),
        ("the reply formatted 'The final Answer is: …'", r"Format your reply exactly as: The final Answer is: <answer>"),
    ],
    "keypoints": [
        ("choose among the options A–E", r"From the options A, B, C, D and E"),
        ("a set of visual elements", r"set of visual elements"),
        ("how a teacher would visually guide a student to understand and solve the problem",
         r"how a teacher would guide a student visually to understand and solve the problem"),
        ("the problem", r"Problem:\n\{problem\}"),
        ("the answer", r"Answer: \{answer\}"),
        ("the solution process (the summary)", r"How the problem is solved:\n\{summary\}"),
        ("the options as the release gives them", r"\n\{options\}\n"),
        ("based on this reasoning guidance", r"Following this solution"),
        ("only one option", r"choose exactly one option \(A, B, C, D or E\)"),
        ("the most helpful elements for understanding the problem and its solution",
         r"help a student most to understand the problem and how it is solved"),
        ("think about how the elements support the reasoning",
         r"Consider carefully how the elements you choose support the reasoning"),
        ("a brief explanation is allowed", r"You may explain your thinking briefly"),
        ("the reply must end 'The final answer is: {A…E}'",
         r"must end in this format:\nThe final answer is: <A, B, C, D or E>"),
        ("it must END with that format", r"must end with that line"),
    ],
    "explain": [
        ("the problem text", r"^\{problem\}"),
        ("the answer", r"Answer: \{answer\}"),
        ("the difference between the problem figure and the solution figure",
         r"What the solution figure adds to or highlights in the problem figure:\n\{keypoints\}"),
        ("a math teacher helping students understand how to solve problems clearly",
         r"mathematics teacher who helps students see clearly how to solve problems"),
        ("given the problem, its image and the list of elements introduced or highlighted",
         r"the problem text, the problem figure and the list above of the elements the solution figure "
         r"introduces or highlights"),
        ("write an educational explanation that helps students", r"write an explanation that teaches students"),
        ("the chapter and section as context", r"\{context\}"),
        ("reference the problem figure's components and the solution figure's additions",
         r"Refer both to the parts of the problem figure and to the annotations, highlights and added elements "
         r"of the solution figure"),
        ("the output example: a JSON object with solution_text", r'Output, as in this example:\n\{\{"solution_text": ""\}\}'),
    ],
    "explain_topic": [
        ("the problem's chapter/section", r"chapter and section \{topic\}"),
        ("explain it in that context", r"explain it in that context"),
    ],
    "explain_judge": [
        ("an AI explanation of a math problem with geometric or graph reasoning",
         r"explanation an AI model wrote for a math problem that involves geometric or graph-based reasoning"),
        ("two texts: the teacher's reference and the model's explanation",
         r"two texts: a reference explanation written by a human teacher, and the explanation the model wrote"),
        ("compare: how accurately and effectively it captures the reference's key concepts and reasoning",
         r"how accurately and how well the model's explanation captures the key geometric concepts and the "
         r"reasoning of the reference"),
        ("three ratings on a 1–5 Likert scale", r"three ratings, each on a Likert scale of 1, 2, 3, 4 or 5"),
        ("Correctness: the reasoning makes sense and helps solve the problem",
         r"Correctness: does the model's reasoning make sense and help solve the problem"),
        ("Reference alignment: same logical reasoning and intent, even if worded differently",
         r"Reference alignment: does the model follow the same logical reasoning and intent as the reference, "
         r"even where its wording differs"),
        ("Use of key visual elements: the same critical visual components (points, lines, angles, shapes)",
         r"Use of key visual elements: does the model's explanation refer to the same critical visual components "
         r"as the reference \(points, lines, angles, shapes"),
        ("alternative terminology acceptable for the same element or purpose",
         r"Other terms are acceptable when they clearly refer to the same element or serve the same purpose"),
        ("the reply format {\"rating\": [x, y, z]}", r'Report the ratings in exactly this format:\n\{\{"rating": \[x, y, z\]\}\}'),
        ("x correctness, y reference alignment, z visual elements",
         r"x is the correctness rating, y the reference-alignment rating and z the rating for the use of visual "
         r"elements"),
        ("the teacher's explanation", r"\{reference\}"),
        ("the model's explanation", r"\{candidate\}"),
        ("the answer", r"Answer: \{answer\}"),
        ("think aloud before the scores", r"Think aloud before you give the ratings"),
    ],
    "answer_judge": [
        ("whether a model's response to a math problem is correct",
         r"whether a model's response to a math problem is correct"),
        ("from the ground-truth answer and the model's prediction", r"ground-truth answer and the model's prediction"),
        ("1 when the numeric value equals the ground truth, units or format aside",
         r"Rate 1 when the numeric value in the model's response equals the ground truth, even if the units or "
         r"the format differ"),
        ("0 otherwise", r"rate 0 otherwise"),
        ("the reply format {{Correctness: x}}, x 0 or 1", r"Report the rating in exactly this format:\n\{\{\{\{Correctness: x\}\}\}\}\nwhere x is 1 or 0"),
        ("the examples (42 meters/42: 1; 4 meter/4000 mm: 1; 20/25: 0)",
         r"42 meters, prediction 42: Correctness 1\n.*4 meter, prediction 4000 mm: Correctness 1\n.*20, prediction "
         r"25: Correctness 0"),
        ("the gold answer", r"Ground-truth answer: \{gold\}"),
        ("the prediction", r"Model prediction: \{response\}"),
        ("think aloud before the score", r"Think aloud before you give the rating"),
    ],
}
CLAUSES["keypoints_without_summary"] = [
    clause for clause in CLAUSES["keypoints"] if clause[0] not in ("the solution process (the summary)",
                                                                   "based on this reasoning guidance")
]
CLAUSES["keypoints_without_summary"].append(
    ("only one option", r"Choose exactly one option \(A, B, C, D or E\)"))
CLAUSES["keypoints_without_summary"].remove(("only one option", r"choose exactly one option \(A, B, C, D or E\)"))

# The inputs each official prompt shows (the templates may be handed more by geomeval, for a
# prompt file to use, but the defaults show exactly these).
INPUTS = {
    "solve": {"problem"},
    "keypoints": {"problem", "answer", "summary", "options"},
    "keypoints_without_summary": {"problem", "answer", "options"},
    "explain": {"problem", "answer", "keypoints", "context"},
    "explain_topic": {"topic"},
    "explain_judge": {"reference", "candidate", "answer"},
    "answer_judge": {"gold", "response"},
}

# A sentence that tells the model how to reply (what to output, its form or its length).
_OUTPUT_INSTRUCTION = re.compile(
    r"\b(reply|replies|respond|output|format|end (?:with|in)|must end|final answer|JSON|step by step|prose|"
    r"one line|single line|letter|unit|briefly|only|think aloud|rating|rate|write|give|choose|pick|refer|"
    r"explain)\b",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """The template's sentences, a placeholder-only line or a data label being none."""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [p.strip() for p in parts if p.strip() and not re.fullmatch(r"[^a-z]*\{\w+\}[^a-z]*", p.strip())]


def published(name: str, sentence: str) -> bool:
    """Whether a sentence lies within one of the template's published clauses."""
    flat = " ".join(sentence.split())
    text = " ".join(by_name(TEMPLATES)[name].text.split())
    for _what, pattern in CLAUSES[name]:
        for match in re.finditer(pattern.replace(r"\n", r"\s"), text, re.DOTALL):
            span = match.group(0)
            if flat in span or span in flat:
                return True
    return False


def by_name(templates: tuple) -> dict:
    return {template.name: template for template in templates}


def test_the_defaults_are_exactly_the_published_prompts() -> None:
    assert set(by_name(TEMPLATES)) == set(CLAUSES) == set(INPUTS)
    assert by_name(ME2().prompt_templates) == by_name(TEMPLATES)
    assert "judge_system" not in by_name(TEMPLATES)  # the official judges have no grader's role text


@pytest.mark.parametrize("name", sorted(CLAUSES))
def test_each_published_clause_is_implemented(name: str) -> None:
    text = by_name(TEMPLATES)[name].text
    missing = [what for what, pattern in CLAUSES[name] if not re.search(pattern, text, re.DOTALL | re.MULTILINE)]
    assert not missing, f"{name} lacks: {missing}"


@pytest.mark.parametrize("name", sorted(CLAUSES))
def test_no_output_instruction_beyond_the_published_ones(name: str) -> None:
    extra = [s for s in sentences(by_name(TEMPLATES)[name].text)
             if _OUTPUT_INSTRUCTION.search(s) and not published(name, s)]
    assert not extra, f"{name} adds: {extra}"


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_the_defaults_show_the_official_inputs_only(name: str) -> None:
    assert set(placeholders(by_name(TEMPLATES)[name].text)) == INPUTS[name]


def test_the_check_catches_geomevals_earlier_prompts() -> None:
    """The switches' prompts are not the paper's: the checks above would refuse them."""
    earlier = by_name(GEOMEVAL_TASK_TEMPLATES + GEOMEVAL_JUDGE_TEMPLATES)
    solve = earlier["solve"].text
    assert not re.search(CLAUSES["solve"][-1][1], solve)
    assert re.search(r"letter of the correct option", solve)  # the addition, named
    assert {"problem", "keypoints"} <= set(placeholders(earlier["explain_judge"].text))
    assert "Answer with the explanation only" in earlier["explain"].text
    assert not re.search(CLAUSES["explain"][-1][1], earlier["explain"].text)


def test_the_switches_swap_the_texts_and_keep_the_names() -> None:
    bench = ME2().configure({"prompt_style": "geomeval", "judge_prompt": "geomeval"})
    assert bench.prompts.text("solve") == by_name(GEOMEVAL_TASK_TEMPLATES)["solve"].text
    assert bench.prompts.text("explain_judge") == by_name(GEOMEVAL_JUDGE_TEMPLATES)["explain_judge"].text
    assert ME2().prompts.text("solve") == by_name(TEMPLATES)["solve"].text
    with pytest.raises(Exception, match="prompt style"):
        ME2().configure({"prompt_style": "authors"})


def test_rendered_explanation_prompt_asks_for_the_json_object() -> None:
    from geomeval.benchmarks.me2.prompts import explain_text

    row = {"problem": "Find AH.", "answer": "4", "chapter": "Triangles", "section": None,
           "visual_keypoints": [{"element": "segment AH", "description": "the altitude"}]}
    text = explain_text(row)
    assert text.startswith("Find AH.\n\nAnswer: 4\n")
    assert "\nsegment AH: the altitude\n" in text  # "element: description" lines, as the official task lists them
    assert "chapter and section Triangles:" in text
    assert text.endswith('Output, as in this example:\n{"solution_text": ""}')
