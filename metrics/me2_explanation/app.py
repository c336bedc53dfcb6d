"""The me2_explanation metric Space: ME2 explanations against the teacher's: BLEU-2/4, ROUGE-L, METEOR (BERTScore where its local model is installed).

Gradio 6 (the Space's sdk_version); the app is geomeval's `metric_space.build_app`, which
evaluate's own widget cannot be on Gradio 6. Runs `compute()` on the JSON in the box.
"""

from pathlib import Path

from geomeval.publishing.metric_space import build_app

EXAMPLE = {
    "predictions": [
        "Draw the altitude AH from A to BC. Since AB = AC, H is the midpoint of BC, so BH = 3. In the right triangle ABH, AH = √(25 − 9) = 4, so the area is ½ · 6 · 4 = 12."
    ],
    "references": [
        "Because AB = AC, triangle ABC is isosceles, so the altitude AH from A to BC bisects BC and BH = 3. In the right triangle ABH, AH = √(5² − 3²) = 4. The area is ½ · 6 · 4 = 12."
    ]
}

demo = build_app(Path(__file__).resolve().parent, "me2_explanation", EXAMPLE)

if __name__ == "__main__":
    demo.launch()
