"""Where the time of scoring a GGBench code-track answer goes, with and without a judge.

    python bench/ggbench_render_cost.py [--rounds 3]

Each item of the embedded GGBench sample answered with its own reference script (so every
answer runs and draws), scored by `code_track` in this process (no sandbox worker, warm):
as a run with an LLM judge does (final figure, reference figure and the long image the
process judge reads) and as a run without one does (no long image: no metric reads it).
Also the engine's execution alone. Prints ms per item for each and the shares: execution
against rendering, and the saving from rendering only what the metrics need. Last, the
reference figure's re-encoding (`bounded_png`, done for every record) as it is now against
the `optimize=True` it dropped, on the same figures: ms per figure and file sizes.
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    from geomeval.benchmarks import get_benchmark
    from geomeval.benchmarks.ggbench import scoring
    from geomeval.geogebra import run_script

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    bench = get_benchmark("ggbench")
    records = [bench.new_record(item, "ggbench_code") for item in bench.load_items(None, "ggbench_code", None)]
    answers = [f"```geogebra\n{r.target['reference_script']}\n```" for r in records]
    references = [scoring._reference_png(r.target) for r in records]
    scoring.code_track(answers[0], records[0].target, references[0], False)  # imports, fonts, first calls

    def timed(with_long: bool) -> float:
        start = time.perf_counter()
        for _ in range(args.rounds):
            for answer, record, reference in zip(answers, records, references, strict=True):
                scoring.code_track(answer, record.target, reference, False, "rendered", with_long)
        return 1000 * (time.perf_counter() - start) / (args.rounds * len(records))

    judged, offline = timed(True), timed(False)
    start = time.perf_counter()
    for _ in range(args.rounds):
        for record in records:
            run_script(record.target["reference_script"])
    execute = 1000 * (time.perf_counter() - start) / (args.rounds * len(records))
    print(f"GGBench embedded sample, {len(records)} code-track answers x {args.rounds} rounds, ms per item (warm)")
    print(f"scoring for a run with a judge (final + reference + long image): {judged:8.1f}")
    print(f"scoring for a run without one (final + reference figures):       {offline:8.1f}"
          f"   ({judged / offline:.2f}x faster than with the long image)")
    print(f"engine execution alone (reference script):                        {execute:8.2f}")
    import io

    from PIL import Image

    figures = [bytes(item.fields["final_image"]["bytes"]) for item in bench.load_items(None, "ggbench_code", None)]

    def encode(optimize: bool) -> tuple[float, int]:
        start, size = time.perf_counter(), 0
        for _ in range(args.rounds):
            for data in figures:
                if optimize:  # bounded_png as it was
                    with Image.open(io.BytesIO(data)) as opened:
                        picture = opened.convert("RGBA")
                    flat = Image.new("RGB", picture.size, "white")
                    flat.paste(picture, mask=picture.getchannel("A"))
                    flat.thumbnail((scoring.REFERENCE_IMAGE_MAX,) * 2, Image.Resampling.LANCZOS)
                    buffer = io.BytesIO()
                    flat.save(buffer, format="PNG", optimize=True)
                    size += len(buffer.getvalue())
                else:
                    size += len(scoring.bounded_png(data))
        return 1000 * (time.perf_counter() - start) / (args.rounds * len(figures)), size

    (slow, slow_size), (fast, fast_size) = encode(True), encode(False)
    print(f"reference figure re-encoding: optimize=True {slow:.1f} ms, now {fast:.1f} ms a figure "
          f"({slow / fast:.2f}x faster; files {100 * (fast_size / slow_size - 1):+.1f}%)")
    print(f"the rest (rendering, pixel and code metrics) / execution, without a judge: {(offline - execute) / execute:.0f}x; "
          f"with one: {(judged - execute) / execute:.0f}x")


if __name__ == "__main__":
    main()
