"""CapGeo reasoning accuracy (direct, or caption-assisted with and without the image) as an
`evaluate` module.

A thin face: `_compute` calls `geomeval.benchmarks.capgeo.evaluation.evaluate_accuracy`, which
reads each response's `<answer>` and checks it with the functions geomeval's runner uses and
summarizes with the runner's `face_summary`, so this module, `geomeval run capgeo` and the
lmms-eval tasks report the same numbers.
"""

import importlib

import datasets
import evaluate

# Not `from geomeval... import`: evaluate reads such a line as the pip name "geomeval" and would
# print `pip install geomeval`, a name no index holds for this project (README, "Installing").
try:
    evaluation = importlib.import_module("geomeval.benchmarks.capgeo.evaluation")
except ModuleNotFoundError as exc:
    if not (exc.name or "").startswith("geomeval"):
        raise
    raise ImportError(
        "capgeo_accuracy needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/capgeo_accuracy/resolve/main/"
        "wheels/geomeval-0.1.0-py3-none-any.whl', or `pip install \".[metrics]\"` in a geomeval checkout"
    ) from None

_CITATION = """\
@article{li2025capgeo,
  title   = {CapGeo: A Caption-Assisted Approach to Geometric Reasoning},
  author  = {Li, Yuying and Qian, Siyi and Liang, Hao and Zheng, Leqi and An, Ruichuan and Guo, Yongzhen and Zhang, Wentao},
  journal = {arXiv preprint arXiv:2510.09302},
  year    = {2025}
}
"""

_DESCRIPTION = """\
CapGeo has a captioning model restate a geometry problem's figure in words and a reasoning
model solve the problem from it: with the figure and the caption (with_image), from the
caption alone (without_image), or, as the baseline, from the figure alone (direct). A
solution is scored by its final answer, given in <answer>...</answer> (or in a usual answer
phrase): right when it equals the gold answer, names the gold option, or states the gold
option's value; accuracy is the share of scored problems answered right.

A response with no readable answer is wrong; a None prediction (no response) is unscored and
lowers coverage instead, and so is a caption-mode item whose caption is None (the captioner
gave none), whatever the response. No judge is involved, as in `geomeval run capgeo`.
"""

_KWARGS_DESCRIPTION = """
Scores CapGeo reasoning responses against gold answers.
Args:
    predictions (`list` of `str`): per item, the reasoner's response. `None` (no response)
        leaves the item unscored.
    references (`list` of `str`): per item, the gold answer as the source gives it (a letter,
        an option's text or a value).
    choices (`list` of `list` of `str` or `None`, optional): per item, the options' texts (None
        or [] for a free-form item); let a letter or an option's text count.
    units (`list` of `str` or `None`, optional): per item, the answer's unit.
    mode (`str`, optional, default "direct"): direct, with_image or without_image.
    captions (`list` of `str` or `None`, optional): per item, the caption the reasoner was
        shown (None where the captioner gave none); required in a caption mode.
    question_types (`list` of `str` or `int`, optional): per item, multi_choice or free_form
        (or the ClassLabel index); adds a breakdown.
    subjects (`list` of `str`, optional): per item, the subject; adds a breakdown.
    per_item (`bool`, optional, default False): also return each item's extraction and score.
Returns:
    accuracy (`float` in [0, 1] or `None`): over scored items.
    n (`int`), mode (`str`).
    coverage (`dict`), unscored (`dict`): per metric.
    methods (`dict`): how many answers each extraction rule found.
    breakdowns (`dict`, with question_types or subjects): per group, per bucket, the runner's
        summary.
    per_item (`list`, with per_item=True): per item, extracted, method, correct, explanation.
Examples:
    >>> capgeo_accuracy = evaluate.load("metrics/capgeo_accuracy")
    >>> results = capgeo_accuracy.compute(predictions=["<think>...</think><answer>B</answer>"],
    ...                                   references=["46°"], choices=[["34°", "46°", "56°"]])
    >>> print(results["accuracy"], results["coverage"]["accuracy"])
    1.0 1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CapgeoAccuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Value("string"),
                }
            ),
            license="Apache-2.0",  # geomeval's code; the data keep their own licenses (cards)
            codebase_urls=["https://huggingface.co/spaces/geomeval/capgeo_accuracy/tree/main"],
            homepage="https://arxiv.org/abs/2510.09302",
            reference_urls=["https://arxiv.org/abs/2510.09302"],
        )

    def _compute(
        self,
        predictions,
        references,
        choices=None,
        units=None,
        mode="direct",
        captions=None,
        question_types=None,
        subjects=None,
        per_item=False,
    ):
        return evaluation.evaluate_accuracy(
            predictions,
            references,
            choices=choices,
            units=units,
            mode=mode,
            captions=captions,
            question_types=question_types,
            subjects=subjects,
            per_item=per_item,
        )
