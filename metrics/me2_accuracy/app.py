"""The me2_accuracy metric Space: ME2 problem-solving and keypoint-identification accuracy, answers read by rule.

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app

EXAMPLE = {
    "predictions": [
        "Since OA = OB, triangle OAB is isosceles, so ∠OBA = 35°.\nThe final answer is: (B)",
        "BD is half of BC = 24 cm, so BD = 12 cm.\nThe final answer is: 12 cm"
    ],
    "references": [
        "B",
        "12"
    ],
    "question_formats": [
        "multiple-choice",
        "short-answer"
    ]
}

demo = build_app(Path(__file__).resolve().parent, "me2_accuracy", EXAMPLE)

if __name__ == "__main__":
    demo.launch()
