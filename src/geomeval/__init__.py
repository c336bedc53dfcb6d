"""geomeval: evaluation of models on geometric reasoning."""
__version__ = "0.1.0"
