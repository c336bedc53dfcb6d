"""The faces layer (.importlinter). What is published from the registry: Hub datasets and their cards, the generated faces, the fidelity table, the metric Spaces."""
