"""lmms-eval loads this file by path for the YAMLs' `!function utils.*` tags.

Its functions are made by `geomeval.integrations.lmms_eval.entry_points` (imported
absolutely: this file is not imported as part of the geomeval package): each task's
`<task>_doc_to_messages`, `_doc_to_text`, `_doc_to_visual` and `_process_results`, and the
shared aggregations. All logic lives in geomeval.
"""

from geomeval.integrations.lmms_eval import entry_points

globals().update(entry_points('capgeo_bench', 'capgeo_reasoning_direct', 'capgeo_reasoning_with_image', 'capgeo_reasoning_without_image'))
