"""The geoeval_accuracy metric Space: GeoEval's accuracy A (all items) and T (text-only items), answers extracted by rules offline.

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app

EXAMPLE = {
    "predictions": [
        "Opposite angles of a cyclic quadrilateral are supplementary, so ∠C = 180° − 110° = 70°, which is option B, so the answer is B.",
        "The two legs are 3 and 4, so the hypotenuse is 5.\nAnswer: 5.0"
    ],
    "references": [
        "70",
        "5"
    ],
    "choices": [
        [
            "55°",
            "70°",
            "110°",
            "140°"
        ],
        None
    ]
}

demo = build_app(Path(__file__).resolve().parent, "geoeval_accuracy", EXAMPLE)

if __name__ == "__main__":
    demo.launch()
