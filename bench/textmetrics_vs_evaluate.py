"""geomeval.engines.textmetrics against Hugging Face evaluate's modules, and its speed, on ME2-like pairs.

    python bench/textmetrics_vs_evaluate.py [--bert-model DIR --bert-layer N] [--evaluate]

Pairs: 15 geometry explanations (a model's and a teacher's), the size of a small ME2 run.
Prints, per metric, the mean over the pairs and the time taken, model loading timed apart.

With --evaluate, each of evaluate's bleu, rouge, meteor and bertscore modules that loads here
(it needs them, NLTK's data and roberta-large cached, or a network) is run on the same pairs,
one pair at a time as ME2 does, and the largest difference per metric is printed. Where one
does not load, the reason is printed instead; ROUGE-L is then compared with rouge_score
directly when that package is installed. For BERTScore pass --bert-model with a local
roberta-large folder and --bert-layer 17 to compare with evaluate's lang="en" setting.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

PAIRS = [
    (
        "Because AB = AC the triangle is isosceles, so its base angles are equal: "
        "angle B = (180 - 40)/2 = 70 degrees.",
        "Since AB = AC, triangle ABC is isosceles, so the base angles are equal. The angle sum "
        "of a triangle is 180°, hence angle B = (180° - 40°) / 2 = 70°.",
    ),
    (
        "The radius OA is perpendicular to the tangent at A, so angle OAP = 90°.",
        "A tangent is perpendicular to the radius drawn to the point of tangency, so OA ⊥ PA "
        "and angle OAP is a right angle.",
    ),
    (
        "By the Pythagorean theorem, BC = sqrt(3^2 + 4^2) = 5 cm.",
        "In right triangle ABC, BC² = AB² + AC² = 9 + 16 = 25, so BC = 5 cm.",
    ),
    (
        "Angles in the same segment are equal, so angle ADB = angle ACB = 35°.",
        "Angle ACB and angle ADB subtend the same arc AB, so they are equal: both are 35°.",
    ),
    (
        "The area is 1/2 * 6 * 8 = 24.",
        "The area of the triangle is half the product of its legs: 1/2 × 6 × 8 = 24 cm².",
    ),
    (
        "Parallel lines cut by a transversal make equal alternate angles, so x = 65.",
        "Since l ∥ m, the alternate interior angles are equal; therefore x = 65°.",
    ),
    (
        "The angle at the centre is twice the angle at the circumference, so angle AOB = 100°.",
        "Angle AOB is a central angle on arc AB and angle ACB an inscribed one on the same arc, "
        "so angle AOB = 2 × 50° = 100°.",
    ),
    (
        "Opposite angles of a cyclic quadrilateral add up to 180°, so angle D = 180 - 110 = 70.",
        "ABCD is inscribed in the circle, so angle B + angle D = 180°; angle D = 70°.",
    ),
    (
        "Triangles ABC and DEF are similar with ratio 2, so DE = 6 / 2 = 3.",
        "Since triangle ABC ~ triangle DEF with AB : DE = 2 : 1, DE = AB / 2 = 3.",
    ),
    (
        "The exterior angle equals the sum of the two remote interior angles: 45 + 60 = 105.",
        "By the exterior angle theorem, angle ACD = angle A + angle B = 45° + 60° = 105°.",
    ),
    (
        "Each interior angle of a regular hexagon is 120 degrees.",
        "The interior angles of a hexagon sum to (6 - 2) × 180° = 720°, and in a regular one "
        "they are equal, so each is 720° / 6 = 120°.",
    ),
    (
        "The circumference is 2πr = 10π.",
        "With radius 5, the circumference is C = 2π × 5 = 10π.",
    ),
    (
        "Vertical angles are equal, so y = 40.",
        "Angles AEC and BED are vertically opposite, hence equal: y = 40°.",
    ),
    (
        "The diagonals of a rhombus are perpendicular bisectors, so each side is 5.",
        "The diagonals 6 and 8 bisect each other at right angles, giving half-diagonals 3 and 4, "
        "so each side is sqrt(9 + 16) = 5.",
    ),
    (
        "The sum of the angles is 180, so the third angle is 180 - 50 - 60 = 70.",
        "In triangle ABC, angle C = 180° - angle A - angle B = 180° - 50° - 60° = 70°.",
    ),
]


def timed(label: str, work: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = work()
    print(f"  {label:<44} {time.perf_counter() - start:7.3f} s")
    return result


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def ours(args: argparse.Namespace) -> dict[str, list[float]]:
    from geomeval.engines import textmetrics as tm

    candidates = [c for c, _ in PAIRS]
    references = [r for _, r in PAIRS]
    print(f"geomeval.engines.textmetrics on {len(PAIRS)} pairs")
    result: dict[str, list[float]] = {}
    result["bleu2"] = timed("BLEU-2", lambda: [tm.bleu(c, r, 2) for c, r in PAIRS])
    result["bleu4"] = timed("BLEU-4", lambda: [tm.bleu(c, r, 4) for c, r in PAIRS])
    result["rouge_l"] = timed("ROUGE-L", lambda: [tm.rouge_l(c, r) for c, r in PAIRS])
    timed("METEOR: import nltk, look for WordNet", tm.meteor_variant)
    result["meteor"] = timed("METEOR", lambda: [tm.meteor(c, r) for c, r in PAIRS])
    print(f"  METEOR variant: {tm.meteor_variant()}")
    try:
        scorer = timed(
            "BERTScore: import torch, load the model",
            lambda: tm.BertScorer(args.bert_model, args.bert_layer),
        )
    except tm.BertScoreUnavailable as exc:
        print(f"  BERTScore not computed: {exc}")
        return result
    print(f"  BERTScore model: {scorer.label}")
    scores = timed(
        "BERTScore, score_pairs (batched)", lambda: scorer.score_pairs(candidates, references)
    )
    timed("BERTScore, one pair at a time", lambda: [scorer.score(c, r) for c, r in PAIRS])
    timed(
        "BERTScore, again (model cached)",
        lambda: tm.BertScorer(args.bert_model, args.bert_layer).score_pairs(candidates, references),
    )
    result["bertscore_p"] = [s[0] for s in scores]
    result["bertscore_r"] = [s[1] for s in scores]
    result["bertscore_f1"] = [s[2] for s in scores]
    return result


def theirs(args: argparse.Namespace) -> dict[str, list[float]]:
    """evaluate's modules one pair at a time, as ME2 calls them; those that load here."""
    result: dict[str, list[float]] = {}
    try:
        import evaluate
    except ImportError as exc:
        print(f"evaluate is not installed ({exc})")
        return result
    print("evaluate modules, one pair at a time")
    calls: dict[str, tuple[str, dict[str, Any], Callable[[dict[str, Any]], Any]]] = {
        "bleu2": ("bleu", {"max_order": 2}, lambda out: out["bleu"]),
        "bleu4": ("bleu", {"max_order": 4}, lambda out: out["bleu"]),
        "rouge_l": ("rouge", {}, lambda out: out["rougeL"]),
        "meteor": ("meteor", {}, lambda out: out["meteor"]),
    }
    modules: dict[str, Any] = {}
    for key, (name, options, pick) in calls.items():
        if name not in modules:
            try:
                modules[name] = evaluate.load(name)
            except Exception as exc:
                modules[name] = exc
        module = modules[name]
        if isinstance(module, Exception):
            print(f"  {key}: evaluate.load({name!r}) failed: {type(module).__name__}: {module}")
            continue
        result[key] = timed(
            key,
            lambda m=module, o=options, p=pick: [
                float(p(m.compute(predictions=[c], references=[r], **o))) for c, r in PAIRS
            ],
        )
    if "rouge_l" not in result:
        try:
            from rouge_score import rouge_scorer
        except ImportError:
            pass
        else:
            scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
            result["rouge_l"] = [scorer.score(r, c)["rougeL"].fmeasure for c, r in PAIRS]
            print("  rouge_l: from rouge_score directly (evaluate's module did not load)")
    try:
        bertscore = evaluate.load("bertscore")
        options = (
            {"lang": "en"}
            if args.bert_model is None
            else {"model_type": args.bert_model, "num_layers": args.bert_layer}
        )
        scores = timed(
            "bertscore",
            lambda: [
                bertscore.compute(predictions=[c], references=[r], **options) for c, r in PAIRS
            ],
        )
    except Exception as exc:
        print(f"  bertscore: not run here: {type(exc).__name__}: {exc}")
    else:
        result["bertscore_p"] = [s["precision"][0] for s in scores]
        result["bertscore_r"] = [s["recall"][0] for s in scores]
        result["bertscore_f1"] = [s["f1"][0] for s in scores]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bert-model", help="local model folder (default: geomeval's MiniLM)")
    parser.add_argument("--bert-layer", type=int, help="layer (default: the model's last)")
    parser.add_argument("--evaluate", action="store_true", help="also run evaluate's modules")
    args = parser.parse_args()
    print(f"HF_HUB_OFFLINE={os.environ.get('HF_HUB_OFFLINE', '')!r}")
    mine = ours(args)
    other = theirs(args) if args.evaluate else {}
    print(f"\n{'metric':<14}{'geomeval mean':>15}{'evaluate mean':>15}{'max |diff|':>12}")
    for key, values in mine.items():
        if key in other:
            diff = max(abs(a - b) for a, b in zip(values, other[key], strict=True))
            print(f"{key:<14}{mean(values):>15.6f}{mean(other[key]):>15.6f}{diff:>12.2e}")
        else:
            print(f"{key:<14}{mean(values):>15.6f}{'-':>15}{'-':>12}")


if __name__ == "__main__":
    main()
