"""A crash's leftovers at a log's end: a torn line, a batch cut short, a kept tip a batch behind."""

from collections.abc import Sequence

import msgspec
from tabletrail.events.errors import InputError


class TornTail(InputError):
    """The log file ends in a line cut mid-write (a crash): the bytes from `offset` on are not committed."""

    def __init__(self, message: str, offset: int, size: int, lines: list[bytes]) -> None:
        super().__init__(message)
        self.offset = offset  # first byte that is not part of a whole line
        self.size = size  # the file's size: bytes offset..size are the torn tail
        self.lines = lines  # the whole lines before it


class _Head(msgspec.Struct):
    """The two fields of a record that say where a batch starts and how long it is."""

    batch: int = 0
    size: int = 0


_head = msgspec.json.Decoder(_Head)


def _batch_of(line: bytes) -> _Head | None:
    try:
        return _head.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return None


def short_batch(lines: list[bytes]) -> bool:
    """Do the last whole lines hold a batch shorter than its first record announces?"""
    if not lines:
        return False
    last = _batch_of(lines[-1])
    if last is None or not last.batch:
        return False
    for held, line in enumerate(reversed(lines), start=1):
        head = _batch_of(line)
        if head is None or head.batch != last.batch:
            return False  # the batch's first line is before these lines: it was whole when read
        if head.size:
            return held < head.size
    return False


def cut_crash_tail(data: bytes) -> tuple[int, str] | None:
    """Where a log's last whole batch ends and what follows it, when a crash left it; else None.

    A crash leaves a torn line (no newline) and/or whole lines of a batch short
    of the records its first line announces. Blank lines (an editor's) or a
    file with no whole batch at all are not a crash's doing: None.
    """
    end = data.rfind(b"\n") + 1
    what = f"a torn line of {len(data) - end} bytes" if end < len(data) else ""
    lines = data[:end].split(b"\n")[:-1]
    if lines and not lines[-1].strip():
        return None
    if short_batch(lines):
        last = _batch_of(lines[-1])
        assert last is not None
        held = 0
        while lines and (_batch_of(lines[-1]) or _Head()).batch == last.batch:
            end -= len(lines.pop()) + 1
            held += 1
        part = f"{held} record{'s' if held != 1 else ''} of batch {last.batch}"
        what = f"{part} and {what}" if what else part
    if not what or end == 0:
        return None
    return end, what


def lagging_batch(lines: Sequence[bytes], version: int) -> tuple[int, int] | None:
    """Does a kept tip at `version` count every line but whole batches at the end?

    Then (the first line it does not count, the last line): what a crash between a
    batch made durable and its tip moved leaves (JsonlStore moves the tip after the
    batch, under the writer's lock; a writer killed there again before any writer
    got its tip written leaves it more batches behind). Else None. Whether line
    `version` hashes to the tip is for the caller to check, with the log's key.
    """
    if not 1 <= version < len(lines):
        return None
    found = [_batch_of(line) for line in lines[version - 1 :]]
    heads = [head for head in found if head is not None]
    if len(heads) != len(found):
        return None
    n = 1  # heads[n] is line version + n: each batch after the tip must be whole
    while n < len(heads):
        head = heads[n]
        if head.batch == heads[n - 1].batch or not head.size or n + head.size > len(heads):
            return None
        if any(h.batch != head.batch for h in heads[n : n + head.size]):
            return None
        n += head.size
    return version + 1, len(lines)
