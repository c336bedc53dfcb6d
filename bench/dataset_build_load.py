"""GeoLaux dataset build and load time, raw release vs built parquet, side by side.

    python bench/dataset_build_load.py [--raw ../shared/data/geolaux_mini_sample]

Prints seconds to build (validate + embed images + write shards), to load the built
folder with `load_dataset`, to decode every image, and to read the raw release
directly. The ratios compare like for like: every row read with its image bytes (the raw
read reads every image file), from the built folder through `load_dataset` (cached) and
through the run's streamed reader (`BuiltRows`), against the raw read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    from datasets import load_dataset

    from geomeval.benchmarks.datasource import BuiltRows
    from geomeval.benchmarks.geolaux import data as geolaux_data
    from geomeval.benchmarks.geolaux.data import build, from_raw, sample_path

    parser = argparse.ArgumentParser()
    default = REPO.parent / "shared/data/geolaux_mini_sample"
    parser.add_argument("--raw", type=Path, default=default if default.is_dir() else sample_path())
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    try:
        out = tmp / "built"
        build_s, summary = timed(lambda: build(str(args.raw), str(out)))
        cache = tmp / "cache"
        load_s, ds = timed(lambda: load_dataset(str(out), split="test", cache_dir=str(cache)))
        reload_s, ds = timed(lambda: load_dataset(str(out), split="test", cache_dir=str(cache)))
        decode_s, _ = timed(lambda: [row["image"].load() for row in ds])
        raw_s, _ = timed(lambda: from_raw(args.raw))
        undecoded = geolaux_data.undecoded(ds)
        rows_s, _ = timed(lambda: sum(len(row["image"]["bytes"]) for row in undecoded))
        streamed_s, _ = timed(lambda: sum(len(row["image"]["bytes"]) for row in BuiltRows(BuiltRows.find(out))))
        n = summary["splits"]["test"]["num_examples"]
        print(f"raw release: {args.raw} ({n} items, {summary['splits']['test']['num_bytes'] / 1e6:.1f} MB parquet)")
        print(f"build (validate, embed, write shards): {build_s:6.2f} s  ({n / build_s:7.0f} items/s)")
        print(f"load_dataset, first (parquet -> arrow cache): {load_s:6.2f} s")
        print(f"load_dataset, cached:                  {reload_s:6.2f} s")
        print(f"decode every image:                    {decode_s:6.2f} s  ({n / decode_s:7.0f} images/s)")
        print(f"read raw release directly:             {raw_s:6.2f} s")
        print(f"cached load + read every row's image bytes: {reload_s + rows_s:6.2f} s")
        print(f"streamed reader, every row's image bytes:  {streamed_s:6.2f} s")
        print(f"ratio (cached load + read all) / raw read: {(reload_s + rows_s) / raw_s:.2f}")
        print(f"ratio streamed read all / raw read:        {streamed_s / raw_s:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
