"""lmms-eval loads this file by path for the `!function utils.*` tags: it only re-exports.

All logic lives in `geomeval.integrations.lmms_eval` (imported absolutely, because
this file is not imported as part of the geomeval package).
"""

from geomeval.integrations.lmms_eval import (
    aggregate_acs,
    aggregate_pcs,
    aggregate_pqs,
    coverage,
    geolaux_aux_doc_to_messages,
    geolaux_aux_doc_to_text,
    geolaux_aux_doc_to_visual,
    geolaux_aux_process_results,
    geolaux_doc_to_messages,
    geolaux_doc_to_text,
    geolaux_doc_to_visual,
    geolaux_process_results,
)

__all__ = [
    "aggregate_acs",
    "aggregate_pcs",
    "aggregate_pqs",
    "coverage",
    "geolaux_aux_doc_to_messages",
    "geolaux_aux_doc_to_text",
    "geolaux_aux_doc_to_visual",
    "geolaux_aux_process_results",
    "geolaux_doc_to_messages",
    "geolaux_doc_to_text",
    "geolaux_doc_to_visual",
    "geolaux_process_results",
]
