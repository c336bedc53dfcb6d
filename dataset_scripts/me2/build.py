"""Build the typed ME2 dataset from a raw release.

    python dataset_scripts/me2/build.py --raw path/to/ME2 --out built/me2

The release folder holds one records file (`ME2.jsonl`, `ME2.json`, `me2.jsonl`, `me2.json`,
`data.jsonl` or `data.json`, or its only `.jsonl`/`.json` file) whose image paths are
relative to it, also looked up in its `problem_image/`, `solution_image/` and `images/`
folders; `--raw` may be the records file itself. The logic lives in
`geomeval.benchmarks.me2`; this script reads the options and reports, so it works whether
or not `geomeval build me2` is registered yet.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from geomeval.benchmarks.base import DataError
from geomeval.benchmarks.me2.data import build


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", required=True, help="the raw release (folder or its records file)")
    parser.add_argument("--out", required=True, help="folder for parquet shards and the card")
    parser.add_argument(
        "--skip-invalid", action="store_true", help="skip bad items (counted) instead of stopping"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an existing non-empty --out"
    )
    args = parser.parse_args(argv)
    try:
        summary = build(
            args.raw, args.out, skip_invalid=args.skip_invalid, overwrite=args.overwrite
        )
    except (DataError, FileNotFoundError, FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for name, info in summary["splits"].items():
        print(f"{name}: {info['num_examples']} items, {info['num_bytes']} bytes")
    if summary["skipped"]:
        print(f"skipped {len(summary['skipped'])} invalid item(s):")
        for entry in summary["skipped"]:
            print(f"  {entry['id']}: {entry['field']}: {entry['error']}")
    report = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    (Path(args.out) / "build_report.json").write_text(report, encoding="utf-8")
    print(f"built: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
