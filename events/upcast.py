"""Schema evolution: old log lines are brought up to the current event vocabulary on read.

Every record says which version of the event vocabulary wrote it: `Record.schema`
(absent means 1, the first version), and `EncounterStarted.schema` for the
encounter as a whole. A change a default can absorb (a new field with a default,
a new event type) needs no new version. A change it cannot absorb (a field
renamed, split, or its unit changed) raises SCHEMA_VERSION in events/types.py by
one and registers one step here: for each event type it changes, a function from
that event's JSON at version N to its JSON at version N+1.

Reading a line written at version N decodes it to plain JSON, runs the steps
N -> N+1 -> ... -> current on it, and only then decodes it into typed events, so
`evolve` and every projection only ever see current events. The log file itself
is never rewritten: its hash chain covers the bytes as they were written.

At version 1 the chain is empty: no step has been needed yet. A step looks like:

    @CHAIN.step("moved", 1)
    def _moved_cost_in_cu(event: dict) -> dict:   # 1 -> 2: costs became centi-units
        ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletrail.events.errors import InputError
from tabletrail.events.types import SCHEMA_VERSION

Json = dict[str, Any]
Step = Callable[[Json], Json]  # one event's JSON at version N -> its JSON at version N+1

FIRST_VERSION = 1  # what a line without a `schema` field was written with


class Chain:
    """The upcasters of one vocabulary: per version, per event type, one step up."""

    def __init__(self, current: int = SCHEMA_VERSION) -> None:
        self.current = current
        self.steps: dict[int, dict[str, Step]] = {}

    def step(self, event_type: str, from_version: int) -> Callable[[Step], Step]:
        """Register the step that takes `event_type` from `from_version` to the next version."""
        if not FIRST_VERSION <= from_version < self.current:
            raise ValueError(f"a step must start between version {FIRST_VERSION} and {self.current - 1}")

        def register(fn: Step) -> Step:
            table = self.steps.setdefault(from_version, {})
            if event_type in table:
                raise ValueError(f"{event_type!r} already has a step from version {from_version}")
            table[event_type] = fn
            return fn

        return register

    def version_of(self, raw: Any, where: str) -> int:
        """The vocabulary version a decoded line says it was written with."""
        if not isinstance(raw, dict):
            raise InputError(f"{where}: not a log record (expected a JSON object, got {type(raw).__name__})")
        version = raw.get("schema", FIRST_VERSION)
        if not isinstance(version, int) or isinstance(version, bool) or version < FIRST_VERSION:
            raise InputError(
                f"{where}: $.schema: expected a version number from {FIRST_VERSION}, got {version!r}"
            )
        newest = version
        event = raw.get("event")
        if isinstance(event, dict) and event.get("type") == "encounter-started":
            started = event.get("schema", FIRST_VERSION)
            if isinstance(started, int) and not isinstance(started, bool):
                newest = max(newest, started)
        if newest > self.current:
            raise InputError(
                f"{where}: written by a newer tabletrail (event schema {newest}; this version reads up to "
                f"{self.current}): upgrade tabletrail to open this log"
            )
        return version

    def upcast(self, raw: Any, where: str) -> Json:
        """The record's JSON with its event brought to the current version (a new dict)."""
        version = self.version_of(raw, where)
        event = raw.get("event")
        if not isinstance(event, dict):
            return {**raw, "schema": self.current}  # typed decoding names what is wrong with it
        for v in range(version, self.current):
            fn = self.steps.get(v, {}).get(str(event.get("type")))
            if fn is None:
                continue
            try:
                event = fn(dict(event))
            except Exception as exc:  # a step met a line it cannot read: name it, no traceback
                raise InputError(
                    f"{where}: cannot bring this {event.get('type')} event "
                    f"from schema {v} to {v + 1}: {exc!r}"
                ) from None
        return {**raw, "event": event, "schema": self.current}


CHAIN = Chain()  # the chain `stores.record.decode` runs; register steps on it with @CHAIN.step(...)
