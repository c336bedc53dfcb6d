"""Where geomeval's public faces live on disk: the `evaluate` metric modules.

The modules sit once in the repository's top-level `metrics/` folder; the wheel ships
that folder as `geomeval/metrics/`, so `evaluate.load(metric_path("geolaux_process"))`
works from a checkout and from an installed package alike, offline.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
# Installed: geomeval/metrics/ inside the package; checkout (src layout): <repo>/metrics/.
METRIC_ROOTS = (_PACKAGE / "metrics", _PACKAGE.parents[1] / "metrics")


def metric_path(name: str) -> str:
    """The folder of the `evaluate` metric module `name`, ready for `evaluate.load`."""
    if not name.isidentifier():
        raise ValueError(f"metric name must be a module name like 'geolaux_process', got {name!r}")
    for root in METRIC_ROOTS:
        folder = root / name
        if (folder / f"{name}.py").is_file():
            return str(folder)
    raise FileNotFoundError(
        f"no evaluate module {name!r} in {' or '.join(str(root) for root in METRIC_ROOTS)}"
    )
