"""lmms-eval loads this file by path for the `!function utils.*` tags: it only re-exports.

All logic lives in `geomeval.integrations.lmms_eval` (imported absolutely, because
this file is not imported as part of the geomeval package).
"""

from geomeval.integrations.lmms_eval import (
    aggregate_scored,
    coverage,
    me2_explain_doc_to_messages,
    me2_explain_doc_to_text,
    me2_explain_doc_to_visual,
    me2_explain_process_results,
    me2_keypoints_doc_to_messages,
    me2_keypoints_doc_to_text,
    me2_keypoints_doc_to_visual,
    me2_keypoints_process_results,
    me2_solve_doc_to_messages,
    me2_solve_doc_to_text,
    me2_solve_doc_to_visual,
    me2_solve_process_results,
)

__all__ = [
    "aggregate_scored",
    "coverage",
    "me2_explain_doc_to_messages",
    "me2_explain_doc_to_text",
    "me2_explain_doc_to_visual",
    "me2_explain_process_results",
    "me2_keypoints_doc_to_messages",
    "me2_keypoints_doc_to_text",
    "me2_keypoints_doc_to_visual",
    "me2_keypoints_process_results",
    "me2_solve_doc_to_messages",
    "me2_solve_doc_to_text",
    "me2_solve_doc_to_visual",
    "me2_solve_process_results",
]
