"""lmms-eval loads this file by path for the `!function utils.*` tags: it only re-exports.

All logic lives in `geomeval.integrations.lmms_eval` (imported absolutely, because
this file is not imported as part of the geomeval package). Only the code track has a
task: lmms-eval 0.7.3's generate_until returns text, and `ggbench_image` scores drawings.
"""

from geomeval.integrations.lmms_eval import (
    aggregate_scored,
    coverage,
    ggbench_code_doc_to_messages,
    ggbench_code_doc_to_text,
    ggbench_code_doc_to_visual,
    ggbench_code_process_results,
)

__all__ = [
    "aggregate_scored",
    "coverage",
    "ggbench_code_doc_to_messages",
    "ggbench_code_doc_to_text",
    "ggbench_code_doc_to_visual",
    "ggbench_code_process_results",
]
