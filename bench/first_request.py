"""Time from `geomeval run` starting to its first model request, as the data grows.

    python bench/first_request.py [--sizes 1000,10000,100000] [--repeat 3] [--limit N]

For each N, real GeoLaux items replicated N times (see _replicated.py) and built once: a
fresh `geomeval run geolaux` process over the whole built folder, an openai model on a
loopback server, the offline judge. The server notes when the first request arrives; the
process is then stopped (nothing after the first request is measured). The runs of every N
are interleaved round by round, so the machine's load falls on all alike, and the fastest of
`--repeat` is kept (load only adds time). Same interpreter, same cores, same warm file cache
(one untimed run of each N first).

Prints the seconds to the first request per N and each one's ratio to the smallest N's: what
a user waits for before anything is asked that grows with the data (before, the data folder
was hashed first: 8.7 s at 100,000 items). `--limit` runs each with that --limit (a quick try
of a large folder). Target: the largest N within 1.3x of the smallest. Exits 1 when missed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _replicated import built, process_env

TARGET = 1.3
ANSWER = json.dumps({"steps": ["1. by the figure"], "short_answer": "70"})
WAIT_S = 300


def first_request_s(data: Path, limit: int | None) -> float:
    """Seconds from starting a `geomeval run` process to its first model request."""
    from geomeval.testing.chat_server import ChatServer

    asked = threading.Event()

    def respond(request: dict) -> str:
        asked.set()
        return ANSWER

    with tempfile.TemporaryDirectory(prefix="geomeval-bench-") as tmp, ChatServer(respond) as model:
        env = process_env(Path(tmp) / "cache")
        command = [sys.executable, "-m", "geomeval.cli", "run", "geolaux", "--data", str(data), "--model", "openai:m",
                   "--base-url", model.base_url, "--judge", "offline", "--out", str(Path(tmp) / "out")]
        if limit is not None:
            command += ["--limit", str(limit)]
        start = time.monotonic()
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            while not asked.wait(0.005):
                if process.poll() is not None:
                    sys.exit(f"run ended before its first request:\n{process.stderr.read().decode()[-3000:]}")  # type: ignore[union-attr]
                if time.monotonic() - start > WAIT_S:
                    sys.exit(f"no request within {WAIT_S} s")
            seconds = time.monotonic() - start
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "geomeval-bench-scale")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    folders = {n: built(n, args.cache) for n in sizes}
    for n in sizes:  # bytecode written, files in the OS cache: every N starts warm alike
        first_request_s(folders[n], args.limit)
    best: dict[int, float] = {}
    for _ in range(args.repeat):
        for n in sizes:
            seconds = first_request_s(folders[n], args.limit)
            best[n] = min(best.get(n, seconds), seconds)
    first = sizes[0]
    print(f"geomeval run geolaux: process start to the first model request, fastest of {args.repeat}; "
          f"{os.cpu_count()} cores" + (f"; --limit {args.limit}" if args.limit else ""))
    for n in sizes:
        size_mb = sum(p.stat().st_size for p in (folders[n] / "data").glob("*.parquet")) / 1e6
        print(f"N={n:>7} ({size_mb:7.0f} MB of shards): {best[n]:6.2f} s   {best[n] / best[first]:5.2f}x N={first}")
    ratio = best[sizes[-1]] / best[first]
    verdict = "PASS" if ratio <= TARGET else "FAIL"
    print(f"N={sizes[-1]} / N={first}: {ratio:.2f}x (target <= {TARGET}x): {verdict}")
    if verdict == "FAIL":
        sys.exit(1)


if __name__ == "__main__":
    main()
