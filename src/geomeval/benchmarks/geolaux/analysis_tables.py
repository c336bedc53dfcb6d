"""GeoLaux's process analysis (`scoring.analysis`) laid out as the generic tables results.json
carries under "tables", so report.md prints it with every other benchmark's tables and the
report holds no GeoLaux code: ΔPCS and the ACS−PCS gap, where solutions first go wrong, and
the error types of wrong steps (the paper's shares, and apart each solution's first)."""

from __future__ import annotations

from typing import Any


def analysis_tables(analysis: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The analysis' tables, in report order; none for a run without judged items."""
    if not analysis:
        return []
    tables = [_overview(analysis)]
    first = analysis["first_error_step"]
    if first.get("counts"):
        rows: list[list[Any]] = [[step, count] for step, count in first["counts"].items()]
        rows.append(["none (all steps right)", first.get("without_error", 0)])
        tables.append({"title": "First wrong step of each judged solution", "columns": ["first wrong step", "solutions"],
                       "rows": rows})
    if analysis["error_types"].get("needed"):
        tables.append(_error_types("Error types of every wrong step", "wrong steps", analysis["error_types"]))
    if analysis["first_error_types"].get("needed"):
        tables.append(_error_types("Error type of each solution's first wrong step (not the paper's shares)",
                                   "solutions", analysis["first_error_types"]))
    return tables


def _overview(analysis: dict[str, Any]) -> dict[str, Any]:
    """ΔPCS and the ACS − PCS gap per problem type, and what the judge saw."""
    rows: list[list[Any]] = []
    delta = analysis.get("delta_pcs")
    if delta:
        rows.append([f"ΔPCS (relative drop of PCS from {delta['from']} to {delta['to']} steps)",
                     f"{delta['value']:.1f}%"])
    for kind, gap in (analysis.get("acs_pcs_gap_by_type") or {}).items():
        rows.append([f"ACS − PCS for {kind}", f"{100 * gap:+.1f} points" if gap is not None else None])
    inputs = analysis.get("judge_input") or {}
    table: dict[str, Any] = {
        "title": f"Process analysis over the {analysis['judged_items']} items judged step by step",
        "columns": ["measure", "value"], "rows": rows,
    }
    if inputs:
        table["note"] = "The judge saw: " + "; ".join(f"{name} ({count} items)" for name, count in inputs.items()) + "."
    return table


def _error_types(title: str, unit: str, errors: dict[str, Any]) -> dict[str, Any]:
    """Counts and shares (of the classified) per error type."""
    return {
        "title": f"{title} ({errors['classified']}/{errors['needed']} classified)",
        "columns": ["error type", unit, "share"],
        "rows": [[name.replace("_", " "), count, errors["shares"][name]] for name, count in errors["counts"].items()],
    }
