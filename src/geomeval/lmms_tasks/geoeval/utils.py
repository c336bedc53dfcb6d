"""lmms-eval loads this file by path for the `!function utils.*` tags: it only re-exports.

All logic lives in `geomeval.integrations.lmms_eval` (imported absolutely, because
this file is not imported as part of the geomeval package).
"""

from geomeval.integrations.lmms_eval import (
    aggregate_scored,
    coverage,
    geoeval_2000_doc_to_messages,
    geoeval_2000_doc_to_text,
    geoeval_2000_doc_to_visual,
    geoeval_2000_process_results,
    geoeval_aug_doc_to_messages,
    geoeval_aug_doc_to_text,
    geoeval_aug_doc_to_visual,
    geoeval_aug_process_results,
    geoeval_backward_doc_to_messages,
    geoeval_backward_doc_to_text,
    geoeval_backward_doc_to_visual,
    geoeval_backward_process_results,
    geoeval_hard_doc_to_messages,
    geoeval_hard_doc_to_text,
    geoeval_hard_doc_to_visual,
    geoeval_hard_process_results,
    mean_over_tasks,
)

__all__ = [
    "aggregate_scored",
    "coverage",
    "geoeval_2000_doc_to_messages",
    "geoeval_2000_doc_to_text",
    "geoeval_2000_doc_to_visual",
    "geoeval_2000_process_results",
    "geoeval_aug_doc_to_messages",
    "geoeval_aug_doc_to_text",
    "geoeval_aug_doc_to_visual",
    "geoeval_aug_process_results",
    "geoeval_backward_doc_to_messages",
    "geoeval_backward_doc_to_text",
    "geoeval_backward_doc_to_visual",
    "geoeval_backward_process_results",
    "geoeval_hard_doc_to_messages",
    "geoeval_hard_doc_to_text",
    "geoeval_hard_doc_to_visual",
    "geoeval_hard_process_results",
    "mean_over_tasks",
]
