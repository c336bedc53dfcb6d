"""Build the typed GeoLaux dataset from the official raw release.

    python dataset_scripts/geolaux/build.py --raw ../shared/data/geolaux_mini_sample --out built/geolaux

Same as `geomeval build geolaux --raw PATH --out DIR`; the logic lives in
`geomeval.benchmarks.geolaux`.
"""

from __future__ import annotations

import sys

from geomeval.cli import main

if __name__ == "__main__":
    sys.argv = [sys.argv[0], "build", "geolaux", *sys.argv[1:]]
    main()
