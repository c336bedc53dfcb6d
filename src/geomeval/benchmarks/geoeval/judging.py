"""GeoEval's answer extraction as the paper publishes it (the default), and the switch to
geomeval's own (`-T extraction=geomeval`).

The paper (§4.2, Appendix Tables 4 and 5) extracts in two steps: an LLM reads the model's
output and writes out the answer it gives, prompted with a task description (a bot that
extracts the answer from a model's output to a geometry question) and worked examples (a
question with lettered choices, a model response, the extracted answer), the reply
completing "Extracted answer:"; then rules catch what the LLM missed. Here the default
judge prompt implements those clauses in geomeval's own words and examples and reads the
judge's reply as plain text; the rules are geomeval's (`extraction.rule_extract`) plus
the Table 5 phrasings they lack (`table5_extract`: "the answer should be …", "the answer to
… is …", "the closest … is <value>", "… is equal to …"), which come before taking a short
response whole. The
paper gives no temperature for its extractor; the official extraction call
(`tool/extract_result.py` through `tool/gpt_tool.py`) samples at 0.7, so GeoEval's judge
does (`GeoEval.judge_temperature`).

`-T extraction=geomeval` uses geomeval's earlier judge instead (`extraction.extract`): its
own instructions (report "none" when there is no answer, keep exact forms, do not solve)
and a JSON reply, at temperature 0. Its templates are not replaceable; a `--prompts` file
replaces the default judge's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal, get_args

from ...answers import extract_final_answer, read_option_letter
from ...core.errors import UsageError
from ...core.records import SampleRecord, Score, judged
from ...engines.judges import Judge
from ...engines.prompts import PromptSet, Template, default_set
from . import extraction
from .extraction import (
    MAX_ANSWER_CHARS,
    MAX_PROMPT_PROBLEM_CHARS,
    MAX_PROMPT_RESPONSE_CHARS,
    rule_extract,
)

# Which extraction (`-T extraction=...`); the first is the paper's.
ExtractionStyle = Literal["paper", "geomeval"]
EXTRACTION_STYLES: tuple[str, ...] = get_args(ExtractionStyle)
JUDGE_TEMPERATURE = 0.7  # tool/gpt_tool.py, which tool/extract_result.py calls
GEOMEVAL_JUDGE_TEMPERATURE = 0.0
CUE = "Extracted answer:"
_NONE_WORDS = frozenset({"none", "null", "n/a", "no answer", "no final answer", ""})

# Table 5's phrasings that geomeval's rules do not read, each followed by the answer.
_TABLE5: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("answer-should", re.compile(r"\banswer\s+should\s+be\s+(?:(?:the\s+)?(?:choice|option)\s+)?", re.I)),
    ("answer-to", re.compile(r"\banswer\s+to\s+[^.\n]{1,80}?\s+is\s+", re.I)),
    ("closest-value", re.compile(r"\bclosest\s+(?:answer|option|choice|value|one)\s+(?:is|would\s+be)\s+", re.I)),
    ("equal-to", re.compile(r"\bis\s+equal\s+to\s+", re.I)),
)
_UNIT_WORDS = re.compile(r"\s+(?:degrees?|units?)$", re.I)


def table5_extract(response: str, letters: str | None) -> tuple[str | None, str]:
    """The answer after the latest Table 5 phrasing near the end of `response` (the window
    `extraction.rule_extract`'s own phrasings use): an option letter, or a value without a
    trailing "degrees"/"units"; (None, "none") when there is none."""
    text = response.strip()[-extraction.MAX_RULE_CHARS:]
    window = text[extraction._window_start(text):]
    best: tuple[int, str, str] | None = None
    for method, pattern in _TABLE5:
        for match in reversed(list(pattern.finditer(window))):
            tail = window[match.end(): match.end() + extraction.MAX_CAPTURE_CHARS].lstrip()
            end = extraction._CAPTURE_END.search(tail)
            captured = extraction._clean(tail[: end.start()] if end else tail)
            captured = _UNIT_WORDS.sub("", captured).strip()
            letter = read_option_letter(captured, letters) if letters and len(captured) <= 12 else None
            answer = letter or (captured if captured and extraction._VALUE_START.match(captured) else None)
            if answer is not None:
                if best is None or match.start() > best[0]:
                    best = (match.start(), answer, method)
                break
    return (best[1], best[2]) if best else (None, "none")


def paper_rules(response: str, letters: str | None) -> tuple[str | None, str]:
    """The rules of the default extraction: geomeval's, then Table 5's phrasings where those
    found nothing or would take a short response whole."""
    answer, method = rule_extract(response, letters)
    if method in ("none", "whole-response"):
        found, found_method = table5_extract(response, letters)
        if found is not None:
            return found, found_method
    return answer, method


_SYSTEM = (
    "You pull results out of model outputs. Given a geometry question and the output a model wrote "
    "for it, you extract the answer that the output arrives at."
)

_PROMPT = """Question: In triangle PQR, PQ = PR and the angle at P is 50°. What is the angle at Q? \
Choices: (A) 50° (B) 65° (C) 80° (D) 130°
Model response: The triangle is isosceles with PQ = PR, so the base angles at Q and R are equal. \
They add up to 180° − 50° = 130°, which makes each of them 65°. So the answer is option B.
Extracted answer: B

Question: A circle has a diameter of 10 cm. What is its area in square centimetres? \
Choices: (A) 25π (B) 10π (C) 100π (D) 50π
Model response: Half of the diameter gives the radius, 5 cm. The area is π·5² = 25π cm². \
Therefore the answer is A.
Extracted answer: A

Question: The sides of a rectangle are 5 and 12. How long is a diagonal? \
Choices: (A) 17.0 (B) 13.0 (C) 11.0 (D) 7.0
Model response: A diagonal splits the rectangle into two right triangles with legs 5 and 12, \
so its length is √(25 + 144) = √169 = 13. The answer is B.
Extracted answer: B

Question: {problem}{options}
Model response: {response}
Extracted answer:"""

TEMPLATES = (
    Template("extract_system", _SYSTEM, (),
             implements="Table 4's task description: a bot that extracts the answer from a model's output to a "
                        "geometry question"),
    Template(
        "extract_judge", _PROMPT, ("problem", "options", "response"), required=("response",),
        implements="Table 4's few-shot extraction: worked examples (geomeval's own: a question with lettered "
                   "choices, a model response, the extracted option letter), then the question with its "
                   "choices and the model's response, the reply completing the extracted-answer cue",
    ),
)
_DEFAULTS = default_set("geoeval", TEMPLATES)


def extraction_messages(
    problem: str, choices: Sequence[str] | None, response: str, prompts: PromptSet = _DEFAULTS
) -> list[dict[str, Any]]:
    """The paper-style extraction request for one response (a long one shown by its end)."""
    problem = problem.strip()
    if len(problem) > MAX_PROMPT_PROBLEM_CHARS:
        problem = problem[:MAX_PROMPT_PROBLEM_CHARS] + " […]"
    shown = response.strip()
    if len(shown) > MAX_PROMPT_RESPONSE_CHARS:
        shown = "[… the start of the response is omitted …] " + shown[-MAX_PROMPT_RESPONSE_CHARS:]
    options = ""
    if choices:
        options = " Choices: " + " ".join(f"({chr(ord('A') + i)}) {c}" for i, c in enumerate(list(choices)[:26]))
    prompt = prompts.render("extract_judge", problem=problem or "(not given)", options=options, response=shown)
    return [{"role": "system", "content": prompts.render("extract_system")}, {"role": "user", "content": prompt}]


def parse_extraction(text: str) -> str | None:
    """The judge's extracted answer, written as plain text after the cue: its first line, the
    cue dropped if echoed; None when it says there is none. ValueError (the judge's one repair
    retry sees it) for a reply that is no short answer."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    answer = lines[0]
    if answer.lower().startswith(CUE.lower()):
        answer = answer[len(CUE):].strip()
    answer = extraction._clean(answer.strip("\"'“”"))
    stated = extract_final_answer(answer)
    if stated.method in ("json", "answer-tag", "boxed", "phrase") and stated.answer:
        answer = stated.answer  # "The answer is B." rather than a bare "B"
    if answer.lower() in _NONE_WORDS:
        return None
    if len(answer) > MAX_ANSWER_CHARS:
        raise ValueError(f"the reply has {len(answer)} characters; write the extracted answer only")
    return answer


async def extract(
    response: str | None, problem: str, choices: Sequence[str] | None, judge: Judge | None, prompts: PromptSet,
    style: str = EXTRACTION_STYLES[0],
) -> tuple[str | None, str, str | None]:
    """`(answer, method, judge_error)` by `style`'s two steps: the judge's answer first
    (method "judge"), the rules when it gives none or fails (`judge_error` then says why);
    without a judge, the rules alone; an empty response is never sent."""
    if style == "geomeval":
        if any(name in prompts.overrides for name in ("extract_system", "extract_judge")):
            raise UsageError("-T extraction=geomeval uses geomeval's own judge prompt; a --prompts file replacing "
                             "geoeval.extract_system/extract_judge applies to the default extraction")
        return await extraction.extract(response, problem, choices, judge)
    if style != "paper":
        raise UsageError(f"unknown GeoEval extraction {style!r}; extractions: {', '.join(EXTRACTION_STYLES)}")
    return await extraction.judge_then_rules(
        response, extraction._letters(choices), judge,
        lambda: extraction_messages(problem, choices, response or "", prompts), parse_extraction, paper_rules,
    )


async def score_record(record: SampleRecord, judge: Judge, prompts: PromptSet, style: str) -> dict[str, Score]:
    """A and T of one record, its answer extracted as `style` says (`scoring.answer_scores`
    then checks it, as for every GeoEval score)."""
    from .scoring import answer_scores

    record.judgment = None
    assert record.response is not None  # the engine scores a record without one (Benchmark.model_failed)
    target = record.target
    asked = not judge.offline and bool(record.response.strip())
    answer, method, judge_error = await extract(record.response, target["problem"], target.get("choices") or None,
                                                None if judge.offline else judge, prompts, style)
    scores = answer_scores(record, answer, method, judge_error)
    return judged(scores, "fallback" if judge_error else "decided") if asked else scores
