"""Doors on cell edges under every ruleset (tabletrail/doors, tabletrail/walls).

A door is closed, open or locked; a fighter on or beside its two cells opens or
closes it on its turn, for the ruleset's door_cost (free by default: none of the
four documents speaks of doors). A shut door stops a step like a wall; an open
one lets it through; undo and redo put the door back as they put back any batch.
"""

from __future__ import annotations

import pytest
from support import do, encounter, of_type, refuse
from tabletrail.core.board.walls import DOORS, WALLS
from tabletrail.core.search.reach import reach
from tabletrail.events import plugins
from tabletrail.events.types import DoorChanged, Moved, Spent

# The stats each ruleset's fighters need, and the budget they give the mover (as in test_reach_rulesets).
STATS = {
    "speed-meters": "speed = {n}",
    "initiative-yards": "initiative = {n}\nheight = 1.5",
    "round-meters": "movement = {n}\nap = 3",
    "ap-squares": "ap = {n}",
}

# Seven columns; a wall down grid line x = 3 with one door in it, between 2,2 and 3,2:
#    0123456
#  0 ...|...
#  1 ...|...
#  2 ...D...
#  3 ...|...
#  4 ...|...
DOOR = "2,2|3,2"


def scene(ruleset: str, at: tuple[int, int] = (2, 2), door: str = "closed = true", settings: str = "") -> str:
    stats = STATS[ruleset]
    return f"""
[encounter]
name = "a door under {ruleset}"
ruleset = "{ruleset}"
[settings]
{settings}
[map]
rows = [".......", ".......", ".......", ".......", "......."]
legend = {{ "." = "floor" }}
walls = ["3,0-3,2", "3,3-3,5"]
doors = [{{ at = "{DOOR}", {door} }}]
[[fighters]]
id = "m"
side = "blue"
at = [{at[0]}, {at[1]}]
{stats.format(n=6)}
[[fighters]]
id = "foe"
side = "red"
at = [6, 0]
{stats.format(n=2)}
"""


def test_every_ruleset_is_covered():
    assert set(STATS) == set(plugins.built_in())  # tabletrail's own (a plug-in tests itself)


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_through_a_door_open_then_closed_then_reopened_by_undo(ruleset: str):
    enc = encounter(scene(ruleset))
    assert enc.state.doors == {DOOR: "closed"}
    why = refuse(enc, "move m 3,2", WALLS).reason
    assert "the closed door 2,2|3,2" in why and "2,2 to 3,2" in why

    opened = of_type(do(enc, "open m 3,2|2,2"), DoorChanged)  # either cell first names the same door
    assert [(e.door, e.source, e.dest, e.fighter) for e in opened] == [(DOOR, "closed", "open", "m")]
    assert enc.state.doors == {DOOR: "open"}
    moved = of_type(do(enc, "move m 3,2"), Moved)
    assert moved[-1].steps[-1].to[:2] == (3, 2)

    do(enc, f"close m {DOOR}")  # from the far side: m stands on 3,2
    assert enc.state.doors == {DOOR: "closed"}
    why = refuse(enc, "move m 2,2", WALLS).reason
    assert "the closed door 2,2|3,2" in why

    do(enc, "undo")  # takes back the close: the door is open again
    assert enc.state.doors == {DOOR: "open"}
    do(enc, "move m 2,2")
    assert enc.state.fighter("m").pos[:2] == (2, 2)


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_an_open_door_is_still_not_passed_diagonally(ruleset: str):
    """The door's edge is open, but the walls on either side meet the corners a diagonal would cut."""
    enc = encounter(scene(ruleset, door="closed = false"))
    for to, corner in (("3,1", "3,2"), ("3,3", "3,3")):
        why = refuse(enc, f"move m {to}", WALLS).reason
        assert f"at the corner {corner}" in why and "a wall between" in why


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_reach_follows_the_door(ruleset: str):
    """Closed: nothing beyond the wall. Opened: the far side, the same by kept prices or priced live.
    Closed again: a new key for the kept prices, and the far side is gone again."""
    enc = encounter(scene(ruleset))

    def area() -> dict:
        kept, live = reach(enc.state, "m"), reach(enc.state, "m", table=False)
        assert kept.costs == live.costs
        return kept.costs

    shut = area()
    assert shut and all(x < 3 for x, _ in shut)
    assert area() == shut  # read from the kept prices now: the steps out of each cell are kept too
    do(enc, f"open m {DOOR}")
    opened = area()
    assert (3, 2) in opened and (4, 2) in opened
    assert opened[(3, 2)] == opened[(1, 2)]  # one straight step either way
    do(enc, f"close m {DOOR}")
    assert area() == shut


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_door_out_of_reach_is_refused(ruleset: str):
    enc = encounter(scene(ruleset, at=(1, 2)))
    why = refuse(enc, f"open m {DOOR}", DOORS).reason
    assert "m at 1,2 is not beside the door 2,2|3,2" in why
    assert enc.state.doors == {DOOR: "closed"}


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_a_door_is_reached_from_a_cell_touching_its_edge(ruleset: str):
    """2,1 touches the door's edge at its top end (diagonally adjacent to 3,2): close enough."""
    enc = encounter(scene(ruleset, at=(2, 1)))
    do(enc, f"open m {DOOR}")
    assert enc.state.doors == {DOOR: "open"}


def test_a_locked_door_stays_shut():
    enc = encounter(scene("speed-meters", door="closed = true, locked = true"))
    assert enc.state.doors == {DOOR: "locked"}
    assert "the door 2,2|3,2 is locked" in refuse(enc, f"open m {DOOR}", DOORS).reason
    assert "locked" in refuse(enc, f"close m {DOOR}", DOORS).reason
    assert "the locked door 2,2|3,2" in refuse(enc, "move m 3,2", WALLS).reason


def test_open_twice_or_close_a_closed_door_is_refused():
    enc = encounter(scene("initiative-yards"))
    assert "already closed" in refuse(enc, f"close m {DOOR}", DOORS).reason
    do(enc, f"open m {DOOR}")
    assert "already open" in refuse(enc, f"open m {DOOR}", DOORS).reason


def test_a_door_that_is_not_there_is_named():
    enc = encounter(scene("round-meters"))
    why = refuse(enc, "open m 2,3|3,3", DOORS).reason
    assert "no door between 2,3 and 3,3" in why and "doors: 2,2|3,2" in why
    assert "side by side" in refuse(enc, "open m 2,2|3,3", DOORS).reason
    assert "not a door" in refuse(enc, "open m 2,2", DOORS).reason


def test_only_on_its_turn_and_for_its_own_side():
    enc = encounter(scene("initiative-yards"))
    refuse(enc, "open foe 2,2|3,2", "tabletrail/turn-order")
    refuse(enc, f"open m {DOOR} by=red", "tabletrail/side")


@pytest.mark.parametrize(
    ("ruleset", "resource", "amount"),
    [
        ("initiative-yards", "movement", 100),
        ("round-meters", "movement", 100),
        ("ap-squares", "ap", 100),
        ("speed-meters", "actions", 1),
    ],
)
def test_door_cost_is_paid_from_the_ruleset_budget(ruleset: str, resource: str, amount: int):
    enc = encounter(scene(ruleset, settings="door_cost = 1"))
    spent = of_type(do(enc, f"open m {DOOR}"), Spent)
    assert [(s.fighter, s.resource, s.amount, s.rules) for s in spent] == [("m", resource, amount, (DOORS,))]


@pytest.mark.parametrize("ruleset", sorted(STATS))
def test_door_cost_is_free_by_default(ruleset: str):
    enc = encounter(scene(ruleset))
    assert enc.state.settings["door_cost"] == 0
    assert not of_type(do(enc, f"open m {DOOR}"), Spent)


def test_a_door_that_costs_more_than_is_left_is_refused():
    enc = encounter(scene("initiative-yards", settings="door_cost = 7"))
    why = refuse(enc, f"open m {DOOR}", DOORS).reason
    assert "costs 7 yd" in why and "door_cost" in why
    assert enc.state.doors == {DOOR: "closed"}


def test_redo_opens_it_again():
    enc = encounter(scene("speed-meters"))
    do(enc, f"open m {DOOR}")
    do(enc, "undo")
    assert enc.state.doors == {DOOR: "closed"}
    do(enc, "redo")
    assert enc.state.doors == {DOOR: "open"}


def test_a_log_with_door_events_replays_to_the_same_doors():
    from tabletrail.service.encounter import Encounter

    enc = encounter(scene("ap-squares"))
    do(enc, f"open m {DOOR}")
    do(enc, "move m 3,2")
    do(enc, f"close m {DOOR}")
    again = Encounter.open(enc.store)
    assert again.state.doors == {DOOR: "closed"}
    assert again.state.fighter("m").pos == enc.state.fighter("m").pos


def test_a_snapshot_keeps_the_doors(tmp_path):
    """The board a snapshot stores carries the doors' states: opened from it, the door is as left."""
    import tomllib

    from support import CLOCK
    from support_store import snapshot_rows
    from tabletrail.events.scenario.reader import parse_scenario
    from tabletrail.events.stores.sqlite_store import SqliteStore
    from tabletrail.projections.board import view
    from tabletrail.service.encounter import Encounter

    path = tmp_path / "door.db"
    store = SqliteStore(path, durable=False, snapshot_every=2)
    enc = Encounter.create(store, parse_scenario(tomllib.loads(scene("round-meters"))), clock=lambda: CLOCK)
    do(enc, f"open m {DOOR}")
    do(enc, "move m 3,2")
    store.close()
    again = Encounter.open(SqliteStore(path))
    assert again.state.doors == {DOOR: "open"} and again.state.fighter("m").pos[:2] == (3, 2)
    assert snapshot_rows(path), "a snapshot was taken"
    assert view(Encounter.open(SqliteStore(path), snapshots=False).state) == view(again.state)


def test_the_table_view_offers_open_or_close_only_beside_a_door(tmp_path):
    """Quick options: the door's verb appears for a fighter within reach of it, and names the door."""
    import tomllib
    import warnings

    from support import CLOCK
    from tabletrail.events.scenario.reader import parse_scenario
    from tabletrail.events.stores.jsonl import JsonlStore
    from tabletrail.service.encounter import Encounter

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette asks for httpx2; the test extra installs httpx
        from starlette.testclient import TestClient
    from support_web import bearer, invite
    from tabletrail.web.server import create_app

    path = tmp_path / "door.jsonl"
    Encounter.create(
        JsonlStore(path, durable=False),
        parse_scenario(tomllib.loads(scene("speed-meters"))),
        clock=lambda: CLOCK,
    )
    client = TestClient(create_app(path), base_url="http://127.0.0.1:8000", headers=bearer(invite(path)[1]))
    texts = {o["text"]: o for o in client.get("/api/options?fighter=m").json()["options"]}
    assert texts[f"open m {DOOR}"]["ok"] and not any(t.startswith("close") for t in texts)
    assert not any(t.startswith(("open", "close")) for t in _options(client, "foe"))  # far from it
    board = client.get("/api/state").json()
    assert board["doors"] == [{"at": DOOR, "cells": [[2, 2], [3, 2]], "state": "closed"}]
    assert board["walls"] == [[3, 0, 3, 2], [3, 3, 3, 5]]
    at = client.get("/api/state").json()["version"]
    assert client.post("/api/do", json={"version": at, "text": f"open m {DOOR}"}).status_code == 200
    texts = _options(client, "m")
    assert f"close m {DOOR}" in texts and f"open m {DOOR}" not in texts


def _options(client, fid: str) -> list[str]:
    return [o["text"] for o in client.get(f"/api/options?fighter={fid}").json()["options"]]


def test_only_the_gm_locks_and_unlocks_a_door():
    """No document has keys or lockpicks: the GM locks a closed door and unlocks a locked one (by=gm)."""
    enc = encounter(scene("round-meters", door="closed = true, locked = true"))
    why = refuse(enc, f"unlock m {DOOR} by=blue", DOORS).reason
    assert "only the GM may unlock a door" in why
    unlocked = of_type(do(enc, f"unlock m {DOOR}"), DoorChanged)
    assert [(e.source, e.dest) for e in unlocked] == [("locked", "closed")]
    assert "is not locked" in refuse(enc, f"unlock m {DOOR}", DOORS).reason
    do(enc, f"open m {DOOR} by=blue")
    assert "close it first" in refuse(enc, f"lock m {DOOR}", DOORS).reason
    do(enc, f"close m {DOOR} by=blue")
    do(enc, f"lock m {DOOR}")
    assert enc.state.doors == {DOOR: "locked"}
    assert "the locked door" in refuse(enc, "move m 3,2", WALLS).reason


# --- played at random: doors are facts of the log like any other ------------------------------------


def _stateful() -> type:
    from hypothesis import settings as hyp_settings
    from hypothesis import strategies as st
    from hypothesis.stateful import invariant, rule
    from support_stateful import EncounterMachine
    from tabletrail.core.board.refusal import Rejection
    from tabletrail.core.board.walls import step_blocked

    hops = st.tuples(st.integers(-1, 1), st.integers(-1, 1))

    class DoorMachine(EncounterMachine):
        """Walking, opening, closing, ending turns, undoing and redoing at random round one door.

        The harness checks replay, undo-all/redo-all and the log's bytes; here: a door only ever
        holds a DOOR state, and a step across a wall or a shut door is never accepted.
        """

        scenario = scene("speed-meters", at=(2, 2))

        @rule(hop=hops)
        def step(self, hop: tuple[int, int]) -> None:
            f = self.enc.state.fighter(self.active)
            to = (f.pos[0] + hop[0], f.pos[1] + hop[1])
            shut = step_blocked(self.enc.state, f.pos, to)
            result = self.run(f"move {f.id} {to[0]},{to[1]}")
            if shut:  # never accepted; refused by the walls, or by a rule the ruleset asks first
                assert isinstance(result, Rejection), (to, shut)
                assert result.rule == WALLS or "wall" not in result.reason, result

        @rule(trigger=st.sampled_from(["open", "close"]))
        def use_door(self, trigger: str) -> None:
            before = self.enc.state.doors[DOOR]
            result = self.run(f"{trigger} {self.active} {DOOR}")
            if not isinstance(result, Rejection):
                assert (before, self.enc.state.doors[DOOR]) == {"open": ("closed", "open")}.get(
                    trigger, ("open", "closed")
                )

        @invariant()
        def doors_hold_door_states(self) -> None:
            assert set(self.enc.state.doors) == {DOOR}
            assert self.enc.state.doors[DOOR] in ("open", "closed")

    DoorMachine.TestCase.settings = hyp_settings(max_examples=25, stateful_step_count=20, deadline=None)
    return DoorMachine


TestDoorsPlayedAtRandom = _stateful().TestCase


def test_a_negative_door_cost_is_refused_at_load_and_by_a_ruling():
    from tabletrail.events.errors import InputError

    with pytest.raises(InputError, match=r"settings\.door_cost: must not be negative, got -1"):
        encounter(scene("initiative-yards", settings="door_cost = -1"))
    enc = encounter(scene("initiative-yards"))
    assert "must not be negative" in refuse(enc, "setting door_cost -1 why=test", DOORS).reason
    do(enc, "setting door_cost 2 why='heavy doors'")
    assert enc.state.settings["door_cost"] == 2


def test_the_gm_unlocks_a_door_anywhere_at_any_time():
    """A key found, a lock picked: the GM's ruling needs neither the fighter's turn nor its place."""
    enc = encounter(scene("round-meters", door="closed = true, locked = true"))
    assert enc.state.turn.active == "m" and enc.state.fighter("foe").pos[:2] == (6, 0)  # far, not its turn
    unlocked = of_type(do(enc, f"unlock foe {DOOR}"), DoorChanged)
    assert [(e.source, e.dest) for e in unlocked] == [("locked", "closed")]
