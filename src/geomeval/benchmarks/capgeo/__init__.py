"""CapGeo / CapGeo-Bench: registered, not built yet (issue #6)."""

from ..base import PlannedBenchmark

PLANNED = PlannedBenchmark(
    name="capgeo",
    title="CapGeo / CapGeo-Bench",
    tasks=('capgeo_bench', 'capgeo_reasoning'),
    summary="Caption-assisted geometric reasoning and keypoint scoring of figure captions.",
    issue=6,
)
