"""A log line: the `Record` around each event, and its codec (`encode`, `decode`, `decode_many`).

A line is one JSON object; an older vocabulary's line is lifted by the upcasters (events/upcast.py)
on read, and a door or a log's first line is checked beyond its types."""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): msgspec would
# compile each Struct field's annotation string when a command first builds a decoder (test_cli_fast).
import itertools
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, get_args

import msgspec
from tabletrail.events import plugins
from tabletrail.events.errors import InputError
from tabletrail.events.scenario_spec import door_cells, door_name
from tabletrail.events.types import AnyEvent, DoorChanged, EncounterStarted
from tabletrail.events.upcast import CHAIN


class Record(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    seq: int
    batch: int
    actor: str
    at: str
    prev: str  # hash of the previous line ("" for the first)
    event: AnyEvent
    # Added after the first logs were written, so each has a default and is left out when it has it:
    # a line of an older log still decodes, and re-encodes to the very same bytes.
    size: int = 0  # on a batch's first record: how many records the batch holds (0: not said)
    command_id: str | None = None  # on a batch's first record: the caller's id, for idempotent retries
    schema: int = 1  # the event vocabulary that wrote this line (absent: 1). Never change this default.
    keyed: str = ""  # on line 1 of a log whose chain is keyed by the table's secret: that key's check value


_encoder = msgspec.json.Encoder()
_plain = msgspec.json.Decoder()


class _Typed:
    """The record decoders, made on first use: a record's type holds every installed ruleset's
    commands (events/types.py CommandIssued), so making them reads the rulesets' entry points."""

    one: msgspec.json.Decoder[Record]

    def __getattr__(self, name: str) -> object:
        self.one = msgspec.json.Decoder(Record)
        return getattr(self, name)


_typed = _Typed()


def encode(record: Record) -> bytes:
    return _encoder.encode(record)


def decode(line: bytes, where: str) -> Record:
    """Decode one log line; InputError says which line and which field is wrong.

    A line of the current vocabulary decodes straight into types; an older one
    (or one the typed decoder refuses) goes through the upcaster chain first.
    """
    if not line.strip():
        raise InputError(
            f"{where}: an empty line where a log record should be (blank lines at the end of a log: "
            "`tabletrail repair` cuts them)"
        )
    try:
        record = _typed.one.decode(line)
    except msgspec.ValidationError as exc:
        problem: msgspec.ValidationError | None = exc
    except msgspec.DecodeError as exc:
        raise InputError(f"{where}: not a log record: {_one_line(exc)}") from None
    except RecursionError:  # the decoder's own depth bound: no record nests this deep
        raise InputError(f"{where}: not a log record: brackets nest too deeply") from None
    else:
        if record.schema == CHAIN.current and not (
            type(record.event) is EncounterStarted and record.event.schema > CHAIN.current
        ):
            return _named(record, where)
        problem = None
    try:
        raw = _plain.decode(line)
    except msgspec.DecodeError as exc:
        raise InputError(f"{where}: not a log record: {_one_line(exc)}") from None
    except RecursionError:
        raise InputError(f"{where}: not a log record: brackets nest too deeply") from None
    if CHAIN.version_of(raw, where) == CHAIN.current:
        raise InputError(
            f"{where}: {_one_line(problem)}"
        )  # a current line the types refuse: say what is wrong
    try:
        return _named(msgspec.convert(CHAIN.upcast(raw, where), Record), where)
    except msgspec.ValidationError as exc:
        raise InputError(f"{where}: {_one_line(exc)}") from None


def _named(record: Record, where: str) -> Record:
    """A record whose event names a door names it as the engine does ("5,2|6,2"), else an InputError.

    Every reader of a door event (its words in `log`, `verify`'s report, the board)
    takes the name apart at its `|`: a line that names no door must stop at the
    reading, as one line naming it, not deep in a reader. A log's first line must
    name a ruleset installed here, else the one line names the package to install
    (before a later line's command of that ruleset fails to decode).
    """
    if type(record.event) is DoorChanged:
        door = record.event.door
        try:
            canonical = door_name(*door_cells(door))
        except ValueError as exc:
            raise InputError(f"{where}: $.event.door: {_one_line(exc)}") from None
        if canonical != door:
            raise InputError(
                f"{where}: $.event.door: {door!r} is not written as the engine names a door "
                f"({canonical!r}: its two cells x,y|x,y in reading order)"
            )
    elif type(record.event) is EncounterStarted:
        started = record.event
        plugins.needed(started.scenario.ruleset, started.package, started.ruleset_rules, where)
    return record


def _one_line(problem: object) -> str:
    """msgspec's message about a line, kept on one line (it quotes the bad value, newlines and all)."""
    return str(problem).replace("\r", "\\r").replace("\n", "\\n")


_schema, _event = attrgetter("schema"), attrgetter("event")
_CHECKED = frozenset({EncounterStarted, DoorChanged})  # event types `decode` checks beyond their types
_PLAIN = frozenset(get_args(AnyEvent)) - _CHECKED


def decode_many(lines: Sequence[bytes], where: Callable[[int], str]) -> list[Record]:
    """Decode many lines as `decode` would one by one, with the loop over them in C.

    Each line is decoded on its own (`map` over the typed decoder), never as part
    of a bigger JSON text: lines joined into one array could decode into as many
    records as there are lines while the lines themselves do not (a record cut in
    two at a comma, and a line holding two records). When any line fails, the lines
    go through `decode` in turn, so the error names the first bad line (`where(i)`
    for the i-th line given); a line of an older vocabulary, a start and a door go
    through `decode` too, for its checks beyond types.
    """
    try:
        records = list(map(_typed.one.decode, lines))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return [decode(line, where(i)) for i, line in enumerate(lines)]
    current = CHAIN.current
    schemas = list(map(_schema, records))
    same = schemas.count(current) == len(records)
    # The common case in one lazy C scan: every line of today's vocabulary, and no start or door but
    # perhaps the first line (a log's first is its start)
    first = 1 if records and type(records[0].event) in _CHECKED else 0
    if same and _PLAIN.issuperset(map(type, map(_event, itertools.islice(records, first, None)))):
        if first:
            records[0] = decode(lines[0], where(0))
        return records
    # An older line, a start that may name a newer vocabulary, a door: decode's own checks, on those
    # lines alone, in order, found by C scans (`list.index`)
    kinds = list(map(type, map(_event, records)))
    special = {i for kind in _CHECKED for i in _positions(kinds, kind)}
    special.update(i for schema in set(schemas) - {current} for i in _positions(schemas, schema))
    for i in sorted(special):
        records[i] = decode(lines[i], where(i))
    return records


def _positions(items: list[Any], value: Any) -> Iterator[int]:
    """Where `value` stands in `items`, each found by `list.index` (a C scan)."""
    i = -1
    while True:
        try:
            i = items.index(value, i + 1)
        except ValueError:
            return
        yield i


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
