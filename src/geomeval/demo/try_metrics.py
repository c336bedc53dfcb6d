"""Score what a visitor types or uploads with the library's own scorers, live.

Each function takes the visitor's raw input, bounds it (`limits`), runs the same code a
`geomeval run` would (the keypoint engine, the GeoGebra engine and verifier, GeoLaux's
process metrics, the answer checker) and returns plain rows and Markdown for the app to
lay out. References come from the embedded samples only: the Space never reads a path a
visitor names, except an upload that Gradio itself stored.
"""

from __future__ import annotations

import io
import os
import re
import string
import struct
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from ..answers import check_answer, extract_final_answer
from ..benchmarks.capgeo_bench.scoring import judge_counts
from ..benchmarks.geolaux.judging import MAX_STEPS as MAX_JUDGED_STEPS
from ..benchmarks.geolaux.judging import segment_steps
from ..benchmarks.geolaux.process_metrics import first_error_step, item_scores, weighted_step_score
from ..benchmarks.ggbench.scoring import (
    PSNR_CAP,
    RENDER_SIZE,
    bounded_png,
    image_pair_scores,
    reference_construction,
)
from ..core.records import Score
from ..engines.sandbox import SandboxLimit, shared_sandbox
from ..geogebra import Construction, Limits, render_png, run_script, verify
from ..geogebra import commands as cmds
from ..geogebra.render import MAX_OBJECTS as MAX_DRAWN_OBJECTS
from ..geogebra.render import MAX_POLYGON_VERTICES, _drawables, fit_window
from ..geogebra.syntax import ParseError
from ..keypoints import DIMENSIONS, Keypoint, match, parse_caption, to_text
from .explore import display_image, load_task
from .limits import (
    MAX_ANSWER_CHARS,
    MAX_CAPTION_CHARS,
    MAX_CHOICES_CHARS,
    MAX_IMAGE_BYTES,
    MAX_IMAGE_PIXELS,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPT_LINES,
    MAX_SCRIPT_SECONDS,
    MAX_SOLUTION_CHARS,
    DemoInputError,
    check_text,
)

# The benchmarks whose samples give the references (the metric tabs are about their metrics).
CAPTION_BENCHMARK = "capgeo_bench"
SCRIPT_BENCHMARK = "ggbench"
SOLUTION_BENCHMARK = "geolaux"

COVERED, MISSED, HALLUCINATED = "covered", "missed", "hallucinated"
HIGHLIGHT_COLORS = {COVERED: "#2e7d32", MISSED: "#ef6c00", HALLUCINATED: "#c62828"}
OFFLINE_ENGINE = "offline"
JUDGE_ENGINE = "judge"
STEP_LABEL_CHARS = 160
MAX_CHOICES = 26


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _reference_task(benchmark: str, task: str | None = None) -> list[tuple[str, Any, dict[str, Any]]]:
    """(task, item, record target) of a benchmark's embedded sample, every task or one."""
    from ..benchmarks import REGISTRY

    bench = REGISTRY[benchmark]
    out = []
    for name in [task] if task else bench.tasks:
        data = load_task(benchmark, name)
        for item in data.items:
            out.append((name, item, bench.new_record(item, name).target))
    return out


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- captions


@lru_cache(maxsize=1)
def _caption_references() -> dict[str, tuple[str, str, str]]:
    """key -> (label, caption, language), one per CapGeo-Bench task and item."""
    found: dict[str, tuple[str, str, str]] = {}
    for task, item, target in _reference_task(CAPTION_BENCHMARK):
        caption, language = target.get("caption"), target.get("language", "auto")
        if isinstance(caption, str) and caption.strip():
            key = f"{task}:{item.id}"
            found[key] = (f"{item.id} ({language}) · {_short(caption)}", caption, language)
    return found


def caption_references() -> list[tuple[str, str]]:
    """(label, key) of the reference captions a visitor can score against."""
    return [(label, key) for key, (label, _caption, _language) in _caption_references().items()]


def reference_caption(key: str | None) -> str:
    if key not in _caption_references():
        raise DemoInputError(f"unknown reference caption {key!r}")
    return _caption_references()[key][1]


def caption_engines() -> list[str]:
    """The offline engine always; the judge engine when a judge endpoint is configured."""
    engines = [OFFLINE_ENGINE]
    if os.environ.get("GEOMEVAL_JUDGE_MODEL"):
        engines.append(JUDGE_ENGINE)
    return engines


@dataclass
class CaptionResult:
    engine: str
    summary: str
    score_rows: list[list[Any]]
    highlights: list[tuple[str, str | None]]
    keypoint_rows: list[list[str]] = field(default_factory=list)


def score_caption(caption: str | None, reference_key: str | None, engine: str = OFFLINE_ENGINE) -> CaptionResult:
    """The CapGeo keypoint breakdown of `caption` against a CapGeo-Bench reference: per
    dimension recall (the published score), precision and F1, with each keypoint marked
    covered, missed (in the reference, not the caption) or hallucinated (the reverse)."""
    text = check_text(caption, MAX_CAPTION_CHARS, "The caption")
    reference = reference_caption(reference_key)
    language = _caption_references()[reference_key][2]  # type: ignore[index]
    if engine == JUDGE_ENGINE:
        if JUDGE_ENGINE not in caption_engines():
            raise DemoInputError("no judge is configured (set GEOMEVAL_JUDGE_MODEL and GEOMEVAL_JUDGE_BASE_URL)")
        return _judge_caption(text, reference)
    if engine != OFFLINE_ENGINE:
        raise DemoInputError(f"unknown engine {engine!r}; use {' or '.join(caption_engines())}")
    result = match(parse_caption(text, "auto"), parse_caption(reference, language))
    rows: list[list[Any]] = []
    highlights: list[tuple[str, str | None]] = []
    keypoints: list[list[str]] = []
    for score in (*result.scores, result.overall):
        rows.append([score.dimension, _fmt(score.recall), _fmt(score.precision), _fmt(score.f1),
                     f"{score.tp}/{score.gt}", f"{score.tp_candidate}/{score.pred}"])
    for dimension in DIMENSIONS:
        score = result[dimension]
        marked = [(kp, COVERED) for kp in score.matched] + [(kp, MISSED) for kp in score.missed]
        marked += [(kp, HALLUCINATED) for kp in score.extra]
        if not marked:
            continue
        highlights.append((f"{dimension}: ", None))
        for kp, status in marked:
            highlights += [(to_text(kp), status), ("  ", None)]
            keypoints.append([dimension, to_text(kp), status, _span(kp)])
        highlights.append(("\n", None))
    overall = result.overall
    summary = (
        f"**Offline engine** · {overall.tp} of {overall.gt} reference keypoints covered "
        f"(recall {_fmt(overall.recall)}), {len(overall.extra)} of {overall.pred} caption keypoints "
        "not in the reference (hallucinated). Recall per dimension is the published CapGeo score."
    )
    return CaptionResult(OFFLINE_ENGINE, summary, rows, highlights, keypoints)


def _span(kp: Keypoint) -> str:
    return _short(kp.text, 80) if kp.text else ""


def _judge_caption(caption: str, reference: str) -> CaptionResult:
    """The judge engine (an LLM extracts and matches keypoints); only counts and the missed
    reference keypoints come back from it."""
    from ..engines.client import BackgroundLoop
    from ..engines.judges import parse_judge_spec

    judge = parse_judge_spec(None, concurrency=4, timeout_s=60.0)

    async def ask() -> tuple[dict[str, dict[str, Any]] | None, str | None]:
        try:
            return await judge_counts(judge, caption, reference)
        finally:
            await judge.aclose()

    counts, error = BackgroundLoop.shared().run(ask())
    if counts is None:
        raise DemoInputError(f"the judge could not score this caption: {error}")
    rows, highlights, keypoints = [], [], []
    for dimension in DIMENSIONS:
        c = counts[dimension]
        recall = c["matched"] / c["gt"] if c["gt"] else None
        precision = c["supported"] / c["pred"] if c["pred"] else None
        f1 = 0.0 if recall is not None and not (recall and precision) else (
            None if recall is None else 2 * recall * precision / (recall + precision))  # type: ignore[operator]
        rows.append([dimension, _fmt(recall), _fmt(precision), _fmt(f1), f"{c['matched']}/{c['gt']}",
                     f"{c['supported']}/{c['pred']}"])
        for missed in c.get("missed", []):
            highlights += [(str(missed), MISSED), ("  ", None)]
            keypoints.append([dimension, str(missed), MISSED, ""])
    summary = f"**Judge engine** ({judge.spec}) · counts from the LLM judge; missed reference keypoints are marked."
    return CaptionResult(JUDGE_ENGINE, summary, rows, highlights, keypoints)


# --------------------------------------------------------------------------- GeoGebra scripts


@lru_cache(maxsize=1)
def _script_references() -> dict[str, tuple[str, dict[str, Any]]]:
    """item id -> (label, record target) of the GGBench sample's constructions."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    from ..benchmarks import REGISTRY

    task = REGISTRY[SCRIPT_BENCHMARK].default_task
    for _task, item, target in _reference_task(SCRIPT_BENCHMARK, task):
        if target.get("reference_script"):
            found[item.id] = (f"{item.id} · {_short(target.get('problem') or '')}", target)
    return found


def script_references() -> list[tuple[str, str]]:
    return [(label, key) for key, (label, _target) in _script_references().items()]


def _script_target(reference_id: str | None) -> dict[str, Any]:
    if not reference_id:
        raise DemoInputError("Choose a reference construction first.")
    if reference_id not in _script_references():
        raise DemoInputError(f"unknown reference construction {reference_id!r}")
    return _script_references()[reference_id][1]  # type: ignore[index]


def reference_script(reference_id: str | None) -> str:
    """The reference construction's script, to start from or compare with."""
    return str(_script_target(reference_id)["reference_script"])


@dataclass
class ScriptResult:
    summary: str
    pass_at_1: bool
    line_rows: list[list[Any]]
    figure: Image.Image | None
    reference_figure: Image.Image | None
    check_rows: list[list[str]]
    verifier_score: float | None
    # The script scored as `geomeval run` scores it as the answer to the reference item (the
    # GGBench code track's own scorer, `run_scores`): metric -> Score, floors included.
    scores: dict[str, Score] = field(default_factory=dict)


def _png_image(data: bytes | None) -> Image.Image | None:
    return display_image(data) if data else None


def _run(script: str) -> Construction:
    limits = Limits(max_script_chars=MAX_SCRIPT_CHARS, max_lines=MAX_SCRIPT_LINES, max_seconds=MAX_SCRIPT_SECONDS)
    try:
        return run_script(script, limits=limits)
    except ParseError as exc:  # a resource limit: the whole script is refused
        raise DemoInputError(f"script refused: {exc}") from None


def _render(construction: Construction, window: tuple[float, float, float, float] | None) -> bytes:
    """The figure as PNG. A construction the renderer refuses to draw (too many objects, a
    polygon with too many vertices) is refused here with the limit named; the check is the
    renderer's own (`_drawables`, which raises only for those limits), run before drawing,
    so any other error from the renderer is a bug and is not dressed up as bad input."""
    try:
        for _drawable in _drawables(construction, None):
            pass
    except ValueError as exc:
        raise DemoInputError(
            f"The script ran, but its figure is too large to draw: {exc}. The renderer draws at most "
            f"{MAX_DRAWN_OBJECTS:,} objects (each element of a list counts) and polygons of at most "
            f"{MAX_POLYGON_VERTICES:,} vertices."
        ) from None
    return render_png(construction, size=RENDER_SIZE, window=window)


def try_script(script: str | None, reference_id: str | None = None) -> ScriptResult:
    """Run a GeoGebra script (bare commands or an answer with ```geogebra blocks) in the
    engine: the figure (in the reference's view, so the two line up), each line's status,
    Pass@1, and, against a GGBench reference, the verifier's checks and pixel similarity.
    The work runs in a sandbox worker, killed past its time or memory limit, so a hostile
    script costs its own request a clear error and never the server's memory or threads."""
    text = check_text(script, MAX_SCRIPT_CHARS, "The script")
    lines = text.count("\n") + 1
    if lines > MAX_SCRIPT_LINES:
        raise DemoInputError(f"The script has {lines:,} lines; the limit is {MAX_SCRIPT_LINES:,}.")
    try:
        result: ScriptResult = shared_sandbox().call(script_result, text, reference_id, timeout_s=SCRIPT_TIMEOUT_S)
    except SandboxLimit as exc:
        raise DemoInputError(f"The script was stopped: it {exc}.") from None
    if reference_id:
        result.scores = run_scores(text, reference_id)
        verifier = result.scores.get("verifier")
        result.verifier_score = verifier.value if verifier is not None else None
        result.summary += " · " + _run_line(result.scores)
    return result


RUN_LINE_METRICS = ("Pass@1", "verifier", "PSNR", "SSIM", "LPIPS")


def run_scores(script: str, reference_id: str) -> dict[str, Score]:
    """`script` scored exactly as `geomeval run ggbench --task ggbench_code` scores it as the
    answer to the reference item: the run's own scoring step (`engine.score`: the benchmark's
    scorer with its default options, its sandbox, its floors), with the offline judge, so the
    judge's rubric metrics are left unscored as in an offline run. Nothing is re-implemented:
    a script whose figure is blank scores PSNR 0 and SSIM 0 here because it does in a run."""
    import asyncio

    from ..benchmarks import REGISTRY, get_benchmark
    from ..engines.engine import score
    from ..engines.judges import parse_judge_spec

    _script_target(reference_id)  # refuses what is not one of the Try tab's references
    bench = get_benchmark(SCRIPT_BENCHMARK)
    task = REGISTRY[SCRIPT_BENCHMARK].default_task
    item = next(i for i in load_task(SCRIPT_BENCHMARK, task).items if i.id == reference_id)
    record = bench.new_record(item, task)
    record.response = script
    return asyncio.run(score(bench, record, parse_judge_spec("offline"))).scores


def _run_line(scores: dict[str, Score]) -> str:
    parts = []
    for name in RUN_LINE_METRICS:
        found = scores.get(name)
        if found is None:
            continue
        if found.value is None:
            parts.append(f"{name} not scored ({found.unscored})")
        elif name == "PSNR":
            parts.append(f"PSNR {found.value:.2f} dB" + (" (identical)" if found.value >= PSNR_CAP else ""))
        else:
            parts.append(f"{name} {found.value:.3f}")
    floors = {s.explanation for n, s in scores.items() if n in ("PSNR", "SSIM") and s.value == 0.0 and s.explanation}
    line = "**as `geomeval run` scores it** (GGBench code track, offline): " + ", ".join(parts)
    if floors:
        line += f" — pixel metrics at their floor: {'; '.join(sorted(floors))}"
    return line


# The CPU seconds a script's whole Try may take in its sandbox worker (running, drawing,
# verifying): the card's limit, so a visitor holds a worker no longer than it says. A reference
# construction takes under 0.1 s; 4,900 drawn circles 1.6 s (measured).
SCRIPT_TIMEOUT_S = MAX_SCRIPT_SECONDS


def script_result(text: str, reference_id: str | None) -> ScriptResult:
    """`try_script`'s work on a checked script, in the sandbox worker."""
    target = _script_target(reference_id) if reference_id else None
    construction = _run(text)
    reference, problem = reference_construction(target) if target else (None, None)
    window = fit_window(reference, size=RENDER_SIZE) if reference is not None and problem is None else None
    try:
        figure: bytes | None = _render(construction, window)
        too_large = ""
    except DemoInputError as exc:  # the lines' results stand; only the figure is not drawn
        figure, too_large = None, str(exc)
    line_rows = [[s.line, "✓" if s.ok else "✗", s.source, s.error or "", ", ".join(s.labels)] for s in construction.lines]
    errors = construction.errors
    passed = construction.pass_at_1 and bool(construction.lines)  # as the run's Pass@1: no commands is 0
    parts = [f"**Pass@1: {'1 (every line ran)' if passed else '0'}**"]
    if not construction.lines:
        parts.append("no commands in the script")
    elif errors:
        parts.append(f"{len(errors)} failing line(s); first: line {errors[0].line}: {errors[0].error}")
        unsupported = unsupported_lines(construction)
        if unsupported:
            parts.append(unsupported)
    if too_large:
        parts.append(f"⚠ no figure: {too_large}")
    check_rows: list[list[str]] = []
    score: float | None = None
    reference_png: bytes | None = None
    if target is not None:
        if reference is None or problem is not None:
            parts.append(f"verifier: not run ({problem or 'no reference construction'})")
        else:
            verdict = verify(construction, reference)
            score = verdict.score
            check_rows = [[c.kind, c.name, "✓" if c.passed else "✗", c.detail] for c in verdict.checks]
            parts.append(
                f"**verifier: {verdict.score:.2f}** ({verdict.passed}/{len(verdict.checks)} checks; "
                f"transform: {verdict.transform})"
            )
        reference_png = _reference_png(target)  # shown beside; the scores are `run_scores`'
    return ScriptResult(" · ".join(parts), passed, line_rows, _png_image(figure), _png_image(reference_png),
                        check_rows, score)


_UNKNOWN = re.compile(r"^Unknown command: ([A-Za-z][A-Za-z0-9]{0,40})")


def supported_commands() -> list[str]:
    """The GeoGebra commands geomeval's engine runs, sorted (its command table, the style
    commands, and Sequence and Sum, which the executor handles itself)."""
    from ..geogebra.style import STYLE_COMMANDS

    return sorted({*cmds.COMMANDS, *STYLE_COMMANDS, "Sequence", "Sum"})


def unsupported_lines(construction: Construction) -> str:
    """What the engine could not run, said as such: a command outside the engine's set may be
    valid GeoGebra (Curve, Slider…), which the engine does not support, rather than a typo."""
    found: list[str] = []
    for line in construction.errors:
        error = str(line.error or "")
        unknown = _UNKNOWN.match(error)
        if unknown:
            found.append(f"`{unknown.group(1)}` (line {line.line})")
        elif error.startswith("unsupported"):
            found.append(f"line {line.line} ({error})")
    if not found:
        return ""
    return ("⚠ geomeval's engine does not run " + ", ".join(found[:8]) + ". If that is valid GeoGebra, it is a "
            f"command the engine does not support (it runs {len(supported_commands())} commands, listed under "
            "\"Limits and supported commands\"), not an error in the script.")


def _reference_png(target: dict[str, Any]) -> bytes | None:
    import base64

    encoded = target.get("final_image")
    return base64.b64decode(encoded) if encoded else None


def _pixel_line(scores: dict[str, Score]) -> str:
    parts = []
    for name, score in scores.items():
        if score.value is None:
            parts.append(f"{name}: not scored ({score.unscored})")
        elif name == "PSNR":
            capped = " (identical)" if score.value >= PSNR_CAP else ""
            parts.append(f"PSNR {score.value:.2f} dB{capped}")
        else:
            parts.append(f"{name} {score.value:.3f}")
    return "pixels vs the reference figure at 256×256: " + ", ".join(parts)


@dataclass
class DrawingResult:
    summary: str
    score_rows: list[list[Any]]
    image: Image.Image
    reference_figure: Image.Image | None


# What a drawing may be uploaded as. Every upload is decoded once, here, and passed on as PNG,
# so display and scoring never see another format (nor a format Pillow would hand to an
# outside program, like EPS).
UPLOAD_FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF", "ICO")
_PNG_MODES = frozenset({"1", "L", "LA", "P", "RGB", "RGBA"})  # kept as they are; others become RGB(A)
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read_upload(upload: str | Path | bytes | None, upload_root: str | Path | None = None) -> bytes:
    """An uploaded image as PNG bytes (its first frame), refusing what is too large (bytes or
    pixels), is not an image in one of UPLOAD_FORMATS, or (given `upload_root`, Gradio's
    upload folder) lies anywhere else."""
    if upload is None or upload == "":
        raise DemoInputError("Upload an image first.")
    if isinstance(upload, bytes | bytearray):
        data = bytes(upload)
    else:
        path = Path(upload)
        if upload_root is not None and not _inside(path, Path(upload_root)):
            raise DemoInputError("that file is not an upload of this Space")
        if not path.is_file():
            raise DemoInputError("the upload is gone; upload the image again")
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise DemoInputError(f"The image is {size / 2**20:.1f} MiB; the limit is {MAX_IMAGE_BYTES / 2**20:.0f} MiB.")
        data = path.read_bytes()
    if len(data) > MAX_IMAGE_BYTES:
        raise DemoInputError(f"The image is {len(data) / 2**20:.1f} MiB; the limit is {MAX_IMAGE_BYTES / 2**20:.0f} MiB.")
    return _as_png(data)


def _check_pixels(width: int, height: int) -> None:
    if width * height > MAX_IMAGE_PIXELS:
        raise DemoInputError(f"The image is {width}×{height} pixels; the limit is {MAX_IMAGE_PIXELS:,} pixels.")


def _check_icon_frames(data: bytes) -> None:
    """The pixel limit on every image inside an icon: Pillow decodes an ICO's largest image
    while opening it, and that image (a PNG or a bitmap) may be far larger than the 256×256
    its directory entry says, so it is checked before Pillow sees the file."""
    if not data.startswith(b"\0\0\1\0") or len(data) < 6:
        return
    (count,) = struct.unpack_from("<H", data, 4)
    for index in range(count):
        entry = 6 + 16 * index
        if entry + 16 > len(data):
            return  # a truncated directory: Pillow refuses it
        (offset,) = struct.unpack_from("<I", data, entry + 12)
        if data[offset : offset + 8] == _PNG_MAGIC and offset + 24 <= len(data):
            _check_pixels(*struct.unpack_from(">II", data, offset + 16))
        elif offset + 12 <= len(data):  # a bitmap: its header, then width and height (doubled: image and mask)
            width, height = struct.unpack_from("<ii", data, offset + 4)
            _check_pixels(abs(width), abs(height) // 2)


_OBJECT_REPR = re.compile(r"<[^<>]{1,200} at 0x[0-9a-fA-F]{1,16}>|'[^']{0,300}'")  # no Python reprs or paths


def _as_png(data: bytes) -> bytes:
    """The image's first frame re-encoded as PNG, within the pixel limit: checked on the size
    the file declares before anything is decoded, and again on what was decoded."""
    try:
        _check_icon_frames(data)
        with Image.open(io.BytesIO(data), formats=UPLOAD_FORMATS) as opened:
            _check_pixels(*opened.size)
            opened.load()
            _check_pixels(*opened.size)
            picture: Image.Image = opened
            if picture.mode not in _PNG_MODES:
                alpha = any(band in ("A", "a") for band in picture.getbands()) or "transparency" in picture.info
                picture = picture.convert("RGBA" if alpha else "RGB")
            buffer = io.BytesIO()
            picture.save(buffer, format="PNG", compress_level=1)
    except DemoInputError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError, struct.error,
            Image.DecompressionBombError) as exc:
        reason = " ".join(_OBJECT_REPR.sub("", str(exc)).split())[:200] or type(exc).__name__
        raise DemoInputError(
            f"That file is not a readable image ({', '.join(UPLOAD_FORMATS)}): {reason}"
        ) from None
    return buffer.getvalue()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return False
    return True


def try_drawing(upload: str | Path | bytes | None, reference_id: str | None,
                upload_root: str | Path | None = None) -> DrawingResult:
    """A drawing (the image track: a model that draws) against a GGBench reference figure:
    PSNR and SSIM at 256×256, as GGBench scores drawings."""
    target = _script_target(reference_id)
    data = read_upload(upload, upload_root)
    reference_png = _reference_png(target)
    if reference_png is None:
        raise DemoInputError("this reference has no figure to compare with")
    scores = image_pair_scores(bounded_png(data), reference_png, False)
    rows = [[name, None if s.value is None else round(s.value, 4), s.explanation or s.unscored or ""]
            for name, s in scores.items()]
    return DrawingResult(_pixel_line(scores), rows, display_image(data), _png_image(reference_png))


# --------------------------------------------------------------------------- GeoLaux solutions


@lru_cache(maxsize=1)
def _solution_examples() -> dict[str, tuple[str, str]]:
    """item id -> (label, a worked solution with numbered steps and a final answer)."""
    found: dict[str, tuple[str, str]] = {}
    from ..benchmarks import REGISTRY

    task = REGISTRY[SOLUTION_BENCHMARK].default_task
    for _task, item, target in _reference_task(SOLUTION_BENCHMARK, task):
        steps = str(item.fields.get("steps_explanation") or target.get("solution") or "").strip().lstrip("：:").strip()
        if not steps:
            continue
        answer = target.get("answer")
        closing = f"\n\nThe answer is {answer}{target.get('unit') or ''}." if answer else ""
        found[item.id] = (f"{item.id} · {_short(target.get('problem') or '')}", steps + closing)
    return found


def solution_examples() -> list[tuple[str, str]]:
    return [(label, key) for key, (label, _text) in _solution_examples().items()]


def solution_example(example_id: str | None) -> str:
    if example_id not in _solution_examples():
        raise DemoInputError(f"unknown example {example_id!r}")
    return _solution_examples()[example_id][1]  # type: ignore[index]


@dataclass
class SolutionSteps:
    steps: list[str]
    answer: str | None
    method: str
    text: str = ""  # the solution as split: the marks are scored against this text only

    def choices(self) -> list[tuple[str, str]]:
        """(label, value) per step for a checklist: value is the step's 1-based number."""
        return [(f"Step {i}: {_short(step, STEP_LABEL_CHARS)}", str(i)) for i, step in enumerate(self.steps, 1)]

    def markdown(self) -> str:
        answer = f"`{self.answer}` (found by: {self.method})" if self.answer else "none found"
        listed = "\n".join(f"{i}. {' '.join(step.split())}" for i, step in enumerate(self.steps, 1))
        cut = ""
        if len(self.steps) >= MAX_JUDGED_STEPS:
            cut = (f"\n\n⚠ GeoLaux's judge marks at most {MAX_JUDGED_STEPS} steps: this solution reaches that "
                   "limit, so any step after the last one listed is neither shown nor marked.")
        return (f"**{len(self.steps)} step(s)**, split as GeoLaux's judge sees them; final answer: {answer}{cut}"
                f"\n\n{listed}")


def split_solution(text: str | None) -> SolutionSteps:
    """The steps GeoLaux's judge would mark (JSON "steps", else numbered lines, else
    paragraphs) and the final answer the checker would read."""
    solution = check_text(text, MAX_SOLUTION_CHARS, "The solution")
    found = extract_final_answer(solution)
    json_steps = found.data.get("steps") if found.data and isinstance(found.data.get("steps"), list) else None
    steps = segment_steps(solution, json_steps)
    if not steps:
        raise DemoInputError("no steps found in the solution")
    return SolutionSteps(steps, found.answer, found.method, solution)


def score_solution(text: str | None, correct_steps: list[str] | list[int] | None, final_correct: bool) -> list[list[Any]]:
    """`process_scores` for a solution as typed: it is split again, so the marks can only
    name steps the solution has."""
    return process_scores(len(split_solution(text).steps), correct_steps, final_correct)


def process_scores(n_steps: int, correct_steps: list[str] | list[int] | None, final_correct: bool) -> list[list[Any]]:
    """ACS, PCS and PQS of one solution from the marks a visitor gives (a step is correct
    when its number is in `correct_steps`), with S and the first wrong step, as rows."""
    if not isinstance(n_steps, int) or n_steps < 1:
        raise DemoInputError("split a solution into steps first")
    try:
        correct = {int(step) for step in correct_steps or []}
    except (TypeError, ValueError):
        raise DemoInputError("step marks must be step numbers") from None
    outside = sorted(n for n in correct if not 1 <= n <= n_steps)
    if outside:
        raise DemoInputError(f"no step {outside[0]}: the solution has {n_steps} step(s)")
    marks = [1 if i in correct else 0 for i in range(1, n_steps + 1)]
    scores = item_scores(marks, 1 if final_correct else 0)
    first = first_error_step(marks)
    return [
        ["PCS", f"{scores['PCS']:.0f}", "1 when every step and the final answer are correct"],
        ["PQS", f"{scores['PQS']:.4f}", "tanh(3.5·(S − 1)) + 1: early steps weigh more"],
        ["ACS", f"{scores['ACS']:.0f}", "the final answer's mark"],
        ["S", f"{weighted_step_score(marks):.4f}", "step marks averaged with weights e^(−i/n)"],
        ["first wrong step", "none" if first is None else str(first), f"marks: {''.join(map(str, marks))}"],
    ]


# --------------------------------------------------------------------------- answers


@dataclass
class AnswerCheck:
    extracted: str | None
    method: str
    equal: bool
    rule: str
    detail: str

    def rows(self) -> list[list[str]]:
        return [
            ["extracted answer", "—" if self.extracted is None else self.extracted],
            ["found by", self.method],
            ["verdict", "equal" if self.equal else "not equal"],
            ["rule", self.rule],
            ["detail", self.detail],
        ]


def _choices(text: str) -> list[str]:
    """Options one a line ("A. 40°"), or on one line separated by ";" or "|"."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) == 1:
        for separator in (";", "|"):
            if separator in lines[0]:
                return [part.strip() for part in lines[0].split(separator) if part.strip()]
    return lines


def check_pair(response: str | None, gold: str | None, choices: str | None = "", unit: str | None = "") -> AnswerCheck:
    """The answer checker on a (response, gold) pair: the final answer it extracts from the
    response, and its verdict with the rule that decided it."""
    text = check_text(response, MAX_ANSWER_CHARS, "The response")
    gold_text = check_text(gold, MAX_ANSWER_CHARS, "The gold answer")
    options = _choices(check_text(choices, MAX_CHOICES_CHARS, "The choices", required=False))
    if len(options) > MAX_CHOICES:
        raise DemoInputError(f"{len(options)} choices; the limit is {MAX_CHOICES}")
    unit_text = check_text(unit, 20, "The unit", required=False).strip() or None
    letters = string.ascii_uppercase[: len(options)]
    found = extract_final_answer(text, letters=letters or None)
    try:
        verdict = check_answer(found.answer, gold_text, choices=options or None, unit=unit_text)
    except ValueError as exc:
        raise DemoInputError(str(exc)) from None
    return AnswerCheck(found.answer, found.method, verdict.equal, verdict.rule, verdict.detail)
