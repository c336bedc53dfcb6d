"""GGBench image-track metrics (PSNR, SSIM, LPIPS, judge rubrics) as an `evaluate` module.

A thin face: `_compute` calls `geomeval.benchmarks.ggbench.evaluation.evaluate_images`, which scores
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
        "ggbench_image needs the geomeval package (distribution name geomeval, not on PyPI): "
        "pip install 'geomeval[metrics] @ https://huggingface.co/spaces/geomeval/ggbench_image/resolve/main/"
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
GGBench's image track: a unified multimodal model draws a geometric construction, and its
final image is compared with the reference figure, both brought to 256x256:

- PSNR (dB, RGB 0-255; higher is better). Identical images have infinite PSNR; it is
  capped at 100 dB, as geomeval's runner does, and the output says for how many items.
- SSIM (grayscale, 11x11 Gaussian window, sigma 1.5; 1 for identical images).
- LPIPS (AlexNet, v0.1; lower is better), only with lpips=True and when the optional lpips
  package and locally provided AlexNet weights are available; otherwise it is left out
  and `notes` says why. Never on the metric's Hub Space, whose requirements install no
  lpips, torch or torchvision (geomeval never downloads the AlexNet weights either).

Each metric is the mean over the items where it is scored, with its coverage. A None
prediction (no response recorded, e.g. the server failed) is unscored; a drawing that
cannot be decoded, or is one flat colour, is the model's failure and is scored at each
metric's floor (PSNR 0, SSIM 0, LPIPS 1), as `geomeval run` scores it.
Given an LLM judge's 1-5 rubric scores, it adds GGBench's judge metrics (VLM-T, Step
Accuracy, Process Consistency, Problem-Solution Accuracy, VLM-I-Mid, VLM-I-Res, VLM-I) as
published (score / 5) and, for VLM-T and the VLM-I family, rescaled so 1 maps to 0
((score - 1) / 4, named with the suffix " (0-100)").
"""

_KWARGS_DESCRIPTION = """
Compares drawn construction images with reference figures.
Args:
    predictions (`list` of images): per item, the model's final image: a PIL image, a path,
        or a {"bytes", "path"} dict (the `datasets.Image` feature). `None` where no response
        was recorded: the item is unscored. An undecodable or blank drawing scores the floor.
    references (`list` of images): per item, the reference figure (required).
    lpips (`bool`, optional, default False): also compute LPIPS, when available.
    per_item (`bool`, optional, default False): also return each item's values and
        explanations.
    text_scores, step_accuracy, process_consistency, problem_solution_accuracy,
        result_scores (`list` of `int` or `None`, optional): per item, the judge's 1-5
        rubric scores (step_accuracy and process_consistency together), as in the
        ggbench_code module.
Returns:
    PSNR (`float`, dB, at most 100, or `None`), SSIM (`float`, at most 1, or `None`), LPIPS
        (`float` >= 0, or `None`; only when computed): means over the items where each is
        scored; `None` when no item is.
    n (`int`): number of items.
    coverage (`dict`): per metric, the share of items scored.
    unscored (`dict`): per pixel metric with unscored items, a list of {"item", "reason"}.
    notes (`list` of `str`): what the numbers need to be read with (the PSNR cap, LPIPS
        not computed and why).
    per_item (`list` of `dict`, with `per_item=True`): per item and pixel metric, `value`,
        `explanation` and `unscored`.
    With judge scores: the judge metrics and their coverage, as in ggbench_code.
Examples:
    >>> ggbench_image = evaluate.load("metrics/ggbench_image")
    >>> from PIL import Image
    >>> white = Image.new("RGB", (64, 64), "white")
    >>> results = ggbench_image.compute(predictions=[white, None], references=[white, white])
    >>> print(results["PSNR"], results["SSIM"], results["coverage"]["SSIM"])
    100.0 1.0 0.5
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GgbenchImage(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Image(),
                    "references": datasets.Image(),
                }
            ),
            license="Apache-2.0",  # geomeval's code; the data keep their own licenses (cards)
            codebase_urls=["https://huggingface.co/spaces/geomeval/ggbench_image/tree/main", "https://github.com/opendatalab-raiser/GGBench"],
            homepage="https://opendatalab-raiser.github.io/GGBench/",
            reference_urls=[
                "https://arxiv.org/abs/2511.11134",
                "https://huggingface.co/datasets/opendatalab-raiser/GGBench",
            ],
        )

    def _compute(self, predictions, references, lpips=False, per_item=False, **judge_scores):
        return evaluation.evaluate_images(predictions, references, lpips=lpips, per_item=per_item, **judge_scores)
