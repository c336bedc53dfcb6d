"""`python -m geomeval`: the `geomeval` command."""

from .cli import main

main()
