"""A log read back whole: every record checked for its place and its link in the chain."""

from collections.abc import Iterator

from tabletrail.events.errors import InputError
from tabletrail.events.stores.chain import chain_broken, chain_key, line_hash
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.record import Record, decode
from tabletrail.events.types import EncounterStarted


def read_records(store: Store) -> Iterator[Record]:
    """Every record in order, checked for sequence and batch order as it goes."""
    expected_prev = ""
    key = b""
    for lineno, line in enumerate(store.read(), start=1):
        where = f"{store.name}:{lineno}"
        record = decode(line, where)
        if record.seq != lineno:
            raise InputError(f"{where}: seq is {record.seq}, expected {lineno}")
        if lineno == 1:
            if not isinstance(record.event, EncounterStarted):
                raise InputError(f"{where}: a log must start with an encounter-started event")
            key = chain_key(record, where)
        if record.prev != expected_prev:
            raise InputError(f"{where}: {chain_broken(lineno)}")
        expected_prev = line_hash(line, key)
        yield record
