"""The capgeo_keypoints metric Space: CapGeo-Bench keypoint recall, precision and F1 of a caption against the reference caption (offline engine).

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app

EXAMPLE = {
    "predictions": [
        "Triangle ABC has AB = 5, AC = 5 and BC = 6. Point D is the midpoint of BC. Segment AD is perpendicular to BC at D, and AD = 4.",
        "Circle O has radius 3 and AB is a diameter."
    ],
    "references": [
        "Triangle ABC has AB = AC = 5 and BC = 6. D is the midpoint of BC. AD ⊥ BC at D, and AD = 4.",
        "Circle O has radius 3 and AB is a diameter. C is a point on circle O with ∠CAB = 30°, and chords AC and BC are drawn. ∠ACB = 90° and BC = 3."
    ]
}

demo = build_app(Path(__file__).resolve().parent, "capgeo_keypoints", EXAMPLE)

if __name__ == "__main__":
    demo.launch()
