"""Opening a log leaves the cyclic collector as it found it (issue 29): on, nothing left frozen, and
what the fold made still collectable; the board is the one the plain loop folds."""

from __future__ import annotations

import gc

from support_store import fresh, play
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter


def test_opening_a_log_leaves_the_collector_on_with_nothing_frozen():
    enc = fresh(MemoryStore())
    play(enc, 300)
    lines = list(enc.store.lines)  # type: ignore[attr-defined]
    assert gc.isenabled()
    opened = Encounter.open(MemoryStore(lines))
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert view(opened.state) == view(enc.state)


def test_a_cycle_alive_while_a_log_opens_is_still_collected_once_dropped():
    class Loop:
        def __init__(self) -> None:
            self.me = self

    enc = fresh(MemoryStore())
    play(enc, 50)
    lines = list(enc.store.lines)  # type: ignore[attr-defined]
    loop = Loop()
    Encounter.open(MemoryStore(lines))
    del loop
    gc.collect()
    assert not any(type(o) is Loop for o in gc.get_objects())
