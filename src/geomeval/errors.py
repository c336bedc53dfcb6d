"""Exceptions the command line turns into one line and an exit code, kept apart from the
modules that raise them so that `geomeval --help` need not import an HTTP client."""

from __future__ import annotations


class EndpointFailure(RuntimeError):
    """The endpoint cannot serve any request; the message names it, the cause and what to check.

    Not an item's failure: runners let it stop the run (what was saved stays saved) instead
    of recording it on every item."""
