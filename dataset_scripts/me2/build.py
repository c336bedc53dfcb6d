"""Build the typed ME2 dataset from a raw release.

    python dataset_scripts/me2/build.py --raw path/to/ME2 --out built/me2

The release folder holds one records file (`ME2.jsonl`, `ME2.json`, `me2.jsonl`, `me2.json`,
`data.jsonl` or `data.json`, or its only `.jsonl`/`.json` file) whose image paths are
relative to it, also looked up in its `problem_image/`, `solution_image/` and `images/`
folders; `--raw` may be the records file itself. Same as `geomeval build me2 --raw PATH
--out DIR`; the logic lives in `geomeval.benchmarks.me2`.
"""

from __future__ import annotations

import sys

from geomeval.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "build", "me2", *sys.argv[1:]]
    main()
