"""`python -m geomeval.cli`: the `geomeval` command."""

from . import main

main()
