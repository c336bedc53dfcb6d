"""geomeval's GeoGebra engine: parse, execute, render and verify construction scripts.

GGBench calls GeoGebra code machine-verifiable ground truth; this package makes that true
offline: `run_script` executes a script (or a model's whole answer) with GeoGebra's semantics
and a per-line status, `render_png` draws it, and `verify` compares a candidate
construction with a reference one. See README.md in this folder for the supported commands
and where GeoGebra 4.0 (the cross-check reference) differs from current GeoGebra.
"""

from geomeval.geogebra.construction import Construction, LineStatus
from geomeval.geogebra.executor import Limits, run_blocks, run_script, split_blocks
from geomeval.geogebra.render import compose_long_image, render_long_image, render_png, render_steps
from geomeval.geogebra.verify import Check, Verdict, verify

__all__ = [
    "Check",
    "Construction",
    "Limits",
    "LineStatus",
    "Verdict",
    "compose_long_image",
    "render_long_image",
    "render_png",
    "render_steps",
    "run_blocks",
    "run_script",
    "split_blocks",
    "verify",
]
