"""GeoEval at the defaults is the paper's protocol (Zhang et al., 2024).

The solver prompt is Table 10 (Appendix I.2): an instruction to solve the math problem, then
the merge of the diagram description (introduced as such, left out when there is none), the
problem text, and the choice list (introduced as such, one bracketed list); nothing asks for
an answer format. The answer is extracted as §4.2 and Tables 4–5 say: an LLM given a task
description (extract the answer from a model's output to a geometry question) and worked
examples (question with lettered choices, model response, extracted answer) completes
"Extracted answer:"; rules catch what it missed (Table 5's phrasings among them). The
clauses below are keywords read off the paper, not its sentences; each default template must
implement its clauses and add no output instruction the paper does not give.
geomeval's earlier prompt and judge stay available as switches.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

import pytest

from geomeval.answers import choose_option, parse_choices
from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geoeval.benchmark import GeoEval
from geomeval.benchmarks.geoeval.extraction import is_correct
from geomeval.benchmarks.geoeval.judging import (
    extract,
    extraction_messages,
    paper_rules,
    parse_extraction,
)
from geomeval.benchmarks.geoeval.prompts import GEOMEVAL_PROMPT
from geomeval.engines.judges import Judge
from geomeval.engines.prompts import default_set

# Output instructions the paper's templates never give (any of them in a default is an addition).
ADDED_OUTPUT_INSTRUCTIONS = (
    "answer:", "explain", "brief", "reasoning", "step by step", "last line", "final answer", "format",
    "letter", "json", "boxed", "\\boxed", "only", "concise", "think", "reply with", "must",
)


@dataclass(frozen=True)
class Clause:
    meaning: str
    keywords: tuple[str, ...]  # all must appear (case-insensitive) in the template text


# The published clauses of each default GeoEval template, from the paper's Tables 10 and 4.
PUBLISHED: dict[str, tuple[Clause, ...]] = {
    "solve": (
        Clause("Table 10 Instruction: the model is asked to solve the math problem", ("solve", "math problem")),
        Clause("Table 10 Merge: the diagram description comes first", ("{description}",)),
        Clause("Table 10 Merge: then the problem text", ("{problem}",)),
        Clause("Table 10 Merge: then the choice list", ("{options}",)),
    ),
    "extract_system": (
        Clause("Table 4 task description: a bot that extracts", ("extract",)),
        Clause("... the answer", ("answer",)),
        Clause("... from a model's output", ("model", "output")),
        Clause("... to a geometry question", ("geometry", "question")),
    ),
    "extract_judge": (
        Clause("Table 4 examples: a question", ("question:",)),
        Clause("... with lettered choices", ("choices: (a)",)),
        Clause("... the model's response", ("model response:",)),
        Clause("... and the extracted answer", ("extracted answer:",)),
        Clause("then the item: its question, choices and the model's response", ("{problem}", "{options}", "{response}")),
    ),
}
# What each template may say beyond its clauses, the words the check above would flag
# (the judge's examples are worked solutions: they "answer" by nature).
ALLOWED = {"extract_system": ("answer",), "extract_judge": ("answer:", "only")}


def _defaults() -> dict[str, str]:
    bench = get_benchmark("geoeval")
    return {name: template.text for name, template in bench.prompts.defaults.items()}


def test_every_default_template_has_its_published_clauses_listed() -> None:
    assert set(_defaults()) == set(PUBLISHED)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_each_default_template_implements_its_clauses_and_adds_no_output_instruction(name: str) -> None:
    text = _defaults()[name]
    lowered = text.lower()
    for clause in PUBLISHED[name]:
        assert all(word.lower() in lowered for word in clause.keywords), clause.meaning
    added = [w for w in ADDED_OUTPUT_INSTRUCTIONS if w in lowered and w not in ALLOWED.get(name, ())]
    assert not added, f"{name} asks for what the paper does not: {added}"


def test_the_solver_template_keeps_the_papers_order() -> None:
    text = _defaults()["solve"]
    positions = [text.index(p) for p in ("{description}", "{problem}", "{options}")]
    assert text.lower().index("solve") < positions[0] and positions == sorted(positions)
    assert text.rstrip().endswith("{options}")  # nothing after the merged problem


def test_the_judge_template_has_worked_examples_and_ends_at_the_cue() -> None:
    text = _defaults()["extract_judge"]
    assert text.count("Extracted answer:") == 4  # three examples and the item's cue
    assert re.findall(r"Extracted answer: ([A-D])\n", text) and text.endswith("Extracted answer:")


def _rendered(task: str) -> list[str]:
    bench = GeoEval()
    return [bench.messages(item, task)[0]["content"][0]["text"] for item in bench.load_items(None, task, None)]


def test_rendered_prompts_merge_description_problem_and_choice_list() -> None:
    bench = GeoEval()
    for task in ("geoeval_2000", "geoeval_backward", "geoeval_aug", "geoeval_hard"):
        for item, text in zip(bench.load_items(None, task, None), _rendered(task), strict=True):
            row = item.fields
            choices = None if task == "geoeval_backward" else row["choices"]
            assert ("Description of the diagram: " in text) is bool(row["diagram_description"]), item.id
            if choices:  # one bracketed list, no letters
                assert text.endswith(f"\nChoices: [{', '.join(choices)}]")
                assert not re.search(r"^\(?[A-D][.)]", text, re.M)
            else:
                assert "Choices" not in text
            assert not any(w in text.lower() for w in ("answer:", "explain", "last line", "letter")), item.id


def test_geomevals_prompt_is_a_switch() -> None:
    bench = GeoEval().configure({"prompt_style": "geomeval"})
    item = bench.load_items(None, "geoeval_2000", 1)[0]
    text = bench.messages(item, "geoeval_2000")[0]["content"][0]["text"]
    assert 'on the last line as "Answer: ..." (the letter of the correct choice)' in text
    assert "\nA. 6\nB. 8\nC. 10\nD. 14" in text and "Its diagram is attached." in text
    assert GEOMEVAL_PROMPT not in _defaults().values()
    with pytest.raises(Exception, match="prompt style"):
        GeoEval().configure({"prompt_style": "terse"})


def test_geomevals_prompt_shows_mathqa_options_with_one_label_each() -> None:
    """MathQA writes its own labels ("a ) 9"); geomeval's prompt letters the options, so it
    shows "A. 9" -- "A. a ) 9" invited models to echo the list -- and a value naming an
    option is read against the value, not the label."""
    bench = GeoEval().configure({"prompt_style": "geomeval"})
    item = bench.load_items(None, "geoeval_2000", 1)[0]
    item.fields["choices"] = ["a ) 9", "b ) 12", "c ) 15", "d ) 18"]
    text = bench.messages(item, "geoeval_2000")[0]["content"][0]["text"]
    assert "\nA. 9\nB. 12\nC. 15\nD. 18" in text and "a )" not in text
    assert choose_option("The answer is 12.", parse_choices(item.fields["choices"]))[0] == "B"


CHOICES = ["6", "8", "10", "14"]


@pytest.mark.parametrize(
    ("response", "letters", "answer"),
    [
        # paper-style outputs: reasoning, then the result in a sentence; no "Answer:" line
        ("AC² = 6² + 8² = 100, therefore AC = 10.", "ABCD", "10"),
        ("By the Pythagorean theorem AC is 10, so the answer is C.", "ABCD", "C"),
        ("AB = 6 and BC = 8 are the legs. The correct answer is 10.", "ABCD", "10"),
        # the demonstration examples of the paper's Table 5
        ("The value of x is 3.5.", None, "3.5"),
        ("So the correct answer is C.", "ABCD", "C"),
        ("Thus the answer is 17.1.", None, "17.1"),
        ("Therefore, the answer should be choice D.", "ABCD", "D"),
        ("The answer to the angle ABC is 60°.", None, "60°"),
        ("So we got the area is 13.1. The closest answer is D.", "ABCD", "D"),
        ("We get b = 4.33. The closest choice is 4.3.", "ABCD", "4.3"),
        ("The degree measure of angle ABC is equal to 35 degrees.", None, "35"),
    ],
)
def test_rules_read_paper_style_outputs(response: str, letters: str | None, answer: str) -> None:
    assert paper_rules(response, letters)[0] == answer


def test_a_paper_style_output_is_scored_against_the_value_or_the_option() -> None:
    for response in ("AC² = 36 + 64 = 100, therefore AC = 10.", "AC is 10, so the answer is C."):
        found, _ = paper_rules(response, "ABCD")
        assert is_correct(found, "10", CHOICES)
    assert not is_correct(paper_rules("Hence AC = 14.", "ABCD")[0], "10", CHOICES)


@pytest.mark.parametrize(
    ("reply", "answer"),
    [("B", "B"), (" C.\n", "C"), ("Extracted answer: 12\\sqrt{3}", "12\\sqrt{3}"), ('"(2, 2)"', "(2, 2)"),
     ("The answer is B.", "B"), ('{"answer": "4.62"}', "4.62"), ("none", None), ("", None)],
)
def test_the_judges_plain_reply_is_read(reply: str, answer: str | None) -> None:
    assert parse_extraction(reply) == answer


def test_a_reply_that_is_no_answer_is_refused() -> None:
    with pytest.raises(ValueError, match="extracted answer only"):
        parse_extraction("Let me solve the problem again from the start. " * 10)


def test_the_judge_is_asked_in_table_4s_form_at_the_official_temperature() -> None:
    messages = extraction_messages("Find A C.", CHOICES, "AC = 10, option C.", default_set("geoeval", GeoEval.prompt_templates))
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert user.endswith("Question: Find A C. Choices: (A) 6 (B) 8 (C) 10 (D) 14\nModel response: AC = 10, option C.\n"
                         "Extracted answer:")
    assert GeoEval.judge_temperature == 0.7


class _Client:
    def __init__(self, reply: str | None) -> None:
        self.reply, self.asked = reply, []

    async def complete(self, messages, temperature=None):  # the ChatClient surface Judge.ask uses
        self.asked.append((messages, temperature))
        return type("R", (), {"text": self.reply, "error": None if self.reply is not None else "down"})()

    def forget(self, messages) -> None:
        pass


def test_judge_then_rules() -> None:
    prompts = default_set("geoeval", GeoEval.prompt_templates)
    client = _Client("C")
    judge = Judge("openai:j", client=client).for_benchmark(0.7)  # type: ignore[arg-type]
    found = asyncio.run(extract("AC is 10.", "Find A C.", CHOICES, judge, prompts))
    assert found == ("C", "judge", None) and client.asked[0][1] == 0.7
    down = Judge("openai:j", client=_Client(None))  # type: ignore[arg-type]
    answer, method, error = asyncio.run(extract("The answer should be choice C.", "Find A C.", CHOICES, down, prompts))
    assert (answer, method) == ("C", "answer-should") and error and "request failed" in error


def test_geomevals_judge_is_a_switch() -> None:
    prompts = default_set("geoeval", GeoEval.prompt_templates)
    client = _Client('{"answer": "C"}')
    judge = Judge("openai:j", client=client)  # type: ignore[arg-type]
    found = asyncio.run(extract("AC is 10.", "Find A C.", CHOICES, judge, prompts, "geomeval"))
    assert found == ("C", "judge", None)
    assert '"answer"' in client.asked[0][0][-1]["content"]
    assert GeoEval().configure({"extraction": "geomeval"}).extraction == "geomeval"
