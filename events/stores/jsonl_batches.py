"""Batches found in a JSON Lines log without decoding an event: a batch's first and last version,
and the batch a command id appended, as a database finds them with an index.

Each line is read for where it stands only (`Place`: its seq, batch, size and command id), so
undo reaching back a batch, or a retried command id from before a snapshot, costs no fold.
"""

import mmap
from typing import IO

import msgspec
from tabletrail.events.stores.chain import line_hash
from tabletrail.events.stores.line_seek import after_newline, lines_back


class Place(msgspec.Struct, frozen=True):
    """What a line says of where it stands, decoded without its event."""

    seq: int
    batch: int
    size: int = 0
    command_id: str | None = None


_place = msgspec.json.Decoder(Place)


def place_of(line: bytes) -> Place | None:
    """Where the line stands; None when it is no record at all."""
    try:
        return _place.decode(line)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def span_back(fh: IO[bytes], batch: int, version: int, end: int) -> tuple[int, int] | tuple[()] | None:
    """A batch's span read back from line `version`, whose newline ends at byte `end`; () if the batch is
    not there, None if the lines there are not numbered as expected (then `span_forward` answers)."""
    if not after_newline(fh, end):
        return None
    last = 0
    seq = version
    for line in lines_back(fh, end):
        place = place_of(line)
        if place is None or place.seq != seq:
            return None
        if place.batch < batch:
            break
        if place.batch == batch and not last:
            last = seq
        seq -= 1
    return (seq + 1, last) if last else ()


def span_forward(fh: IO[bytes], batch: int) -> tuple[int, int] | None:
    """A batch's span read from line 1: correct on any log, slower."""
    fh.seek(0)
    first = last = 0
    for n, line in enumerate(fh, start=1):
        place = place_of(line)
        if place is None or place.batch > batch:
            break
        if place.batch == batch:
            first, last = first or n, n
    return (first, last) if first else None


class CommandIds:
    """The command ids of one log file: id -> seq, batch and size of its first line.

    Gathered once from the lines that carry one (the bytes searched, each such line decoded), then
    only from what was appended since: the file is read whole once, not once per command.
    """

    def __init__(self) -> None:
        self.ids: dict[str, tuple[int, int, int]] = {}
        self.seen: tuple[int, int, str] | None = None  # the ids were read: inode, up to byte, its last line

    def gather(self, data: mmap.mmap, inode: int) -> None:
        """Add the command ids of the whole lines not read yet; start over if the file is not the one
        read so far (another file, or cut: the line before where the last read stopped differs)."""
        start = 0
        if self.seen is not None:
            seen_inode, seen_end, seen_hash = self.seen
            before = data.rfind(b"\n", 0, max(0, seen_end - 1)) + 1
            if (
                seen_inode == inode
                and seen_end <= len(data)
                and data[seen_end - 1 : seen_end] == b"\n"
                and line_hash(data[before : seen_end - 1]) == seen_hash
            ):
                start = seen_end
        if not start:
            self.ids.clear()
        end = data.rfind(b"\n") + 1  # whole lines only: a torn one was never acknowledged
        at = data.find(b'"command_id"', start, end)
        while at >= 0:
            begin, stop = data.rfind(b"\n", 0, at) + 1, data.find(b"\n", at)
            place = place_of(data[begin:stop])
            if place is not None and place.command_id is not None:
                self.ids.setdefault(place.command_id, (place.seq, place.batch, place.size))
            at = data.find(b'"command_id"', stop, end)
        if end:
            last = data.rfind(b"\n", 0, end - 1) + 1
            self.seen = (inode, end, line_hash(data[last : end - 1]))
