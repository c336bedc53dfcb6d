"""CapGeo (caption-assisted reasoning: `reasoning_bench`) and CapGeo-Bench (caption keypoint
scoring: `bench`)."""
