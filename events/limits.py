"""The table's limits: every size and number a person can send, bounded before any rule runs.

A command, a scenario or a request body that is larger than any table needs is
refused up front with a one-line error naming the limit, so no single request
can hold a table's lock for minutes (issue 13, item 4). Each limit is a named
constant here and in docs/ARCHITECTURE.md; raise one only with a benchmark that
shows the work it admits stays quick.

`check_command` is the central range check (issue 13, item 1a): every number a
command carries is a whole number within MAX_NUMBER (or a finite float), and a
table roll no larger than the largest total a die formula can name. Whether a
roll is a face of the die actually rolled (roll=0 or roll=7 on 1d6) is decided
with the check itself (core/engine/dice.py), where the die is known, and refused with
the die named.
"""

from __future__ import annotations

import math
import re
from typing import Any

import msgspec
from tabletrail.events.errors import InputError

MAX_COMMAND_CHARS = 4_000  # characters in one command's text (`do LOG ...`, a script line, a web body)
MAX_WAYPOINTS = 100  # waypoints of one move or preview
MAX_MAP_CELLS = 1_000_000  # cells of a scenario's map (1000 x 1000: benchmarks/bench_bigmap.py)
MAX_MAP_SIDE = 4_000  # columns or rows of a map (a long corridor may be narrow)
MAX_FIGHTERS = 200  # fighters in one scenario
MAX_WALLS = 20_000  # wall segments of one scenario's map (a traced dungeon has a few thousand)
MAX_DOORS = 2_000  # doors of one scenario's map
MAX_SCENARIO_BYTES = 4_000_000  # bytes of one scenario file (a 1000 x 1000 map's rows are about 1 MB)
MAX_BODY_BYTES = 64 * 1024  # bytes of one HTTP request body
MAX_NESTING = 64  # depth of brackets in one JSON document (a log line, a request body) before decoding
MAX_NUMBER = 1_000_000  # the largest whole number (by size) any command field may carry
MAX_DICE = 99  # dice in a formula (`99d6`): see core/engine/dice.py's formula syntax
MAX_SIDES = 9_999  # sides of a die in a formula
MAX_ROLL = MAX_DICE * MAX_SIDES  # the largest total any die formula can show


def check_text(text: str, where: str = "command") -> None:
    """A command's text within MAX_COMMAND_CHARS."""
    if len(text) > MAX_COMMAND_CHARS:
        raise InputError(
            f"{where}: the command is {len(text):,} characters long; the limit is "
            f"{MAX_COMMAND_CHARS:,} (MAX_COMMAND_CHARS)"
        )


def check_command(command: msgspec.Struct, where: str = "command") -> None:
    """Every number in a command within range, every float finite, rolls and waypoints bounded."""
    for name in command.__struct_fields__:
        value = getattr(command, name)
        if name == "rolls":
            for roll in value:
                if not isinstance(roll, int) or isinstance(roll, bool) or abs(roll) > MAX_ROLL:
                    raise InputError(
                        f"{where}: roll={roll}: out of range: no die formula shows more than {MAX_ROLL:,}"
                    )
            continue
        if name == "path" and len(value) > MAX_WAYPOINTS:
            raise InputError(
                f"{where}: {len(value):,} waypoints; the limit is {MAX_WAYPOINTS} (MAX_WAYPOINTS): "
                "a long walk can be sent in several moves"
            )
        _check_value(value, f"{where}: {name}")


def check_number(value: Any, where: str) -> None:
    """One number: a whole number within MAX_NUMBER, or a finite float within it."""
    if isinstance(value, bool):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{where}: {value} is not a number a table can use (only finite numbers)")
    elif not isinstance(value, int):
        return
    if abs(value) > MAX_NUMBER:
        shown = f"{value:g}" if abs(value) < 10**300 else f"a number of {len(str(abs(value)))} digits"
        raise InputError(f"{where}: {shown} is out of range (at most {MAX_NUMBER:,} either way)")


def _check_value(value: Any, where: str) -> None:
    if isinstance(value, tuple | list):
        for item in value:
            _check_value(item, where)
    elif isinstance(value, dict):
        for item in value.values():
            _check_value(item, where)
    else:
        check_number(value, where)


def nesting(data: bytes | str, limit: int = MAX_NESTING) -> int:
    """How deep brackets nest in a JSON text, stopping as soon as `limit` is passed.

    Cheap enough to run before decoding: strings are cut out by one regex, and
    only the brackets left are walked, so a line of 50,000 nested brackets costs
    a scan, not a recursion (decoders recurse once per level).
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return 0  # the common case: too few brackets to nest past the limit
    brackets = re.sub(_STRING, b"", raw).translate(None, _NOT_BRACKET)
    depth = deepest = 0
    for ch in brackets:
        if ch in _OPEN:
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        else:
            depth -= 1
    return deepest


_STRING = rb'(?s)"(?:[^"\\]|\\.)*"'  # a JSON string; compiled when first used (re caches it)
_OPEN = b"[{"
_NOT_BRACKET = bytes(c for c in range(256) if c not in b"[]{}")


def check_nesting(data: bytes | str, where: str) -> None:
    """Refuse a JSON text nested deeper than MAX_NESTING, before any decoder recurses into it."""
    if nesting(data) > MAX_NESTING:
        raise InputError(
            f"{where}: brackets nest deeper than {MAX_NESTING} levels (MAX_NESTING); "
            "no tabletrail record or request nests that deep"
        )
