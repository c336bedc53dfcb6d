"""Draw the embedded GeoLaux sample's figures (run once; the PNGs are committed).

`python -m samples.geolaux.generate` rewrites `src/geomeval/benchmarks/geolaux/sample/`'s
`original_images/` and `auxiliary_images/`. Each figure lists its
points, segments, circles and which segments are auxiliary (dashed, drawn only in
the auxiliary image). The project's GeoGebra engine will replace this once built.
"""

from __future__ import annotations

import math
from pathlib import Path

from samples.kit import report, sample_dir

S3 = math.sqrt(3)

# name: (points, segments, circles [(center, radius)], auxiliary points, auxiliary segments)
FIGURES: dict[str, dict] = {
    "en_1": {"pts": {"A": (0, 3.3), "B": (-1.2, 0), "C": (1.2, 0)}, "seg": ["AB", "AC", "BC"]},
    "en_2": {
        "pts": {"C": (0, 0), "A": (0, 3), "B": (4, 0)},
        "seg": ["CA", "CB", "AB"],
        "aux_pts": {"H": (1.44, 1.92)},
        "aux_seg": ["CH"],
    },
    "en_3": {
        "pts": {"O": (0, 0), "A": (-2 * S3, 0), "B": (2 * S3, 0), "C": (-S3, 3)},
        "seg": ["AB", "AC", "BC"],
        "circ": [("O", 2 * S3)],
    },
    "en_4": {
        "pts": {"A": (0, 0), "B": (4, 0), "C": (5.5, 2.5), "D": (1.5, 2.5)},
        "seg": ["AB", "BC", "CD", "DA"],
        "aux_seg": ["AC"],
    },
    "en_5": {
        "pts": {k: (2 * math.cos(math.radians(90 + 60 * i)), 2 * math.sin(math.radians(90 + 60 * i)))
                for i, k in enumerate("ABCDEF")},
        "seg": ["AB", "BC", "CD", "DE", "EF", "FA", "AC", "CE", "EA"],
        "aux_pts": {"H": (-S3 / 2, 0.5)},
        "aux_seg": ["BH"],
    },
    "zh_1": {
        "pts": {"A": (0, 6), "B": (0, 0), "C": (8, 0), "D": (8, 6), "O": (4, 3)},
        "seg": ["AB", "BC", "CD", "DA", "AC", "BD"],
    },
    "zh_2": {
        "pts": {"A": (6, 6), "B": (0, 0), "C": (6 + 2 * S3, 0)},
        "seg": ["AB", "AC", "BC"],
        "aux_pts": {"D": (6, 0)},
        "aux_seg": ["AD"],
    },
    "zh_3": {
        "pts": {"A": (0, 4), "B": (-2, 0), "C": (2, 0), "D": (0, 0)},
        "seg": ["AB", "AC", "BC", "AD"],
    },
    "zh_4": {"pts": {"C": (0, 0), "A": (0, 3), "B": (3, 0)}, "seg": ["CA", "CB", "AB"]},
    "zh_5": {
        "pts": {"A": (0, 4), "B": (0, 0), "C": (4, 0), "D": (4, 4), "E": (2, 0), "F": (4, 1)},
        "seg": ["AB", "BC", "CD", "DA", "AE", "EF"],
        "aux_seg": ["AF"],
    },
}


def draw(spec: dict, path: Path, *, auxiliary: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = dict(spec["pts"])
    if auxiliary:
        points.update(spec.get("aux_pts", {}))
    fig, ax = plt.subplots(figsize=(3.2, 2.6), dpi=100)
    for seg in spec["seg"]:
        (x1, y1), (x2, y2) = points[seg[0]], points[seg[1]]
        ax.plot([x1, x2], [y1, y2], color="black", lw=1.2)
    if auxiliary:
        for seg in spec.get("aux_seg", []):
            (x1, y1), (x2, y2) = points[seg[0]], points[seg[1]]
            ax.plot([x1, x2], [y1, y2], color="black", lw=1.0, ls="--")
    for center, radius in spec.get("circ", []):
        ax.add_patch(plt.Circle(points[center], radius, fill=False, color="black", lw=1.2))
    xs = [p[0] for p in points.values()]
    ys = [p[1] for p in points.values()]
    cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
    for label, (x, y) in points.items():
        dx, dy = x - cx, y - cy
        norm = math.hypot(dx, dy) or 1.0
        ax.plot([x], [y], "o", color="black", ms=2.5)
        ax.annotate(label, (x, y), xytext=(9 * dx / norm, 9 * dy / norm), textcoords="offset points",
                    ha="center", va="center", fontsize=10)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.margins(0.15)
    fig.savefig(path, bbox_inches="tight", pad_inches=0.05)
    plt.close(fig)


def main() -> None:
    """Redraw the committed figures and say how large they are."""
    root = sample_dir("geolaux")
    (root / "original_images").mkdir(parents=True, exist_ok=True)
    (root / "auxiliary_images").mkdir(parents=True, exist_ok=True)
    written = []
    for name, spec in FIGURES.items():
        written.append(root / "original_images" / f"{name}.png")
        draw(spec, written[-1], auxiliary=False)
        if spec.get("aux_seg"):
            written.append(root / "auxiliary_images" / f"{name}_aux.png")
            draw(spec, written[-1], auxiliary=True)
    report(written, root)


if __name__ == "__main__":
    main()
