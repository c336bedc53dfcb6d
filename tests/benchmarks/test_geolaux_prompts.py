"""Each default GeoLaux prompt implements the clauses of the official prompt it stands for
(the authors' evaluation/prompts/*.txt), in geomeval's words, and asks for nothing more.

The clauses are listed here as short meaning checks derived from the official files (not
their sentences). For the solver prompts and the judge rubrics, every sentence of a default's
instructions must be one of its clauses: a sentence that is none of them is an instruction
the official prompt lacks, and fails the test."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from geomeval.benchmarks import get_benchmark
from geomeval.benchmarks.geolaux.prompts import TEMPLATES

TEXT = {t.name: t.text for t in TEMPLATES}

# (clause, the words each sentence of it has: any one tuple of words, all present)
Clause = tuple[str, tuple[tuple[str, ...], ...]]

SOLVER_ZH_ROLE: list[Clause] = [
    ("a helper that solves math problems", (("解数学题的助手",),)),
    ("its input: the problem and its figure; its task: the approach and the answer", (("数学题", "图", "解题思路", "答案"),)),
]
SOLVER_ZH_STEPS: list[Clause] = [
    ("because–therefore, step by step; each therefore or inference is one step", (("因为", "所以", "一步一步", "算一步"),)),
]
SOLVER_ZH_EXAMPLE: list[Clause] = [
    ("one worked example: input and output", (("示例：",), ("输出：",))),
    ("then the problem", (("下面是题目", "请作答"),)),
]
CALC_ZH: list[Clause] = [
    *SOLVER_ZH_ROLE,
    ("a JSON object with the keys solution and short_answer", (("JSON", '"solution"', '"short_answer"'),)),
    *SOLVER_ZH_STEPS,
    ("the short answer holds the numeric value itself, not only an option", (("数值答案", "不能只写选项"),)),
    ("no thinking process, only the JSON, no other words", (("不要输出思考过程", "只输出JSON", "不要有其他的话"),)),
    *SOLVER_ZH_EXAMPLE,
]
PROOF_ZH: list[Clause] = [*SOLVER_ZH_ROLE, *SOLVER_ZH_STEPS, *SOLVER_ZH_EXAMPLE]
SOLVER_EN_ROLE: list[Clause] = [
    ("a helper that solves math problems", (("assistant", "solves math problems"),)),
    ("its input: the problem and its figure; its task: the approach and the answer",
     (("math problem", "figure", "how to solve", "answer"),)),
]
SOLVER_EN_STEPS: list[Clause] = [
    ("because–therefore, step by step; each therefore or inference is one step",
     (("step by step", "because–therefore", '"therefore"', "one step"),)),
]
SOLVER_EN_EXAMPLE: list[Clause] = [
    ("one worked example: input and output", (("Example:",), ("Output:",))),
    ("then the problem", (("Here is the problem", "please answer"),)),
]
CALC_EN: list[Clause] = [
    *SOLVER_EN_ROLE,
    ("a JSON object with the keys solution and short_answer", (("JSON", '"solution"', '"short_answer"'),)),
    *SOLVER_EN_STEPS,
    ("the short answer holds the numeric value itself, not only an option", (("numeric answer", "not only an option"),)),
    ("no thinking process, only the JSON, no other words", (("thinking process", "only the JSON", "no other words"),)),
    *SOLVER_EN_EXAMPLE,
]
PROOF_EN: list[Clause] = [*SOLVER_EN_ROLE, *SOLVER_EN_STEPS, *SOLVER_EN_EXAMPLE]
JUDGE_COMMON: list[Clause] = [
    ("a math teacher", (("数学老师",),)),
    ("given the problem, its figure, the reference answer and a student's answer", (("题目", "参考答案", "学生的解答"),)),
    ("grade the answer against the reference solution's steps, in two parts", (("参照参考答案的步骤", "两部分"),)),
    ("step by step: each step on its own; a right step on an earlier wrong result is right",
     (("逐步评估", "每一步", "只按这一步本身", "前面步骤", "错误结论", "仍算正确"),)),
    ("1 when right, 0 when wrong", (("正确打1分", "错误打0分"),)),
    ("the reply: JSON with Step_by_step_evaluation (a 0/1 list per step) and Final_judgment (1 or 0)",
     (("JSON", '"Step_by_step_evaluation"', '"Final_judgment"'), ('"Step_by_step_evaluation"', "每一步", "列表", "1或0"),
      ("格式为：",))),
    ("then the problem and the student's answer", (("下面是题目和学生的解答", "请评估"),)),
]
CALC_JUDGE: list[Clause] = [
    *JUDGE_COMMON,
    ("the final answer: is it the given correct answer", (("答案正确性", "正确答案"),)),
    ("no solution, an error, no final answer or no short_answer: wrong, no error analysis, still JSON, "
     "Final_judgment 0, the other keys \"null\"",
     (("特殊情况", "报错", "没能得出最终答案", '"short_answer"', "直接判错", "不必分析错误类型", '"Final_judgment"为0',
       '"null"'),)),
]
PROOF_JUDGE: list[Clause] = [
    *JUDGE_COMMON,
    ("the conclusion: only whether the one finally reached is the one to be proved", (("结论正确性", "要求证明的结论"),)),
    ("no solution (an error): wrong, no error analysis, still JSON, Final_judgment 0, the other keys \"null\"",
     (("特殊情况", "报错", "直接判错", "不必分析错误类型", '"Final_judgment"为0', '"null"'),)),
]
# The official error-type question (analyze_error): its clauses, the "!" category of the
# judge's own left out (the card's "error categories" row).
ERROR_TYPE_JUDGE: list[Clause] = [
    ("a math teacher who finds why a student went wrong and classifies the error",
     (("数学老师", "出错的原因", "归类错误类型"),)),
    ("given the problem, its figure, the reference answer and a model's wrong answer; told which steps are wrong",
     (("题目", "参考答案", "大模型", "错误解答", "哪几步做错了"),)),
    ("compare with the reference; the model as a student to teach geometry; analyse and classify",
     (("参照参考答案", "当作你的学生", "几何", "分析", "归类"),)),
    ("two parts", (("任务分两部分",),)),
    ("why each step marked 0 is wrong, in detail, the root cause", (("打了0分的步骤", "详细", "根本原因"),)),
    ("classify each into the four types; the type of every step in order; N/A for a right step",
     (("图形理解错误", "知识点错误", "计算错误", "逻辑推理错误", "依次", "每一个步骤", "N/A"),)),
    ("the four definitions follow", (("四种错误类型的含义",),)),
    ("figure comprehension: the points, lines, circles misread, e.g. angles or collinearity",
     (("【图形理解错误】", "点、线、圆", "角的关系", "共线"),)),
    ("knowledge: relations understood, but a false formula or theorem, or the wrong one chosen",
     (("【知识点错误】", "点线关系理解正确", "本身是错的", "选错了"),)),
    ("calculation: relations and knowledge right, the values computed wrong or units converted wrong",
     (("【计算错误】", "知识点也选对", "算错了", "单位换算"),)),
    ("logical reasoning: the reason does not give the conclusion, intuition, outside or false assumptions, "
     "incoherence", (("【逻辑推理错误】", "因果关系不成立", "凭直觉", "错误的假设", "逻辑混乱"),)),
    ("the root cause, not the surface one; two confusable cases", (("根本原因", "表面原因"), ("容易混淆",))),
    ("a formula misused because the figure was misread is figure comprehension (collinear points, "
     "right-triangle theorem)", (("公式用错", "图形认错"), ("共线的三个点", "直角三角形", "图形理解错误"))),
    ("not every knowledge or reasoning error is figure comprehension: an angle taken as right because it looks "
     "right is reasoning", (("不能把", "都归为图形理解错误"), ("看起来像直角", "逻辑推理错误"), ("臆断", "题目没有给出"))),
    ("the reply: JSON with Error_analysis (each wrong step's cause and why that type) and Error_type (a list, "
     "one type or N/A per step)",
     (("JSON", '"Error_analysis"', '"Error_type"'), ('"Error_analysis"', "出错原因", "为什么", '"Error_type"',
                                                    "长度等于步骤总数", "N/A"), ("格式为：",))),
    ("no solution, an error, no final answer or no short_answer: no analysis, both keys \"null\"",
     (("特殊情况", "报错", "没能得出最终答案", '"short_answer"', "不必分析错误", '"null"'),)),
    ("then the problem and the student's answer", (("下面是要分析的题目和学生的解答",),)),
]

CHECKED = {
    "calculation": CALC_ZH, "proving": PROOF_ZH, "calculation_en": CALC_EN, "proving_en": PROOF_EN,
    "calc_judge": CALC_JUDGE, "proof_judge": PROOF_JUDGE, "error_type_judge": ERROR_TYPE_JUDGE,
}


def instructions(text: str) -> list[str]:
    """A default's instruction sentences, up to the problem: the worked example's input and
    steps and the reply shapes are material, not instructions, and are left out."""
    text = text.split("{problem}")[0]
    kept = [line for line in text.splitlines()
            if not re.match(r"\s*(\{\{|\d\)|输入：|Input: |\"|[}\]]|题目：$)", line)]
    sentences = []
    for line in kept:
        sentences += re.split(r"(?<=。)|(?<=[.?!])\s+(?=[A-Z\"])", line)
    return [s.strip() for s in sentences if s.strip()]


def _matches(sentence: str, clause: Clause) -> bool:
    return any(all(word in sentence for word in words) for words in clause[1])


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_every_clause_is_implemented(name: str) -> None:
    text = TEXT[name]
    for clause in CHECKED[name]:
        assert any(all(word in text for word in words) for words in clause[1]), f"{name}: no {clause[0]!r}"


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_no_instruction_beyond_the_official_clauses(name: str) -> None:
    sentences = instructions(TEXT[name])
    assert sentences, name
    extra = [s for s in sentences if not any(_matches(s, clause) for clause in CHECKED[name])]
    assert not extra, f"{name}: instructions no official clause gives: {extra}"


def test_the_checker_catches_an_added_instruction() -> None:
    added = TEXT["calculation"].replace("下面是题目", "每一步都要写出所用的定理。\n下面是题目")
    extra = [s for s in instructions(added) if not any(_matches(s, c) for c in CALC_ZH)]
    assert extra == ["每一步都要写出所用的定理。"]
    added = TEXT["proving_en"].replace("Example:", "End with a line 'Answer: ...'.\nExample:")
    extra = [s for s in instructions(added) if not any(_matches(s, c) for c in PROOF_EN)]
    assert extra == ["End with a line 'Answer: ...'."]
    # the official clause geomeval leaves out (a category of the judge's own) is caught when added
    added = TEXT["error_type_judge"].replace("请找根本原因", "如果四种都不合适，可以自拟一种错误类型，以“！”开头。\n请找根本原因")
    assert [s for s in instructions(added) if not any(_matches(s, c) for c in ERROR_TYPE_JUDGE)] == [
        "如果四种都不合适，可以自拟一种错误类型，以“！”开头。"]
    # a calculation clause is not a proof's: the short-answer rule added to the proof judge is caught
    added = TEXT["proof_judge"].replace("下面是题目和", '没有"short_answer"键的解答直接判错。\n下面是题目和')
    assert [s for s in instructions(added) if not any(_matches(s, c) for c in PROOF_JUDGE)]


def test_proofs_are_asked_for_plain_steps_and_no_short_answer() -> None:
    for name in ("proving", "proving_en"):
        assert "short_answer" not in TEXT[name] and "JSON" not in TEXT[name], name
        assert "<STEP1>" in TEXT[name] and "<STEP2>" in TEXT[name]
    assert "short_answer" not in TEXT["proof_judge"] and '"short_answer"' in TEXT["calc_judge"]


def test_the_worked_example_is_no_release_item() -> None:
    """The official example is item 1_1_1 of the release (a square on AF, tan∠C); geomeval's is its own."""
    for name in ("calculation", "proving", "calculation_en", "proving_en"):
        assert "ADEF" not in TEXT[name] and "tan∠" not in TEXT[name]
        assert "PQR" in TEXT[name]


def test_options_and_auxiliary_add_no_output_instruction() -> None:
    assert "哪一个是正确的" in TEXT["options"] and "{choices}" in TEXT["options"]
    assert "Which of the following options is correct?" in TEXT["options_en"]
    for name in ("options", "options_en", "auxiliary", "auxiliary_en"):
        lowered = TEXT[name].lower()
        assert not any(word in lowered for word in ("json", "answer", "reply", "回复", "输出", "step", "步"))


def test_chinese_items_get_chinese_prompts_and_english_items_english() -> None:
    bench = get_benchmark("geolaux")
    for item in bench.load_items(None, "geolaux", None):
        text = bench.messages(item, "geolaux")[0]["content"][-1]["text"]
        chinese = "解数学题的助手" in text
        assert chinese == (item.fields["language"] == "zh"), item.id
        if item.fields["type"] == "proving":
            assert "short_answer" not in text, item.id


def test_geomeval_prompts_prints_the_defaults() -> None:
    printed = subprocess.run([sys.executable, "-m", "geomeval.cli", "prompts", "geolaux"], capture_output=True,
                             text=True, timeout=120, check=False)
    assert printed.returncode == 0, printed.stderr
    for name in CHECKED:
        assert f"  {name}:" in printed.stdout
    assert "Step_by_step_evaluation" in printed.stdout and "解数学题的助手" in printed.stdout
