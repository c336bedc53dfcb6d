"""CapGeo-Bench keypoint scores of figure captions (recall, precision, F1) as an `evaluate` module.

A thin face: `_compute` calls `geomeval.benchmarks.capgeo_bench.evaluation.evaluate_captions`, which
scores each caption with the scorer geomeval's runner uses and summarizes with the runner's
`metric_summary`, so this module, `geomeval run capgeo_bench` and the lmms-eval task
`capgeo_bench` report the same numbers.
"""

import importlib

import datasets
import evaluate

# Not `from geomeval... import`: evaluate reads such a line as the pip name "geomeval" and would
# print `pip install geomeval`, a name no index holds for this project (README, "Installing").
try:
    evaluation = importlib.import_module("geomeval.benchmarks.capgeo_bench.evaluation")
except ModuleNotFoundError as exc:
    if not (exc.name or "").startswith("geomeval"):
        raise
    raise ImportError(
        "capgeo_keypoints needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/capgeo_keypoints/resolve/main/"
        "wheels/geomeval-0.1.0-py3-none-any.whl', or `pip install \".[metrics]\"` in a geomeval checkout"
    ) from None

_CITATION = """\
@misc{li2025capgeo,
    title = "{CapGeo}: A Caption-Assisted Approach to Geometric Reasoning",
    author = "Li, Yuying and Qian, Siyi and Liang, Hao and Zheng, Leqi and An, Ruichuan and Guo, Yongzhen and Zhang, Wentao",
    year = "2025",
    eprint = "2510.09302",
    archivePrefix = "arXiv",
    url = "https://arxiv.org/abs/2510.09302",
}
"""

_DESCRIPTION = """\
CapGeo-Bench scores a caption of a geometric figure by its keypoints, in three dimensions:
elements (the objects named: points, segments, circles, polygons, angles, ...), spatial
relations (on, midpoint, parallel, perpendicular, tangent, diameter, ...) and numerical
relations (lengths, angle sizes, ratios, areas, coordinates, equalities). Per item and
dimension: recall = reference keypoints the caption states / reference keypoints (the score
CapGeo publishes), precision = caption keypoints the reference supports / caption keypoints,
and F1; "keypoint recall/precision/F1" is the mean over the dimensions the reference has
keypoints in. A dimension the reference states nothing in is not applicable for that item
(left out, never 0 or 1). Means are over items, with coverage.

Two engines: "offline" (geomeval's deterministic keypoint parser, English and Chinese, exact
matching on canonical forms) and "judge" (an LLM lists and matches keypoints; configured by
GEOMEVAL_JUDGE_MODEL, GEOMEVAL_JUDGE_BASE_URL, GEOMEVAL_JUDGE_API_KEY). The judge engine's
metrics carry the suffix " (judge)", as in geomeval's runner.
"""

_KWARGS_DESCRIPTION = """
Scores figure captions against reference captions by keypoints.
Args:
    predictions (`list` of `str`): per item, the candidate caption. `None` (no response)
        leaves every metric of the item unscored.
    references (`list` of `str`): per item, the reference caption (non-empty).
    engine (`str`, optional, default "offline"): "offline" or "judge" (needs
        GEOMEVAL_JUDGE_MODEL; refused with a ValueError when it is not set).
    language (`str`, optional, default "auto"): "en", "zh", or "auto" (decided per caption).
    classes (`list` of `str` or `int`, optional, with difficulties): per item, plane,
        analytic or solid (or 0, 1, 2); adds the Table-4 breakdown.
    difficulties (`list` of `int`, optional, with classes): per item, 1 to 4.
    per_item (`bool`, optional, default False): also return each item's scores and keypoints.
Returns:
    keypoint recall, keypoint precision, keypoint F1, and per dimension elements/relations/
        numericals recall, precision and F1 (`float` in [0, 1] or `None`): means over the
        items where each is scored; with engine="judge" the same names with " (judge)".
    n (`int`), engine (`str`), language (`str`).
    coverage (`dict`): per metric, the share of the n items scored.
    not_applicable (`dict`): per metric, how many items it does not apply to (not failures).
    unscored (`dict`): per metric with unscored items, a list of {"item", "reason",
        "not_applicable"}.
    breakdowns (`dict`, with classes and difficulties): per group ("class", "difficulty",
        "class_difficulty"), per bucket, per metric: the runner's summary (value, scored,
        total, coverage, not_applicable, ...).
    table (`dict`, with classes and difficulties): Table 4, recall per dimension by class and
        difficulty: {"title", "columns", "rows"}.
    per_item (`list`, with per_item=True): per item, {"scores": {metric: {value, explanation,
        unscored, not_applicable}}, "keypoints": the engine's counts and missed keypoints}.
Examples:
    >>> capgeo_keypoints = evaluate.load("metrics/capgeo_keypoints")
    >>> reference = "In triangle ABC, AB = AC = 5 and BC = 6. D is the midpoint of BC."
    >>> results = capgeo_keypoints.compute(predictions=[reference], references=[reference])
    >>> print(results["keypoint recall"], results["keypoint precision"])
    1.0 1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CapgeoKeypoints(evaluate.Metric):
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
            codebase_urls=["https://huggingface.co/spaces/geomeval/capgeo_keypoints/tree/main"],
            homepage="https://arxiv.org/abs/2510.09302",
            reference_urls=["https://arxiv.org/abs/2510.09302"],
        )

    def _compute(
        self,
        predictions,
        references,
        engine="offline",
        language="auto",
        classes=None,
        difficulties=None,
        per_item=False,
    ):
        return evaluation.evaluate_captions(
            predictions,
            references,
            engine=engine,
            language=language,
            classes=classes,
            difficulties=difficulties,
            per_item=per_item,
        )
