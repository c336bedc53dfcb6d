"""Exceptions the command line turns into one line and an exit code, kept apart from the
modules that raise them so that `geomeval --help` need not import an HTTP client."""

from __future__ import annotations

import errno
import os

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


DISK_FULL_EXIT = 5  # the disk holding an output, cache or data folder is full: the run stopped, resumably


class DiskFull(OSError):
    """No space left on the disk holding `folder` (`needed`: bytes the failed write wanted, when
    known). Raised at the write boundaries that know their folder; `geomeval` prints its message
    on one line and exits `DISK_FULL_EXIT`. An OSError with errno ENOSPC, so callers that handle
    OSError keep working."""

    def __init__(self, folder: str | os.PathLike[str], needed: int | None = None):
        self.folder = os.fspath(folder)
        self.needed = needed
        super().__init__(errno.ENOSPC, disk_full_message(self.folder, needed))

    def __str__(self) -> str:
        return str(self.strerror)


_SQLITE_FULL = ("database or disk is full", "disk i/o error")
_LOW_SPACE = 1 << 20  # an SQLite "disk I/O error" counts as a full disk only with less than this free


def is_disk_full(exc: BaseException, folder: str | os.PathLike[str] | None = None) -> bool:
    """Whether `exc` says the disk is full: ENOSPC or EDQUOT, an OSError that says "No space left
    on device" without its errno (Arrow's), SQLite's "database or disk is full", or its "disk I/O
    error" where the disk of `folder` (when given) has less than 1 MiB free."""
    if isinstance(exc, DiskFull):
        return True
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT) or "no space left on device" in str(exc).lower()
    if type(exc).__module__ == "sqlite3":
        message = str(exc).lower()
        if _SQLITE_FULL[0] in message:
            return True
        if _SQLITE_FULL[1] in message:
            free = free_bytes(folder) if folder is not None else None
            return free is None or free < _LOW_SPACE
    return False


def disk_full_error(exc: BaseException, folder: str | os.PathLike[str], needed: int | None = None) -> BaseException:
    """`exc` as a `DiskFull` naming `folder` when it says the disk is full, else `exc` itself."""
    if isinstance(exc, DiskFull) or not is_disk_full(exc, folder):
        return exc
    full = DiskFull(folder, needed)
    full.__cause__ = exc
    return full


def free_bytes(folder: str | os.PathLike[str]) -> int | None:
    """Bytes free for this user on the disk holding `folder` (or its nearest existing parent)."""
    path = os.path.abspath(os.fspath(folder))
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        stats = os.statvfs(path)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}"


def disk_full_message(folder: str | os.PathLike[str], needed: int | None = None) -> str:
    """One line: the folder, what is free there and what the write needed; what to do next."""
    free = free_bytes(folder)
    have = "" if free is None else f" ({_size(free)} free)"
    if needed:
        want = f"at least {_size(needed)} is needed"
    else:
        want = "more than that is needed" if free is not None else "more space is needed"
    return (f"no space left on the disk holding {os.fspath(folder)}{have}: {want}; free some space and "
            "rerun the same command (what was saved stays saved; a run or rescore resumes from it)")
