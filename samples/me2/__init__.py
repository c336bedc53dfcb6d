"""The generator of the embedded me2 sample (`generate.py`)."""
