"""GGBench code-track metrics (Pass@1, verifier, code similarity, judge rubrics) as an `evaluate` module.

A thin face: `_compute` calls `geomeval.benchmarks.ggbench.evaluation.evaluate_code`, which scores
each item with the functions geomeval's runner uses and summarizes them with the runner's
`metric_summary`, so this module, `geomeval run` and the lmms-eval task report the same numbers.
"""

import importlib

import datasets
import evaluate

# Not `from geomeval... import`: evaluate reads such a line as the pip name "geomeval" and would
# print `pip install geomeval`, a name no index holds for this project (README, "Installing").
try:
    evaluation = importlib.import_module("geomeval.benchmarks.ggbench.evaluation")
except ModuleNotFoundError as exc:
    if not (exc.name or "").startswith("geomeval"):
        raise
    raise ImportError(
        "ggbench_code needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/ggbench_code/resolve/main/"
        "wheels/geomeval-0.1.0-py3-none-any.whl', or `pip install \".[metrics]\"` in a geomeval checkout"
    ) from None

_CITATION = """\
@misc{wei2025ggbench,
    title = "{GGB}ench: A Geometric Generative Reasoning Benchmark for Unified Multimodal Models",
    author = "Wei, Jingxuan and Jia, Caijun and Bai, Xi and Xu, Xinglong and Li, Siyuan and Sun, Linzhuang and Yu, Bihui and He, Conghui and Wu, Lijun and Tan, Cheng",
    year = "2025",
    eprint = "2511.11134",
    archivePrefix = "arXiv",
    url = "https://arxiv.org/abs/2511.11134",
}
"""

_DESCRIPTION = """\
GGBench's code track: a model writes a plan and GeoGebra code for a geometric
construction. Per item, geomeval's GeoGebra engine runs the answer's code and the
reference script:

- Pass@1: 1 when every line of the answer's code runs, else 0.
- verifier: the final construction checked against the reference construction, object by
  object and relation by relation, up to a similarity transform; a score in [0, 1].
  Unscored (never 0) when the engine cannot run the reference script.
- BLEU, ROUGE-L, chrF, edit_distance (normalized Levenshtein, lower is better) and RUBY:
  the answer's code against the reference script (see geomeval.engines.codemetrics).

Each metric is the mean over the items where it is scored, with its coverage. Given an
LLM judge's 1-5 rubric scores, it adds GGBench's judge metrics (VLM-T, Step Accuracy,
Process Consistency, Problem-Solution Accuracy, VLM-I-Mid, VLM-I-Res, VLM-I) as
published (score / 5) and, for VLM-T and the VLM-I family, rescaled so 1 maps to 0
((score - 1) / 4, named with the suffix " (0-100)").
"""

_KWARGS_DESCRIPTION = """
Scores GeoGebra construction answers against reference scripts.
Args:
    predictions (`list` of `str`): per item, the model's answer: text with ```geogebra
        fenced blocks (run in order), or a bare GeoGebra script. `None` (no response) leaves
        every code metric of the item unscored.
    references (`list` of `str`): per item, the reference GeoGebra script (a bare script,
        as the dataset's `reference_script`).
    per_item (`bool`, optional, default False): also return each item's values and the
        engine's explanations.
    text_scores (`list` of `int` or `None`, optional): per item, the judge's 1-5 score of the
        plan (VLM-T).
    step_accuracy, process_consistency (`list` of `int` or `None`, optional, together): per
        item, the judge's 1-5 scores of the steps (VLM-I-Mid is their mean).
    problem_solution_accuracy (`list` of `int` or `None`, optional): per item, 1-5.
    result_scores (`list` of `int` or `None`, optional): per item, the judge's 1-5 score of
        the final figure against the reference figure (VLM-I-Res).
Returns:
    Pass@1, verifier, BLEU, ROUGE-L, chrF, RUBY (`float` in [0, 1] or `None`), edit_distance
        (`float` in [0, 1], lower is better, or `None`): means over the items where each is
        scored; `None` when no item is.
    n (`int`): number of items.
    coverage (`dict`): per metric, the share of items scored.
    unscored (`dict`): per code metric with unscored items, a list of {"item", "reason"}.
    per_item (`list` of `dict`, with `per_item=True`): per item and code metric, `value`,
        `explanation` and `unscored`.
    With judge scores: VLM-T, Step Accuracy, Process Consistency, Problem-Solution Accuracy,
        VLM-I-Mid, VLM-I-Res, VLM-I (score / 5 means) and VLM-T (0-100), VLM-I-Mid (0-100),
        VLM-I-Res (0-100), VLM-I (0-100) ((score - 1) / 4 means), each where its inputs are
        given, with their coverage.
Examples:
    >>> ggbench_code = evaluate.load("metrics/ggbench_code")
    >>> script = "A = (0, 0)\\nB = (4, 0)\\ns = Segment(A, B)"
    >>> results = ggbench_code.compute(predictions=[script], references=[script])
    >>> print(results["Pass@1"], results["verifier"], results["BLEU"])
    1.0 1.0 1.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GgbenchCode(evaluate.Metric):
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
            codebase_urls=["https://huggingface.co/spaces/geomeval/ggbench_code/tree/main", "https://github.com/opendatalab-raiser/GGBench"],
            homepage="https://opendatalab-raiser.github.io/GGBench/",
            reference_urls=[
                "https://arxiv.org/abs/2511.11134",
                "https://huggingface.co/datasets/opendatalab-raiser/GGBench",
            ],
        )

    def _compute(self, predictions, references, per_item=False, **judge_scores):
        return evaluation.evaluate_code(predictions, references, per_item=per_item, **judge_scores)
