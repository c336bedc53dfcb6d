"""The generator of the embedded capgeo sample (`generate.py`)."""
