"""GeoLaux process metrics (ACS, PCS, PQS and the paper's breakdowns) as an `evaluate` module.

A thin face over `geomeval.benchmarks.geolaux.evaluation`: every number comes from
`process_metrics.summarize_process`, so this module, geomeval's runner and its lmms-eval task agree.
"""

import importlib

import datasets
import evaluate

# Not `from geomeval... import`: evaluate reads such a line as the pip name "geomeval" and would
# print `pip install geomeval`, a name no index holds for this project (README, "Installing").
try:
    evaluation = importlib.import_module("geomeval.benchmarks.geolaux.evaluation")
except ModuleNotFoundError as exc:
    if not (exc.name or "").startswith("geomeval"):
        raise
    raise ImportError(
        "geolaux_process needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/geolaux_process/resolve/main/"
        "wheels/geomeval-0.1.0-py3-none-any.whl', or `pip install \".[metrics]\"` in a geomeval checkout"
    ) from None

_CITATION = """\
@inproceedings{fu-etal-2026-geolaux,
    title = "{G}eo{L}aux: A Benchmark for Evaluating {MLLM}s' Geometry Performance on Long-Step Problems Requiring Auxiliary Lines",
    author = "Fu, Yumeng and Zhu, Jiayin and Zhang, Lingling and Wu, Wenjun and Zhao, Bo and Ma, Shaoxuan and Zhang, Yushun and Liu, Jun",
    booktitle = "Proceedings of the 64th Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
    year = "2026",
    url = "https://aclanthology.org/2026.acl-long.1137/",
    pages = "24784--24809",
}
"""

_DESCRIPTION = """\
GeoLaux's process metrics, computed from a judge's step-level marks of each solution:

- ACS (answer correctness score): the share of items whose final answer is judged correct.
- PCS (process correctness score): the share of items whose steps are all judged correct
  and whose final answer is correct (an item with no judged steps scores 0).
- PQS (process quality score): the mean over items of tanh(3.5 * (S - 1)) + 1, where
  S = sum(w_i * s_i) / sum(w_i) over the n judged steps with w_i = exp(-i / n), so early
  steps weigh more (n = 1 gives S = s_1; no steps gives S = 0).

Given the items' step-length buckets, problem types or first-error classes, it adds the
paper's breakdowns: ACS/PCS/PQS by step bucket with ΔPCS (longest minus shortest
populated bucket), by type with ACS - PCS, and the error-type distribution. The
first-error-step distribution is always reported.
"""

_KWARGS_DESCRIPTION = """
Computes GeoLaux's ACS, PCS and PQS from step judgments.
Args:
    predictions (`list` of `list` of `int`): per item, the judge's marks of the student's
        solution steps in order, 1 for a correct step and 0 for a wrong one. May be empty
        (no steps judged).
    references (`list` of `int`): per item, the judge's verdict on the final answer,
        1 correct and 0 wrong.
    step_buckets (`list` of `str` or `None`, optional): per item, the step-length bucket of
        the reference solution ("1-4", "5-8", "9-12", "13-24"; other labels are reported
        after these). `None` leaves the item out of the bucket breakdown.
    types (`list` of `str` or `None`, optional): per item, "calculation" or "proving".
        `None` leaves the item out of the type breakdown.
    error_types (`list` of `str` or `None`, optional): per item, the class of the first
        wrong step: "figure_comprehension", "knowledge", "calculation" or
        "logical_reasoning"; `None` where there is no wrong step or it was not classified.
Returns:
    ACS (`float`): share of items with a correct final answer, in [0, 1].
    PCS (`float`): share of items with every step and the final answer correct, in [0, 1].
    PQS (`float`): mean process quality score, in [0, 1] (one step: its mark; none: 0).
    n (`int`): number of items.
    first_error_step (`dict`): `counts` of items whose first wrong step is 1, 2, ... (keys
        are strings), `with_error` and `without_error`.
    by_step_bucket (`dict`, with `step_buckets`): per bucket, ACS, PCS, PQS and n.
    delta_pcs (`dict` or `None`, with `step_buckets`): the published ΔPCS, `value` =
        (PCS of 1-4 − PCS of 13-24) / PCS of 1-4 × 100, with `from` and `to`; `None` when
        either bucket is empty or PCS of 1-4 is 0.
    by_type (`dict`, with `types`): per type, ACS, PCS, PQS, ACS_minus_PCS and n.
    error_types (`dict`, with `error_types`): `counts` and `shares` per class, and the
        number of `classified` items.
Examples:
    >>> geolaux_process = evaluate.load("metrics/geolaux_process")
    >>> results = geolaux_process.compute(predictions=[[1, 1], [1, 0, 1]], references=[1, 1])
    >>> print({k: round(results[k], 4) for k in ("ACS", "PCS", "PQS")})
    {'ACS': 1.0, 'PCS': 0.5, 'PQS': 0.5954}
"""

@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GeolauxProcess(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # Stored as float64, not int: an int column would truncate a verdict of 0.5 to 0
            # on the way in; as floats it reaches the check below, which names the item.
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("float64")),
                    "references": datasets.Value("float64"),
                }
            ),
            license="Apache-2.0",  # geomeval's code; the data keep their own licenses (cards)
            homepage="https://github.com/Candice-yu/GeoLaux",
            codebase_urls=["https://huggingface.co/spaces/geomeval/geolaux_process/tree/main", "https://github.com/Candice-yu/GeoLaux"],
            reference_urls=["https://arxiv.org/abs/2508.06226"],
        )

    def _compute(self, predictions, references, step_buckets=None, types=None, error_types=None):
        return evaluation.evaluate_judgments(
            predictions, references, step_buckets=step_buckets, types=types, error_types=error_types
        )
