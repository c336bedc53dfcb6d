"""Build the typed GeoEval dataset (one config per subset) from the official raw release.

    python dataset_scripts/geoeval/build.py --raw path/to/GeoEval --out built/geoeval

The release folder holds the subset files (`select.json`, `backward_reasoning_select.json`,
`geoeval_aug.json`, `solid.json`, or `<config>.json`; directly or in `dataset_merge/` or
`LLM_eval/dataset_merge/`) and the diagram folder (`images/` or `diagrams/`). The logic lives
in `geomeval.benchmarks.geoeval`. Same as `geomeval build geoeval --raw PATH --out DIR`.
"""

from __future__ import annotations

import sys

from geomeval.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "build", "geoeval", *sys.argv[1:]]
    main()
