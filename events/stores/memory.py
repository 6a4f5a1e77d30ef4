"""`MemoryStore`: a log kept in memory, for tests, benchmarks and dry runs."""

from collections.abc import Iterator, Sequence

import msgspec
from tabletrail.events.errors import InputError
from tabletrail.events.stores.conflicts import VersionConflict
from tabletrail.events.stores.refusals import Refused

_encoder = msgspec.json.Encoder()


class MemoryStore:
    """Lines kept in memory: for tests, benchmarks and dry runs."""

    versioned = True  # append checks `expected`

    def __init__(self, lines: Sequence[bytes] = ()) -> None:
        self.lines: list[bytes] = list(lines)
        self.refusals: list[Refused] = []
        self.name = "<memory>"

    def read(self, start: int = 0) -> Iterator[bytes]:
        """The lines after the first `start` ones."""
        return iter(self.lines[start:])

    def version(self) -> int:
        return len(self.lines)

    def append(self, lines: Sequence[bytes], *, expected: int | None = None) -> None:
        if expected is not None and expected != len(self.lines):
            raise VersionConflict(self.name, expected, len(self.lines))
        self.lines.extend(lines)

    def create(self, lines: Sequence[bytes], *, refused: Sequence[bytes] = ()) -> None:
        if self.lines:
            raise InputError(f"{self.name}: a log already exists here")
        self.lines.extend(lines)
        self.refusals.extend(msgspec.json.decode(line, type=Refused) for line in refused)

    def note_refusal(self, refused: Refused) -> None:
        self.refusals.append(refused)

    def kept_tip(self) -> tuple[int, str] | None:
        """Lines in memory have no outside to keep a tip in."""
        return None

    def refused(self) -> list[Refused]:
        return list(self.refusals)

    def refused_lines(self) -> list[bytes]:
        return [_encoder.encode(r) for r in self.refusals]
