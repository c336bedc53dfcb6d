"""GeoLaux's solver prompts, in geomeval's words, implementing the official ones' clauses.

The official solver prompts (the authors' repository, evaluation/prompts/getans_*.txt) are
Chinese, as the problems are, and one-shot: the role (a helper that gets a problem and its
figure and writes the solving approach and the answer); the solution written step by step in
because–therefore form, each "therefore" or each inference counting as one step; a worked
example in that form, its steps numbered "1)" and closed by a <STEPn> mark; then the problem,
its options appended with the question which one is right. For a calculation problem the
reply is only a JSON object with a "solution" and a "short_answer" that holds the numeric
value itself (not only an option letter), without the thinking process or other words; a
proof is plain numbered ∵/∴ steps. The defaults say the same in Chinese for a Chinese item
and in English for an English one; the worked example is geomeval's own problem (the
official one is an item of the release). The official proving prompt also quotes one
release problem after "here is the problem", before the item's own (the file's last line):
geomeval leaves that stray problem out (see the card).
"""

from __future__ import annotations

from typing import Any

from ...engines.images import image_part
from ...engines.prompts import PromptSet, Template
from .judging import JUDGE_TEMPLATES

# geomeval's own worked example (not a GeoLaux item), in the official example's form.
_EXAMPLE_ZH = "如图，在Rt△PQR中，∠Q=90°，PQ=6，QR=8，M是斜边PR的中点，则QM="
_STEPS_ZH = ("1) ∵ ∠Q = 90°，∴ PR² = PQ² + QR² = 36 + 64 = 100，PR = 10 <STEP1>\n"
             "2) ∵ M是斜边PR的中点，∴ QM = PR/2 = 5 <STEP2>")
_EXAMPLE_EN = "In right triangle PQR (see the figure), ∠Q = 90°, PQ = 6, QR = 8 and M is the midpoint of the hypotenuse PR. QM ="
_STEPS_EN = ("1) ∵ ∠Q = 90°, ∴ PR² = PQ² + QR² = 36 + 64 = 100, PR = 10 <STEP1>\n"
             "2) ∵ M is the midpoint of the hypotenuse PR, ∴ QM = PR/2 = 5 <STEP2>")

_ROLE_ZH = "你是解数学题的助手。你会得到一道数学题和这道题的图，你要写出这道题的解题思路和答案。"
_ROLE_EN = ("You are an assistant that solves math problems. You are given a math problem and its figure; "
            "write out how to solve it and its answer.")

_CALCULATION_ZH = _ROLE_ZH + """你的回复是一个JSON对象，有两个键："solution"（解题过程）和"short_answer"（简短答案）。\
"solution"用"因为……所以……"的形式一步一步地写，每一个"所以"或每做一次推理算一步。"short_answer"里直接写出数值答案，不能只写选项。
{{"solution": "[一步一步的详细解题过程]", "short_answer": "[简短答案]"}}
示例：
输入：""" + _EXAMPLE_ZH + """
输出：
{{"solution": \"""" + _STEPS_ZH + """", "short_answer": "5"}}
注意：不要输出思考过程，只输出JSON，不要有其他的话。
下面是题目，请作答：
{problem}{options}{auxiliary}"""

_PROVING_ZH = _ROLE_ZH + """请用"因为……所以……"的形式一步一步地写，每一个"所以"或每做一次推理算一步。
示例：
输入：""" + _EXAMPLE_ZH + """
输出：
""" + _STEPS_ZH + """
下面是题目，请作答：
{problem}{options}{auxiliary}"""

_CALCULATION_EN = _ROLE_EN + """ Reply with a JSON object with two keys, "solution" and "short_answer". \
Write the "solution" step by step in because–therefore form; each "therefore", or each inference made, is one step. \
The "short_answer" states the numeric answer itself, not only an option.
{{"solution": "[the detailed step-by-step solution]", "short_answer": "[the short answer]"}}
Example:
Input: """ + _EXAMPLE_EN + """
Output:
{{"solution": \"""" + _STEPS_EN + """", "short_answer": "5"}}
Do not output your thinking process; output only the JSON, with no other words.
Here is the problem; please answer:
{problem}{options}{auxiliary}"""

_PROVING_EN = _ROLE_EN + """ Write it step by step in because–therefore form; each "therefore", or each inference made, is one step.
Example:
Input: """ + _EXAMPLE_EN + """
Output:
""" + _STEPS_EN + """
Here is the problem; please answer:
{problem}{options}{auxiliary}"""

_OPTIONS_ZH = "\n下列选项中哪一个是正确的？\n{choices}"
_OPTIONS_EN = "\nWhich of the following options is correct?\n{choices}"
_AUXILIARY_ZH = "\n辅助线提示：{text}{image_note}"
_AUXILIARY_EN = "\nA helpful auxiliary construction: {text}{image_note}"
_DRAWN = {"zh": "（第二张图中已画出）", "en": " (the second image shows it drawn)"}

_SOLVER_FILLS = ("problem", "options", "auxiliary")
_CALC_CLAUSES = ("the official calculation solver prompt (getans_cal_prompt): the role (a problem and its figure "
                 "in, the approach and the answer out); a JSON reply with \"solution\" and \"short_answer\"; "
                 "because–therefore steps, each therefore or inference one step; the numeric value in the short "
                 "answer, not only an option; one worked example (geomeval's own problem) in numbered steps with "
                 "<STEPn> marks; no thinking process and nothing but the JSON; then the problem")
_PROOF_CLAUSES = ("the official proving solver prompt (getans_pro_prompt): the same role; because–therefore "
                  "steps, each therefore or inference one step; one worked example (geomeval's own problem) in "
                  "plain numbered steps with <STEPn> marks; then the problem (without the stray release problem "
                  "the official file quotes before it)")
TEMPLATES = (
    Template("calculation", _CALCULATION_ZH, _SOLVER_FILLS, required=("problem",),
             implements=_CALC_CLAUSES + "; in Chinese, for Chinese items (the release's)"),
    Template("proving", _PROVING_ZH, _SOLVER_FILLS, required=("problem",),
             implements=_PROOF_CLAUSES + "; in Chinese, for Chinese items (the release's)"),
    Template("calculation_en", _CALCULATION_EN, _SOLVER_FILLS, required=("problem",),
             implements="`calculation` in English, for English items"),
    Template("proving_en", _PROVING_EN, _SOLVER_FILLS, required=("problem",),
             implements="`proving` in English, for English items"),
    Template("options", _OPTIONS_ZH, ("choices",), required=("choices",),
             implements="the official code's options: appended to the problem as released, one a line, after "
                         "asking which one is correct"),
    Template("options_en", _OPTIONS_EN, ("choices",), required=("choices",),
             implements="`options` in English"),
    Template("auxiliary", _AUXILIARY_ZH, ("text", "image_note"), required=("text",),
             implements="geolaux_aux: the auxiliary construction given to the solver (the paper's auxiliary-line "
                        "ablation; the official code ships no prompt for it), in Chinese"),
    Template("auxiliary_en", _AUXILIARY_EN, ("text", "image_note"), required=("text",),
             implements="`auxiliary` in English"),
    *JUDGE_TEMPLATES,  # the step-level judge's (judging.py)
)


def language_of(row: dict[str, Any]) -> str:
    """"en" for an English item, else "zh" (the release's problems are Chinese)."""
    return "en" if row.get("language") == "en" else "zh"


def options_text(choices: list[str], language: str, prompts: PromptSet) -> str:
    """The options as the official code appends them (the released strings, one a line)."""
    if not choices:
        return ""
    return prompts.render("options_en" if language == "en" else "options", choices="\n".join(choices))


def build_messages(row: dict[str, Any], *, with_auxiliary: bool, prompts: PromptSet) -> list[dict[str, Any]]:
    """The solver's message: the figure (and, in geolaux_aux, the figure with the auxiliary
    lines) before the text, as the official code sends them."""
    language = language_of(row)
    suffix = "_en" if language == "en" else ""
    auxiliary = ""
    aux_image = row.get("auxiliary_image") if with_auxiliary else None
    if with_auxiliary and row.get("auxiliary_text"):
        note = _DRAWN[language] if aux_image else ""
        auxiliary = prompts.render("auxiliary" + suffix, text=row["auxiliary_text"], image_note=note)
    values = {"problem": row["problem_text"].strip(), "options": options_text(list(row["choices"] or ()), language, prompts),
              "auxiliary": auxiliary}
    kind = "proving" if row["type"] == "proving" else "calculation"
    text = prompts.render(kind + suffix, **values)
    content: list[dict[str, Any]] = [image_part(row["image"])]
    if aux_image and auxiliary:
        content.append(image_part(aux_image))
    content.append({"type": "text", "text": text})
    return [{"role": "user", "content": content}]
