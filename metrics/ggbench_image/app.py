"""The ggbench_image metric Space: GGBench image track: PSNR and SSIM of the drawings, here rendered from GeoGebra scripts (null: nothing drawn).

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app, render_scripts

EXAMPLE = {
    "predictions": [
        "A = (0, 0)\nB = (4, 0)\nc = Circle(A, B)\nt = Polygon(A, B, 4)",
        None
    ],
    "references": [
        "A = (0, 0)\nB = (4, 0)\nc = Circle(A, B)\nt = Polygon(A, B, 3)",
        "A = (0, 0)\nB = (4, 0)\nc = Circle(A, B)\nt = Polygon(A, B, 3)"
    ]
}

demo = build_app(Path(__file__).resolve().parent, "ggbench_image", EXAMPLE, prepare=render_scripts)

if __name__ == "__main__":
    demo.launch()
