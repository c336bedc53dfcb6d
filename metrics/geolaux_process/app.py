"""The geolaux_process metric Space: GeoLaux's ACS, PCS and PQS from a judge's step marks (1 right, 0 wrong) and final-answer verdicts.

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app

EXAMPLE = {
    "predictions": [
        [
            1,
            1
        ],
        [
            1,
            0,
            1
        ]
    ],
    "references": [
        1,
        1
    ]
}

demo = build_app(Path(__file__).resolve().parent, "geolaux_process", EXAMPLE)

if __name__ == "__main__":
    demo.launch()
