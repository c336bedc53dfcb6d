"""CapGeo-Bench: a model captions geometry figures; the keypoints of a reference caption
(elements, spatial relations, numerical relations) score the captions."""
