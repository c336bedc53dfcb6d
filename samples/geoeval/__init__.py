"""The generator of the embedded geoeval sample (`generate.py`)."""
