"""Build the typed CapGeo-Bench dataset from a release folder (captions JSON/JSONL + images).

    python dataset_scripts/capgeo_bench/build.py --raw path/to/capgeo_bench --out built/capgeo_bench

Same as `geomeval build capgeo_bench --raw PATH --out DIR`; the logic lives in
`geomeval.benchmarks.capgeo_bench`.
"""

from __future__ import annotations

import sys

from geomeval.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "build", "capgeo_bench", *sys.argv[1:]]
    main()
