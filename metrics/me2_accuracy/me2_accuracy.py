"""ME2 accuracy (problem solving and visual keypoint identification) as an `evaluate` module.

A thin face: `_compute` calls `geomeval.benchmarks.me2.evaluation.evaluate_accuracy`, which
scores each response with the functions geomeval's runner uses and summarizes with the
runner's `face_summary` and `summarize`, so this module, `geomeval run me2` and the
lmms-eval tasks report the same numbers.
"""

import importlib

import datasets
import evaluate

# Not `from geomeval... import`: evaluate reads such a line as the pip name "geomeval" and would
# print `pip install geomeval`, a name no index holds for this project (README, "Installing").
try:
    evaluation = importlib.import_module("geomeval.benchmarks.me2.evaluation")
except ModuleNotFoundError as exc:
    if not (exc.name or "").startswith("geomeval"):
        raise
    raise ImportError(
        "me2_accuracy needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/me2_accuracy/resolve/main/"
        "wheels/geomeval-0.1.0-py3-none-any.whl', or `pip install \".[metrics]\"` in a geomeval checkout"
    ) from None

_CITATION = """\
@inproceedings{park2026me2,
    title = "Explain with Visual Keypoints Like a Real Mentor! A Benchmark for Multimodal Solution Explanation",
    author = "Park, Jaewoo and Park, Jungyang and Jang, Dongju and Chung, Jiwan and Yoo, Byungwoo and Shin, Jaewoo and Park, Seonjoon and Kim, Taehyeong and Yu, Youngjae",
    booktitle = "Proceedings of the AAAI Conference on Artificial Intelligence",
    year = "2026",
    eprint = "2504.03197",
    archivePrefix = "arXiv",
    url = "https://arxiv.org/abs/2504.03197",
}
"""

_DESCRIPTION = """\
ME2 (multimodal solution explanation) scores two of its tasks by accuracy:

- me2_solve: solving the problem. A multiple-choice answer is the option letter read from
  the response, in any usual form ("(B)", "B.", "{B}", "option B", "The final answer is: B");
  a short answer is checked against the gold value by geomeval's answer checker (values,
  units, exact forms) and, with judge=True, by an LLM judge where the rules find the two
  unequal ("4000 mm" for "4 m").
- me2_keypoints: identifying the visual keypoints. The response names one of five candidate
  keypoint sets, A-E; given the options' provenance, the module also counts which kind of
  distractor was chosen.

Accuracy is over the scored items, with coverage. A response with no readable answer is
wrong; a None prediction (no response) and a failed judgment are unscored, never wrong.
Unlike the official scripts, a domain's accuracy divides by that domain's own items.
"""

_KWARGS_DESCRIPTION = """
Scores ME2 problem-solving or keypoint-identification responses against gold answers.
Args:
    predictions (`list` of `str`): per item, the model's response (or, with extracted=True,
        its final answer or letter). `None` (no response) leaves the item unscored.
    references (`list` of `str`, or of numbers): per item, the gold answer: the option letter
        A-E for a multiple-choice item and for every keypoint item (which also takes the
        dataset's ClassLabel index 0-4), else the value ("12 cm", "y = 2x + 1").
    task (`str`, optional, default "me2_solve"): "me2_solve" or "me2_keypoints".
    question_formats (`list` of `str` or `int`): per item, "multiple-choice" or "short-answer"
        (or the ClassLabel index); required for me2_solve, unused by me2_keypoints.
    domains (`list` of `str` or `int`, optional): per item, "geometry" or "graph" (or the
        ClassLabel index); adds the per-domain breakdown.
    option_sources (`list` of `list` of `str` or `int`, optional, me2_keypoints only): per
        item, where each of the five options came from (correct, similar_problem,
        similar_summary, similar_keypoints, random), or None; adds chosen_sources.
    problems (`list` of `str`, optional): per item, the question (kept in the records; the
        official short-answer judge, which geomeval's default judge follows, does not see it).
    extracted (`bool`, optional, default False): predictions are final answers already.
    judge (`bool`, optional, default False, me2_solve only): let the LLM judge
        GEOMEVAL_JUDGE_MODEL names decide short answers the rules find unequal (refused with
        a ValueError when it is not set).
    per_item (`bool`, optional, default False): also return each item's reading and score.
Returns:
    accuracy (`float` in [0, 1] or `None`): over scored items; `None` when none is.
    n (`int`), task (`str`), extraction (`str`: "rules" or "given").
    coverage (`dict`), unscored (`dict`): per metric ("accuracy").
    methods (`dict`): how many answers each reading rule found.
    breakdowns (`dict`): "domain" (with domains) and, for me2_solve, "question_format": per
        bucket, the runner's summary of accuracy.
    chosen_sources (`dict`, with option_sources): how many responses chose each kind of
        option; chosen_sources_by_domain as well with domains.
    judge_failures (`int`, with judge=True).
    per_item (`list`, with per_item=True): per item, extracted, method, correct, explanation,
        judge, judge_error (and chosen_source for me2_keypoints).
Examples:
    >>> me2_accuracy = evaluate.load("metrics/me2_accuracy")
    >>> results = me2_accuracy.compute(predictions=["The final answer is: (B)"], references=["B"],
    ...                                question_formats=["multiple-choice"])
    >>> print(results["accuracy"], results["coverage"]["accuracy"])
    1.0 1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Me2Accuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # Gold answers as text (the dataset's `answer`) or, all of a batch, as numbers
            # (short-answer values, or `keypoint_answer` ClassLabel indices).
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
            codebase_urls=["https://huggingface.co/spaces/geomeval/me2_accuracy/tree/main", "https://github.com/jungyangpark/ME2"],
            homepage="https://me2-benchmark.github.io/",
            reference_urls=[
                "https://arxiv.org/abs/2504.03197",
                "https://github.com/jungyangpark/ME2",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        task="me2_solve",
        question_formats=None,
        domains=None,
        option_sources=None,
        problems=None,
        extracted=False,
        judge=False,
        per_item=False,
    ):
        return evaluation.evaluate_accuracy(
            predictions,
            references,
            task=task,
            question_formats=question_formats,
            domains=domains,
            option_sources=option_sources,
            problems=problems,
            extracted=extracted,
            judge=judge,
            per_item=per_item,
        )
