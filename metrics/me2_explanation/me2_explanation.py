"""ME2 keypoint-based explanation scores (text metrics and judge rubric) as an `evaluate` module.

A thin face: `_compute` calls `geomeval.benchmarks.me2.evaluation.evaluate_explanations`, which
scores each explanation with the functions geomeval's runner uses (`geomeval.engines.textmetrics`
offline, the LLM judge's rubric with judge=True) and summarizes with the runner's
`face_summary` and `summarize`, so this module, `geomeval run me2` and the lmms-eval task
report the same numbers.
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
        "me2_explanation needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/me2_explanation/resolve/main/"
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
ME2's keypoint-based explanation task: a model explains a solved problem for a student,
referring to the visual keypoints a teacher would draw on its figure. The explanation is
compared with the teacher's reference explanation:

- BLEU-2, BLEU-4, ROUGE-L, METEOR and BERTScore (F1, precision, recall), offline, from
  geomeval.engines.textmetrics. METEOR uses WordNet synonyms only when NLTK's data is present
  locally; BERTScore's offline default model is all-MiniLM-L6-v2, not the paper's
  roberta-large (set GEOMEVAL_BERTSCORE_MODEL to a local roberta-large folder and
  GEOMEVAL_BERTSCORE_LAYER=17 to compare with published numbers). The notes name both.
- With judge=True, an LLM judge's rubric: Correctness, Fidelity (to the reference's line of
  reasoning) and Referencing (of the same visual elements), 1-5 each, as published and
  rescaled to [0, 1] as (s - 1) / 4 (the " (0-100)" metrics). Without a judge they are None
  with coverage 0, and a failed judgment leaves the item unscored, never 0.
"""

_KWARGS_DESCRIPTION = """
Scores ME2 explanations against the teachers' reference explanations.
Args:
    predictions (`list` of `str`): per item, the model's reply, scored as it stands (a JSON
        wrapper included, as the official code scores it). `None` leaves the item unscored.
    references (`list` of `str`): per item, the teacher's reference explanation.
    keypoints (`list` of `list` of `dict`, optional): per item, the visual keypoints as
        {"element", "description"} dicts (checked; the official judge does not see them).
    answers (`list` of `str`, optional): per item, the gold answer, shown to the judge.
    problems (`list` of `str`, optional): per item, the problem (checked; the official
        judge does not see it).
    domains (`list` of `str` or `int`, optional): per item, "geometry" or "graph" (or the
        ClassLabel index); adds the per-domain breakdown.
    judge (`bool`, optional, default False): rate with the LLM judge GEOMEVAL_JUDGE_MODEL
        names (refused with a ValueError when it is not set).
    per_item (`bool`, optional, default False): also return each item's scores and verdict.
Returns:
    BLEU-2, BLEU-4, ROUGE-L, METEOR, BERTScore-F1, BERTScore-P, BERTScore-R (`float` in
        [0, 1] or `None`; BERTScore `None` when no model loads, with the reason in notes).
    Correctness, Fidelity, Referencing (`float` in [1, 5] or `None`) and Correctness (0-100),
        Fidelity (0-100), Referencing (0-100) (`float` in [0, 1] or `None`): `None` without
        a judge.
    n (`int`), coverage (`dict`), unscored (`dict`): per metric.
    notes (`list` of `str`): the METEOR variant, the BERTScore model, what needs a judge.
    breakdowns (`dict`, with domains): per domain, per metric, the runner's summary.
    judge_failures (`int`, with judge=True).
    per_item (`list`, with per_item=True): per item, explanation_chars, judge, judge_error
        and scores.
Examples:
    >>> me2_explanation = evaluate.load("metrics/me2_explanation")
    >>> text = "Draw the altitude AD. In the right triangle ABD, AD = 4."
    >>> results = me2_explanation.compute(predictions=[text], references=[text])
    >>> print(results["BLEU-4"], results["ROUGE-L"], results["Correctness"])
    1.0 1.0 None
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Me2Explanation(evaluate.Metric):
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
            codebase_urls=["https://huggingface.co/spaces/geomeval/me2_explanation/tree/main", "https://github.com/jungyangpark/ME2"],
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
        keypoints=None,
        answers=None,
        problems=None,
        domains=None,
        judge=False,
        per_item=False,
    ):
        return evaluation.evaluate_explanations(
            predictions,
            references,
            keypoints=keypoints,
            answers=answers,
            problems=problems,
            domains=domains,
            judge=judge,
            per_item=per_item,
        )
