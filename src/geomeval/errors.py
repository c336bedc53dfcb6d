"""Exceptions the command line turns into one line and an exit code, kept apart from the
modules that raise them so that `geomeval --help` need not import an HTTP client."""

from __future__ import annotations

# Exit codes shared by `geomeval run`, `geomeval score` and `geomeval lmms-eval` (2 is a usage
# or input error, as click's).
MIN_COVERAGE_EXIT = 3  # a metric scored fewer items than --min-coverage asks
ENDPOINT_EXIT = 4  # a model, judge or captioner endpoint cannot be used: the run stopped, resumably


class EndpointFailure(RuntimeError):
    """The endpoint cannot serve any request; the message names it, the cause and what to check.

    Not an item's failure: runners let it stop the run (what was saved stays saved) instead
    of recording it on every item."""


class UsageError(ValueError):
    """A mistake the user can fix (a bad option, name, file or an argument that conflicts with a
    saved run): `geomeval` prints its message on one line and exits 2, without a traceback.

    Raised where the input is checked; any other exception is a bug and keeps its traceback.
    A ValueError, so library callers that catch ValueError keep working."""
