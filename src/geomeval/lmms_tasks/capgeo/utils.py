"""lmms-eval loads this file by path for the YAMLs' `!function utils.*` tags.

Its functions are made by `geomeval.integrations.lmms_eval.entry_points` (imported
absolutely: this file is not imported as part of the geomeval package): each task's
`<task>_doc_to_messages`, `_doc_to_text`, `_doc_to_visual` and `_process_results`, and the
shared aggregations. All logic lives in geomeval.
"""

try:
    from geomeval.integrations.lmms.loading import install_download_hook
    from geomeval.integrations.lmms_eval import entry_points
except ModuleNotFoundError as exc:  # geomeval is not on PyPI: a bare `pip install geomeval` is not it
    if not (exc.name or "").startswith("geomeval"):
        raise
    raise ImportError("these lmms-eval tasks need the geomeval package (distribution name geomeval, not on "
                      "PyPI): pip install \"geomeval[lmms] @ <a geomeval wheel URL>\", or `pip install "
                      "\".[lmms]\"` in a geomeval checkout") from None

# Each task's data is resolved before lmms-eval loads it (a missing dataset: a non-zero exit).
install_download_hook()

globals().update(entry_points('capgeo_bench', 'capgeo_reasoning_direct', 'capgeo_reasoning_with_image', 'capgeo_reasoning_without_image'))
