"""The generators of geomeval's embedded samples: original problems and figures, written into
`src/geomeval/benchmarks/<name>/`. Not part of the installed package: only the tests (which
regenerate every sample and compare bytes) and `python -m samples.<name>.generate`, run from
a checkout, use them."""
