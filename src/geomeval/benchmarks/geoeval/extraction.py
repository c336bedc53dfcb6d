"""GeoEval's answer extraction and correctness, as the paper publishes them, minus its scorer's bugs.

GeoEval extracts in two steps: an LLM judge reads the response and copies out its
final answer (a few-shot prompt; geomeval's own wording and examples), then rules
catch what the judge missed. Offline (no judge) the rules run alone. The rules are
the shared `extract_final_answer` (JSON `short_answer`, `<answer>`, `\\boxed{}`,
"the answer is …", "Answer: …", a final option-letter line) plus the phrasings
GeoEval's models favour, which it does not know:

- "the value of x is …" / "the unknown X is …"  (`value-of`)
- "… is approximately 4.62", "x ≈ 4.62", "x \\approx 4.62"  (`approximately`)
- "the closest answer is D", "closest to option D"  (`closest`)
- "the correct option is C", "option C is correct"  (`option-phrase`)
- "Therefore, x = 12." / "So AB = 5"  (`conclusion`)

These extra phrasings are looked for only near the end (the last few lines, at
most `WINDOW_CHARS` characters), because a number stated mid-reasoning is a step,
not the answer; with no marker at all the answer is None, never a guessed number.
The latest marker wins, so an opening "Answer: Let us compute…" does not beat a
closing "Therefore, x = 12." A judge failure falls back to the rules and records
the error; it never makes an item wrong by itself.

Correctness goes through the shared `check_answer`: the extracted answer is right
when it equals the gold value or names the gold option. The official scorer
(`safe_equal` in GeoEval's evaluation/help_func.py and tool/caculate_score.py)
tests `float(pred) - float(gold) < 1e-3` with no absolute value, so every answer
*smaller* than the gold one counts as correct (1.0 for a gold 5.0 is "right"). It
also hard-codes the subset size (`assert text_count + multi_modal_count == 2000`,
`"total": 2000`), and, since it first casts the extraction to float, can never
credit an option letter or an exact form such as 12√3. geomeval does none of this:
equality is two-sided, exact forms and letters are compared by `check_answer`, and
accuracy is over the items actually scored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ...answers import (
    ChoiceError,
    Verdict,
    check_answer,
    extract_final_answer,
    parse_choices,
    read_option_letter,
)
from ...answers.choices import is_bare_letter
from ...engines.judges import Judge, reply_object
from ...engines.prompts import PromptSet, Template, default_set

MAX_RULE_CHARS = 30_000  # rules read only the response's tail: a final answer is at the end
WINDOW_CHARS = 800  # GeoEval's extra phrasings count only this close to the end...
WINDOW_LINES = 4  # ...and only in the last few non-empty lines
MAX_CAPTURE_CHARS = 200
MAX_ANSWER_CHARS = 300  # a judge "answer" longer than this is a copied solution, not an answer
MAX_PROMPT_RESPONSE_CHARS = 12_000  # what the judge is shown of a long response (its end)
MAX_PROMPT_PROBLEM_CHARS = 6_000
STRONG_METHODS = ("json", "answer-tag", "boxed")
_NONE_WORDS = frozenset({"none", "null", "n/a", "no answer", "no final answer", ""})

_VAR = r"\$?\\?(?:[A-Za-z]{1,3})(?:_\{?\w{1,3}\}?)?\$?"
_PHRASES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "value-of",
        re.compile(
            rf"\b(?:value\s+of|unknown)\s+(?:the\s+)?(?:unknown\s+)?(?:variable\s+)?{_VAR}"
            r"\s*(?:is|equals|=|would\s+be|must\s+be|:)\s*(?:equal\s+to\s+)?",
            re.I,
        ),
    ),
    (
        "approximately",
        re.compile(
            r"\b(?:is|equals|be|was|are|measures|gives|get)\s+(?:approximately|approx\.?|roughly|about|"
            r"around|nearly)(?:\s+equal\s+to)?\s+|≈\s*|\\approx\s*",
            re.I,
        ),
    ),
    (
        "closest",
        re.compile(
            r"\bclosest\s+(?:answer|option|choice|match|one)(?:\s+choice)?\s*(?:is|would\s+be|:)\s*"
            r"|\bclosest\s+to\s+(?=(?:option|choice|answer)\b)",
            re.I,
        ),
    ),
    (
        "option-phrase",
        re.compile(
            r"\b(?:correct|right|best|final)\s+(?:option|choice)\s*(?:is|would\s+be|:)\s*"
            r"|\b(?=(?:option|choice)\s*\(?[A-Z]\)?\s+is\s+(?:correct|right|the\s+answer)\b)",
            re.I,
        ),
    ),
    (
        "conclusion",
        re.compile(
            rf"\b(?:therefore|thus|hence|so)\b[,\s]{{0,3}}(?:we\s+(?:get|have|find|obtain)\s+)?"
            rf"(?:∠|m?\\angle\s*)?{_VAR}\s*=\s*",
            re.I,
        ),
    ),
)
_LETTER_METHODS = frozenset({"closest", "option-phrase"})
# Where a captured answer stops: a sentence end (a period not inside a number), a line
# break, a semicolon, or a clause that starts explaining ("…, which is option C").
_CAPTURE_END = re.compile(
    r"(?<!\d)\.(?!\d)|。|\n|;|；"
    r"|,?\s+(?:which|so|thus|hence|therefore|since|because|but|making|giving|rounded|matching|"
    r"corresponding|and\s+(?:so|thus|hence|therefore|the))\b"
    r"|,\s+(?:and|as|or)\b|\s+\((?=[A-Za-z]{2})",
    re.I,
)
_TRAILING_REMARK = re.compile(r"^([^()]{1,40}?)\s+\([^()]{1,80}\)$")
_SENTENCE_BREAK = re.compile(r"(?<!\d)\.(?!\d)|。|\n|;|；|[!?！？]")
_LEAD_FILLER = re.compile(
    r"^(?:\s*(?:approximately|approx\.?|about|around|roughly|nearly|≈|~|\\approx))+\s*", re.I
)
_VALUE_START = re.compile(r"[\d\\(+\-−√.π]")


# --- rules -------------------------------------------------------------------------------


def rule_extract(response: str | None, letters: str | None = None) -> tuple[str | None, str]:
    """The final answer the rules find in `response`, and the rule that found it.

    `letters` are the item's option letters ("ABCD"), or None for a free-form item.
    Precedence: an explicit structure (JSON `short_answer`, `<answer>`, `\\boxed{}`);
    then a last line that is only an option letter; then the latest answer phrase,
    shared or GeoEval's; then a short response that is itself the answer.
    """
    if response is None or not response.strip():
        return None, "none"
    text = response.strip()[-MAX_RULE_CHARS:]
    shared = extract_final_answer(text, letters=letters)
    if shared.method in STRONG_METHODS:
        return shared.answer, shared.method
    letter_line = _final_option_line(text, letters)
    if letter_line is not None:
        return letter_line, "option-line"
    own = _latest_geoeval_phrase(text, letters)
    if own is not None:
        answer, method, start, end = own
        later = extract_final_answer(text[end:], letters=letters)
        if later.method == "phrase":  # "the answer is …" comes after the GeoEval phrasing
            return _drop_remark(later.answer), "phrase"
        if shared.method == "phrase" and _phrase_opens_sentence_of(text, start, letters):
            return _drop_remark(shared.answer), "phrase"  # "The answer is B (x ≈ 70.1°)."
        return answer, method
    if shared.method == "phrase":
        return _drop_remark(shared.answer), "phrase"
    if shared.answer is not None:
        return shared.answer, shared.method
    return None, "none"


def _drop_remark(answer: str | None) -> str | None:
    """Drop a trailing remark: "B (x ≈ 70.1°)" → "B", "12 (rounded)" → "12"; "(2, 3)" stays."""
    if answer is None or not answer.endswith(")"):
        return answer
    match = _TRAILING_REMARK.match(answer)
    return match.group(1).rstrip() if match else answer


def _final_option_line(text: str, letters: str | None) -> str | None:
    """A closing line that is only an option letter ("C", "(C)", "**C.**") names the choice."""
    if not letters:
        return None
    last = text.rstrip().rsplit("\n", 1)[-1].strip()
    if not last or len(last) > 20 or not is_bare_letter(last):
        return None  # "D. 14" closing a response is the option list echoed back, not a choice
    return read_option_letter(last, letters)


def _window_start(text: str) -> int:
    """Where the end-of-response window starts: the last few non-empty lines, at most WINDOW_CHARS."""
    floor = max(0, len(text) - WINDOW_CHARS)
    position, lines = len(text), 0
    while position > floor:
        newline = text.rfind("\n", floor, position)
        if newline < 0:
            break
        if text[newline + 1 : position].strip():
            lines += 1
            if lines >= WINDOW_LINES:
                return newline + 1
        position = newline
    return floor


def _latest_geoeval_phrase(text: str, letters: str | None) -> tuple[str, str, int, int] | None:
    """The answer after the latest GeoEval phrasing in the window, its rule, start and end."""
    base = _window_start(text)
    window = text[base:]
    best: tuple[int, str, str, int] | None = None
    for method, pattern in _PHRASES:
        for match in reversed(list(pattern.finditer(window))):
            answer = _answer_after(window, match.end(), method, letters)
            if answer is not None:
                if best is None or match.start() > best[0]:
                    best = (match.start(), answer, method, base + match.end())
                break
    if best is None:
        return None
    start, answer, method, end = best
    return answer, method, base + start, end


def _phrase_opens_sentence_of(text: str, position: int, letters: str | None) -> bool:
    """Whether a shared answer phrase ("the answer is") precedes `position` in its sentence."""
    head = text[max(0, position - MAX_CAPTURE_CHARS) : position]
    ends = list(_SENTENCE_BREAK.finditer(head))
    sentence = head[ends[-1].end() :] if ends else head
    return extract_final_answer(sentence + " .", letters=letters).method == "phrase"


def _answer_after(window: str, position: int, method: str, letters: str | None) -> str | None:
    tail = window[position : position + MAX_CAPTURE_CHARS].lstrip()
    end = _CAPTURE_END.search(tail)
    captured = _clean(tail[: end.start()] if end else tail)
    if not captured:
        return None
    if method in _LETTER_METHODS:
        return read_option_letter(captured, letters or None)
    if not _VALUE_START.match(captured):
        return None  # "x is about the same as y", "the unknown X is missing": no value stated
    return captured


def _clean(answer: str) -> str:
    answer = _LEAD_FILLER.sub("", answer.strip())
    answer = answer.strip().strip("*_`$").strip().rstrip("。.，,；;:").strip()
    while answer.endswith(")") and answer.count(")") > answer.count("("):
        answer = answer[:-1].rstrip()  # the close of a parenthesis the answer sat in
    return answer


# --- the judge ------------------------------------------------------------------------------

_SYSTEM = "You read solutions to geometry problems and report the final answer they give. You reply with JSON only."

_PROMPT = """Below is a geometry problem and a model's response to it. Report the final \
answer that the response commits to.

How to report:
- Report the answer the response gives, even when you think it is wrong. Do not solve \
the problem yourself.
- When the response picks one of the options, report the option letter alone, e.g. "B".
- Otherwise report the value as the response writes it, without units or surrounding \
words. Keep exact forms (12\\sqrt{{3}}, 3/4, 5\\pi); a point as (x, y).
- When the response ends with an approximation, report the approximation.
- When the response refuses, stops before reaching a result, or settles on no single \
answer, report "none".

Examples:

Response: "Opposite angles of a cyclic quadrilateral add up to 180°, so ∠C = 180° − 110° \
= 70°. The options are A. 55°, B. 70°, C. 110°, D. 140°; 70° is option B, so the answer is B."
Reply: {{"answer": "B"}}

Response: "The altitude of an equilateral triangle with side 24 is 24·(√3/2). Hence the \
distance from the vertex to the base is \\boxed{{12\\sqrt{{3}}}}."
Reply: {{"answer": "12\\\\sqrt{{3}}"}}

Response: "By the law of cosines, x² = 5² + 3² − 2·5·3·cos 65° ≈ 21.32, so x ≈ 4.62."
Reply: {{"answer": "4.62"}}

Response: "The midpoint of A(−2, 5) and B(6, −1) is ((−2 + 6)/2, (5 − 1)/2). So M lies at (2, 2)."
Reply: {{"answer": "(2, 2)"}}

Response: "I am unable to see the figure, so I cannot tell which segments are equal. \
Please provide more information."
Reply: {{"answer": "none"}}

## Problem
{problem}{options}

## Response
{response}

Reply with exactly one JSON object and nothing else: {{"answer": "<the final answer, or none>"}}"""

# Registered with GeoEval's templates (prompts.TEMPLATES), so `--prompts` can replace them.
JUDGE_TEMPLATES = (
    Template("extract_system", _SYSTEM, (),
             implements="Table 4's task description: a bot that extracts the final answer from a model's output"),
    Template(
        "extract_judge", _PROMPT, ("problem", "options", "response"), required=("response",),
        implements="Table 4's few-shot extraction: the question with its choices and the model's response, "
                   "worked examples (geomeval's own), the option letter or the value extracted as given",
    ),
)
_DEFAULTS = default_set("geoeval", JUDGE_TEMPLATES)


def extraction_messages(
    problem: str, choices: Sequence[str] | None, response: str, prompts: PromptSet = _DEFAULTS
) -> list[dict[str, Any]]:
    """The judge's few-shot extraction prompt for one response (a long one shown by its end),
    rendered from `prompts`, the run's set."""
    problem = problem.strip()
    if len(problem) > MAX_PROMPT_PROBLEM_CHARS:
        problem = problem[:MAX_PROMPT_PROBLEM_CHARS] + " […]"
    shown = response.strip()
    if len(shown) > MAX_PROMPT_RESPONSE_CHARS:
        shown = "[… the start of the response is omitted …] " + shown[-MAX_PROMPT_RESPONSE_CHARS:]
    options = _options_block(choices)
    prompt = prompts.render("extract_judge", problem=problem or "(not given)", options=options, response=shown)
    return [{"role": "system", "content": prompts.render("extract_system")}, {"role": "user", "content": prompt}]


def _options_block(choices: Sequence[str] | None) -> str:
    try:
        options = parse_choices(list(choices) if choices else None)
    except ChoiceError:
        options = {chr(ord("A") + i): str(c) for i, c in enumerate((choices or [])[:26])}
    if not options:
        return ""
    return "\n\nOptions:\n" + "\n".join(f"{letter}. {text}" for letter, text in options.items())


def parse_extraction(text: str) -> str | None:
    """The judge's extracted answer: a string, or None for "none". Raises ValueError otherwise.

    The error text is what the judge sees in its one repair retry.
    """
    bare = text.strip().strip("`").strip().strip(".\"'").strip().lower()
    if bare in _NONE_WORDS:
        return None
    data = reply_object(text)
    if "answer" not in data:
        raise ValueError('field "answer" is missing')
    value = data["answer"]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f'"answer" must be a string, got {type(value).__name__}')
    answer = _clean(str(value))
    if answer.lower() in _NONE_WORDS:
        return None
    if len(answer) > MAX_ANSWER_CHARS:
        raise ValueError(f'"answer" has {len(answer)} characters; give the final answer only')
    return answer


async def extract(
    response: str | None,
    problem: str,
    choices: Sequence[str] | None,
    judge: Judge | None,
    prompts: PromptSet = _DEFAULTS,
) -> tuple[str | None, str, str | None]:
    """GeoEval's two-step extraction: `(answer, method, judge_error)`.

    With a judge, its answer comes first (method "judge"); when it finds none, the
    marker rules may still find one (a short response is then not taken whole, since
    the judge read it); when it fails, the rules decide and `judge_error` says why.
    Without a judge (None or offline) the rules alone decide. An empty response is
    never sent to the judge.
    """
    return await judge_then_rules(
        response, _letters(choices), judge, lambda: extraction_messages(problem, choices, response or "", prompts),
        parse_extraction, rule_extract,
    )


async def judge_then_rules(
    response: str | None,
    letters: str | None,
    judge: Judge | None,
    messages: Callable[[], list[dict[str, Any]]],
    parse: Callable[[str], str | None],
    rules: Callable[[str, str | None], tuple[str | None, str]],
) -> tuple[str | None, str, str | None]:
    """The two steps every GeoEval extraction shares, `(answer, method, judge_error)`: the
    judge's answer first (`messages()` asked, `parse` reading the reply), then `rules` when it
    gives none or fails; without a judge, the rules alone; an empty response is never sent."""
    if response is None or not response.strip():
        return None, "none", None
    if judge is None or judge.offline:
        return (*rules(response, letters), None)
    reply = await judge.ask(messages(), parse)
    if reply.error is None and reply.value is not None:
        return reply.value, "judge", None
    answer, method = rules(response, letters)
    if reply.error is None and method == "whole-response":
        return None, "none", None  # the judge read it and found no answer: no guess overrides that
    return answer, method, reply.error


def _letters(choices: Sequence[str] | None) -> str | None:
    if not choices:
        return None
    try:
        return "".join(parse_choices(list(choices))) or None
    except ChoiceError:
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[: min(len(choices), 26)]


# --- correctness -----------------------------------------------------------------------------


def is_correct(
    answer: str | None,
    gold_value: str | float | None,
    choices: Sequence[str] | None = None,
    gold_letter: str | None = None,
    *,
    unit: str | None = None,
) -> Verdict:
    """Whether `answer` equals the gold value or names the gold option (a truthy `Verdict`).

    Equality is `check_answer`'s two-sided policy, so a smaller answer is not "close
    enough" as it is for the official scorer. Malformed `choices` raise ValueError.
    """
    if answer is None or not answer.strip():
        return Verdict(False, "no-answer", "no final answer was given")
    options = list(choices) if choices else None
    verdicts: list[Verdict] = []
    if gold_value is not None and str(gold_value).strip():
        verdicts.append(check_answer(answer, str(gold_value), choices=options, unit=unit))
        if verdicts[-1]:
            return verdicts[-1]
    if gold_letter is not None and gold_letter.strip():
        verdicts.append(check_answer(answer, gold_letter.strip(), choices=options))
        if verdicts[-1]:
            return verdicts[-1]
    undecided = [v for v in verdicts if not v.decided]  # no rule decided: unscored, not wrong
    return (undecided or verdicts)[0] if verdicts else Verdict(False, "no-gold", "the item has no gold answer")
