"""A bundle is the same bytes with every shortcut of its build as without: the words kept by value
(a move's lines, cards, settings, events, spent sums, clock times: app/text/audit.py, render.py,
web/cards.py), the board's views kept by identity, a fighter's view kept by its value while
what it read of the state is the same (bundle.data.FighterViews), and a fighter's change from one
view to the next kept by the two views (bundle.data.delta's `diffs`). The slow way draws and words
everything afresh at every event. On every shipped replay (a GM's and a side's bundle) and on
random logs with undos and redos."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from tabletrail import bundle
from tabletrail.bundle import data
from tabletrail.core.board.state import EncounterState
from tabletrail.events.stores.jsonl import JsonlStore
from tabletrail.events.stores.memory import MemoryStore
from tabletrail.events.types import Redone, Undone
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import parse
from tabletrail.testing.helpers import encounter
from tabletrail.text import audit, render
from tabletrail.web import cards

from tests.rulesets.speed_meters.test_stateful import FIGHTERS, SCENARIO

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = sorted((ROOT / "replays").glob("*.jsonl"))


class _Forgetful(dict):  # type: ignore[type-arg]
    """A memo that keeps nothing: every answer made afresh."""

    def get(self, key: Any, default: Any = None) -> Any:
        return default

    def __setitem__(self, key: Any, value: Any) -> None:
        pass


def go_slow(m: pytest.MonkeyPatch) -> None:
    """Every shortcut of the build off: memos forget, views are drawn afresh at every event."""
    for module, name in (
        (audit, "_MOVES_SAID"),
        (audit, "_CARD_TEXTS"),
        (audit, "_CARDS_SAID"),
        (audit, "_SETTINGS_SAID"),
        (audit, "_SETTINGS_TEXTS"),
        (audit, "_CLOCKS"),
        (cards, "_SPENT_SAID"),
    ):
        assert isinstance(getattr(module, name), dict), name
        m.setattr(module, name, _Forgetful())
    m.setattr(render.Words, "event", lambda self, event: render._describe(self, event))

    board = data.board_view

    def afresh(state: EncounterState, rulings: bool = True, fighters: Any = None) -> dict[str, Any]:
        return board(state, rulings)  # no views kept: every fighter and part drawn anew

    m.setattr(data, "board_view", afresh)
    differ = data.delta
    m.setattr(data, "delta", lambda before, after, diffs=None: differ(before, after))  # no changes kept


def random_log(seed: int, commands: int = 200) -> list[bytes]:
    """A speed-meters fight of random commands, legal or not, with undos and redos among them."""
    rng = random.Random(seed)
    enc = encounter(SCENARIO)
    for _ in range(commands):
        r = rng.random()
        if r < 0.12:
            text = "undo"
        elif r < 0.2:
            text = "redo"
        elif r < 0.3:
            text = "end-turn"
        else:
            fid = enc.state.turn.active if rng.random() < 0.8 else rng.choice(FIGHTERS)
            verb = rng.choice(["move", "move", "move", "fly", "swim", "climb", "special-jump", "hover"])
            x, y, _ = enc.state.fighter(fid).pos
            text = f"{verb} {fid} {x + rng.randint(-2, 2)},{y + rng.randint(-2, 2)}"
            if rng.random() < 0.1:
                text = f"{rng.choice(['drop-prone', 'stand-up'])} {fid}"
        enc.execute(parse(text), text)  # a refusal appends nothing
    return list(enc.store.lines)


def builds(store: Any, role: str) -> bytes:
    return bundle.build(store, role=role)


@pytest.mark.parametrize("log", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_a_shipped_replay_bundles_to_the_same_bytes_as_the_slow_way(
    log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    side = sorted({f.side for f in Encounter.open(JsonlStore(log), snapshots=False).state.fighters})[0]
    fast = {role: builds(JsonlStore(log), role) for role in ("gm", side)}
    with monkeypatch.context() as m:
        go_slow(m)
        slow = {role: builds(JsonlStore(log), role) for role in ("gm", side)}
    assert fast == slow


@pytest.mark.parametrize("seed", range(1, 5))
def test_a_random_log_with_undos_bundles_to_the_same_bytes_as_the_slow_way(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = random_log(seed)
    records = Encounter.open(MemoryStore(lines), snapshots=False).records
    assert any(isinstance(r.event, Undone) for r in records)
    assert any(isinstance(r.event, Redone) for r in records)
    fast = {role: builds(MemoryStore(lines), role) for role in ("gm", "red")}
    with monkeypatch.context() as m:
        go_slow(m)
        slow = {role: builds(MemoryStore(lines), role) for role in ("gm", "red")}
    assert fast == slow


def test_the_views_kept_by_value_do_answer_on_a_fight_that_walks_back_and_forth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not a timing: a fighter back where it was a turn before is not drawn again (else the memo
    would only cost), and the bundle is still the slow way's."""
    enc = encounter(SCENARIO)
    for _ in range(12):
        fid = enc.state.turn.active
        x, y, _ = enc.state.fighter(fid).pos
        for step in (1, -1):
            text = f"move {fid} {x + step if step > 0 else x},{y}"
            enc.execute(parse(text), text)
        enc.execute(parse("end-turn"), "end-turn")
    lines = list(enc.store.lines)
    drawn = 0
    draw = data.fighter_view

    def counted(*args: Any) -> dict[str, Any]:
        nonlocal drawn
        drawn += 1
        return draw(*args)

    with monkeypatch.context() as m:
        m.setattr(data, "fighter_view", counted)
        fast = builds(MemoryStore(lines), "gm")
    boards = len({r.seq for r in Encounter.open(MemoryStore(lines), snapshots=False).records})
    assert 0 < drawn < boards // 2
    with monkeypatch.context() as m:
        go_slow(m)
        assert builds(MemoryStore(lines), "gm") == fast
