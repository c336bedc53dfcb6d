"""GGBench scoring: the engine's checks, code and pixel similarity, and the judge rubrics.

Code track (a model writes a plan and GeoGebra code): the engine runs the answer's fenced
blocks as steps, so Pass@1 (every line ran) and the verifier (the final construction
against the reference one, up to a similarity transform) are deterministic; the code is
compared with the reference script (BLEU, ROUGE-L, chrF, edit distance, RUBY), and the
rendered final figure with the reference figure at 256×256 (PSNR, SSIM, LPIPS).

Image track (a unified model draws): its step images and final image, read from the run's
outputs, get the pixel metrics and the judge; code metrics do not apply.

Judge metrics (an LLM judge; each rubric score is 1–5): VLM-T, the process criteria on the
long image (VLM-I-Mid = mean of Step Accuracy and Process Consistency; Problem-Solution
Accuracy reported apart), VLM-I-Res, and VLM-I = mean(VLM-I-Mid, VLM-I-Res). Each is kept
as published (score / 5) and rescaled so 1 maps to 0 ((score − 1) / 4); reports show both
×100. Unlike the official scorer, a missing image or a failed judgment is *unscored* with
its reason (never scored as 1), and means run over scored items, with coverage (never over
a fixed 1,411).
"""

from __future__ import annotations

import asyncio
import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image as PILImage

from ...core.records import KeptFields, SampleRecord, Score
from ...engines.aggregate import Breakdown, summarize
from ...engines.codemetrics import code_metrics
from ...engines.imagemetrics import image_metrics, lpips_status
from ...engines.judges import Judge, likert
from ...engines.prompts import PromptSet
from ...engines.sandbox import SandboxLimit, SandboxStalled, shared_sandbox
from ...geogebra import (
    Construction,
    compose_long_image,
    render_long_image,
    render_png,
    run_script,
    verify,
)
from ...geogebra.executor import split_blocks
from ...geogebra.figures import figure_key, shared_figures
from ...geogebra.render import encode_png, fit_window, long_image_panels, render_image
from ...geogebra.syntax import ParseError
from ..datasource import read_bounded_image
from . import prompts
from .features import CATEGORIES, DIFFICULTIES, PROBLEM_TYPES

ENGINE_METRICS = ("Pass@1", "verifier")
CODE_METRICS = ("BLEU", "ROUGE-L", "chrF", "edit_distance", "RUBY")
PIXEL_METRICS = ("PSNR", "SSIM", "LPIPS")
JUDGE_METRICS = (
    "VLM-T",
    "VLM-I-Mid",
    "VLM-I-Res",
    "VLM-I",
    "Step Accuracy",
    "Process Consistency",
    "Problem-Solution Accuracy",
)
RESCALED = ("VLM-T", "VLM-I-Mid", "VLM-I-Res", "VLM-I")
RESCALED_SUFFIX = " (0-100)"
JUDGE_ALL = JUDGE_METRICS + tuple(name + RESCALED_SUFFIX for name in RESCALED)
CODE_TRACK_METRICS = ENGINE_METRICS + CODE_METRICS + PIXEL_METRICS + JUDGE_ALL
IMAGE_TRACK_METRICS = PIXEL_METRICS + JUDGE_ALL
METRICS = CODE_TRACK_METRICS
# How reports print a metric: percentages unless named here.
UNITS = {"PSNR": "dB", "LPIPS": "raw", "edit_distance": "raw"}
LOWER_IS_BETTER = ("LPIPS", "edit_distance")

RENDER_SIZE = (600, 450)  # the sample's reference figures are drawn at this size
LONG_IMAGE_STEPS = 12  # render_long_image's default: more blocks are merged into 12 panels
FINAL_ONLY = "a final image only: the model gave no plan and no steps (Table 4 shows '-')"
REFERENCE_IMAGE_MAX = 512  # the reference figure kept in each record, for rescoring
PSNR_CAP = 100.0  # dB; identical images have infinite PSNR, which JSON cannot hold
PSNR_CAPPED = f"identical at 256×256 (PSNR ∞, shown as {PSNR_CAP:g} dB)"
NO_JUDGE = "needs an LLM judge (--judge openai:<model>)"


# --------------------------------------------------------------------------- targets


def bounded_png(data: bytes) -> bytes:
    """An image as an opaque PNG no larger than 512 px a side. The reference figure is kept
    so in each record, and a candidate's figure goes through the same step before the pixel
    metrics, so both sides are resampled alike."""
    with PILImage.open(io.BytesIO(data)) as opened:
        flat = bounded_image(opened)
    buffer = io.BytesIO()
    # no optimize=True: it costs twice the encoding time for a file under 2% smaller, and
    # PNG is lossless, so the pixels every metric and the judge see are the same
    flat.save(buffer, format="PNG")
    return buffer.getvalue()


def bounded_image(image: PILImage.Image) -> PILImage.Image:
    """`bounded_png`'s pixels, for an image already decoded (a figure drawn in this process)."""
    picture = image.convert("RGBA")
    flat = PILImage.new("RGB", picture.size, "white")
    flat.paste(picture, mask=picture.getchannel("A"))
    flat.thumbnail((REFERENCE_IMAGE_MAX, REFERENCE_IMAGE_MAX), PILImage.Resampling.LANCZOS)
    return flat


def reference_image_b64(image: Any) -> str | None:
    """The reference figure for the record (so `geomeval score` can judge and compare again
    without the dataset), as base64 of `bounded_png`."""
    data = image.get("bytes") if isinstance(image, dict) else image
    if not data:
        return None
    return base64.b64encode(bounded_png(data)).decode("ascii")


def _reference_png(target: dict[str, Any]) -> bytes | None:
    encoded = target.get("final_image")
    return base64.b64decode(encoded) if encoded else None


# --------------------------------------------------------------------------- what the model made


@dataclass
class Drawn:
    """A candidate's figures, however they were made, plus what the engine said."""

    plan: str
    final: bytes | None = None
    long: bytes | None = None
    construction: Construction | None = None
    code: str = ""
    problem: str | None = None  # why figures are missing
    panels: int = 0  # figures in the long image (0: not known)
    blank: bool = False  # the final figure shows nothing: every line failed, or nothing visible
    final_only: bool = False  # a drawing model gave a final image and no steps
    reference_drawn: bytes | None = None  # the reference script's figure, in the answer's view (like for like)


def is_blank(png: bytes) -> bool:
    """Whether a figure is one flat colour: code that drew nothing, never a figure to compare."""
    with PILImage.open(io.BytesIO(png)) as opened:
        low, high = opened.convert("L").getextrema()
    return bool(low == high)


def plan_text(response: str) -> str:
    """The answer without its code blocks: the plan and step explanations VLM-T reads."""
    lines, inside = [], False
    for line in response.splitlines():
        if line.strip().startswith(("```", "~~~")):
            inside = not inside
            continue
        if not inside:
            lines.append(line)
    return "\n".join(lines).strip()


def answer_code(response: str) -> str:
    """The GeoGebra code of an answer: its code blocks joined, as the code metrics read it."""
    return "\n".join(block for _offset, block in split_blocks(response)).strip()


def pixel_names(with_lpips: bool) -> tuple[str, ...]:
    return PIXEL_METRICS if with_lpips else PIXEL_METRICS[:2]


def draw_code(response: str, reference: Construction | None, *, render: bool = True) -> Drawn:
    """Run the answer's code and render it in the reference's view, so pixels line up."""
    code = answer_code(response)
    drawn = Drawn(plan=plan_text(response), code=code)
    if not code:
        drawn.problem = "no GeoGebra code in the answer"
        return drawn
    try:
        construction = run_script(response)
    except ParseError as exc:  # a resource limit: the whole script is refused
        drawn.problem = f"script refused: {exc}"
        return drawn
    drawn.construction = construction
    if not render:
        return drawn
    window = fit_window(reference, size=RENDER_SIZE) if reference is not None else None
    drawn.final = render_png(construction, size=RENDER_SIZE, window=window)
    drawn.long = render_long_image(construction, size=RENDER_SIZE)
    return drawn


def draw_images(record: SampleRecord) -> Drawn:
    """A unified model's own images, from the paths its outputs recorded."""
    drawn = Drawn(plan=(record.response or "").strip())
    images = record.images or {}
    final_path, steps = images.get("final"), list(images.get("steps") or [])
    long_path = images.get("long")
    try:
        if final_path:
            drawn.final = _read_image(final_path, "final image")
        elif steps:
            drawn.final = _read_image(steps[-1], "last step image")
        if long_path:
            drawn.long = _read_image(long_path, "long image")
        elif steps:
            drawn.long = compose_long_image([_read_image(p, f"step image {i}") for i, p in enumerate(steps, 1)])
    except ValueError as exc:  # missing, oversized or unreadable: the rubric's "unusable image"
        drawn.problem = str(exc)
        drawn.final = drawn.long = None
    if drawn.final is None and drawn.problem is None:
        drawn.problem = "the model drew no final image"
    drawn.panels = len(steps)
    drawn.final_only = bool(final_path) and not steps and not long_path
    if drawn.final is not None:
        try:
            drawn.blank = is_blank(drawn.final)
        except (OSError, ValueError) as exc:
            drawn.problem, drawn.final, drawn.long = f"final image unreadable: {exc}", None, None
        if drawn.blank:
            drawn.problem = "the final image is blank"
    return drawn


def _read_image(path: str, what: str) -> bytes:
    """A model's drawing, refused (ValueError) when missing, over the byte or pixel limits
    (checked before reading and before decoding), or not an image."""
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"{what} not found: {path}")
    try:
        return read_bounded_image(file)
    except ValueError as exc:
        raise ValueError(f"{what} {file.name} {exc}") from None


# --------------------------------------------------------------------------- deterministic scores


def reference_script_text(target: dict[str, Any]) -> str:
    """What the engine runs for the reference: its steps' code as blocks, else the script."""
    script = target.get("reference_script") or ""
    steps = target.get("steps") or []
    blocks = [s.get("code") or "" for s in steps if (s.get("code") or "").strip()]
    return "\n".join(f"```geogebra\n{b}\n```" for b in blocks) if blocks else script


def reference_construction(target: dict[str, Any]) -> tuple[Construction | None, str | None]:
    """The reference script run by the engine, or why it cannot serve as the reference."""
    try:
        construction = run_script(reference_script_text(target))
    except ParseError as exc:
        return None, f"reference script refused by the engine: {exc}"
    if not construction.pass_at_1:
        first = construction.errors[0]
        return construction, f"reference script fails in the engine at line {first.line}: {first.error}"
    return construction, None


# Each metric's worst value: what an answer scores on a metric its own output made impossible
# to compute (no code, a script over the engine's limits, a figure the verifier or renderer
# cannot handle). A model failure is scored, never left out of the mean.
FLOOR = {"Pass@1": 0.0, "verifier": 0.0, "BLEU": 0.0, "ROUGE-L": 0.0, "chrF": 0.0, "edit_distance": 1.0,
         "RUBY": 0.0, "PSNR": 0.0, "SSIM": 0.0, "LPIPS": 1.0}


def floor_scores(names: tuple[str, ...], reason: str) -> dict[str, Score]:
    return {name: Score(FLOOR[name], explanation=reason) for name in names}


def engine_scores(drawn: Drawn, reference: Construction | None, reference_problem: str | None) -> dict[str, Score]:
    """Pass@1 and the verifier; a verifier crash on the answer's construction costs the
    verifier alone (at its floor), never Pass@1."""
    if drawn.construction is None:
        return floor_scores(ENGINE_METRICS, drawn.problem or "no construction")
    construction = drawn.construction
    errors = construction.errors
    ran = construction.pass_at_1 and bool(construction.lines)
    detail = "every line ran" if ran else (
        f"{len(errors)} failing line(s); first: line {errors[0].line}: {errors[0].error}" if errors else "no commands"
    )
    scores = {"Pass@1": Score(1.0 if ran else 0.0, explanation=detail)}
    if reference is None or reference_problem is not None:
        scores["verifier"] = Score.missing(reference_problem or "no reference construction")
        return scores
    try:
        verdict = verify(construction, reference)
    except Exception as exc:  # the answer's construction broke the verifier: its failure
        scores["verifier"] = Score(FLOOR["verifier"], explanation=f"the verifier failed on this construction: {_what(exc)}")
        return scores
    failed = [c for c in verdict.checks if not c.passed][:5]
    why = "; ".join(f"✗ {c.name}: {c.detail}" for c in failed)
    scores["verifier"] = Score(
        verdict.score,
        explanation=f"{verdict.passed}/{len(verdict.checks)} checks ({verdict.transform})" + (f"; {why}" if why else ""),
    )
    return scores


def _what(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def code_track(
    response: str, target: dict[str, Any], reference_png: bytes | None, with_lpips: bool,
    pixel_reference: str = "rendered", for_judge: bool = True,
) -> tuple[Drawn, dict[str, Score], list[dict[str, Any]]]:
    """Everything deterministic about a code-track answer: what it drew (without the engine's
    objects, so the result pickles out of a sandbox worker), its engine, code and pixel
    scores, and its failing lines. Each family is computed on its own: a crash costs only
    the metrics that need the part that crashed, at their floor.

    Only what a metric reads is drawn: the pixel metrics read the final figure's pixels (no
    PNG is made for them); the judge, when `for_judge`, reads its PNG and the long image,
    which a blank figure makes moot (the rubric's 1). The reference figure comes from the
    figure cache (drawn once per script, view and renderer), and an answer whose code is the
    reference's is that same figure."""
    try:
        reference, reference_problem = reference_construction(target)
    except Exception as exc:  # the release's own script: not the answer's failure
        reference, reference_problem = None, f"the reference script broke the engine: {_what(exc)}"
    try:
        drawn = draw_code(response, reference, render=False)
    except Exception as exc:
        drawn = Drawn(plan=plan_text(response), code=answer_code(response),
                      problem=f"the engine failed on the answer: {_what(exc)}")
    scores = engine_scores(drawn, reference, reference_problem)
    scores.update(guarded_similarity_scores(drawn, target))
    pixels = pixel_names(with_lpips)
    window = framing = None
    try:  # the reference's view, which the answer is drawn in too, so pixels line up
        window = fit_window(reference, size=RENDER_SIZE) if reference is not None else None
    except Exception as exc:  # no figure in that view, the answer's nor the reference's
        framing = exc
    reference_key = reference_figure = None
    if pixel_reference == "rendered" and reference is not None and reference_problem is None and framing is None:
        reference_key = figure_key(_blocks(reference_script_text(target)), RENDER_SIZE, window)
        try:  # the reference drawn by the same engine, in the same window: like for like
            reference_figure = shared_figures().drawn(
                reference_key, lambda: encode_png(render_image(reference, size=RENDER_SIZE, window=window)))
        except Exception:  # the release's own script: fall back to its published figure
            reference_figure = None
    final: PILImage.Image | None = None
    if drawn.construction is not None:
        try:
            if framing is not None:
                raise framing
            if reference_figure is not None and figure_key(_blocks(response), RENDER_SIZE, window) == reference_key:
                final = _decoded(reference_figure)  # the reference's own code: its figure, not drawn again
                drawn.final = reference_figure if for_judge else None
            else:
                final = render_image(drawn.construction, size=RENDER_SIZE, window=window)
            drawn.panels = len(long_image_panels(drawn.construction.blocks, LONG_IMAGE_STEPS))
            drawn.blank = _flat(final)
            if drawn.blank:
                drawn.problem = ("no line of the answer ran" if not any(line.ok for line in drawn.construction.lines)
                                 else "the answer's construction draws nothing visible")
            elif for_judge:  # only the judge reads the PNG and the long image
                drawn.final = drawn.final or encode_png(final)
                drawn.long = render_long_image(drawn.construction, size=RENDER_SIZE)
        except Exception as exc:  # a figure the renderer cannot draw: the answer's failure
            final, drawn.final, drawn.long = None, None, None
            drawn.problem = f"the figure could not be drawn: {_what(exc)}"
            scores.update(floor_scores(pixels, drawn.problem))
    drawn.reference_drawn = reference_figure
    if not any(name in scores for name in pixels):
        reference_pixels = bounded_image(_decoded(reference_figure)) if reference_figure else reference_png
        scores.update(_figure_scores(drawn, final, reference_pixels, with_lpips))
    failed_lines = [
        {"line": s.line, "source": s.source[:200], "error": (s.error or "")[:300]}
        for s in (drawn.construction.errors if drawn.construction else [])[:20]
    ]
    drawn.construction = None
    return drawn, scores, failed_lines


def _blocks(text: str) -> list[str]:
    """The command blocks the engine runs for this text: what decides the construction."""
    return [block for _offset, block in split_blocks(text)]


def _decoded(png: bytes) -> PILImage.Image:
    with PILImage.open(io.BytesIO(png)) as opened:
        return opened.convert("RGB")


def _flat(image: PILImage.Image) -> bool:
    """`is_blank` for a decoded figure."""
    low, high = image.convert("L").getextrema()
    return bool(low == high)


def _figure_scores(drawn: Drawn, final: PILImage.Image | None, reference: bytes | PILImage.Image | None,
                   with_lpips: bool) -> dict[str, Score]:
    """`pixel_scores` for a figure drawn here: the same pixels, compared without a PNG between."""
    names = pixel_names(with_lpips)
    if reference is None:
        return {m: Score.missing("the item has no reference image") for m in names}
    if final is None or drawn.blank:  # the model's failure: each metric's worst value
        return floor_scores(names, drawn.problem or "no final figure")
    return image_pair_scores(bounded_image(final), reference, with_lpips)


def _engine_limit(response: str, target: dict[str, Any], reason: str, reference_png: bytes | None,
                  with_lpips: bool) -> tuple[Drawn, dict[str, Score], list[dict[str, Any]]]:
    """An answer whose scoring ran past the sandbox's limits: the engine's and the figure's
    metrics at their floor; the code metrics are text only and still computed."""
    problem = f"the answer's script {reason}"
    drawn = Drawn(plan=plan_text(response), code=answer_code(response), problem=problem)
    pixels = pixel_names(with_lpips)
    scores = floor_scores(ENGINE_METRICS, problem)
    scores.update(floor_scores(pixels, problem) if reference_png is not None
                  else {m: Score.missing("the item has no reference image") for m in pixels})
    scores.update(guarded_similarity_scores(drawn, target))
    return drawn, scores, []


STALLED = "not the answer's failure"


def _engine_stalled(response: str, target: dict[str, Any], reason: str,
                    with_lpips: bool) -> tuple[Drawn, dict[str, Score], list[dict[str, Any]]]:
    """An answer whose scoring hit the sandbox's wall-clock safety net: the machine stalled, so
    the engine's and the figure's metrics are unscored, saying so; the code metrics are text
    only and still computed."""
    problem = f"scoring {reason}; {STALLED}"
    drawn = Drawn(plan=plan_text(response), code=answer_code(response), problem=problem)
    scores = {m: Score.missing(problem) for m in (*ENGINE_METRICS, *pixel_names(with_lpips))}
    scores.update(guarded_similarity_scores(drawn, target))
    return drawn, scores, []


def guarded_similarity_scores(drawn: Drawn, target: dict[str, Any]) -> dict[str, Score]:
    """`similarity_scores`, or every code metric at its floor when they fail on the answer."""
    try:
        return similarity_scores(drawn, target)
    except Exception as exc:
        return floor_scores(CODE_METRICS, f"the code metrics failed on the answer: {_what(exc)}")


def similarity_scores(drawn: Drawn, target: dict[str, Any]) -> dict[str, Score]:
    if not drawn.code:
        return {m: Score(0.0 if m != "edit_distance" else 1.0, explanation=drawn.problem or "no code") for m in CODE_METRICS}
    values = code_metrics(drawn.code, target.get("reference_script") or "")
    return {m: Score(float(values[m])) for m in CODE_METRICS}


def pixel_scores(drawn: Drawn, reference_png: bytes | None, with_lpips: bool) -> dict[str, Score]:
    names = pixel_names(with_lpips)
    if reference_png is None:
        return {m: Score.missing("the item has no reference image") for m in names}
    if drawn.final is None or drawn.blank:  # the model's failure: each metric's worst value
        return floor_scores(names, drawn.problem or "no final figure")
    try:
        final = bounded_png(drawn.final)
    except (ValueError, OSError) as exc:
        return floor_scores(names, f"image unreadable: {exc}")
    return image_pair_scores(final, reference_png, with_lpips)


def image_pair_scores(candidate: Any, reference: Any, with_lpips: bool) -> dict[str, Score]:
    """PSNR, SSIM (and LPIPS) of two images as Scores; infinite PSNR is capped and said so."""
    names = pixel_names(with_lpips)
    try:
        values = image_metrics(candidate, reference, lpips=with_lpips)
    except (ValueError, OSError) as exc:
        return {m: Score.missing(f"image unreadable: {exc}") for m in names}
    scores: dict[str, Score] = {}
    for name in names:
        value = values.get(name)
        if value is None:
            scores[name] = Score.missing(lpips_status() or f"{name} not computed")
        elif name == "PSNR" and not value < PSNR_CAP:
            scores[name] = Score(PSNR_CAP, explanation=PSNR_CAPPED)
        else:
            scores[name] = Score(float(value))
    return scores


# --------------------------------------------------------------------------- judge scores


def _likert_scores(name: str, value: int, reason: str, *, judged: bool = True) -> dict[str, Score]:
    """A 1–5 rating as the metric (value / 5) and, where published so, rescaled; `judged`
    False for a rubric rule applied without asking the judge."""
    outcome = "decided" if judged else None
    out = {name: Score(value / 5, explanation=f"{value}/5: {reason}", judge=outcome)}
    if name in RESCALED:
        out[name + RESCALED_SUFFIX] = Score((value - 1) / 4, explanation=f"{value}/5", judge=outcome)
    return out


def _inapplicable(names: tuple[str, ...], reason: str) -> dict[str, Score]:
    out: dict[str, Score] = {}
    for name in names:
        out[name] = Score.inapplicable(reason)
        if name in RESCALED:
            out[name + RESCALED_SUFFIX] = Score.inapplicable(reason)
    return out


def _judge_failed(names: tuple[str, ...], reason: str) -> dict[str, Score]:
    out: dict[str, Score] = {}
    for name in names:
        out[name] = Score.judge_failed(reason)
        if name in RESCALED:
            out[name + RESCALED_SUFFIX] = Score.judge_failed(reason)
    return out


def _missing(names: tuple[str, ...], reason: str, needs_judge: bool = False) -> dict[str, Score]:
    out: dict[str, Score] = {}
    for name in names:
        out[name] = Score.missing(reason, needs_judge=needs_judge)
        if name in RESCALED:
            out[name + RESCALED_SUFFIX] = Score.missing(reason, needs_judge=needs_judge)
    return out


def _rubric_floor(names: tuple[str, ...], why: str) -> dict[str, Score]:
    """The rubric's own 1 for what needs no judge to see (no answer, no image, a blank or
    unusable figure): the model's failure, scored (value 1/5, rescaled 0), never left out."""
    out: dict[str, Score] = {}
    for name in names:
        out.update(_likert_scores(name, 1, f"the rubric's 1: {why}", judged=False))
    return out


def _mid_scores(step: int, consistency: int, solution: int, reason: str, judged: bool = True) -> dict[str, Score]:
    scores = {
        **_likert_scores("Step Accuracy", step, reason, judged=judged),
        **_likert_scores("Process Consistency", consistency, reason, judged=judged),
        **_likert_scores("Problem-Solution Accuracy", solution, reason, judged=judged),
    }
    mid = (step + consistency) / 2
    outcome = "decided" if judged else None
    why = "" if judged else f" ({reason})"
    scores["VLM-I-Mid"] = Score(mid / 5, explanation=f"mean of step accuracy and process consistency: {mid:g}/5{why}",
                                judge=outcome)
    scores["VLM-I-Mid" + RESCALED_SUFFIX] = Score((mid - 1) / 4, explanation=f"{mid:g}/5", judge=outcome)
    return scores


PROCESS_NAMES = ("Step Accuracy", "Process Consistency", "Problem-Solution Accuracy", "VLM-I-Mid")


async def judge_scores(
    record: SampleRecord, judge: Judge, drawn: Drawn, reference_png: bytes | None, prompt_set: PromptSet
) -> tuple[dict[str, Score], dict[str, Any]]:
    """The three rubric questions, asked concurrently; each failure stays local to its metrics.

    What the rubrics settle without judgment is applied here, not asked: an answer with no
    text is 1 for VLM-T; no step figures (or only blank ones) make all three process criteria
    1; a long image of a single figure caps Process Consistency at 1; no usable final figure
    makes VLM-I-Res 1. A model that draws only a final image (the image track's Qwen-Image
    kind) has no plan and no process: VLM-T and VLM-I-Mid do not apply and VLM-I is VLM-I-Res,
    as in the paper's Table 4."""
    target = record.target
    response = record.response or ""
    final_only = drawn.final_only

    async def text() -> tuple[dict[str, Score], dict[str, Any]]:
        if final_only:
            return _inapplicable(("VLM-T",), FINAL_ONLY), {}
        if not response.strip():
            return _rubric_floor(("VLM-T",), "the answer has no text"), {}
        answer = await judge.ask(prompts.text_judge_messages(target, response, prompt_set), prompts.parse_score)
        if answer.value is None:
            return _judge_failed(("VLM-T",), answer.error or "judge failed"), {"text_error": answer.error}
        return _likert_scores("VLM-T", answer.value["score"], answer.value["reason"]), {"text": answer.value}

    async def process() -> tuple[dict[str, Score], dict[str, Any]]:
        if final_only:
            return _inapplicable(PROCESS_NAMES, FINAL_ONLY), {}
        if drawn.long is None or drawn.blank:
            why = drawn.problem or "no step figures"
            return _mid_scores(1, 1, 1, f"the rubric's 1: {why}", judged=False), {}
        answer = await judge.ask(
            prompts.process_judge_messages(target, response, drawn.long, prompt_set), prompts.parse_process
        )
        if answer.value is None:
            return _judge_failed(PROCESS_NAMES, answer.error or "judge failed"), {"process_error": answer.error}
        v = dict(answer.value)
        if drawn.panels == 1 and v["process_consistency"] > 1:  # the rubric's mandatory clause
            v["process_consistency"] = 1
            v["reason"] = f"{v['reason']} [Process Consistency capped at 1: a single figure]".strip()
        return _mid_scores(v["step_accuracy"], v["process_consistency"], v["problem_solution_accuracy"],
                           v["reason"]), {"process": v}

    async def result() -> tuple[dict[str, Score], dict[str, Any]]:
        if reference_png is None:
            return _missing(("VLM-I-Res",), "the item has no reference image"), {}
        if drawn.final is None or drawn.blank:
            return _rubric_floor(("VLM-I-Res",), drawn.problem or "no final figure"), {}
        answer = await judge.ask(prompts.result_judge_messages(reference_png, drawn.final, prompt_set),
                                 prompts.parse_score)
        if answer.value is None:
            return _judge_failed(("VLM-I-Res",), answer.error or "judge failed"), {"result_error": answer.error}
        return _likert_scores("VLM-I-Res", answer.value["score"], answer.value["reason"]), {"result": answer.value}

    scores: dict[str, Score] = {}
    judgment: dict[str, Any] = {}
    for part_scores, part_judgment in await asyncio.gather(text(), process(), result()):
        scores.update(part_scores)
        judgment.update(part_judgment)
    res = scores["VLM-I-Res"]
    if final_only:
        if res.scored:
            scores["VLM-I"] = Score(res.value, explanation="VLM-I-Res (a final image only: Table 4's rule)",
                                    judge=res.judge)
            scores["VLM-I" + RESCALED_SUFFIX] = Score(scores["VLM-I-Res" + RESCALED_SUFFIX].value,
                                                      explanation="VLM-I-Res rescaled", judge=res.judge)
        else:
            scores.update(_missing(("VLM-I",), f"needs VLM-I-Res: {res.unscored}"))
        return scores, judgment
    mid = scores["VLM-I-Mid"]
    if mid.scored and res.scored:
        both = (mid.value + res.value) / 2  # type: ignore[operator]
        outcome = "decided" if mid.judge or res.judge else None
        scores["VLM-I"] = Score(both, explanation="mean of VLM-I-Mid and VLM-I-Res", judge=outcome)
        rescaled = (scores["VLM-I-Mid" + RESCALED_SUFFIX].value + scores["VLM-I-Res" + RESCALED_SUFFIX].value) / 2  # type: ignore[operator]
        scores["VLM-I" + RESCALED_SUFFIX] = Score(rescaled, explanation="mean of the rescaled parts", judge=outcome)
    else:
        why = mid.unscored if not mid.scored else res.unscored
        scores.update(_missing(("VLM-I",), f"needs VLM-I-Mid and VLM-I-Res: {why}"))
    return scores, judgment


# --------------------------------------------------------------------------- one record


async def score_record(
    record: SampleRecord, judge: Judge, prompt_set: PromptSet, pixel_reference: str = "auto",
    engine: str = "geomeval",
) -> dict[str, Score]:
    track = "image" if record.task == "ggbench_image" else "code"
    names = IMAGE_TRACK_METRICS if track == "image" else CODE_TRACK_METRICS
    record.judgment = None
    with_lpips = lpips_status() is None
    reference_png = _reference_png(record.target)

    # geomeval's engine draws like for like unless the release's PNG is asked for; under the
    # jar its pixel scores are replaced by GeoGebra's figure's, so no reference is drawn here.
    own_reference = "release" if pixel_reference == "release" or engine == "jar" else "rendered"

    def deterministic() -> tuple[Drawn, dict[str, Score], list[dict[str, Any]]]:
        if track == "image":
            drawn = draw_images(record)
            return drawn, pixel_scores(drawn, reference_png, with_lpips), []
        response = record.response or ""
        try:  # the answer's code runs in a worker that is killed past its time or memory limit
            drawn, scores, failed = shared_sandbox().call(code_track, response, record.target, reference_png,
                                                          with_lpips, own_reference, not judge.offline)
        except SandboxStalled as exc:  # the machine's failure, not the answer's: unscored
            drawn, scores, failed = _engine_stalled(response, record.target, str(exc), with_lpips)
        except SandboxLimit as exc:  # its CPU-time or memory limit: the answer's failure
            drawn, scores, failed = _engine_limit(response, record.target, str(exc), reference_png, with_lpips)
        return drawn, scores, failed

    # Running scripts, verifying and rendering are CPU work: off the event loop, so judge
    # requests for other items keep flowing meanwhile.
    drawn, scores, failed_lines = await asyncio.to_thread(deterministic)
    drawn_by = "geomeval"
    compared_with = "rendered" if drawn.reference_drawn is not None else "release"
    if engine == "jar" and track == "code" and drawn.code:
        # GeoGebra 4.0.34 runs the answer (Pass@1) and draws it: the pixel metrics compare its
        # figure, as the paper's pipeline draws it, with the release's PNG (or, with
        # `pixel_reference=rendered`, with the reference script drawn by GeoGebra in its view).
        jar = await asyncio.to_thread(jar_scores, drawn, record.target, reference_png, with_lpips,
                                      jar_reference(pixel_reference))
        scores["Pass@1"], failed_lines = jar.pass_at_1, jar.failed
        scores.update(jar.pixels)
        drawn_by, compared_with = "GeoGebra 4.0.34", jar.compared_with
    record.extracted = {
        "track": track,
        "code": drawn.code,
        "plan": drawn.plan[:4000],
        "problem": drawn.problem,
        "failed_lines": failed_lines,
        "pixel_reference": compared_with,
        "figure_drawn_by": drawn_by if track == "code" else "the model",
    }
    if judge.offline:
        scores.update(_missing(JUDGE_METRICS, NO_JUDGE, needs_judge=True))
    elif drawn.problem and drawn.problem.endswith(STALLED):  # no figures, by no fault of the answer
        scores.update(_missing(JUDGE_METRICS, drawn.problem))
    else:
        judged, record.judgment = await judge_scores(record, judge, drawn, reference_png, prompt_set)
        scores.update(judged)
    return {name: scores[name] for name in names if name in scores}


def jar_reference(pixel_reference: str) -> str:
    """What the jar's figure is compared with: the release's PNG unless `rendered` is asked
    for explicitly (`auto`, the default, is the paper's comparison under `engine=jar`)."""
    return "rendered" if pixel_reference == "rendered" else "release"


@dataclass
class JarScores:
    pass_at_1: Score
    failed: list[dict[str, Any]]
    pixels: dict[str, Score]
    compared_with: str


def jar_scores(drawn: Drawn, target: dict[str, Any], reference_png: bytes | None, with_lpips: bool,
               compare_with: str) -> JarScores:
    """`-T engine=jar`: Pass@1 and the pixel metrics of the answer as GeoGebra 4.0.34 runs and
    draws it. The answer's final figure (the judge's too) becomes GeoGebra's drawing."""
    from ...geogebra.jar_scoring import jar_figure

    names = pixel_names(with_lpips)
    window = None
    reference: bytes | PILImage.Image | None = reference_png
    compared_with = "release"
    if compare_with == "rendered":
        ref = jar_figure(answer_code(reference_script_text(target)), RENDER_SIZE)  # its code, unfenced
        if ref.get("png") and ref["passed"] and ref["drawn_objects"]:
            # resampled as the answer's figure is (`bounded_png`), so like for like is exact
            reference, window, compared_with = bounded_png(ref["png"]), ref["window"], "rendered"
    verdict = jar_figure(drawn.code, RENDER_SIZE, window)
    pass_at_1, failed = _jar_pass_score(verdict)
    if verdict.get("harness_failure"):
        pixels = {m: Score.missing(f"GeoGebra 4.0.34 harness failure: {verdict['error']}") for m in names}
    elif reference is None:
        pixels = {m: Score.missing("the item has no reference image") for m in names}
    elif verdict["error"] or not verdict.get("ok_lines") or not verdict["drawn_objects"] or verdict.get("png") is None:
        # the answer's failure: each metric's worst value, and no final figure for the judge
        drawn.problem = (f"GeoGebra 4.0.34: {verdict['error']}" if verdict["error"]
                         else "no line of the answer ran in GeoGebra 4.0.34" if not verdict.get("ok_lines")
                         else "the answer's construction draws nothing visible in GeoGebra 4.0.34"
                         if not verdict["drawn_objects"]
                         else f"GeoGebra 4.0.34 could not draw the answer: {verdict.get('figure_error')}")
        drawn.final, drawn.long, drawn.blank = None, None, True
        pixels = floor_scores(names, drawn.problem)
    else:
        drawn.final, drawn.blank, drawn.problem = verdict["png"], False, None
        pixels = image_pair_scores(bounded_png(verdict["png"]), reference, with_lpips)
    return JarScores(pass_at_1, failed, pixels, compared_with)


def _jar_pass_score(verdict: dict[str, Any]) -> tuple[Score, list[dict[str, Any]]]:
    if verdict.get("harness_failure"):  # the harness failed, not the answer: no verdict, never 0
        return Score.missing(f"GeoGebra 4.0.34 harness failure: {verdict['error']}"), []
    if verdict["error"]:
        return Score(0.0, explanation=f"GeoGebra 4.0.34: {verdict['error']}"), []
    failed = verdict["failed"]
    detail = ("GeoGebra 4.0.34 ran every line" if verdict["passed"] else
              f"GeoGebra 4.0.34: {len(failed)} failing line(s); first: line {failed[0]['line']}: {failed[0]['error']}"
              if failed else "GeoGebra 4.0.34: no commands")
    if verdict.get("retried"):  # stopped once (a limit, the JVM dying), this is the fresh JVM's verdict
        detail += f" (on a fresh JVM, after: {verdict['retried']['reason']})"
    return Score(1.0 if verdict["passed"] else 0.0, explanation=detail), failed


def jar_pass_at_1_score(code: str) -> tuple[Score, list[dict[str, Any]]]:
    """Pass@1 as GeoGebra 4.0.34 decides it (`-T engine=jar`), and the lines it refused."""
    from ...geogebra.jar_scoring import jar_pass_at_1

    return _jar_pass_score(jar_pass_at_1(code))


# --------------------------------------------------------------------------- aggregation


BREAKDOWNS = (
    Breakdown("difficulty", order=tuple(DIFFICULTIES)),
    Breakdown("problem_type", order=tuple(PROBLEM_TYPES)),
    Breakdown("category", field="categories", order=tuple(CATEGORIES)),
)
KEPT = KeptFields()  # `aggregate` reads only ids, meta and scores


def aggregate(records: Sequence[SampleRecord]) -> dict[str, Any]:
    image_track = bool(records) and all(r.task == "ggbench_image" for r in records)
    names = list(IMAGE_TRACK_METRICS if image_track else CODE_TRACK_METRICS)
    skipped: dict[str, str] = {}
    if not any("LPIPS" in r.scores for r in records):
        names.remove("LPIPS")
        skipped["LPIPS"] = lpips_status() or "not computed in this run"
    summary = summarize(
        records,
        names,
        breakdowns=BREAKDOWNS,
        units=UNITS,
    )
    summary["headline"] = _headline(summary["metrics"], image_track)
    summary["tables"] = [paper_table(summary["metrics"])]
    if not image_track:
        summary["tables"].append(paper_table5(summary["metrics"]))
    if skipped:
        summary["skipped_metrics"] = skipped
    return summary


TABLE4_COLUMNS = ("VLM-T", "VLM-I-Mid", "VLM-I-Res", "LPIPS", "PSNR", "SSIM", "VLM-I")


def paper_table(metrics: dict[str, Any]) -> dict[str, Any]:
    """This run in the layout of the paper's Table 4, to paste beside its rows: every column
    ×100 as printed there (the rubric metrics as score/5 × 100, SSIM and LPIPS × 100). PSNR is
    left in dB: the paper's PSNR scale cannot be recovered (see the card), so that cell is not
    comparable with the published column."""
    cells: list[Any] = ["this run"]
    for name in TABLE4_COLUMNS:
        value = metrics.get(name, {}).get("value")
        if value is None:
            cells.append(None)
        elif name == "PSNR":
            cells.append(f"{value:.2f} dB")
        else:
            cells.append(f"{100 * value:.2f}")
    return {"title": "GGBench as in the paper's Table 4 (×100 as printed; PSNR in dB, not comparable)",
            "columns": ["model", *TABLE4_COLUMNS], "rows": [cells]}


# Table 5's columns and the metric each one is (its "EditDist" is geomeval's edit_distance).
TABLE5_METRICS = ("Pass@1", "BLEU", "RUBY", "ROUGE-L", "chrF", "edit_distance")
TABLE5_COLUMNS = ("Pass@1", "BLEU", "RUBY", "ROUGE-L", "chrF", "EditDist")


def paper_table5(metrics: dict[str, Any]) -> dict[str, Any]:
    """This run in the layout of the paper's Table 5 (code metrics): each metric's mean ×100,
    as printed there (every one is a share here, edit distance included)."""
    cells: list[Any] = ["this run"]
    for name in TABLE5_METRICS:
        value = metrics.get(name, {}).get("value")
        cells.append(None if value is None else f"{100 * value:.2f}")
    return {"title": "GGBench-Code as in the paper's Table 5 (×100 as printed)",
            "columns": ["model", *TABLE5_COLUMNS], "rows": [cells]}


def _headline(metrics: dict[str, Any], image_track: bool) -> str:
    """VLM-I, Table 4's overall score, when a judge scored it; else a metric the paper reports
    without a judge: Pass@1 (Table 5) for code, SSIM (Table 4) for drawings. geomeval's own
    verifier, which the paper does not have, is never the headline."""
    preference = ("VLM-I", "SSIM") if image_track else ("VLM-I", "Pass@1")
    for name in preference:
        if metrics.get(name, {}).get("value") is not None:
            return name
    return preference[-1]


# --------------------------------------------------------------------------- for the evaluate faces


def code_answer_scores(answer: str, reference_script: str) -> dict[str, Score]:
    """Pass@1, verifier and code similarity of one answer against one reference script (no
    figures, no judge): what `metrics/ggbench_code` reports per item."""
    target = {"reference_script": reference_script, "steps": []}
    reference, reference_problem = reference_construction(target)
    drawn = draw_code(answer, reference, render=False)
    scores = engine_scores(drawn, reference, reference_problem)
    scores.update(similarity_scores(drawn, target))
    return scores


def likert_means(
    text: list[int | None] | None = None,
    step_accuracy: list[int | None] | None = None,
    process_consistency: list[int | None] | None = None,
    problem_solution: list[int | None] | None = None,
    result: list[int | None] | None = None,
) -> dict[str, dict[str, float | int | None]]:
    """The judge metrics from per-item rubric scores (1–5, None where unscored), as `geomeval
    run` computes them: per metric the published mean (score/5), the rescaled mean ((s−1)/4),
    and how many items were scored."""
    def per_item(values: list[int | None] | None, name: str) -> list[float | None]:
        out: list[float | None] = []
        for index, value in enumerate(values or []):
            if value is not None:
                likert(value, f"{name}[{index}]")  # 1–5 or a clear ValueError
            out.append(None if value is None else float(value))
        return out

    series: dict[str, list[float | None]] = {
        "VLM-T": per_item(text, "text"),
        "Step Accuracy": per_item(step_accuracy, "step_accuracy"),
        "Process Consistency": per_item(process_consistency, "process_consistency"),
        "Problem-Solution Accuracy": per_item(problem_solution, "problem_solution"),
        "VLM-I-Res": per_item(result, "result"),
    }
    lengths = {len(v) for v in series.values() if v}
    if len(lengths) > 1:
        raise ValueError(f"rubric score lists differ in length: {sorted(lengths)}")
    steps, consistency = series["Step Accuracy"], series["Process Consistency"]
    if bool(steps) != bool(consistency):
        raise ValueError("step_accuracy and process_consistency go together: VLM-I-Mid is their per-item mean")
    series["VLM-I-Mid"] = [
        (a + b) / 2 if a is not None and b is not None else None for a, b in zip(steps, consistency, strict=True)
    ]
    mids, results = series["VLM-I-Mid"], series["VLM-I-Res"]
    if mids and results:
        series["VLM-I"] = [
            (m + r) / 2 if m is not None and r is not None else None for m, r in zip(mids, results, strict=True)
        ]
    out: dict[str, dict[str, float | int | None]] = {}
    for name, values in series.items():
        if not values:
            continue
        scored = [v for v in values if v is not None]
        out[name] = {
            "published": sum(v / 5 for v in scored) / len(scored) if scored else None,
            "rescaled": sum((v - 1) / 4 for v in scored) / len(scored) if scored else None,
            "scored": len(scored),
            "total": len(values),
        }
    return out
