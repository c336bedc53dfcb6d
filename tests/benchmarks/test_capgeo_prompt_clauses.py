"""Each default template of CapGeo and CapGeo-Bench implements the published clauses of its
prompt (the paper's Fig. 6 for captioning and reasoning, Figs. 7-8 for keypoint extraction,
Fig. 9 for matching) and adds no instruction of its own.

The clauses are listed here by meaning, as keyword patterns derived from the paper, not as
its sentences. A template passes when every clause is found in it, and every sentence of it
is accounted for: by a clause, by a label of what it is given (a placeholder's caption), by
its example, or by an addition the card's differences table declares. A sentence that is
none of these (an added "explain briefly", "split compound statements", "give the letter")
fails the test, naming the template and the sentence. Pieces that only present inputs (the
question, the options, which inputs are attached) may hold no output instruction at all.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.engines.prompts import Template

REPO = Path(__file__).resolve().parents[2]

# clause (its meaning) -> patterns that must all be found; the first defines the clause's sentence
Clauses = dict[str, tuple[str, ...]]

# --------------------------------------------------------------------- CapGeo (Fig. 6)

CAPGEO_CLAUSES: dict[str, Clauses] = {
    "caption_vision_intensive": {  # Fig. 6, MathVerse Vision Intensive
        "from the figure and the question text": (r"geometric figure", r"text of the\s+question"),
        "describe the complete geometry problem": (r"describe the complete geometry problem",),
        "clearly, in a structured format": (r"clear, structured",),
        "the question text is given": (r"\{question\}",),
        "combine the figure's visual information with the text into a comprehensive description": (
            r"visual information of the figure", r"text of the question", r"together", r"full description"),
    },
    "caption_vision_only": {  # Fig. 6, MathVerse Vision Only
        "the figure and the problem text are in the image": (r"image holds a geometric figure", r"text of a\s+problem"),
        "describe the problem, figure included, directly as a geometry problem": (
            r"figure included", r"directly in the form of a geometry problem"),
        "output only the problem": (r"Output the problem alone",),
        "make sure it is complete": (r"make sure it is complete",),
    },
    "caption_with_question": {  # Fig. 6, GeoQA and MathVista
        "from the diagram and the question text": (r"geometric diagram", r"text of the\s+question"),
        "describe the complete geometry problem": (r"describe the complete geometry problem",),
        "clearly, in a structured format": (r"clear, structured",),
        "the question text is given": (r"\{question\}",),
        "only the problem statement, no analysis or solution steps": (
            r"problem statement alone", r"without analysis or solution steps"),
    },
    "reasoning": {  # Fig. 6, the reasoning prompt (R1-style)
        "the assistant solves the user's question": (r"Solve the geometry problem",),
        "think the reasoning through first, then answer": (r"First think the reasoning through, then give the answer",),
        "reasoning inside <think></think>": (r"reasoning inside\s+<think> </think>",),
        "answer inside <answer></answer>": (r"answer inside <answer> </answer>",),
        "i.e. <think> reasoning </think><answer> answer </answer>": (
            r"<think> your reasoning </think>\s*<answer> your answer </answer>",),
    },
}
# Pieces that present the inputs (A = MLLM(Q, I, C)): which inputs are given, the caption's and
# the question's labels, the options; they ask nothing of the model.
CAPGEO_INPUT_PIECES = ("context_direct", "context_with_image", "context_without_image", "restated", "problem",
                       "options", "question_in_figure", "question_in_restatement")
# Labels of what a template is given (a placeholder's caption), not instructions.
CAPGEO_LABELS = (r"^Text of the problem:$",)

# ------------------------------------------------------- CapGeo-Bench (Figs. 6, 7-8, 9)

BENCH_CLAUSES: dict[str, Clauses] = {
    "caption": {  # Fig. 6, CapGeo-Bench
        "describe the geometric figure": (r"Describe the geometric figure",),
        "in a clear, structured mathematical format": (r"clear, structured\s+mathematical",),
        "mine as much visual information from the figure as possible": (r"as much visual information from the figure",),
        "output only the figure's description": (r"Output the description of the figure and nothing else",),
        "an example output follows": (r"example of such an output",),
    },
    "caption_zh": {  # the same clauses in Chinese (no Chinese prompt is published)
        "describe the geometric figure": (r"描述图中的几何图形",),
        "in a clear, structured mathematical format": (r"清晰", r"有条理", r"数学语言"),
        "mine as much visual information as possible": (r"尽可能多", r"视觉信息"),
        "output only the figure's description": (r"只输出对图形的描述",),
        "an example output follows": (r"输出示例",),
    },
    "keypoint_system": {  # Figs. 7-9's role and the JSON reply
        "a strict expert in evaluating geometric descriptions": (r"strict expert", r"descriptions of geometric figures"),
        "replies in JSON": (r"JSON",),
    },
    "keypoint_extract": {  # Figs. 7-8 (the same request for the reference and the caption)
        "extract from the description, strictly from its text": (r"keypoints of the description", r"strictly from\s+its text"),
        "only what is explicitly mentioned": (r"only what it states explicitly",),
        "no fabrication or addition": (r"make up or add nothing",),
        "three groups": (r"three groups",),
        "explicitly mentioned elements (points, lines, triangles)": (
            r'"elements": the geometric elements', r"names explicitly", r"point", r"line", r"triangle"),
        "explicitly mentioned relations (parallel, perpendicular, intersecting at a point, tangent at a point)": (
            r'"spatial_relations": the geometric relations it states explicitly', r"parallel", r"perpendicular",
            r"meeting line \w+ at point", r"tangent to circle \w+ at point"),
        "explicitly mentioned numerical values (a length, an angle, a multiple of a length)": (
            r'"numerical_relations": the numerical values it states explicitly', r"[A-Z]{2} = \d", r"angle",
            r"= \d \* [A-Z]{2}"),
        "the description is given": (r"\{caption\}",),
        "strict, valid JSON with the three lists": (r"valid JSON", r'"elements": \["\.\.\."\]',
                                                    r'"spatial_relations": \["\.\.\."\]',
                                                    r'"numerical_relations": \["\.\.\."\]'),
    },
    "keypoint_match": {  # Fig. 9
        "find the overlap of the reference and the candidate lists, per dimension": (
            r"Compare two lists of keypoints", r"reference", r"candidate", r"group by group"),
        "strictly from the two lists, nothing added": (r"strictly from the two\s+lists", r"adding nothing"),
        "semantically identical items match": (r"state the same thing", r"values match when they are equal"),
        "the same figure or relation named in another order matches (triangle ABC = BAC = CAB; AB ∥ CD)": (
            r"rotation and reversal", r"either order", r"symmetric\s+relations"),
        "other objects or values do not match (angle ABC = 45° vs ABD = 45°; AB = 5 vs AC = 5)": (
            r"different points, a different value or a different relation does not match",),
        "an angle matches only with the same vertex and value": (r"angle\s+matches only an angle with the same vertex and the same value",),
        "a length matches only with the same segment and value": (r"length only the same\s+segment with the same value",),
        "colour words do not matter (red triangle ACE = triangle ACE)": (r"Colours do not matter",),
        "a statement naming several objects matches them one by one": (r"names several objects", r"one by one"),
        "the covered items of each group": (r'"matched"',),
        "the lists are given": (r"\{groups\}",),
        "strict, valid JSON per group": (r"JSON object",),
    },
}
BENCH_INPUT_PIECES: tuple[str, ...] = ()
BENCH_LABELS = (r"^Description:$",)
# Additions the card's differences table declares (its row named here), each allowed only in
# its template: the matching request also asks which candidate keypoints the reference
# supports, for geomeval's precision and F1.
BENCH_DECLARED = {"keypoint_match": ((r'"supported"', r"supports"), "the judge's matching request")}

# Instructions geomeval once added that no published prompt gives (a sentence holding one
# could otherwise pass on a clause's keyword): none may appear in a default template.
NOT_PUBLISHED = re.compile(
    r"explain|briefly|letter of|without units|step by step|split|one short statement|each keypoint once|"
    r"line styles|every element|every spatial relation|redraw|do not guess|plain sentences|keep the question|"
    r"no answer|不要推测|所有的元素", re.IGNORECASE)

# Words that ask the model for something: none may appear in an input piece.
OUTPUT_WORDS = re.compile(r"\b(answer|reply|respond|output|give|write|explain|solve|think|describe|list|state)\b",
                          re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """The template's sentences and lines, with its quoted example, its JSON schema and its
    placeholders-only lines taken out (they are checked as clauses of their own)."""
    text = re.sub(r'"In trapezoid[^"]*"|“[^”]*”', " EXAMPLE ", text)
    lines = [line for line in text.split("\n") if not line.startswith(("{{", '{"'))]  # the reply's JSON shape
    kept = []
    for part in re.split(r"(?<=[.!?])\s+|\n+|(?<=。)", "\n".join(lines)):
        part = part.strip().lstrip("- ").strip()
        if not part or part in ("EXAMPLE", "EXAMPLE.") or re.fullmatch(r"(\{\w+\})+", part):
            continue
        kept.append(part)
    return kept


def check(template: Template, clauses: Clauses, labels: tuple[str, ...], declared: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with `template` against its published clauses: a clause not found, or a
    sentence no clause, label or declared addition accounts for."""
    problems = [f"{template.name}: clause not implemented: {meaning}"
                for meaning, patterns in clauses.items()
                if not all(re.search(p, template.text) for p in patterns)]
    problems += [f"{template.name}: an instruction no published prompt gives: {m.group(0)!r}"
                 for m in NOT_PUBLISHED.finditer(template.text)]
    # a sentence is accounted for by a clause's first (defining) pattern, not by a bare keyword
    accounting = [patterns[0] for patterns in clauses.values() if not patterns[0].startswith(r"\{")]
    for sentence in sentences(template.text):
        if any(re.search(p, sentence) for p in (*labels, *declared)):
            continue
        if not any(re.search(p, sentence) for p in accounting):
            problems.append(f"{template.name}: a sentence no published clause accounts for: {sentence!r}")
    return problems


def check_benchmark(name: str, clauses: dict[str, Clauses], inputs: tuple[str, ...], labels: tuple[str, ...],
                    declared: dict[str, tuple[tuple[str, ...], str]]) -> None:
    bench = get_benchmark(name)  # as `geomeval prompts NAME` prints them: the defaults
    templates = {t.name: t for t in bench.prompt_templates}
    assert set(templates) == set(clauses) | set(inputs), "every default template is listed here"
    problems: list[str] = []
    for template_name, template_clauses in clauses.items():
        allowed, _ = declared.get(template_name, ((), ""))
        problems += check(templates[template_name], template_clauses, labels, allowed)
    for template_name in inputs:
        word = OUTPUT_WORDS.search(templates[template_name].text)
        if word:
            problems.append(f"{template_name}: presents an input but asks for something ({word.group(0)!r})")
    assert not problems, "\n".join(problems)
    card = (REPO / "cards" / name / "README.md").read_text(encoding="utf-8")
    for template_name, (_, row) in declared.items():
        assert f"| {row} |" in card, f"{template_name}'s addition is declared in the card's row {row!r}"


def test_capgeo_default_templates_implement_fig6_and_add_nothing() -> None:
    check_benchmark("capgeo", CAPGEO_CLAUSES, CAPGEO_INPUT_PIECES, CAPGEO_LABELS, {})


def test_capgeo_bench_default_templates_implement_figs_6_to_9_and_add_nothing() -> None:
    check_benchmark("capgeo_bench", BENCH_CLAUSES, BENCH_INPUT_PIECES, BENCH_LABELS, BENCH_DECLARED)


@pytest.mark.parametrize(("name", "options", "template", "added"), [
    ("capgeo_bench", {"caption_prompt": "dimensions"}, "caption", "every spatial relation"),
    ("capgeo_bench", {"keypoint_extraction": "split"}, "keypoint_extract", "split compound sentences"),
    ("capgeo", {"source": "geoqa", "prompt_style": "geomeval"}, "reasoning", "Reason step by step"),
    ("capgeo", {"source": "geoqa", "prompt_style": "geomeval"}, "caption_vision_intensive",
     "Keep the question and its"),
])
def test_the_switches_earlier_wording_is_caught_by_the_same_check(
    name: str, options: dict[str, str], template: str, added: str
) -> None:
    """The check can fail: the switches' templates, which add instructions, do not pass it."""
    bench = get_benchmark(name).configure(options)
    switched = {t.name: t for t in bench.prompt_templates}[template]
    clauses = {**CAPGEO_CLAUSES, **BENCH_CLAUSES}[template]
    labels = BENCH_LABELS if name == "capgeo_bench" else CAPGEO_LABELS
    problems = check(switched, clauses, labels)
    assert any("no published clause accounts for" in p and added in p for p in problems), problems
