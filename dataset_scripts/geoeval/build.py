"""Build the typed GeoEval dataset (one config per subset) from the official raw release.

    python dataset_scripts/geoeval/build.py --raw path/to/GeoEval --out built/geoeval

The release folder holds the subset files (`select.json`, `backward_reasoning_select.json`,
`geoeval_aug.json`, `solid.json`, or `<config>.json`; directly or in `dataset_merge/` or
`LLM_eval/dataset_merge/`) and the diagram folder (`images/` or `diagrams/`). The logic lives
in `geomeval.benchmarks.geoeval`; this script only reads the options and reports, as
`geomeval build` does for the benchmarks that are runnable already.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.geoeval.data import build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", required=True, help="the official raw release (folder or one subset's JSON file)")
    parser.add_argument("--out", required=True, help="folder for parquet shards and the card")
    parser.add_argument("--skip-invalid", action="store_true", help="skip bad items (counted) instead of stopping")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing non-empty --out")
    args = parser.parse_args(argv)
    try:
        summary = build(args.raw, args.out, skip_invalid=args.skip_invalid, overwrite=args.overwrite)
    except (DataError, FileNotFoundError, FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name, info in summary["splits"].items():
        print(f"{name}: {info['num_examples']} items, {info['num_bytes']} bytes")
    if summary["missing"]:
        print(f"not in the release: {', '.join(summary['missing'])}")
    if summary["skipped"]:
        print(f"skipped {len(summary['skipped'])} invalid item(s):")
        for entry in summary["skipped"]:
            print(f"  {entry['config']} {entry['id']}: {entry['field']}: {entry['error']}")
    report = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    (Path(args.out) / "build_report.json").write_text(report, encoding="utf-8")
    print(f"built: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
