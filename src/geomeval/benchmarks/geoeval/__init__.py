"""GeoEval: registered, not built yet (issue #7)."""

from ..base import PlannedBenchmark

PLANNED = PlannedBenchmark(
    name="geoeval",
    title="GeoEval",
    tasks=('geoeval_2000', 'geoeval_backward', 'geoeval_aug', 'geoeval_hard'),
    summary="Solving geometry problems in four subsets, scored after answer extraction.",
    issue=7,
)
