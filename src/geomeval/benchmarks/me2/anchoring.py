"""The paper's ablation of summary anchoring (its Appendix C), measured on two runs.

Keypoint identification shows the model the solution summary, because a problem may be
solved several ways and each way needs other keypoints: the summary anchors one of them. The
paper removes the summary and reports, from examples, that the model then drifts to other
solution paths and to keypoints that do not serve this one. geomeval measures that on a
keypoint-identification run with the summary (`--task me2_keypoints`, the paper's setup)
and one without it (`-T mode=without_summary`) of the same model: accuracy with and without,
per domain; which items were kept, lost or gained; and which kind of option each arm chose,
since a drift shows as picks of the distractors taken from similar problems or summaries.

Items are paired by id; an item unscored in either run is left out and counted, never taken
as a failure.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ...core.errors import UsageError
from ...core.records import SampleRecord
from ...engines.aggregate import ALL
from .benchmark import SUMMARY_TASK
from .features import ANCHORED, DOMAINS, OPTION_SOURCES
from .joint import _run
from .scoring import ACCURACY

ARMS = ("with_summary", "without_summary")
CELLS = ("kept", "lost", "gained", "neither")  # correct with / without the summary: yes-yes, yes-no, no-yes, no-no
NO_CHOICE = "no letter"


def _check_arm(records: dict[str, SampleRecord], anchored: bool, run_dir: Path) -> None:
    """Each run must be the arm it is given as: a record made before the ablation existed has
    no flag and was posed with the summary."""
    wrong = sum(1 for r in records.values() if r.meta.get(ANCHORED, True) is not anchored)
    if wrong:
        shown = "without" if anchored else "with"
        option = "" if anchored else " (run it with -T mode=without_summary)"
        raise UsageError(f"{run_dir}: {wrong} items were posed {shown} the solution summary{option}")


def anchoring_table(anchored_dir: Path, unanchored_dir: Path) -> dict[str, Any]:
    """Accuracy with and without the summary, the four kept/lost/gained/neither cells, and the
    kind of option chosen in each arm; overall and per domain, over items both runs scored."""
    arms = {
        ARMS[0]: _run(Path(anchored_dir), SUMMARY_TASK),
        ARMS[1]: _run(Path(unanchored_dir), SUMMARY_TASK),
    }
    _check_arm(arms[ARMS[0]], True, Path(anchored_dir))
    _check_arm(arms[ARMS[1]], False, Path(unanchored_dir))
    groups: dict[str, dict[str, Any]] = {}
    chosen: dict[str, Counter[str]] = {arm: Counter() for arm in ARMS}
    unpaired = 0
    for item_id, a in arms[ARMS[0]].items():
        b = arms[ARMS[1]].get(item_id)
        sa, sb = a.scores.get(ACCURACY), (b.scores.get(ACCURACY) if b else None)
        if b is None or sa is None or sb is None or not sa.scored or not sb.scored:
            unpaired += 1
            continue
        with_, without = bool(sa.value), bool(sb.value)
        cell = CELLS[(not with_) * 2 + (not without)]
        for arm, record in zip(ARMS, (a, b), strict=True):
            chosen[arm][(record.extracted or {}).get("chosen_source") or NO_CHOICE] += 1
        for group in (ALL, a.meta.get("domain") or "unknown"):
            row = groups.setdefault(group, {"items": 0, **{c: 0 for c in CELLS}})
            row["items"] += 1
            row[cell] += 1
    for row in groups.values():
        row[ARMS[0]] = (row["kept"] + row["lost"]) / row["items"]
        row[ARMS[1]] = (row["kept"] + row["gained"]) / row["items"]
        row["change"] = row[ARMS[1]] - row[ARMS[0]]
    order = [ALL, *DOMAINS, *sorted(k for k in groups if k not in (ALL, *DOMAINS))]
    kinds = [*OPTION_SOURCES, NO_CHOICE]
    return {
        "anchored_run": str(anchored_dir),
        "unanchored_run": str(unanchored_dir),
        "groups": {k: groups[k] for k in order if k in groups},
        "chosen": {arm: {kind: chosen[arm][kind] for kind in kinds} for arm in ARMS},
        "unpaired": unpaired,
        "only_in_unanchored_run": len(set(arms[ARMS[1]]) - set(arms[ARMS[0]])),
    }


def report_tables(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The comparison as report tables (`report.table_lines` prints them)."""
    accuracy = {
        "title": "Summary anchoring (the paper's Appendix C): keypoint identification accuracy",
        "columns": ["group", "items", "with summary", "without summary", "change", *CELLS],
        "rows": [[group, row["items"], row[ARMS[0]], row[ARMS[1]], row["change"], *(row[c] for c in CELLS)]
                 for group, row in result["groups"].items()],
        "style": "fraction",
    }
    kinds = list(result["chosen"][ARMS[0]])
    chosen = {
        "title": "Summary anchoring: which option each arm chose",
        "columns": ["arm", *kinds],
        "rows": [[arm.replace("_", " "), *(result["chosen"][arm][k] for k in kinds)] for arm in ARMS],
    }
    return [accuracy, chosen]
