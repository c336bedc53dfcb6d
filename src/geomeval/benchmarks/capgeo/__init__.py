"""CapGeo: caption-assisted geometric reasoning (a caption of the figure, written by a model or
given, then the problem solved). CapGeo-Bench, which scores such captions, is `capgeo_bench`."""
