"""The generator of the embedded geolaux sample (`generate.py`)."""
