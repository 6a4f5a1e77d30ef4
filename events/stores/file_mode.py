"""The mode a file the JSON Lines store makes is given: what open() would give it, not mkstemp's 0o600."""

import os


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()  # read once, at import: os.umask is process-wide and not safe to flip in threads
NEW_FILE_MODE = 0o666 & ~_UMASK
