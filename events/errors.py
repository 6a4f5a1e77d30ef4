"""The one error type for user mistakes: bad files, bad commands, bad log lines.

The CLI prints an InputError's message and exits non-zero without a traceback.
Its message always names what was wrong and where (file, line, field).
"""


class InputError(Exception):
    """A user's input could not be accepted; nothing was changed."""


def unfit(where: str, cause: Exception) -> InputError:
    """A log line whose fact the fold cannot take (a fighter not there, …): named, never a traceback."""
    return InputError(f"{where}: this event does not fit the board before it ({cause!r})")


class ConflictError(InputError):
    """Another writer appended first: the expected version is stale."""


class Unavailable(InputError):
    """The store's server can't be reached now (down, restarting); nothing was changed: retry (HTTP 503)."""
