"""The logic behind the Gradio Space (`spaces/geomeval/`, `geomeval demo`).

Everything the Space shows is computed here by plain functions returning plain data
(strings, numbers, lists of rows, PIL images, matplotlib figures), so it can be tested
without Gradio and the Gradio layer (`geomeval.demo.app`) stays a face with no logic:

- `explore`: browse every registered benchmark's embedded sample, discovered generically
  from the registry, so a new benchmark appears without touching the app;
- `try_metrics`: score what a visitor types (a caption, a GeoGebra script, a solution, an
  answer pair) with the library's own scorers;
- `boards`: the papers' published numbers (data files with their sources) and the
  `results.json` of runs placed in a folder; `ranking`: one ranked leaderboard of both;
- `runview`: one run's items (prompt, response, extraction, judgment, scores);
- `cards`: the metric cards and examples; `latex`: LaTeX as symbols or for KaTeX.

Visitor input is untrusted: every entry point bounds its size (`limits`) and raises
`DemoInputError`, whose message the app shows as is.
"""

from __future__ import annotations

from .limits import DemoInputError

__all__ = ["DemoInputError"]
