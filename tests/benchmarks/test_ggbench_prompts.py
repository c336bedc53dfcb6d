"""GGBench's default prompts implement the published clauses (the paper's Figs. 13-18 and the
official eval_prompts.py), each checked by its keywords, and ask for no output the published
prompts do not: the judges reply as the official ones do (a numeral; the process judge's
three "Name: n" lines and a rationale). geomeval's earlier wording is `-T prompt_style=geomeval`."""

from __future__ import annotations

import re

import pytest

from geomeval.benchmarks.ggbench.benchmark import GGBench
from geomeval.benchmarks.ggbench.prompts import (
    GEOMEVAL_TEMPLATES,
    TEMPLATES,
    parse_process,
    parse_score,
)

# Each published clause, as keywords (regular expressions, all of which must appear).
CLAUSES: dict[str, dict[str, tuple[str, ...]]] = {
    "code_task": {  # Fig. 17
        "construct in GeoGebra from the topic (and its image)": (r"construction", r"GeoGebra", r"\{problem\}"),
        "ruler-and-compass: keep every auxiliary trace": (r"ruler-and-compass", r"auxiliary trace"),
        "output step-by-step instructions, principles and executable code": (
            r"step by step", r"principle", r"executable\s+GeoGebra\s+code"),
        "rule 1: GeoGebra syntax, capitalised commands, no underscores": (r"capitalised", r"no underscores"),
        "rule 2: Point({x, y}), Vector((x, y)) or Vector(P, Q)": (
            r"Point\(\{\{x, y\}\}\)", r"Vector\(\(x, y\)\)", r"Vector\(P, Q\)"),
        "rule 3: auxiliary elements kept in the final figure": (r"auxiliary object in the final figure",),
        "rule 4: one coordinate system, no comments or blank lines": (
            r"one coordinate system", r"no comments", r"no blank lines"),
        "rule 5: static drawings only, no animation": (r"static", r"no animation"),
        "abridged example whose steps have Construction, Principle and GeoGebra Code": (
            r"abridged", r"Construction", r"Principle", r"GeoGebra Code"),
    },
    "image_task": {  # Fig. 18
        "the drawing the topic asks for": (r"drawing", r"\{problem\}"),
        "ruler-and-compass: keep its traces": (r"ruler-and-compass", r"traces"),
        "output only the drawing steps": (r"only the drawing steps",),
        "rule 1: follow the drawing, explain each step clearly": (r"explain each step clearly",),
        "rule 2: only step descriptions, no code": (r"only the step descriptions", r"no code"),
        "rule 3: each description leads to its image": (r"each description leads to the image",),
        "rule 4: clear and concise, no dynamic effects": (r"clear and short", r"no dynamic effects"),
        "abridged example": (r"abridged",),
    },
    "text_judge": {  # Fig. 13, TEXT_STEP_PROMPT_TEMPLATE
        "role: evaluator of construction text steps": (r"evaluate the written construction steps",),
        "inputs: problem, reference steps (code corroborates), model answer": (
            r"\{problem\}", r"\{reference\}", r"\{answer\}", r"only\s+corroborates"),
        "criterion: completeness of the chain": (r"no step is skipped", r"depends on"),
        "criterion: key constructions": (r"key constructions", r"angle bisectors", r"tangent points"),
        "criterion: geometric principles": (r"collinearity", r"concyclicity", r"tangency"),
        "criterion: equivalent paths accepted": (r"equivalent construction path",),
        "rubric 5..1": (r"5 = complete", r"4 = correct overall", r"3 = most key points", r"2 = many logical",
                        r"1 = seriously wrong"),
    },
    "process_judge": {  # Figs. 15-16, MID_PROCESS_PROMPT
        "inputs: problem and the long image of the steps": (r"\{problem\}", r"long image", r"Step k"),
        "Step Accuracy: names, elements, positions, nothing extra": (
            r"Step Accuracy", r"names of points and lines", r"segment endpoints", r"nothing extra"),
        "Step Accuracy mandatory clauses": (r"impossible to identify\s+uniquely", r"give 1", r"may get 2"),
        "Process Consistency rubric": (r"Process Consistency", r"keeps the previous figure", r"unrelated drawings"),
        "Process Consistency mandatory clauses": (r"single figure gets at most 1", r"error messages, give 1"),
        "Problem-Solution Accuracy from visible evidence only": (
            r"Problem-Solution Accuracy", r"visible and checkable", r"never from the text"),
        "Problem-Solution Accuracy mandatory clauses": (
            r"fails to show geometry gets 1", r"at most 2", r"above 2 needs visual\s+evidence"),
    },
    "result_judge": {  # Fig. 14, IMAGE_CONSISTENCY_PROMPT
        "inputs: the reference image, then the model's final image": (
            r"first image is the reference", r"the second is the model's final figure"),
        "criterion: element completeness": (r"Elements", r"tangent points"),
        "criterion: topology and constraints": (r"Topology and constraints", r"concyclic"),
        "criterion: style and similarity transforms tolerated": (r"colour", r"rotation", r"reflection"),
        "criterion: geometry over perceptual likeness": (r"geometry decides",),
        "rubric 5..1": (r"5 = ", r"4 = ", r"3 = ", r"2 = ", r"1 = contradicts"),
        "boundary: missing or unreadable image, text only -> 1": (r"missing, corrupted or unreadable image",
                                                                   r"text without an image, gets 1"),
    },
}

# What each published prompt asks the reply to be, and geomeval's own additions that must not
# appear in a default (they change what the model or the judge outputs).
OUTPUT = {
    "text_judge": r"one digit from 1 to 5 and nothing else",
    "result_judge": r"one digit from 1 to 5 and nothing else",
    "process_judge": r"Step Accuracy: <1-5>\nProcess Consistency: <1-5>\nProblem-Solution Accuracy: <1-5>\n"
                     r"Rationale: <one line>",
}
NOT_PUBLISHED = (r"JSON", r"\"reason\"", r"one command\s+per line", r"must run after", r"explain briefly",
                 r"Answer:", r"ending with the finished figure", r"sliders", r"scripting")


def _templates() -> dict[str, str]:
    return {t.name: t.text for t in TEMPLATES}


def test_every_default_template_is_checked() -> None:
    assert set(CLAUSES) | {"figure_note", "judge_system"} == set(_templates())


@pytest.mark.parametrize("name", sorted(CLAUSES))
def test_default_implements_each_published_clause(name: str) -> None:
    text = " ".join(_templates()[name].split())
    missing = [clause for clause, keys in CLAUSES[name].items()
               if not all(re.search(" ".join(k.split()), text, re.IGNORECASE) for k in keys)]
    assert not missing, f"{name} lacks: {missing}"


@pytest.mark.parametrize("name", sorted(_templates()))
def test_default_adds_no_output_instruction(name: str) -> None:
    text = _templates()[name]
    found = [p for p in NOT_PUBLISHED if re.search(p, text)]
    assert not found, f"{name} adds {found}"
    if name in OUTPUT:
        assert re.search(OUTPUT[name], text), name


def test_the_judges_published_replies_are_read() -> None:
    assert parse_score("4") == {"score": 4, "reason": ""}
    verdict = parse_process("Step Accuracy: 4\nProcess Consistency: 2\nProblem-Solution Accuracy: 5\n"
                            "Rationale: the bisector is missing in step 2")
    assert (verdict["step_accuracy"], verdict["process_consistency"], verdict["problem_solution_accuracy"]) == (4, 2, 5)


def test_the_default_is_the_papers_and_the_earlier_wording_is_a_switch() -> None:
    default = GGBench().prompts
    assert default.defaults["text_judge"].text == _templates()["text_judge"]
    earlier = GGBench().configure({"prompt_style": "geomeval"})
    assert earlier.options["prompt_style"] == "geomeval"  # recorded in run.json's options
    rendered = earlier.prompts.render("text_judge", problem="p", reference="r", answer="a")
    assert "JSON" in rendered and rendered == {t.name: t for t in GEOMEVAL_TEMPLATES}["text_judge"].text.format(
        problem="p", reference="r", answer="a")
    with pytest.raises(Exception, match="prompt_style"):
        GGBench().configure({"prompt_style": "mine"})
