"""Build the typed GGBench dataset from the official raw release.

    python dataset_scripts/ggbench/build.py --raw path/to/GGBench --out built/ggbench

The release folder holds `GGBench_dataset.json` (or `dataset/GGBench_dataset.json`) beside
`Q&A_image/` and `long_image/`. Same as `geomeval build ggbench --raw PATH --out DIR`; the
logic lives in `geomeval.benchmarks.ggbench`.
"""

from __future__ import annotations

import sys

from geomeval.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "build", "ggbench", *sys.argv[1:]]
    main()
