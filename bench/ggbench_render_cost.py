"""Where the time of scoring a GGBench code-track answer goes: execution against rendering,
as the scoring was and as it is now, with and without a judge.

    python bench/ggbench_render_cost.py [--rounds 3]

Every number is CPU time of this one process (`time.process_time`, so other work on the
machine does not inflate it), per item of the embedded GGBench sample, scored by
`code_track` in this process (no sandbox worker). Two kinds of answer: a model's answer that
differs from the reference (its script without the last line: it runs and draws a figure of
its own) and the reference's own code. Compared side by side, on the same items:

- drawing one figure: a fresh matplotlib Figure per render (as before) against this thread's
  reused one, and whether every figure and long image has the same decoded pixels both ways;
- scoring, as before (a copy of the former `code_track`'s figure steps, below: fresh figures,
  the reference drawn for every answer, PNG round trips before the pixel metrics, the long
  image drawn even for a blank figure) against now, first with an empty figure cache (a
  run: each reference is drawn once) and then with it filled (a rescore), for a run without a
  judge (the pixel metrics read the final figure) and with one (its PNG and the long image);
- per item: execution (the engine running the reference and the answer), rendering (drawing
  and encoding figures), the rest (verifier, code and pixel metrics), and rendering's share.

Last, the reference figure's re-encoding (`bounded_png`, done for every record) as it is now
against the `optimize=True` it dropped, on the same figures: ms per figure and file sizes.

PASS when every figure and long image has the same pixels both ways and rendering is under
half of a run's scoring without a judge (an answer of its own, empty figure cache); exits 1
otherwise. With a judge the long image (drawn, and encoded as the PNG the judge is sent) is
most of the CPU, beside judge calls that take seconds of wall time each.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from PIL import Image


class Clock:
    """CPU seconds spent inside the functions it wraps, by name."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.spent[name] = self.spent.get(name, 0.0) + time.process_time() - start
        return timed


@contextlib.contextmanager
def fresh_figures() -> Iterator[None]:
    """The renderer as it was: a new Figure, Axes and canvas for every figure and title."""
    from geomeval.geogebra import render

    pooled, title = render.POOLED_PIXELS, render._render_title
    render.POOLED_PIXELS, render._render_title = 0, title.__wrapped__  # type: ignore[assignment]
    try:
        yield
    finally:
        render.POOLED_PIXELS, render._render_title = pooled, title


def empty_figure_cache() -> None:
    """A new run: no reference figure in memory nor in the (fresh) cache folder."""
    from geomeval.geogebra import figures

    os.environ["GEOMEVAL_CACHE_DIR"] = tempfile.mkdtemp(prefix="ggbench-render-cost-")
    figures._shared = None


def pixels(png: bytes) -> bytes:
    with Image.open(io.BytesIO(png)) as opened:
        return np.asarray(opened.convert("RGB")).tobytes()


def main() -> None:
    from geomeval.benchmarks import get_benchmark
    from geomeval.benchmarks.ggbench import scoring
    from geomeval.geogebra import render

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    empty_figure_cache()
    bench = get_benchmark("ggbench")
    items = list(bench.load_items(None, "ggbench_code", None))
    records = [bench.new_record(item, "ggbench_code") for item in items]
    targets = [r.target for r in records]
    own = [f"```geogebra\n{t['reference_script']}\n```" for t in targets]
    other = ["```geogebra\n" + "\n".join(t["reference_script"].splitlines()[:-1]) + "\n```" for t in targets]
    references = [scoring._reference_png(t) for t in targets]
    size = scoring.RENDER_SIZE
    clock = Clock()

    # The figure steps of code_track as they were before figures were reused: the helpers
    # it called, in the same order (engine, code metrics and verifier are unchanged).
    def before(answer: str, target: dict[str, Any], reference_png: bytes | None, judged: bool) -> None:
        reference, problem = scoring.reference_construction(target)
        drawn = scoring.draw_code(answer, reference, render=False)
        scores = scoring.engine_scores(drawn, reference, problem)
        scores.update(scoring.guarded_similarity_scores(drawn, target))
        assert drawn.construction is not None and reference is not None
        window = render.fit_window(reference, size=size)
        drawn.final = draw_png(drawn.construction, size=size, window=window)
        if judged:
            drawn.long = draw_long(drawn.construction, size=size)
        drawn.blank = scoring.is_blank(drawn.final)
        drawn.reference_drawn = scoring.bounded_png(draw_png(reference, size=size, window=window))
        scores.update(scoring.pixel_scores(drawn, drawn.reference_drawn or reference_png, False))

    draw_png = clock.wrap("render", render.render_png)
    draw_long = clock.wrap("render", render.render_long_image)
    originals = {name: getattr(scoring, name) for name in ("render_image", "render_long_image", "encode_png",
                                                            "run_script")}
    for name in ("render_image", "render_long_image", "encode_png"):
        setattr(scoring, name, clock.wrap("render", originals[name]))
    scoring.run_script = clock.wrap("execute", originals["run_script"])
    for answer, target, reference in zip(own, targets, references, strict=True):  # imports, fonts, first calls
        scoring.code_track(answer, target, reference, False)
        with fresh_figures():
            before(answer, target, reference, True)
    empty_figure_cache()

    def per_item(score: Callable[[], None], rounds: int) -> dict[str, float]:
        clock.spent = {}
        start = time.process_time()
        for _ in range(rounds):
            score()
        total = time.process_time() - start
        count = rounds * len(targets)
        spent = {name: 1000 * clock.spent.get(name, 0.0) / count for name in ("execute", "render")}
        return {**spent, "total": 1000 * total / count}

    def now(answers: list[str], judged: bool) -> tuple[dict[str, float], dict[str, float]]:
        def once() -> None:
            for answer, target, reference in zip(answers, targets, references, strict=True):
                scoring.code_track(answer, target, reference, False, "rendered", judged)

        def new_run() -> None:
            empty_figure_cache()
            once()
        run = per_item(new_run, args.rounds)  # every reference drawn once, as in a run
        return run, per_item(once, args.rounds)  # every reference from the cache, as in a rescore

    def was(answers: list[str], judged: bool) -> dict[str, float]:
        def once() -> None:
            for answer, target, reference in zip(answers, targets, references, strict=True):
                before(answer, target, reference, judged)
        with fresh_figures():
            return per_item(once, args.rounds)

    # Drawing alone, and the pixels both ways.
    constructions = [scoring.reference_construction(t)[0] for t in targets]
    windows = [render.fit_window(c, size=size) for c in constructions if c is not None]

    def draw_all() -> tuple[list[bytes], list[bytes]]:
        finals = [render.render_png(c, size=size, window=w) for c, w in zip(constructions, windows, strict=True)
                  if c is not None]
        return finals, [render.render_long_image(c, size=size) for c in constructions if c is not None]

    def draw_ms(fresh: bool) -> float:
        start = time.process_time()
        with fresh_figures() if fresh else contextlib.nullcontext():
            for _ in range(args.rounds):
                for c, w in zip(constructions, windows, strict=True):
                    if c is not None:
                        render.render_png(c, size=size, window=w)
        return 1000 * (time.process_time() - start) / (args.rounds * len(windows))

    with fresh_figures():
        old_finals, old_longs = draw_all()
    new_finals, new_longs = draw_all()
    same_finals = sum(pixels(a) == pixels(b) for a, b in zip(old_finals, new_finals, strict=True))
    same_longs = sum(pixels(a) == pixels(b) for a, b in zip(old_longs, new_longs, strict=True))
    fresh_ms, reused_ms = draw_ms(True), draw_ms(False)
    print(f"GGBench embedded sample: {len(targets)} code-track items, {args.rounds} rounds; CPU ms per item")
    print(f"one 600x450 figure: fresh Figure {fresh_ms:.1f} ms, reused {reused_ms:.1f} ms "
          f"({fresh_ms / reused_ms:.2f}x); decoded pixels identical: {same_finals}/{len(old_finals)} figures, "
          f"{same_longs}/{len(old_longs)} long images")

    rows: list[tuple[str, dict[str, float]]] = []
    for judged in (False, True):
        kind = "with a judge" if judged else "no judge"
        for label, answers in (("an answer of its own", other), ("the reference's code", own)):
            old = was(answers, judged)
            run, rescore = now(answers, judged)
            rows += [(f"before, {kind}, {label}", old), (f"now (run), {kind}, {label}", run),
                     (f"now (rescore), {kind}, {label}", rescore)]
    print(f"{'':58s} {'execute':>8s} {'render':>8s} {'rest':>8s} {'total':>8s} {'render share':>13s} "
          f"{'render/exec':>12s}")
    for label, row in rows:
        rest = row["total"] - row["execute"] - row["render"]
        print(f"{label:58s} {row['execute']:8.2f} {row['render']:8.2f} {rest:8.2f} {row['total']:8.2f} "
              f"{100 * row['render'] / row['total']:12.1f}% {row['render'] / row['execute']:11.1f}x")
    for index in range(0, len(rows), 3):
        (label, old), (_, run), (_, rescore) = rows[index:index + 3]
        print(f"{label.removeprefix('before, ')}: rendering {old['render'] / run['render']:.2f}x less in a run, "
              f"{old['render'] / max(rescore['render'], 1e-9):.1f}x less in a rescore; scoring "
              f"{old['total'] / run['total']:.2f}x / {old['total'] / rescore['total']:.2f}x faster")
    for name, function in originals.items():
        setattr(scoring, name, function)
    run_share = rows[1][1]["render"] / rows[1][1]["total"]
    passed = same_finals == len(old_finals) and same_longs == len(old_longs) and run_share < 0.5

    figures = [bytes(item.fields["final_image"]["bytes"]) for item in items]

    def encode(optimize: bool) -> tuple[float, int]:
        start, total = time.process_time(), 0
        for _ in range(args.rounds):
            for data in figures:
                if optimize:  # bounded_png as it was
                    with Image.open(io.BytesIO(data)) as opened:
                        flat = scoring.bounded_image(opened)
                    buffer = io.BytesIO()
                    flat.save(buffer, format="PNG", optimize=True)
                    total += len(buffer.getvalue())
                else:
                    total += len(scoring.bounded_png(data))
        return 1000 * (time.process_time() - start) / (args.rounds * len(figures)), total

    (slow, slow_size), (fast, fast_size) = encode(True), encode(False)
    print(f"reference figure re-encoding: optimize=True {slow:.1f} ms, now {fast:.1f} ms a figure "
          f"({slow / fast:.2f}x faster; files {100 * (fast_size / slow_size - 1):+.1f}%)")
    print(f"{'PASS' if passed else 'FAIL'}: pixels identical, rendering {100 * run_share:.0f}% of a run's scoring "
          "without a judge (target < 50%)")
    raise SystemExit(0 if passed else 1)


if __name__ == "__main__":
    main()
