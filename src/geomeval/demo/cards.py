"""Metric cards for "Try a metric": what each score means, where it is defined, its limits,
and examples a visitor can click to load.

Each card cites the paper the metric comes from (title and address, read from the
leaderboard file of that paper, so the two never disagree) and says which parts are
geomeval's own additions. The limits are the ones `limits` enforces, stated before a
visitor runs into them.
"""

from __future__ import annotations

import json
from functools import lru_cache

from .boards import LEADERBOARD_DIR
from .limits import (
    MAX_ANSWER_CHARS,
    MAX_CAPTION_CHARS,
    MAX_CHOICES_CHARS,
    MAX_IMAGE_BYTES,
    MAX_IMAGE_PIXELS,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPT_LINES,
    MAX_SCRIPT_SECONDS,
    MAX_SOLUTION_CHARS,
)


@lru_cache(maxsize=8)
def citation(paper_file: str) -> str:
    """"Title (authors, arXiv id), address" of a paper, from its leaderboard file."""
    data = json.loads((LEADERBOARD_DIR / f"{paper_file}.json").read_text(encoding="utf-8"))
    url = data.get("url", "")
    return f"{data.get('paper', paper_file)}" + (f", <{url}>" if url else "")


def caption_card() -> str:
    return (
        "**CapGeo keypoint score.** A caption and a reference are each read into keypoints of three dimensions: "
        "*elements* (points, segments, circles), *relations* (⊥, ∥, midpoint, on-circle) and *numerical* facts "
        "(AB = 5, ∠A = 40°). The published score is **recall** per dimension: reference keypoints the caption "
        "covers ÷ reference keypoints. Precision and F1 (caption keypoints the reference supports) are geomeval's "
        "additions, shown to spot hallucinations. The offline engine reads keypoints with rules; the paper uses an "
        "LLM judge (the *judge* engine when one is configured).\n\n"
        f"Source: {citation('capgeo')}.\n\n"
        f"**Limits:** a caption of at most {MAX_CAPTION_CHARS:,} characters."
    )


def script_card() -> str:
    from .try_metrics import supported_commands

    return (
        "**GGBench code track.** *Pass@1*: 1 when every line of the script runs in the GeoGebra engine. *PSNR* "
        "and *SSIM*: the drawn figure against the reference figure, both at 256×256 (GGBench's pixel metrics). "
        "The *verifier* (construction checks up to similarity) is geomeval's own; the paper's VLM judges need an "
        "LLM judge and are not run here. Against a reference, the script is scored by `geomeval run`'s own GGBench "
        "scorer as the answer to that item, floors included: a script with no line that runs, or a blank figure, "
        "scores Pass@1 0, PSNR 0 and SSIM 0, as it would in a run.\n\n"
        f"Source: {citation('ggbench')}.\n\n"
        f"**Limits:** at most {MAX_SCRIPT_CHARS:,} characters and {MAX_SCRIPT_LINES:,} lines, "
        f"{MAX_SCRIPT_SECONDS:g} s of CPU time to run, draw and verify it (a script past it is stopped), "
        "5,000 drawn objects (a larger figure is not drawn; the lines' results still show); a drawing of at most "
        f"{MAX_IMAGE_BYTES // 2**20} MiB and {MAX_IMAGE_PIXELS:,} pixels. The engine runs "
        f"{len(supported_commands())} GeoGebra commands (listed below); any other command fails its line and is "
        "named as unsupported."
    )


def solution_card() -> str:
    return (
        "**GeoLaux process metrics.** A judge marks each step of a solution correct (1) or not (0). "
        "*ACS*: the final answer's mark. *PCS*: 1 only when every step and the final answer are correct. "
        "*PQS* = tanh(3.5·(S − 1)) + 1, where S averages the step marks with weights e^(−i/n) for step i of n, "
        "so an early mistake costs more than a late one.\n\n"
        f"Source: {citation('geolaux')}.\n\n"
        f"**Limits:** a solution of at most {MAX_SOLUTION_CHARS:,} characters; the judge marks at most 64 steps "
        "(a longer solution is cut there, and the Space says so)."
    )


def answer_card() -> str:
    return (
        "**Answer check** (geomeval's, shared by every benchmark): the final answer is extracted from the response "
        "(\\boxed{}, 'the answer is', an option letter, the last line) and compared with the gold answer by a chain "
        "of rules (exact value, option letter, symbolic equality, units); the verdict names the rule that decided it. "
        "It is the checker behind GeoEval's and GeoLaux's accuracy.\n\n"
        f"**Limits:** a response and a gold answer of at most {MAX_ANSWER_CHARS:,} characters each, choices of at "
        f"most {MAX_CHOICES_CHARS:,} characters (26 options), a unit of 20."
    )


CAPTION_EXAMPLES = [
    ["In triangle ABC, AB = AC = 5 and BC = 6. D is the midpoint of BC, and AD ⊥ BC.", "capgeo_bench:cb_01"],
    ["In triangle ABC, AB = AC = 5 and BC = 7. Circle O passes through A.", "capgeo_bench:cb_01"],
]
SCRIPT_EXAMPLES = [
    ["A = (0, 0)\nB = (6, 2)\ns = Segment(A, B)\nM = Midpoint(A, B)\nm = PerpendicularBisector(A, B)", "1"],
    ["A = (0, 0)\nB = (6, 2)\nc: x^2 + y^2 = 9\nl: y = 2x + 1\nP = Intersect(c, l)", ""],
    ["t = Text(\"三角形ABC\", (1, 1))\nA = (0, 0)\nB = (4, 0)\nC = (1, 3)\np = Polygon(A, B, C)", ""],
    ["g = Curve(cos(t), sin(t), t, 0, 2π)", ""],
]
ANSWER_EXAMPLES = [
    ["... so the answer is \\boxed{70^\\circ}", "70", "", "°"],
    ["The answer is (C)", "70", "A. 40°\nB. 70°\nC. 80°", "°"],
    ["Therefore AC = \\frac{10}{2} = 5.", "5", "", ""],
]
