"""What running a script leaves behind: the objects, each line's status, the view.

Kept apart from the executor so that the renderer and the verifier depend only on this
result, not on how commands are evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from geomeval.geogebra.objects import Geo, View


@dataclass
class LineStatus:
    """One script line: whether it ran, its error, and the labels it created."""

    line: int
    source: str
    ok: bool
    error: str | None = None
    labels: list[str] = field(default_factory=list)
    block: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "source": self.source,
            "ok": self.ok,
            "error": self.error,
            "labels": list(self.labels),
            "block": self.block,
        }


@dataclass
class Construction:
    """The state after a script: objects in construction order, per-line status, view.

    `created_at` maps each label to the script line that created it, and `blocks` counts the
    command blocks (fenced code blocks, or the whole script as one), so step snapshots can
    show the figure as it stood after each block.
    """

    objects: dict[str, Geo] = field(default_factory=dict)
    lines: list[LineStatus] = field(default_factory=list)
    view: View = field(default_factory=View)
    created_at: dict[str, int] = field(default_factory=dict)
    blocks: int = 1

    @property
    def pass_at_1(self) -> bool:
        """GGBench's Pass@1 for code: the script has commands and every one of them ran."""
        return bool(self.lines) and all(status.ok for status in self.lines)

    @property
    def errors(self) -> list[LineStatus]:
        return [status for status in self.lines if not status.ok]

    def get(self, label: str) -> Geo | None:
        return self.objects.get(label)

    def labels_through_block(self, block: int) -> list[str]:
        """Labels that exist once blocks 0..`block` have run, in construction order."""
        last_line = max((s.line for s in self.lines if s.block <= block), default=0)
        return [label for label in self.objects if self.created_at.get(label, 0) <= last_line]


    def dump(self) -> dict[str, Any]:
        """Per-line status and every object's values, in the reference harness's shape."""
        return {
            "lines": [s.to_dict() for s in self.lines],
            "objects": [geo.dump() for geo in self.objects.values()],
            "pass_at_1": self.pass_at_1,
        }
