"""The ggbench_code metric Space: GGBench code track: Pass@1 and verifier (geomeval's GeoGebra engine), BLEU, ROUGE-L, chrF, edit distance, RUBY.

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app

EXAMPLE = {
    "predictions": [
        "Plan: circles of radius AB about A and B; the line through their intersections bisects AB.\n```geogebra\nA = (1, 1)\nB = (1, 9)\nc_1 = Circle(A, B)\nc_2 = Circle(B, A)\nP = Intersect(c_1, c_2, 1)\nQ = Intersect(c_1, c_2, 2)\nm = Line(P, Q)\n```"
    ],
    "references": [
        "A = (1, 1)\nB = (1, 9)\nc_1 = Circle(A, B)\nc_2 = Circle(B, A)\nP = Intersect(c_1, c_2, 1)\nQ = Intersect(c_1, c_2, 2)\nm = PerpendicularBisector(A, B)"
    ]
}

demo = build_app(Path(__file__).resolve().parent, "ggbench_code", EXAMPLE)

if __name__ == "__main__":
    demo.launch()
