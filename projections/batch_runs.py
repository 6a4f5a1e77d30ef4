"""Batch numbers held as runs of consecutive numbers: the timeline's batch lists as a snapshot keeps them.

The timeline keeps the batches in force (a stack, oldest first), the redo stack and the abandoned
batches (a set); each grows with the log. They are mostly runs of consecutive numbers, broken only
where an undo, a redo or an abandoned batch took a number, so a snapshot keeps their runs, packed
as 64-bit integers (`packed`): read back by copying bytes, never expanded into a number a batch.

`RunStack` and `RunSet` are the list and the set an encounter opened from a snapshot works on.
The stack's top moves in O(1), as undo (a pop), redo and a new batch (pushes) move it; the set
answers membership and takes an abandoned batch by bisecting its runs. Everything else a list or
a set does, they do too, exactly, at the cost of a walk through the runs. Their runs are always
the ones `RunStack(numbers)` or `RunSet(numbers)` make of the same numbers (greedy, from the first),
so two snapshots of one timeline hold the very same bytes, however the timeline was reached.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, MutableSequence, MutableSet, Sequence
from typing import SupportsIndex, overload

_WORD = 8  # bytes of one packed number


def _pack(count: int, ends: array[int]) -> bytes:
    """`count` then the runs' (first, last) pairs, as little-endian int64s."""
    words = array("q", [count])
    words.extend(ends)
    if sys.byteorder != "little":
        words.byteswap()
    return words.tobytes()


def check_packed(data: bytes) -> None:
    """ValueError unless `data` has the shape of a packed form: a count, then pairs. The count is
    trusted, as the checksum around the snapshot is: it is not summed up from the runs."""
    if len(data) % (2 * _WORD) != _WORD:
        raise ValueError(f"packed batch runs are a count and pairs of 8-byte numbers, not {len(data)} bytes")


def _unpack(data: bytes) -> tuple[int, array[int]]:
    """(count, the runs' (first, last) pairs) of a `_pack`ed form; ValueError if it is none."""
    check_packed(data)
    words = array("q")
    words.frombytes(data)
    if sys.byteorder != "little":
        words.byteswap()
    return words[0], words[1:]


class RunStack(MutableSequence[int]):
    """A list of ints kept as runs of consecutive numbers, ascending or descending ([5, 6, 7] is (5, 7),
    [9, 8] is (9, 8)); appending to and popping from its end are O(1), and `len` is kept."""

    def __init__(self, numbers: Iterable[int] = ()) -> None:
        self._ends = array("q")  # first0, last0, first1, last1, ...
        self._count = 0
        for n in numbers:
            self.append(n)

    @classmethod
    def unpacked(cls, data: bytes) -> RunStack:
        """The stack a `packed` form holds: one copy of its bytes, nothing expanded."""
        stack = cls()
        stack._count, stack._ends = _unpack(data)
        return stack

    def packed(self) -> bytes:
        return _pack(self._count, self._ends)

    def runs(self) -> list[tuple[int, int]]:
        """(first, last) of each run, in order."""
        e = self._ends
        return list(zip(e[::2], e[1::2], strict=True))

    # --- the stack's end: O(1) ---------------------------------------------------------------

    def append(self, value: int) -> None:
        e = self._ends
        if e:
            first, last = e[-2], e[-1]
            if (value == last + 1 and last >= first) or (value == last - 1 and last <= first):
                e[-1] = value
                self._count += 1
                return
        e.append(value)
        e.append(value)
        self._count += 1

    def push_run(self, first: int, last: int) -> None:
        """Append first, first ± 1, ..., last (counting down when last < first) in O(1)."""
        self.append(first)
        if first == last:
            return
        step = 1 if last > first else -1
        self.append(first + step)  # now the last run ends at first + step and may go on that way
        self._ends[-1] = last
        self._count += abs(last - first) - 1

    def pop(self, index: int = -1) -> int:
        if not self._count:
            raise IndexError("pop from empty list")
        if index not in (-1, self._count - 1):
            items = list(self)
            value = items.pop(index)
            self._reset(items)
            return value
        e = self._ends
        first, last = e[-2], e[-1]
        if first == last:
            del e[-2:]
        else:
            e[-1] = last - 1 if last > first else last + 1
        self._count -= 1
        return last

    def __len__(self) -> int:
        return self._count

    # --- reading: the last one O(1), any other a walk through the runs --------------------------

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return list(self)[index]
        i = index.__index__()
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("list index out of range")
        if i == self._count - 1:
            return self._ends[-1]
        e = self._ends
        for k in range(0, len(e), 2):
            first, last = e[k], e[k + 1]
            size = abs(last - first) + 1
            if i < size:
                return first + i if last >= first else first - i
            i -= size
        raise AssertionError("the runs hold fewer numbers than counted")

    def __iter__(self) -> Iterator[int]:
        e = self._ends
        for k in range(0, len(e), 2):
            first, last = e[k], e[k + 1]
            yield from range(first, last + 1) if last >= first else range(first, last - 1, -1)

    def __reversed__(self) -> Iterator[int]:
        e = self._ends
        for k in range(len(e) - 2, -1, -2):
            first, last = e[k], e[k + 1]
            yield from range(last, first - 1, -1) if last >= first else range(last, first + 1)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        e = self._ends
        return any(min(e[k], e[k + 1]) <= value <= max(e[k], e[k + 1]) for k in range(0, len(e), 2))

    # --- anything else a list does: the numbers rebuilt, changed, packed again --------------------

    @overload
    def __setitem__(self, index: int, value: int) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[int]) -> None: ...

    def __setitem__(self, index: int | slice, value: int | Iterable[int]) -> None:
        items = list(self)
        items[index] = value  # type: ignore[index,assignment]  # the pair list's own overloads decide
        self._reset(items)

    def __delitem__(self, index: int | slice) -> None:
        items = list(self)
        del items[index]
        self._reset(items)

    def insert(self, index: SupportsIndex, value: int) -> None:
        if index.__index__() >= self._count:
            self.append(value)
            return
        items = list(self)
        items.insert(index, value)
        self._reset(items)

    def clear(self) -> None:
        self._reset(())

    def reverse(self) -> None:
        self._reset(list(reversed(self)))

    def index(self, value: object, start: SupportsIndex = 0, stop: SupportsIndex | None = None) -> int:
        return list(self).index(value, start, sys.maxsize if stop is None else stop)  # type: ignore[arg-type]

    def _reset(self, numbers: Iterable[int]) -> None:
        self._ends, self._count = array("q"), 0
        for n in numbers:
            self.append(n)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RunStack):  # the same numbers make the same runs
            return self._count == other._count and self._ends == other._ends
        if isinstance(other, list):
            return self._count == len(other) and list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"RunStack({self.runs()!r}, {self._count} numbers)"


class RunSet(MutableSet[int]):
    """A set of ints kept as sorted runs of consecutive numbers; membership and `add` bisect the runs."""

    def __init__(self, numbers: Iterable[int] = ()) -> None:
        self._firsts = array("q")
        self._lasts = array("q")
        self._count = 0
        for n in sorted(set(numbers)):  # ascending: each joins the last run or starts one at the end
            self.add(n)

    @classmethod
    def unpacked(cls, data: bytes) -> RunSet:
        made = cls()
        made._count, ends = _unpack(data)
        made._firsts, made._lasts = ends[::2], ends[1::2]
        return made

    @classmethod
    def of_runs(cls, runs: Sequence[tuple[int, int]]) -> RunSet:
        """The set of these runs (first <= last each), in O(runs) when they come sorted and apart."""
        made = cls()
        firsts, lasts = made._firsts, made._lasts
        for first, last in runs:
            if first > last or (lasts and first <= lasts[-1] + 1):  # not in the form the set keeps
                made = cls()
                made.update(n for a, b in runs for n in range(a, b + 1))
                return made
            firsts.append(first)
            lasts.append(last)
            made._count += last - first + 1
        return made

    def packed(self) -> bytes:
        ends = array("q", bytes(2 * _WORD * len(self._firsts)))
        ends[::2], ends[1::2] = self._firsts, self._lasts
        return _pack(self._count, ends)

    def runs(self) -> list[tuple[int, int]]:
        return list(zip(self._firsts, self._lasts, strict=True))

    def _run_of(self, value: int) -> int:
        """The index of the last run starting at or before `value` (-1: none does)."""
        return bisect_right(self._firsts, value) - 1

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        i = self._run_of(value)
        return i >= 0 and value <= self._lasts[i]

    def add(self, value: int) -> None:
        firsts, lasts = self._firsts, self._lasts
        i = self._run_of(value)
        if i >= 0 and value <= lasts[i]:
            return
        left = i >= 0 and lasts[i] == value - 1
        right = i + 1 < len(firsts) and firsts[i + 1] == value + 1
        if left and right:  # it fills the gap between two runs: they become one
            lasts[i] = lasts[i + 1]
            del firsts[i + 1], lasts[i + 1]
        elif left:
            lasts[i] = value
        elif right:
            firsts[i + 1] = value
        else:
            firsts.insert(i + 1, value)
            lasts.insert(i + 1, value)
        self._count += 1

    def discard(self, value: int) -> None:
        if value not in self:
            return
        firsts, lasts = self._firsts, self._lasts
        i = self._run_of(value)
        first, last = firsts[i], lasts[i]
        if first == last:
            del firsts[i], lasts[i]
        elif value == first:
            firsts[i] = value + 1
        elif value == last:
            lasts[i] = value - 1
        else:  # the run splits around it
            lasts[i] = value - 1
            firsts.insert(i + 1, value + 1)
            lasts.insert(i + 1, last)
        self._count -= 1

    def update(self, *others: Iterable[int]) -> None:
        for numbers in others:
            for n in numbers:
                self.add(n)

    def __iter__(self) -> Iterator[int]:
        for first, last in zip(self._firsts, self._lasts, strict=True):
            yield from range(first, last + 1)

    def __len__(self) -> int:
        return self._count

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RunSet):  # sorted runs, merged: one set, one form
            return self._firsts == other._firsts and self._lasts == other._lasts
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, as a set

    def __repr__(self) -> str:
        return f"RunSet({self.runs()!r}, {self._count} numbers)"
