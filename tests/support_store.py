"""Helpers shared by the store tests (tests/store/): a scenario, a seeded player, log readers."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from tabletrail.core.board.refusal import Rejection
from tabletrail.events.commands import Redo, Undo
from tabletrail.events.scenario.reader import load_scenario
from tabletrail.events.stores.protocol import Store
from tabletrail.events.stores.record import Record, decode
from tabletrail.projections.board import view
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "speed-meters-skirmish.toml"
GOLDEN = Path(__file__).resolve().parent / "golden"
CLOCK = "2026-11-29T00:00:00+00:00"
END_TURN = parse("end-turn")


def clock() -> str:
    return CLOCK


def fresh(store: Store) -> Encounter:
    """The skirmish scenario started on `store`, with a fixed clock so logs compare byte for byte."""
    return Encounter.create(store, load_scenario(SCENARIO), clock=clock)


def play(enc: Encounter, commands: int, seed: int = 1) -> int:
    """Play seeded random commands: moves (some refused), end-turns, undos (player and GM), redos.

    A new command after an undo abandons the redo branch, so every timeline
    feature shows up in a long enough game. Returns how many were refused.
    """
    rng = random.Random(seed)
    refused = 0
    for _ in range(commands):
        roll = rng.random()
        active = enc.state.turn.active
        f = enc.state.fighter(active)
        assert f is not None
        if roll < 0.35:
            x = min(max(f.pos[0] + rng.randint(-2, 2), 0), 11)
            y = min(max(f.pos[1] + rng.randint(-2, 2), 0), 7)
            text = f"move {active} {x},{y}"
            command = parse(text)
        elif roll < 0.6:
            text, command = "end-turn", END_TURN
        elif roll < 0.75:
            who = rng.choice(["gm", "gm", "blue", "red"])
            text, command = f"undo by={who}", Undo(by=who)
        elif roll < 0.9:
            text, command = "redo", Redo()
        else:
            text = f"adjust {active} 1 why=luck"
            command = parse(text)
        refused += isinstance(enc.execute(command, text), Rejection)
    return refused


def lines_of(store: Store) -> list[bytes]:
    return list(store.read())


def records_of(store: Store) -> list[Record]:
    return [decode(line, f"{store.name}:{n}") for n, line in enumerate(store.read(), start=1)]


def timeline_of(enc: Encounter) -> dict:
    """Everything a replay must agree on: the board and the undo/redo cursor."""
    t = enc.timeline
    return {
        "events": len(enc.records),
        "board": view(enc.state),
        "applied": list(t.applied),
        "undone": list(t.undone),
        "abandoned": sorted(t.abandoned),
    }


def snapshot_rows(path: Path) -> list[tuple[int, bytes]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT version, data FROM snapshots ORDER BY version").fetchall()
    return [(v, bytes(d)) for v, d in rows]
