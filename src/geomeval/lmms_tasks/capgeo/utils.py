"""lmms-eval loads this file by path for the `!function utils.*` tags: it only re-exports.

All logic lives in `geomeval.integrations.lmms_eval` (imported absolutely, because
this file is not imported as part of the geomeval package).
"""

from geomeval.integrations.lmms_eval import (
    aggregate_scored,
    capgeo_bench_avg,
    capgeo_bench_doc_to_messages,
    capgeo_bench_doc_to_text,
    capgeo_bench_doc_to_visual,
    capgeo_bench_process_results,
    capgeo_reasoning_direct_doc_to_messages,
    capgeo_reasoning_direct_doc_to_text,
    capgeo_reasoning_direct_doc_to_visual,
    capgeo_reasoning_direct_process_results,
    capgeo_reasoning_with_image_doc_to_messages,
    capgeo_reasoning_with_image_doc_to_text,
    capgeo_reasoning_with_image_doc_to_visual,
    capgeo_reasoning_with_image_process_results,
    capgeo_reasoning_without_image_doc_to_messages,
    capgeo_reasoning_without_image_doc_to_text,
    capgeo_reasoning_without_image_doc_to_visual,
    capgeo_reasoning_without_image_process_results,
    coverage,
)

__all__ = [
    "aggregate_scored",
    "capgeo_bench_avg",
    "capgeo_bench_doc_to_messages",
    "capgeo_bench_doc_to_text",
    "capgeo_bench_doc_to_visual",
    "capgeo_bench_process_results",
    "capgeo_reasoning_direct_doc_to_messages",
    "capgeo_reasoning_direct_doc_to_text",
    "capgeo_reasoning_direct_doc_to_visual",
    "capgeo_reasoning_direct_process_results",
    "capgeo_reasoning_with_image_doc_to_messages",
    "capgeo_reasoning_with_image_doc_to_text",
    "capgeo_reasoning_with_image_doc_to_visual",
    "capgeo_reasoning_with_image_process_results",
    "capgeo_reasoning_without_image_doc_to_messages",
    "capgeo_reasoning_without_image_doc_to_text",
    "capgeo_reasoning_without_image_doc_to_visual",
    "capgeo_reasoning_without_image_process_results",
    "coverage",
]
