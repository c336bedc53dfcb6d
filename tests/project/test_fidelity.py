"""docs/fidelity.md lists every departure the cards state, and nothing else: it is generated
from the cards' differences tables, and a stale page fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from geomeval.benchmarks import REGISTRY
from geomeval.publishing.fidelity import COLUMNS, CardTableError, all_departures, departures, render

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "fidelity.md"
TABLE_HEAD = "| " + " | ".join(COLUMNS) + " |\n|---|---|---|---|---|---|\n"


def test_the_committed_page_is_what_the_cards_give() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), "run: python -m geomeval.publishing.fidelity"


def test_every_benchmark_states_its_departures_row_by_row() -> None:
    tables = all_departures()
    assert list(tables) == list(REGISTRY)
    page = render()
    for name, rows in tables.items():
        for row in rows:
            assert row.what and row.geomeval and row.why, (name, row)
        # the page carries each row as the card states it
        assert all(row.what in page for row in rows), name


def test_page_counts_rows_and_switches_per_benchmark() -> None:
    card = (
        "# X\n\n## Differences from the paper and the official code\n\nProse.\n\n" + TABLE_HEAD
        + "| a | p | o | g | w | `--flag` |\n| b | p | o | g | w | — |\n| c | p | o | g | w | (default) |\n\n## Next\n"
    )
    rows = departures("toy", card)
    assert [r.what for r in rows] == ["a", "b", "c"]
    assert [r.has_switch for r in rows] == [True, False, True]


@pytest.mark.parametrize(
    ("card", "message"),
    [
        ("# X\n\n## Fields\n", "no section"),
        ("# X\n\n## Differences from the paper and the official code\n\nNone.\n\n## Next\n", "holds no table"),
        ("## Differences from the paper and the official code\n\n| what | paper | geomeval |\n|---|---|---|\n| a | b | c |\n",
         "columns are"),
        ("## Differences from the paper and the official code\n\n" + TABLE_HEAD + "| a | b |\n", "row 1 has 2 cells"),
        ("## Differences from the paper and the official code\n\n" + TABLE_HEAD + "\nText.\n", "no rows"),
    ],
)
def test_a_card_without_a_usable_table_is_named(card: str, message: str) -> None:
    with pytest.raises(CardTableError, match=message) as caught:
        departures("toy", card)
    assert str(caught.value).startswith("toy: ")


@pytest.mark.slow
def test_check_flag_fails_on_a_stale_page(tmp_path: Path) -> None:
    stale = tmp_path / "fidelity.md"
    stale.write_text("old\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "geomeval.publishing.fidelity", "--out", str(stale)]
    checked = subprocess.run([*cmd, "--check"], capture_output=True, text=True, timeout=300)
    assert checked.returncode == 1 and "not current" in checked.stderr
    assert subprocess.run(cmd, capture_output=True, text=True, timeout=300).returncode == 0
    assert subprocess.run([*cmd, "--check"], capture_output=True, text=True, timeout=300).returncode == 0
    assert stale.read_text(encoding="utf-8") == render()
