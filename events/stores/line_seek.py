"""Lines found by byte offset in an open file, forwards and backwards, a chunk at a time.

A JSON Lines log of a million lines is never split whole to reach a few of them: a store
remembers where some lines start (`LineBoundaries`), checks each still follows a newline
(a file cut or replaced since would put another line there), and counts newlines from the
nearest one.
"""

from collections.abc import Iterator, Sequence
from typing import IO

CHUNK = 1 << 20  # bytes read at a time when counting lines


def after_newline(fh: IO[bytes], offset: int) -> bool:
    """Is `offset` a line boundary of the open file (its start, or just after a newline)?"""
    if offset <= 0:
        return offset == 0
    fh.seek(offset - 1)
    return fh.read(1) == b"\n"


def skip_lines(fh: IO[bytes], count: int) -> bool:
    """Move the file's position past `count` more newlines; False if it ends first."""
    while count > 0:
        at = fh.tell()
        chunk = fh.read(CHUNK)
        if not chunk:
            return False
        found = chunk.count(b"\n")
        if found < count:
            count -= found
            continue
        i = -1
        for _ in range(count):
            i = chunk.index(b"\n", i + 1)
        fh.seek(at + i + 1)
        return True
    return True


def take_lines(fh: IO[bytes], count: int) -> list[bytes]:
    """Up to `count` whole lines from the file's position (no newline, no CR); a torn last one is left."""
    out: list[bytes] = []
    rest = b""
    while len(out) < count:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        out.extend(parts)
    del out[count:]
    if any(line.endswith(b"\r") for line in out):
        out = [line.removesuffix(b"\r") for line in out]
    return out


def lines_back_with_start(fh: IO[bytes], end: int) -> Iterator[tuple[int, bytes]]:
    """The lines before byte `end` (a boundary), last first, each with the byte it starts at."""
    tail = b""  # the part of a line read so far, from its start in a later chunk onwards
    at = end - 1  # the newline that ends the next line
    step = 1 << 14
    while at > 0:
        lo = max(0, at - step)
        fh.seek(lo)
        chunk = fh.read(at - lo) + tail
        cut = len(chunk)
        while True:
            i = chunk.rfind(b"\n", 0, cut)
            if i < 0:
                break
            yield lo + i + 1, chunk[i + 1 : cut].removesuffix(b"\r")
            cut = i
        tail, at = chunk[:cut], lo
        step = min(step * 2, CHUNK)
    yield 0, tail.removesuffix(b"\r")


def lines_back(fh: IO[bytes], end: int) -> Iterator[bytes]:
    """The lines before byte `end` (a boundary), last first."""
    for _, line in lines_back_with_start(fh, end):
        yield line


class LineBoundaries:
    """Where lines of one file start: line count -> byte offset of a line boundary.

    Learnt from snapshots that fit the log or from a scan under the lock; each is checked
    to still follow a newline before it is used, and one that no longer does is forgotten.
    `mark`, where given, is the (lines, bytes) the file had when its store last saw it.
    """

    def __init__(self) -> None:
        self.known: dict[int, int] = {}

    def learn(self, version: int, begin: int, end: int) -> None:
        """Line `version` starts at byte `begin` and its newline ends at byte `end`."""
        self.known[version - 1], self.known[version] = begin, end

    def forget(self) -> None:
        """The file was cut: a boundary learnt before may now name another line."""
        self.known.clear()

    def nearest(self, fh: IO[bytes], start: int, mark: tuple[int, int] | None) -> tuple[int, int]:
        """The known line boundary at or before line `start` that still follows a newline, else (0, 0)."""
        known = dict(self.known)
        if mark is not None:
            known[mark[0]] = mark[1]
        for line in sorted((n for n in known if 0 < n <= start), reverse=True):
            if after_newline(fh, known[line]):
                return line, known[line]
            self.known.pop(line, None)
        return 0, 0

    def window(self, fh: IO[bytes], start: int, stop: int, mark: tuple[int, int] | None) -> list[bytes]:
        """Lines start+1..stop, from the nearest known boundary, counted without splitting the file."""
        line, byte = self.nearest(fh, start, mark)
        fh.seek(byte)
        if not skip_lines(fh, start - line):
            return []
        return take_lines(fh, stop - start)

    def lines_at(
        self, fh: IO[bytes], versions: Sequence[int], mark: tuple[int, int] | None
    ) -> dict[int, tuple[int, bytes]]:
        """Where each of these lines starts, and its bytes, for those the file holds whole (in order)."""
        out: dict[int, tuple[int, bytes]] = {}
        for version in sorted(versions):
            if version < 1:
                continue
            end = self.known.get(version)
            if end is None and mark is not None and mark[0] == version:
                end = mark[1]
            if end is not None and after_newline(fh, end):  # the line just appended: read back
                begin, line = next(lines_back_with_start(fh, end))
                out[version] = (begin, line)
                self.known[version - 1] = begin
                continue
            line_no, byte = self.nearest(fh, version - 1, mark)
            fh.seek(byte)
            if not skip_lines(fh, version - 1 - line_no):
                break
            begin = fh.tell()
            data = fh.readline()
            if not data.endswith(b"\n"):
                break
            out[version] = (begin, data[:-1].removesuffix(b"\r"))
            self.learn(version, begin, begin + len(data))
        return out
