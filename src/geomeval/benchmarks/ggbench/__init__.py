"""GGBench: registered, not built yet (issue #5)."""

from ..base import PlannedBenchmark

PLANNED = PlannedBenchmark(
    name="ggbench",
    title="GGBench",
    tasks=('ggbench_code', 'ggbench_image'),
    summary="Generating GeoGebra constructions: plan, code and figure.",
    issue=5,
)
