"""The Gradio 6 app every metric Space (metrics/<name>/app.py) runs.

evaluate's own widget (`evaluate.utils.launch_gradio_widget`) builds its inputs from a
Gradio 3 API that Gradio 6 removed, so it fails on the Gradio the project declares. This app
does the same job with Gradio 6 components: the metric's card, a JSON box holding the
keyword arguments of `compute()` (predictions, references and the metric's optional lists),
a button, and the result as JSON. A metric whose inputs are not text (GGBench's images) gets a
`prepare` hook that turns what can be typed (GeoGebra scripts) into what it takes (rendered
drawings). Bad input is shown as an error message, never a traceback.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

MAX_INPUT_CHARS = 200_000  # a pasted batch of a few hundred items; more is refused, not parsed


def jsonable(value: Any) -> Any:
    """`compute()`'s result as JSON: infinities and NaN as strings, tuples as lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def card_body(folder: Path) -> str:
    """The metric card without its YAML front matter."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    parts = text.split("---\n", 2)
    return parts[2] if text.startswith("---\n") and len(parts) == 3 else text


def make_compute(module: Any, prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> Callable[[str], Any]:
    """The button's function: JSON text → `module.compute(**kwargs)` → JSON-able result."""

    def compute(text: str) -> Any:
        import gradio as gr

        if len(text) > MAX_INPUT_CHARS:
            raise gr.Error(f"the input is longer than {MAX_INPUT_CHARS} characters")
        try:
            kwargs = json.loads(text)
        except json.JSONDecodeError as exc:
            raise gr.Error(f"not JSON: {exc}") from None
        if not isinstance(kwargs, dict) or "predictions" not in kwargs or "references" not in kwargs:
            raise gr.Error('expected a JSON object with "predictions" and "references" (and any option of compute())')
        try:
            if prepare is not None:
                kwargs = prepare(kwargs)
            return jsonable(module.compute(**kwargs))
        except (ValueError, TypeError, KeyError) as exc:
            raise gr.Error(str(exc)) from None

    return compute


def build_app(folder: str | Path, name: str, example: Mapping[str, Any],
              prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> Any:
    """The metric Space for the evaluate module `folder/<name>.py`, with `example` filled in."""
    import evaluate
    import gradio as gr

    folder = Path(folder)
    module = evaluate.load(str(folder / f"{name}.py"))
    compute = make_compute(module, prepare)
    with gr.Blocks(title=name) as demo:
        with gr.Row():
            with gr.Column():
                inputs = gr.Code(value=json.dumps(example, indent=2, ensure_ascii=False), language="json",
                                 label="compute() arguments (JSON)")
                button = gr.Button("Compute", variant="primary")
            with gr.Column():
                output = gr.JSON(label="result")
        button.click(compute, inputs=inputs, outputs=output, api_name="compute")
        gr.Markdown(card_body(folder))
    return demo


def render_scripts(kwargs: dict[str, Any]) -> dict[str, Any]:
    """GGBench image track: GeoGebra scripts (or null: nothing drawn) rendered into the PNG
    drawings the metric compares, as `geomeval run` draws them: at its render size, each
    prediction in its reference's view so the pixels line up, under the Space's script
    limits (a refused script is the visitor's error, with the limit named)."""
    from ..benchmarks.ggbench.scoring import RENDER_SIZE
    from ..demo.try_metrics import _render, _run
    from ..geogebra.render import fit_window

    predictions, references = kwargs["predictions"], kwargs["references"]
    for script in (*predictions, *references):
        if script is not None and not isinstance(script, str):
            raise ValueError("each prediction and reference is a GeoGebra script (a string) or null")
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    out = dict(kwargs)
    out["predictions"], out["references"] = [], []
    for prediction, reference in zip(predictions, references, strict=True):
        window = None
        if reference is not None:
            drawn = _run(reference)
            window = fit_window(drawn, size=RENDER_SIZE)
            reference = {"bytes": _render(drawn, window)}
        out["references"].append(reference)
        out["predictions"].append(None if prediction is None else {"bytes": _render(_run(prediction), window)})
    return out
