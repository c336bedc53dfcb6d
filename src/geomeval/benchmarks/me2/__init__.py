"""ME2: multimodal solution explanation with visual keypoints (problem solving, keypoint
identification, keypoint-based explanation)."""
