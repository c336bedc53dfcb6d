"""The capgeo_accuracy metric Space: CapGeo's reasoning accuracy (direct, or with a caption), answers read and checked offline.

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app

EXAMPLE = {
    "predictions": [
        "<think>Opposite angles of a cyclic quadrilateral are supplementary: 180° − 124° = 56°.</think><answer>C</answer>",
        "<think>The legs are 3 and 4, so the hypotenuse is 5.</think><answer>5</answer>"
    ],
    "references": [
        "56°",
        "5"
    ],
    "choices": [
        [
            "34°",
            "46°",
            "56°",
            "66°"
        ],
        None
    ],
    "mode": "without_image",
    "captions": [
        "In cyclic quadrilateral ABCD, ∠A = 124°. Find ∠C. Choices: A. 34° B. 46° C. 56° D. 66°",
        "In right triangle ABC, the legs are AC = 3 and BC = 4. Find AB."
    ]
}

demo = build_app(Path(__file__).resolve().parent, "capgeo_accuracy", EXAMPLE)

if __name__ == "__main__":
    demo.launch()
