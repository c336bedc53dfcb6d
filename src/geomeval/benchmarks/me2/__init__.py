"""ME2: registered, not built yet (issue #8)."""

from ..base import PlannedBenchmark

PLANNED = PlannedBenchmark(
    name="me2",
    title="ME2",
    tasks=('me2_solve', 'me2_keypoints', 'me2_explain'),
    summary="Explaining solutions with visual keypoints.",
    issue=8,
)
