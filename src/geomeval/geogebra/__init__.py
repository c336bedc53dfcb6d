"""geomeval's GeoGebra engine: parse, execute, render and verify construction scripts.

GGBench calls GeoGebra code machine-verifiable ground truth; this package makes that true
offline: `run_script` executes a script (or a model's whole answer) with GeoGebra's semantics
and a per-line status, `render_png` draws it, and `verify` compares a candidate
construction with a reference one. See README.md in this folder for the supported commands
and where GeoGebra 4.0 (the cross-check reference) differs from current GeoGebra.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from geomeval.geogebra.construction import Construction, LineStatus
from geomeval.geogebra.executor import Limits, run_blocks, run_script, split_blocks

# `verify` is imported here, not on first use: it names both a submodule and its function,
# and once the submodule is imported the package attribute would be the module.
from geomeval.geogebra.verify import Check, Verdict, verify

if TYPE_CHECKING:
    from geomeval.geogebra.render import (
        compose_long_image,
        render_long_image,
        render_png,
        render_steps,
    )

# The renderer's names, imported on first use: running and verifying scripts must not pay
# for matplotlib when only code is scored or the CLI starts.
_HOME = {
    "compose_long_image": "render", "render_long_image": "render", "render_png": "render",
    "render_steps": "render",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value

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
