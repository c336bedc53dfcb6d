"""The paper's joint view of two runs (its Table 4): of the items both runs scored, which were
solved and identified, solved only, identified only, or neither, per domain.

A problem-solving run (`me2_solve`) and a keypoint-identification run (`me2_keypoints`) of
the same model are paired by item id; an item unscored in either run is left out and
counted, never taken as a failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.errors import UsageError
from ...core.records import SampleRecord
from ...core.runfiles import RUN_CONFIG, SAMPLES, read_samples
from ...engines.aggregate import ALL
from .features import DOMAINS
from .scoring import ACCURACY

CELLS = ("both", "solved_only", "identified_only", "neither")


def _run(run_dir: Path, task: str) -> dict[str, SampleRecord]:
    if not (run_dir / RUN_CONFIG).is_file():
        raise FileNotFoundError(f"{run_dir / RUN_CONFIG} not found: is {run_dir} a geomeval run folder?")
    records = {r.id: r for r in read_samples(run_dir / SAMPLES)}
    wrong = sorted({r.task for r in records.values()} - {task})
    if wrong or not records:
        raise UsageError(f"{run_dir} holds {', '.join(wrong) or 'no items'}, expected a {task} run of me2")
    return records


def joint_table(solve_dir: Path, keypoints_dir: Path) -> dict[str, Any]:
    """Counts and shares of the four cells, overall and per domain, over items both runs scored."""
    solve = _run(Path(solve_dir), "me2_solve")
    identify = _run(Path(keypoints_dir), "me2_keypoints")
    groups: dict[str, dict[str, Any]] = {}
    unpaired = 0
    for item_id, a in solve.items():
        b = identify.get(item_id)
        sa, sb = a.scores.get(ACCURACY), (b.scores.get(ACCURACY) if b else None)
        if sa is None or sb is None or not sa.scored or not sb.scored:
            unpaired += 1
            continue
        solved, identified = bool(sa.value), bool(sb.value)
        if solved:
            cell = "both" if identified else "solved_only"
        else:
            cell = "identified_only" if identified else "neither"
        for group in (ALL, a.meta.get("domain") or "unknown"):
            row = groups.setdefault(group, {"items": 0, **{c: 0 for c in CELLS}})
            row["items"] += 1
            row[cell] += 1
    for row in groups.values():
        row["shares"] = {c: row[c] / row["items"] for c in CELLS}
    order = [ALL, *DOMAINS, *sorted(k for k in groups if k not in (ALL, *DOMAINS))]
    return {
        "solve_run": str(solve_dir),
        "keypoints_run": str(keypoints_dir),
        "groups": {k: groups[k] for k in order if k in groups},
        "unpaired": unpaired,
        "only_in_keypoints_run": len(set(identify) - set(solve)),
    }
