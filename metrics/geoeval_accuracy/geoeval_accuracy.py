"""GeoEval accuracy (A over all items, T over text-only items) as an `evaluate` module.

A thin face: `_compute` calls `geomeval.benchmarks.geoeval.evaluation.evaluate_accuracy`, which
extracts each response's final answer and checks it with the functions geomeval's runner uses
and summarizes with the runner's `metric_summary`, so this module, `geomeval run geoeval` and
the lmms-eval tasks report the same numbers.
"""

import importlib

import datasets
import evaluate

# Not `from geomeval... import`: evaluate reads such a line as the pip name "geomeval" and would
# print `pip install geomeval`, a name no index holds for this project (README, "Installing").
try:
    evaluation = importlib.import_module("geomeval.benchmarks.geoeval.evaluation")
except ModuleNotFoundError as exc:
    if not (exc.name or "").startswith("geomeval"):
        raise
    raise ImportError(
        "geoeval_accuracy needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/geoeval_accuracy/resolve/main/"
        "wheels/geomeval-0.1.0-py3-none-any.whl', or `pip install \".[metrics]\"` in a geomeval checkout"
    ) from None

_CITATION = """\
@inproceedings{zhang2024geoeval,
    title = "{G}eo{E}val: Benchmark for Evaluating {LLM}s and Multi-Modal Models on Geometry Problem-Solving",
    author = "Zhang, Jiaxin and Li, Zhongzhi and Zhang, Mingliang and Yin, Fei and Liu, Chenglin and Moshfeghi, Yashar",
    booktitle = "Findings of the Association for Computational Linguistics: ACL 2024",
    year = "2024",
    publisher = "Association for Computational Linguistics",
    eprint = "2402.10104",
    archivePrefix = "arXiv",
    url = "https://arxiv.org/abs/2402.10104",
}
"""

_DESCRIPTION = """\
GeoEval scores a model's solution to a geometry problem by its final answer. The answer is
extracted in two steps, as in the paper: an LLM judge copies the final answer out of the
response (only with judge=True and GEOMEVAL_JUDGE_MODEL set), then rules catch what the
judge missed; without a judge the rules alone decide ("the answer is ...", "Answer: ...",
\\boxed{}, JSON short_answer, <answer>, a closing option-letter line, and GeoEval's phrasings:
"the value of x is", "x ≈ 4.62", "the closest answer is D", "the correct option is C",
"Therefore, x = 12", the last ones only near the end). The extracted answer is right when it
equals the gold value (two-sided, exact forms such as 12√3 compared exactly) or names the
gold option.

- A: accuracy over every scored item.
- T: accuracy over the text-only items (no diagram); not applicable to the others.

A response with no extractable answer is wrong; a None prediction (no response) is
unscored and lowers coverage instead. Unlike the official scorer, geomeval does not accept
every answer smaller than the gold one (its `float(pred) - float(gold) < 1e-3` has no abs),
does not assume the subset size, and does not cast every extraction to float.
"""

_KWARGS_DESCRIPTION = """
Scores GeoEval responses against gold answers.
Args:
    predictions (`list` of `str`): per item, the model's response (or, with extracted=True,
        its final answer). `None` (no response) leaves the item unscored.
    references (`list` of `str`, or of numbers): per item, the gold value ("130",
        "12\\sqrt{3}", "(5, 2)"); may be empty where a gold letter is given.
    choices (`list` of `list` of `str` or `None`, optional): per item, the options (None for a
        free-form item); lets a letter or an option's text count.
    gold_letters (`list` of `str` or `None`, optional): per item, the gold option's letter.
    extracted (`bool`, optional, default False): predictions are final answers already.
    text_only (`list` of `bool`, optional): per item, True for a problem without a diagram;
        needed for T.
    subsets, sources, problem_types (`list` of `str` or `int`, optional): per item, the
        subset (geoeval_2000, geoeval_backward, geoeval_aug, geoeval_hard), source dataset
        and problem type (flat, solid, analytic), by name or ClassLabel index; each adds a
        breakdown.
    problems (`list` of `str`, optional): per item, the question, shown to the judge.
    judge (`bool`, optional, default False): extract with the LLM judge GEOMEVAL_JUDGE_MODEL
        names (refused with a ValueError when it is not set).
    per_item (`bool`, optional, default False): also return each item's extraction and score.
Returns:
    A, T (`float` in [0, 1] or `None`): accuracy over scored items; T is `None` without
        text_only.
    n (`int`), extraction (`str`: "rules", "judge" or "given").
    coverage (`dict`), not_applicable (`dict`), unscored (`dict`): per metric.
    methods (`dict`): how many answers each extraction rule found.
    notes (`list` of `str`); judge_failures (`int`, with judge=True).
    breakdowns (`dict`, with subsets, sources or problem_types): per group, per bucket, per
        metric, the runner's summary.
    per_item (`list`, with per_item=True): per item, extracted, method, correct,
        explanation, judge_error and scores.
Examples:
    >>> geoeval_accuracy = evaluate.load("metrics/geoeval_accuracy")
    >>> results = geoeval_accuracy.compute(predictions=["So the answer is 12."], references=["12"])
    >>> print(results["A"], results["coverage"]["A"])
    1.0 1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GeoevalAccuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # Gold values as text (the dataset's `answer`) or, all of a batch, as numbers.
            features=[
                datasets.Features(
                    {
                        "predictions": datasets.Value("string"),
                        "references": datasets.Value("string"),
                    }
                ),
                datasets.Features(
                    {
                        "predictions": datasets.Value("string"),
                        "references": datasets.Value("float64"),
                    }
                ),
            ],
            license="Apache-2.0",  # geomeval's code; the data keep their own licenses (cards)
            codebase_urls=["https://huggingface.co/spaces/geomeval/geoeval_accuracy/tree/main", "https://github.com/GeoEval/GeoEval"],
            homepage="https://arxiv.org/abs/2402.10104",
            reference_urls=[
                "https://arxiv.org/abs/2402.10104",
                "https://github.com/GeoEval/GeoEval",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        choices=None,
        gold_letters=None,
        extracted=False,
        text_only=None,
        subsets=None,
        sources=None,
        problem_types=None,
        problems=None,
        judge=False,
        per_item=False,
    ):
        return evaluation.evaluate_accuracy(
            predictions,
            references,
            choices=choices,
            gold_letters=gold_letters,
            extracted=extracted,
            text_only=text_only,
            subsets=subsets,
            sources=sources,
            problem_types=problem_types,
            problems=problems,
            judge=judge,
            per_item=per_item,
        )
