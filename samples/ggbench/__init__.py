"""The generator of the embedded ggbench sample (`generate.py`)."""
